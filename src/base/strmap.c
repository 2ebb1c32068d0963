/* strmap.c: see strmap.h. */
#include "base/strmap.h"

#include "base/alloc.h"

#include <stdint.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a, a word at a time, then a finalizer so the low bits mix */
	size_t i = 0;
	for (; i + 8 <= len; i += 8) { /* ids are long (a session's uuids: 36 bytes) */
		uint64_t w;
		memcpy(&w, s + i, sizeof w);
		h = (h ^ w) * 1099511628211ULL;
		h ^= h >> 29;
	}
	for (; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

/* The slot of key, or the empty slot where it would go. */
static size_t find(const struct strmap_slot *slots, size_t mask, const char *key, size_t len)
{
	for (size_t i = hash_bytes(key, len) & mask;; i = (i + 1) & mask) {
		const struct strmap_slot *s = &slots[i];
		if (!s->key || (s->len == len && memcmp(s->key, key, len) == 0))
			return i;
	}
}

/* Doubles the table (16 slots at first); keeps it at most half full. */
static int grow(struct strmap *m)
{
	size_t cap = m->slots ? (m->mask + 1) * 2 : 16;
	struct strmap_slot *slots = cs_calloc(cap, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; m->slots && i <= m->mask; i++)
		if (m->slots[i].key)
			slots[find(slots, cap - 1, m->slots[i].key, m->slots[i].len)] = m->slots[i];
	cs_free(m->slots);
	m->slots = slots;
	m->mask = cap - 1;
	return 0;
}

int strmap_put(struct strmap *m, const char *key, size_t len, size_t val, size_t *old)
{
	if ((!m->slots || (m->n + 1) * 2 > m->mask + 1) && grow(m))
		return -1;
	struct strmap_slot *s = &m->slots[find(m->slots, m->mask, key, len)];
	*old = s->key ? s->val : STRMAP_NONE;
	if (!s->key) {
		s->key = key;
		s->len = len;
		m->n++;
	}
	s->val = val;
	return 0;
}

size_t strmap_get(const struct strmap *m, const char *key, size_t len)
{
	if (!m->slots)
		return STRMAP_NONE;
	const struct strmap_slot *s = &m->slots[find(m->slots, m->mask, key, len)];
	return s->key ? s->val : STRMAP_NONE;
}

void strmap_fini(struct strmap *m)
{
	cs_free(m->slots);
	*m = (struct strmap)STRMAP_INIT;
}

int strmap_first_repeat(const void *base, size_t n, size_t stride, size_t at, size_t *repeat, size_t *first)
{
	struct strmap m = STRMAP_INIT;
	*repeat = *first = STRMAP_NONE;
	for (size_t i = 0; i < n; i++) {
		const char *k;
		memcpy(&k, (const char *)base + i * stride + at, sizeof k);
		if (strmap_put(&m, k, strlen(k), i, first)) {
			strmap_fini(&m);
			return -1;
		}
		if (*first != STRMAP_NONE) {
			*repeat = i;
			break;
		}
	}
	strmap_fini(&m);
	return 0;
}
