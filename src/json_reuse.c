/* json_reuse.c: one pool for a run of small JSON documents (see json_reuse.h). */
#include "json_reuse.h"

#include "alloc.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define REUSE_FIRST ((size_t)64 << 10)
#define REUSE_ALIGN 16
#define REUSE_PAIRWISE_MAX 32 /* keys in one object this scan checks; more go to json_doc_parse */

struct json_reuse_chunk {
	struct json_reuse_chunk *next;
	size_t used, cap;
	_Alignas(REUSE_ALIGN) unsigned char bytes[];
};

static struct json_reuse *active; /* the pool cJSON allocates from, during json_reuse_parse only */

static void *reuse_alloc(size_t n)
{
	struct json_reuse *r = active;
	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + REUSE_ALIGN - 1) / REUSE_ALIGN * REUSE_ALIGN;
	struct json_reuse_chunk *c = r->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = c ? c->cap * 2 : REUSE_FIRST;
		if (cap < n)
			cap = n;
		struct json_reuse_chunk *fresh = cs_malloc(sizeof *fresh + cap);
		if (!fresh)
			return NULL;
		*fresh = (struct json_reuse_chunk){ .next = c, .cap = cap };
		r->head = c = fresh;
	}
	void *out = c->bytes + c->used;
	c->used += n;
	r->used_all += n;
	return out;
}

static void reuse_free(void *ptr)
{
	(void)ptr; /* everything goes at the next reset */
}

static void free_chunks(struct json_reuse_chunk *c)
{
	for (struct json_reuse_chunk *next; c; c = next) {
		next = c->next;
		cs_free(c);
	}
}

/* Empties the pool for the next document: one chunk stays; when the last
 * document needed several, they give way to one that holds as much. */
static void reset(struct json_reuse *r)
{
	struct json_reuse_chunk *c = r->head;
	if (c && c->next) {
		size_t cap = 0;
		for (struct json_reuse_chunk *k = c; k; k = k->next)
			cap += k->cap;
		free_chunks(c);
		r->head = cs_malloc(sizeof *r->head + cap);
		if (r->head)
			*r->head = (struct json_reuse_chunk){ .cap = cap };
	} else if (c) {
		c->used = 0;
	}
	r->used_all = 0;
}

void json_reuse_fini(struct json_reuse *r)
{
	free_chunks(r->head);
	*r = (struct json_reuse)JSON_REUSE_INIT;
}

/* ---- the checks: true when json_doc_parse would find nothing ------------ */

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Where the next '"' or '\\' is in s[i..n), or n: sixteen bytes at a time
 * with SSE2, else eight (a word's bytes that equal c show as high bits of
 * has(w ^ c*ONES)). Most of a session's bytes are string text. */
static size_t quote_or_escape(const char *s, size_t n, size_t i)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
	for (; i + 16 <= n; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		unsigned hit = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
		if (hit)
			return i + (size_t)__builtin_ctz(hit);
	}
#endif
	for (; i + 8 <= n; i += 8) {
		uint64_t w, q, b;
		memcpy(&w, s + i, sizeof w);
		q = w ^ (ONES * '"');
		b = w ^ (ONES * '\\');
		if (((q - ONES) & ~q & HIGHS) | ((b - ONES) & ~b & HIGHS))
			break;
	}
	for (; i < n; i++)
		if (s[i] == '"' || s[i] == '\\')
			return i;
	return n;
}

/* The nesting stays within JSON_MAX_DEPTH and no string holds a \u0000
 * escape: json_doc.c's prescan would pass the text. A string's escapes
 * are stepped over two bytes at a time, as there. */
static bool scan_passes(const char *s, size_t n)
{
	size_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			for (i = quote_or_escape(s, n, i + 1); i < n && s[i] == '\\'; i = quote_or_escape(s, n, i + 2))
				if (s[i + 1 < n ? i + 1 : i] == 'u' && i + 5 < n && !memcmp(s + i + 1, "u0000", 5))
					return false;
		} else if (c == '{' || c == '[') {
			if (++depth > JSON_MAX_DEPTH)
				return false;
		} else if ((c == '}' || c == ']') && depth) {
			depth--;
		}
	}
	return true;
}

/* No object of the tree has a key twice (or one too big to tell here). A
 * key's length and first and last bytes pick one of 64 bits; two keys on
 * one bit are compared. */
static bool keys_unique(const cJSON *v)
{
	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return true;
	if (cJSON_IsObject(v)) {
		const cJSON *keys[REUSE_PAIRWISE_MAX];
		size_t nkeys = 0;
		uint64_t seen = 0, again = 0;
		for (const cJSON *it = v->child; it; it = it->next) {
			if (!it->string)
				continue;
			if (nkeys == REUSE_PAIRWISE_MAX)
				return false;
			size_t len = strlen(it->string);
			unsigned bit = (unsigned)(len * 7u + (unsigned char)it->string[0] * 3u +
						  (len ? (unsigned char)it->string[len - 1] : 0u)) & 63u;
			again |= seen & (1ull << bit);
			seen |= 1ull << bit;
			keys[nkeys++] = it;
		}
		for (size_t a = 0; again && a < nkeys; a++)
			for (size_t b = a + 1; b < nkeys; b++)
				if (!strcmp(keys[a]->string, keys[b]->string))
					return false;
	}
	for (const cJSON *it = v->child; it; it = it->next)
		if (!keys_unique(it))
			return false;
	return true;
}

int json_reuse_parse(struct json_reuse *r, struct json_doc *d, const char *data, size_t len, struct cs_error *err)
{
	*d = (struct json_doc){ .data = data, .len = len };
	if (scan_passes(data, len)) {
		reset(r);
		active = r;
		cJSON_Hooks hooks = { .malloc_fn = reuse_alloc, .free_fn = reuse_free };
		cJSON_InitHooks(&hooks);
		cJSON *root = cJSON_ParseWithLengthOpts(data, len, NULL, false);
		cs_alloc_install_cjson_hooks(); /* every other tree (built, printed) as before */
		active = NULL;
		if (root && keys_unique(root)) {
			d->root = root;
			return CS_OK;
		}
	}
	return json_doc_parse(d, data, len, err); /* its error, or its own answer on what this scan could not tell */
}
