/* quick.c: the memory reader's quick way through an item (quick.h). An
 * item of the usual shape is read straight from its bytes, no tree: an
 * object of `id`, `type`, `content` (strings), `tokens` (a plain whole
 * number) and `scores` (an object of recency, relevance and salience, plain
 * decimal numbers), each key once, written without escapes; strings without
 * raw control characters or \u escapes; a valid id and type. A number is
 * read as strtod reads it when it is exact that way (at most 15 digits and
 * a power of ten up to 22: one correctly rounded division or product).
 * Anything else is declined before anything is kept, and load.c reads the
 * item through json_doc as before, so every error is that path's. */
#include "quick.h"

#include "json_scan.h"

#include <stdint.h>
#include <string.h>

#define QUICK_DIGITS 15 /* digits a double holds exactly */

struct quick {
	const char *p, *end;
};

static void ws(struct quick *q)
{
	while (q->p < q->end && (unsigned char)*q->p <= ' ') /* cJSON's white space */
		q->p++;
}

static bool eat(struct quick *q, char c)
{
	ws(q);
	if (q->p >= q->end || *q->p != c)
		return false;
	q->p++;
	return true;
}

/* Whether \c is an escape of one byte (\u is not). */
static bool one_byte_escape(char c)
{
	switch (c) {
	case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
		return true;
	default:
		return false;
	}
}

/* A string's body (at its opening quote); *esc the escapes it holds (\u
 * excluded: declined), each one byte unescaped. */
static bool string(struct quick *q, const char **s, size_t *n, size_t *esc)
{
	if (!eat(q, '"'))
		return false;
	const char *b = q->p;
	*esc = 0;
	for (const char *p = json_string_stop(b, q->end); p < q->end; p = json_string_stop(p + 1, q->end)) {
		unsigned char c = (unsigned char)*p;
		if (c == '"') {
			*s = b;
			*n = (size_t)(p - b);
			q->p = p + 1;
			return true;
		}
		if (c < ' ')
			return false;
		if (c == '\\') {
			if (p + 1 >= q->end || !one_byte_escape(p[1]))
				return false;
			++*esc;
			p++;
		}
	}
	return false;
}

static const double pow10s[] = { 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				  1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22 };

/* A number of the JSON grammar, exact as above; *whole when it has no
 * fraction, exponent or sign. */
static bool number(struct quick *q, double *out, bool *whole)
{
	ws(q);
	const char *p = q->p, *e = q->end;
	bool neg = p < e && *p == '-';
	p += neg;
	if (p >= e || *p < '0' || *p > '9' || (*p == '0' && p + 1 < e && p[1] >= '0' && p[1] <= '9'))
		return false;
	uint64_t m = 0;
	int digits = 0, scale = 0;
	for (; p < e && *p >= '0' && *p <= '9'; p++, digits++)
		m = m * 10 + (uint64_t)(*p - '0');
	*whole = !neg;
	if (p < e && *p == '.') {
		*whole = false;
		if (++p >= e || *p < '0' || *p > '9')
			return false;
		for (; p < e && *p >= '0' && *p <= '9'; p++, digits++, scale++)
			m = m * 10 + (uint64_t)(*p - '0');
	}
	if (digits > QUICK_DIGITS || scale > 22 || (p < e && (*p == 'e' || *p == 'E')))
		return false;
	double v = scale ? (double)m / pow10s[scale] : (double)m;
	*out = neg ? -v : v;
	q->p = p;
	return true;
}

static bool scores(struct quick *q, struct memory_quick_item *it)
{
	static const char *const keys[MW_COUNT] = { "recency", "relevance", "salience" };
	if (!eat(q, '{'))
		return false;
	if (eat(q, '}'))
		return true;
	do {
		const char *k;
		size_t n;
		size_t esc;
		bool whole;
		if (!string(q, &k, &n, &esc) || esc || !eat(q, ':'))
			return false;
		int w = 0;
		while (w < MW_COUNT && !(strlen(keys[w]) == n && !memcmp(keys[w], k, n)))
			w++;
		if (w == MW_COUNT || (it->given & (1u << w)) || !number(q, &it->scores[w], &whole))
			return false;
		it->given |= 1u << w;
	} while (eat(q, ','));
	return eat(q, '}');
}

enum { K_ID, K_TYPE, K_CONTENT, K_TOKENS, K_SCORES, K_COUNT };

static bool member(struct quick *q, struct memory_quick_item *it, unsigned *seen, const char *const *types)
{
	static const char *const keys[K_COUNT] = { "id", "type", "content", "tokens", "scores" };
	const char *k, *s;
	size_t n, sn, esc;
	bool whole;
	if (!string(q, &k, &n, &esc) || esc || !eat(q, ':'))
		return false;
	int key = 0;
	while (key < K_COUNT && !(strlen(keys[key]) == n && !memcmp(keys[key], k, n)))
		key++;
	if (key == K_COUNT || (*seen & (1u << key)))
		return false;
	*seen |= 1u << key;
	switch (key) {
	case K_ID:
		if (!string(q, &s, &sn, &esc) || esc || !sn)
			return false;
		it->id = s, it->id_len = sn;
		return true;
	case K_TYPE:
		if (!string(q, &s, &sn, &esc) || esc)
			return false;
		for (it->type = 0; it->type < MEM_TYPE_COUNT; it->type++)
			if (strlen(types[it->type]) == sn && !memcmp(types[it->type], s, sn))
				return true;
		return false;
	case K_CONTENT:
		return string(q, &it->content, &it->content_len, &it->escaped);
	case K_TOKENS: {
		double v;
		if (!number(q, &v, &whole) || !whole)
			return false;
		it->tokens = (long)v;
		return true;
	}
	default:
		return scores(q, it);
	}
}

bool memory_quick_read(const char *data, size_t len, size_t start, const char *const *types,
		       struct memory_quick_item *it, size_t *end)
{
	struct quick q = { data + start, data + len };
	*it = (struct memory_quick_item){ .tokens = -1 };
	unsigned seen = 0;
	if (!eat(&q, '{'))
		return false;
	do {
		if (!member(&q, it, &seen, types))
			return false;
	} while (eat(&q, ','));
	if (!eat(&q, '}') || (seen & 7u) != 7u)
		return false;
	*end = (size_t)(q.p - data);
	return true;
}
