/* quick.c: the ledger reader's quick way through a message row (quick.h).
 * A row of the usual shape is read straight from its bytes, no tree: an
 * object of `id` and `turn_id` (non-empty strings without escapes, or plain
 * whole numbers of at most 15 digits), `role` (one of the four, without
 * escapes), `content` (a string without raw control characters or \u
 * escapes), `sequence` (a plain whole number of at most 15 digits) and the
 * columns the reader does not look at (`source`, `created_at`,
 * `context_json`: such a string, null or a plain number), each key once and
 * written without escapes. Anything else is declined before anything is
 * kept, and load.c reads the row through json_doc as before, so every
 * error and warning is that path's. */
#include "quick.h"

#include "json/lex.h"
#include "json/scan.h"

#include <string.h>

#define QUICK_DIGITS 15 /* digits printed back as the tree's way prints them (%.0f) */

const char *const ledger_quick_roles[4] = { "user", "assistant", "system", "tool" };

/* Whether a string starts here (past white space). */
static bool at_string(struct json_quick *q)
{
	json_quick_ws(q);
	return q->p < q->end && *q->p == '"';
}

/* Plain digits (json_lex_number's count: no sign, fraction or exponent;
 * no leading zero but "0"), at most QUICK_DIGITS of them; *v their value. */
static bool digits(struct json_quick *q, const char **s, size_t *n, long *v)
{
	json_quick_ws(q);
	const struct json_lex_num *num = &q->num;
	const char *after = json_lex_number(q->p, q->end, &q->num);
	if (!after || !num->count || num->lead_zero || num->digits > QUICK_DIGITS)
		return false;
	*s = num->s;
	*n = num->n;
	*v = (long)num->value;
	q->p = after;
	return true;
}

/* An id: a non-empty string without escapes, or plain digits. */
static bool id(struct json_quick *q, const char **s, size_t *n)
{
	size_t esc;
	if (at_string(q))
		return json_quick_string(q, s, n, &esc) && !esc && *n;
	long v;
	return digits(q, s, n, &v);
}

/* A column the reader skips: a string of the shape above, null or plain digits. */
static bool skipped(struct json_quick *q)
{
	const char *s;
	size_t n, esc;
	if (at_string(q))
		return json_quick_string(q, &s, &n, &esc);
	if (q->end - q->p >= 4 && !memcmp(q->p, "null", 4)) {
		q->p += 4;
		return true;
	}
	long v;
	return digits(q, &s, &n, &v);
}

enum { K_ID, K_TURN, K_ROLE, K_CONTENT, K_SEQUENCE, K_SOURCE, K_CREATED, K_CONTEXT, K_COUNT };

static bool member(struct json_quick *q, struct ledger_quick_message *m, unsigned *seen)
{
	static const char *const keys[K_COUNT] = { "id", "turn_id", "role", "content", "sequence",
						   "source", "created_at", "context_json" };
	const char *s;
	size_t sn, esc;
	int key = json_quick_key(q, keys, K_COUNT, seen);
	if (key < 0)
		return false;
	switch (key) {
	case K_ID:
		return id(q, &m->id, &m->id_len);
	case K_TURN:
		return id(q, &m->turn, &m->turn_len);
	case K_ROLE:
		if (!json_quick_string(q, &s, &sn, &esc) || esc)
			return false;
		for (m->role = 0; m->role < 4; m->role++)
			if (strlen(ledger_quick_roles[m->role]) == sn && !memcmp(ledger_quick_roles[m->role], s, sn))
				return true;
		return false;
	case K_CONTENT:
		m->has_content = true;
		return json_quick_string(q, &m->content, &m->content_len, &m->escaped);
	case K_SEQUENCE:
		return digits(q, &s, &sn, &m->sequence);
	default:
		return skipped(q);
	}
}

bool ledger_quick_message(const char *data, size_t len, size_t start, struct ledger_quick_message *m, size_t *end)
{
	struct json_quick q = { .p = data + start, .end = data + len };
	*m = (struct ledger_quick_message){ .role = -1 };
	unsigned seen = 0;
	if (!json_quick_eat(&q, '{'))
		return false;
	do {
		if (!member(&q, m, &seen))
			return false;
	} while (json_quick_eat(&q, ','));
	unsigned need = 1u << K_ID | 1u << K_TURN | 1u << K_ROLE;
	if (!json_quick_eat(&q, '}') || (seen & need) != need)
		return false;
	*end = (size_t)(q.p - data);
	return true;
}
