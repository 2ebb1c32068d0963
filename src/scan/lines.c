/* lines.c: one Claude Code session line's few fields, read straight from
 * its bytes (scan.h): no tree, no unescaping. Strings and numbers are
 * read by the one JSON lexer (json/lex.h), strings kept as their raw
 * bytes; values the scan does not need are stepped over with their nesting
 * counted. A line that is not JSON (an unclosed string or bracket, a bad
 * literal) is refused with the column where it went wrong. */
#include "scan/lines.h"

#include "json/lex.h"

#include <stddef.h>
#include <string.h>

#define LINE_DEPTH 512 /* deeper is refused, as the JSON layer refuses it */

struct jw {
	const char *p, *start, *end;
	const char *why;
};

static inline void ws(struct jw *w)
{
	w->p = json_ws(w->p, w->end);
}

static bool fail(struct jw *w, const char *why)
{
	if (!w->why)
		w->why = why;
	return false;
}

/* The string at w->p (a quote): its raw bytes, w->p past it. A fault is
 * told at its place (an unclosed string at its opening quote). */
static inline bool string_raw(struct jw *w, struct span *s)
{
	static const char *const why[] = {
		[JSON_LEX_UNCLOSED] = "an unclosed string", [JSON_LEX_CONTROL] = "a control character in a string",
		[JSON_LEX_ESCAPE] = "a bad escape",         [JSON_LEX_HEX] = "a bad \\u escape",
	};
	struct json_lex_str str;
	const char *after = json_lex_string(w->p, w->end, 0, &str);
	if (!after) {
		w->p = str.at;
		return fail(w, why[str.fault]);
	}
	s->s = str.s;
	s->n = str.n;
	s->esc = str.esc != 0;
	w->p = after;
	return true;
}

static bool literal(struct jw *w)
{
	static const char *const words[] = { "true", "false", "null" };
	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(words[i]);
		if ((size_t)(w->end - w->p) >= n && !memcmp(w->p, words[i], n)) {
			w->p += n;
			return true;
		}
	}
	return fail(w, "not a JSON value");
}

/* A number; *integer says whether it is a whole non-negative one
 * (json_lex_number's count), *v its value. */
static bool number(struct jw *w, bool *integer, long long *v)
{
	struct json_lex_num num;
	const char *after = json_lex_number(w->p, w->end, &num);
	if (!after) {
		w->p = num.at;
		return fail(w, num.no_value ? "not a JSON value" : "a bad number");
	}
	w->p = after;
	*integer = num.count;
	*v = num.value;
	return true;
}

/* Any value, stepped over; nesting counted, not recursed. */
static bool skip(struct jw *w)
{
	int depth = 0;
	for (;;) {
		ws(w);
		if (w->p >= w->end)
			return fail(w, "the line ends inside a value");
		char c = *w->p;
		struct span s;
		bool integer;
		long long v;
		if (c == '{' || c == '[') {
			if (++depth > LINE_DEPTH)
				return fail(w, "nested too deep");
			w->p++;
			ws(w);
			if (w->p < w->end && (*w->p == '}' || *w->p == ']')) {
				if ((*w->p == '}') != (c == '{'))
					return fail(w, "a bracket closes what it did not open");
				w->p++;
				depth--;
				goto after;
			}
			if (c == '{') {
				if (w->p >= w->end || *w->p != '"' || !string_raw(w, &s))
					return fail(w, "an object key is not a string");
				ws(w);
				if (w->p >= w->end || *w->p++ != ':')
					return fail(w, "a ':' is missing");
			}
			continue;
		}
		if (c == '"') {
			if (!string_raw(w, &s))
				return false;
		} else if (c == 't' || c == 'f' || c == 'n') {
			if (!literal(w))
				return false;
		} else if (!number(w, &integer, &v)) {
			return false;
		}
after:
		/* after a value: a ',' (then a key inside an object), a closing bracket, or the end */
		for (;;) {
			if (depth == 0)
				return true;
			ws(w);
			if (w->p >= w->end)
				return fail(w, "the line ends inside a value");
			if (*w->p == ',') {
				w->p++;
				ws(w);
				if (w->p < w->end && *w->p == '"') {
					/* a key if the next thing after the string is ':' */
					const char *save = w->p;
					if (!string_raw(w, &s))
						return false;
					ws(w);
					if (w->p < w->end && *w->p == ':') {
						w->p++;
						break;
					}
					w->p = save;
				}
				break;
			}
			if (*w->p == '}' || *w->p == ']') {
				w->p++;
				depth--;
				continue;
			}
			return fail(w, "a ',' is missing");
		}
	}
}

static bool key_is(const struct span *k, const char *name)
{
	size_t n = strlen(name);
	return k->n == n && !memcmp(k->s, name, n);
}

/* An object's members: fn is called at each key with w->p at its value, and
 * must step over it. */
typedef bool (*member_fn)(struct jw *w, const struct span *key, struct line_fields *lf);

static bool object(struct jw *w, member_fn fn, struct line_fields *lf)
{
	ws(w);
	if (w->p >= w->end || *w->p != '{')
		return skip(w);
	w->p++;
	ws(w);
	if (w->p < w->end && *w->p == '}') {
		w->p++;
		return true;
	}
	for (;;) {
		struct span k;
		ws(w);
		if (w->p >= w->end || *w->p != '"' || !string_raw(w, &k))
			return fail(w, "an object key is not a string");
		ws(w);
		if (w->p >= w->end || *w->p++ != ':')
			return fail(w, "a ':' is missing");
		ws(w);
		if (!fn(w, &k, lf))
			return false;
		ws(w);
		if (w->p < w->end && *w->p == ',') {
			w->p++;
			continue;
		}
		if (w->p < w->end && *w->p == '}') {
			w->p++;
			return true;
		}
		return fail(w, "a ',' or '}' is missing");
	}
}

/* A string value into *s (set), anything else stepped over (s left unset). */
static bool str_or_skip(struct jw *w, struct span *s)
{
	if (w->p < w->end && *w->p == '"') {
		if (!string_raw(w, s))
			return false;
		s->set = true;
		return true;
	}
	return skip(w);
}

/* A usage count: a whole non-negative number (ccusage's rule), else the usage is bad. */
static bool count(struct jw *w, long long *v, bool *ok)
{
	bool integer = false;
	if (w->p < w->end && (*w->p == '-' || (*w->p >= '0' && *w->p <= '9'))) {
		if (!number(w, &integer, v))
			return false;
	} else if (!skip(w)) {
		return false;
	}
	if (!integer)
		*ok = false;
	return true;
}

static bool on_cache_creation(struct jw *w, const struct span *k, struct line_fields *lf)
{
	if (key_is(k, "ephemeral_1h_input_tokens"))
		return count(w, &lf->cw1h, &lf->usage_ok) && (lf->has_1h = true);
	if (key_is(k, "ephemeral_5m_input_tokens")) {
		long long v;
		return count(w, &v, &lf->usage_ok);
	}
	return skip(w);
}

static bool on_server_tool_use(struct jw *w, const struct span *k, struct line_fields *lf)
{
	if (key_is(k, "web_search_requests")) { /* not one of the counts ccusage checks: a bad one is 0 */
		bool ok = true;
		if (!count(w, &lf->web_searches, &ok))
			return false;
		lf->web_searches = ok && lf->web_searches > 0 ? lf->web_searches : 0;
		return true;
	}
	return skip(w);
}

static bool on_usage(struct jw *w, const struct span *k, struct line_fields *lf)
{
	if (key_is(k, "input_tokens"))
		return count(w, &lf->in, &lf->usage_ok) && (lf->has_in = true);
	if (key_is(k, "output_tokens"))
		return count(w, &lf->out, &lf->usage_ok) && (lf->has_out = true);
	if (key_is(k, "cache_creation_input_tokens"))
		return count(w, &lf->cw, &lf->usage_ok);
	if (key_is(k, "cache_read_input_tokens"))
		return count(w, &lf->cr, &lf->usage_ok);
	if (key_is(k, "cache_creation"))
		return object(w, on_cache_creation, lf);
	if (key_is(k, "server_tool_use"))
		return object(w, on_server_tool_use, lf);
	if (key_is(k, "speed")) {
		struct span s = { 0 };
		if (!str_or_skip(w, &s))
			return false;
		lf->fast = s.set && s.n == 4 && !memcmp(s.s, "fast", 4);
		return true;
	}
	return skip(w);
}

static bool on_message(struct jw *w, const struct span *k, struct line_fields *lf)
{
	if (key_is(k, "id"))
		return str_or_skip(w, &lf->msg_id);
	if (key_is(k, "model"))
		return str_or_skip(w, &lf->model);
	if (key_is(k, "usage")) {
		lf->has_usage = w->p < w->end && *w->p == '{';
		return object(w, on_usage, lf);
	}
	return skip(w);
}

static bool on_attachment(struct jw *w, const struct span *k, struct line_fields *lf)
{
	if (key_is(k, "type"))
		return str_or_skip(w, &lf->att_type);
	return skip(w);
}

/* The top level's string fields, by first letter (on_top's ranges). */
static const struct top_string {
	const char *name;
	size_t len;
	size_t at; /* offsetof the span in struct line_fields */
} top_strings[] = {
	{ "type", 4, offsetof(struct line_fields, type) }, /* 0 */
	{ "timestamp", 9, offsetof(struct line_fields, timestamp) },
	{ "uuid", 4, offsetof(struct line_fields, uuid) }, /* 2 */
	{ "parentUuid", 10, offsetof(struct line_fields, parent) }, /* 3 */
	{ "logicalParentUuid", 17, offsetof(struct line_fields, logical_parent) }, /* 4 */
	{ "sessionId", 9, offsetof(struct line_fields, session_id) }, /* 5 */
	{ "subtype", 7, offsetof(struct line_fields, subtype) },
	{ "requestId", 9, offsetof(struct line_fields, request_id) }, /* 7 */
	{ "version", 7, offsetof(struct line_fields, version) }, /* 8 */
};

/* k's value into its field when k is one of top_strings[from, to), else stepped over. */
static bool top_string(struct jw *w, const struct span *k, struct line_fields *lf, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (k->n == top_strings[i].len && !memcmp(k->s, top_strings[i].name, k->n))
			return str_or_skip(w, (struct span *)(void *)((char *)lf + top_strings[i].at));
	return skip(w);
}

static bool on_top(struct jw *w, const struct span *k, struct line_fields *lf)
{
	switch (k->n ? k->s[0] : 0) {
	case 't': return top_string(w, k, lf, 0, 2);
	case 'u': return top_string(w, k, lf, 2, 3);
	case 'p': return top_string(w, k, lf, 3, 4);
	case 'l': return top_string(w, k, lf, 4, 5);
	case 's': return top_string(w, k, lf, 5, 7);
	case 'r': return top_string(w, k, lf, 7, 8);
	case 'v': return top_string(w, k, lf, 8, 9);
	case 'i':
		if (key_is(k, "isSidechain"))
			lf->sidechain = (size_t)(w->end - w->p) >= 4 && !memcmp(w->p, "true", 4);
		return skip(w);
	case 'm': return key_is(k, "message") ? object(w, on_message, lf) : skip(w);
	case 'a': return key_is(k, "attachment") ? object(w, on_attachment, lf) : skip(w);
	default: return skip(w);
	}
}

bool scan_line_fields(const char *s, size_t n, struct line_fields *lf, size_t *err_at, const char **why)
{
	memset(lf, 0, sizeof *lf);
	lf->usage_ok = true;
	struct jw w = { s, s, s + n, NULL };
	ws(&w);
	bool ok = w.p < w.end && *w.p == '{' ? object(&w, on_top, lf) : fail(&w, "not a JSON object");
	if (ok) {
		ws(&w);
		if (w.p < w.end)
			ok = fail(&w, "more after the object");
	}
	if (!ok) {
		*err_at = (size_t)(w.p - s);
		*why = w.why ? w.why : "not JSON";
	}
	return ok;
}
