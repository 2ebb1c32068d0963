/* json/reuse.c: one pool for a run of small JSON documents (see json/reuse.h). */
#include "json/reuse.h"


#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define REUSE_PAIRWISE_MAX 32 /* keys in one object this scan checks; more go to json_doc_parse */

void json_reuse_fini(struct json_reuse *r)
{
	json_pool_fini(&r->pool);
}

void json_reuse_keep(struct json_reuse *r, struct json_doc *d)
{
	if (d->root && !d->pool.head) { /* a tree of r's pool (json_doc_parse's own has its pool) */
		d->pool = r->pool;
		r->pool = (struct json_pool){ 0 };
	}
}

/* ---- the checks: true when json_doc_parse would find nothing ------------ */

/* Whether "u0000" appears anywhere in s[0..n): when it does not, no string
 * holds a \u0000 escape (json/doc.c's NUL check passes); the rare text
 * that has it, escaped or not, goes to json_doc_parse. A 'u' followed by a
 * '0' is looked for sixteen bytes at a time with SSE2: the pair is rare in
 * text, where a 'u' alone or a backslash is not. */
static bool has_u0000(const char *s, size_t n)
{
	size_t i = 0;
	if (n < 5)
		return false;
#ifdef __SSE2__
	const __m128i u = _mm_set1_epi8('u'), zero = _mm_set1_epi8('0');
	for (; i + 17 <= n; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 1));
		unsigned hit = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, u), _mm_cmpeq_epi8(b, zero)));
		for (; hit; hit &= hit - 1) {
			size_t at = i + (size_t)__builtin_ctz(hit);
			if (at + 5 <= n && !memcmp(s + at, "u0000", 5))
				return true;
		}
	}
#endif
	for (; i + 5 <= n; i++)
		if (s[i] == 'u' && s[i + 1] == '0' && !memcmp(s + i, "u0000", 5))
			return true;
	return false;
}

/* Only blanks from s[at] to the end: cJSON took the whole text (json/doc.c's
 * depth count runs over all of it, a tree's depth over what cJSON took). */
static bool all_taken(const char *s, size_t n, const char *end)
{
	if (!end || end < s || end > s + n)
		return false;
	for (size_t i = (size_t)(end - s); i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

/* Whether two keys of obj are the same (or there are more keys than this
 * checks itself): a key's length and first, second and last bytes pick one
 * of 64 bits, and only keys on one bit are compared. */
static bool keys_repeat(const cJSON *obj)
{
	const char *keys[REUSE_PAIRWISE_MAX];
	unsigned char bits[REUSE_PAIRWISE_MAX];
	size_t nkeys = 0;
	uint64_t seen = 0, again = 0;
	for (const cJSON *it = obj->child; it; it = it->next) {
		if (!it->string)
			continue;
		if (nkeys == REUSE_PAIRWISE_MAX)
			return true;
		const unsigned char *k = (const unsigned char *)it->string;
		size_t len = strlen(it->string);
		unsigned bit = (unsigned)(len * 11u + (len ? k[0] * 5u + k[1] * 3u + k[len - 1] : 0u)) & 63u;
		again |= seen & (1ull << bit);
		seen |= 1ull << bit;
		keys[nkeys] = it->string;
		bits[nkeys++] = (unsigned char)bit;
	}
	for (size_t a = 0; again && a < nkeys; a++)
		for (size_t b = a + 1; b < nkeys; b++)
			if (bits[a] == bits[b] && !strcmp(keys[a], keys[b]))
				return true;
	return false;
}

/* The tree nests JSON_MAX_DEPTH containers at most (depth: v's own) and no
 * object has a key twice. */
static bool tree_passes(const cJSON *v, size_t depth)
{
	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return true;
	if (depth > JSON_MAX_DEPTH || (cJSON_IsObject(v) && keys_repeat(v)))
		return false;
	for (const cJSON *it = v->child; it; it = it->next)
		if (!tree_passes(it, depth + 1))
			return false;
	return true;
}

int json_reuse_parse(struct json_reuse *r, struct json_doc *d, const char *data, size_t len, struct cs_error *err)
{
	*d = (struct json_doc){ .data = data, .len = len };
	if (!has_u0000(data, len) && !memchr(data, 0, len)) { /* a raw NUL too: json_doc_parse tells it */
		json_pool_reset(&r->pool);
		const char *end = NULL;
		cJSON *root = json_pool_parse(&r->pool, data, len, &end);
		if (root && all_taken(data, len, end) && tree_passes(root, 1)) {
			d->root = root;
			return CS_OK;
		}
	}
	return json_doc_parse(d, data, len, err); /* its error, or its own answer on what this scan could not tell */
}
