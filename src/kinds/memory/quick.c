/* quick.c: the memory reader's quick way through an item (quick.h). An
 * item of the usual shape is read straight from its bytes, no tree: an
 * object of `id`, `type`, `content` (strings), `tokens` (a plain whole
 * number) and `scores` (an object of recency, relevance and salience, plain
 * decimal numbers), each key once, written without escapes; strings without
 * raw control characters or \u escapes; a valid id and type. A number is
 * read as strtod reads it when it is exact that way (at most 15 digits and
 * a power of ten up to 15: one correctly rounded division).
 * Anything else is declined before anything is kept, and load.c reads the
 * item through json_doc as before, so every error is that path's. */
#include "quick.h"

#include "json/lex.h"
#include "json/scan.h"

#include <string.h>

#define QUICK_DIGITS 15 /* digits a double holds exactly (so at most 15 after the point) */

static const double pow10s[QUICK_DIGITS + 1] = { 1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
						 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

/* A number of the JSON grammar, exact as above (json_lex_number's digits
 * as one integer, divided once); *whole when it has no fraction, exponent
 * or sign. */
static bool number(struct json_quick *q, double *out, bool *whole)
{
	json_quick_ws(q);
	const struct json_lex_num *num = &q->num;
	const char *after = json_lex_number(q->p, q->end, &q->num);
	if (!after || num->lead_zero || num->exp || num->digits > QUICK_DIGITS)
		return false;
	double v = num->frac_digits ? (double)num->mantissa / pow10s[num->frac_digits] : (double)num->mantissa;
	*out = num->neg ? -v : v;
	*whole = !num->neg && !num->frac;
	q->p = after;
	return true;
}

static bool scores(struct json_quick *q, struct memory_quick_item *it)
{
	static const char *const keys[MW_COUNT] = { "recency", "relevance", "salience" };
	if (!json_quick_eat(q, '{'))
		return false;
	if (json_quick_eat(q, '}'))
		return true;
	do {
		bool whole;
		int w = json_quick_key(q, keys, MW_COUNT, &it->given);
		if (w < 0 || !number(q, &it->scores[w], &whole))
			return false;
	} while (json_quick_eat(q, ','));
	return json_quick_eat(q, '}');
}

enum { K_ID, K_TYPE, K_CONTENT, K_TOKENS, K_SCORES, K_COUNT };

static bool member(struct json_quick *q, struct memory_quick_item *it, unsigned *seen, const char *const *types)
{
	static const char *const keys[K_COUNT] = { "id", "type", "content", "tokens", "scores" };
	const char *s;
	size_t sn, esc;
	bool whole;
	int key = json_quick_key(q, keys, K_COUNT, seen);
	if (key < 0)
		return false;
	switch (key) {
	case K_ID:
		if (!json_quick_string(q, &s, &sn, &esc) || esc || !sn)
			return false;
		it->id = s, it->id_len = sn;
		return true;
	case K_TYPE:
		if (!json_quick_string(q, &s, &sn, &esc) || esc)
			return false;
		for (it->type = 0; it->type < MEM_TYPE_COUNT; it->type++)
			if (strlen(types[it->type]) == sn && !memcmp(types[it->type], s, sn))
				return true;
		return false;
	case K_CONTENT:
		return json_quick_string(q, &it->content, &it->content_len, &it->escaped);
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
	struct json_quick q = { .p = data + start, .end = data + len };
	*it = (struct memory_quick_item){ .tokens = -1 };
	unsigned seen = 0;
	if (!json_quick_eat(&q, '{'))
		return false;
	do {
		if (!member(&q, it, &seen, types))
			return false;
	} while (json_quick_eat(&q, ','));
	if (!json_quick_eat(&q, '}') || (seen & 7u) != 7u)
		return false;
	*end = (size_t)(q.p - data);
	return true;
}
