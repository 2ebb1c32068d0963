/* json/lex.h: the one JSON lexer. Every reader of JSON text that does not
 * hand it to cJSON whole (the quick readers, the Claude Code line reader,
 * the scan command's line reader, json_doc's checks, JSON Lines) takes its
 * tokens from here: white space, strings (escapes, \u with surrogate
 * pairs, control characters, UTF-8), numbers, and the check for a key
 * written twice in one object. A fast path is a faster use of these
 * (sixteen bytes a step where SSE2 is there), never a lexer of its own.
 * Nothing here allocates; nothing reads past `end`. */
#ifndef CTXSCOPE_JSON_LEX_H
#define CTXSCOPE_JSON_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- white space ------------------------------------------------------- */

/* The grammar's white space: space, tab, LF, CR. */
static inline bool json_is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
/* Past the grammar's white space. */
static inline const char *json_ws(const char *p, const char *end)
{
	while (p < end && json_is_ws(*p))
		p++;
	return p;
}
/* Past cJSON's white space: any byte up to a space (what text cJSON
 * accepted may hold between tokens). */
static inline const char *json_ws_cjson(const char *p, const char *end)
{
	while (p < end && (unsigned char)*p <= ' ')
		p++;
	return p;
}
/* Only the grammar's white space in s[0..n). */
static inline bool json_blank(const char *s, size_t n)
{
	return json_ws(s, s + n) == s + n;
}

/* ---- strings ----------------------------------------------------------- */

/* What stopped a string: JSON_LEX_OK, or the fault and (struct
 * json_lex_str.at) where it is. */
enum json_lex_fault {
	JSON_LEX_OK,
	JSON_LEX_UNCLOSED,  /* no closing quote (at: the opening quote) */
	JSON_LEX_CONTROL,   /* a raw byte below 0x20 (at: it) */
	JSON_LEX_ESCAPE,    /* a backslash before a letter JSON has no escape for (at: the backslash) */
	JSON_LEX_HEX,       /* \u without four hex digits (at: the backslash) */
	JSON_LEX_SURROGATE, /* with JSON_LEX_PAIRS: a \u surrogate not in a high-low pair (at: the backslash) */
	JSON_LEX_NUL,       /* with JSON_LEX_NO_NUL: \u0000 (at: the backslash) */
	JSON_LEX_U,         /* with JSON_LEX_NO_U: any \u (at: the backslash) */
	JSON_LEX_BAD_UTF8,  /* with JSON_LEX_UTF8: a byte that starts no valid UTF-8 character (at: it) */
};

/* Flags: what a string must be besides the grammar's (a closing quote, no
 * raw control character, known escapes, four hex digits after \u). */
enum {
	JSON_LEX_PAIRS = 1u << 0,  /* a \u surrogate is one half of a high-low pair, as cJSON requires */
	JSON_LEX_NO_NUL = 1u << 1, /* no \u0000 (a C string would end there) */
	JSON_LEX_NO_U = 1u << 2,   /* no \u at all (a reader that takes every escape as one byte) */
	JSON_LEX_UTF8 = 1u << 3,   /* raw bytes are valid UTF-8 (no overlong form, surrogate, or past U+10FFFF) */
	JSON_LEX_CJSON_HEX = 1u << 4, /* unescaping text cJSON took: a bad hex digit reads as 0, as its parse_hex4 */
};

/* A string's body as scanned. */
struct json_lex_str {
	const char *s;            /* past the opening quote */
	size_t n;                 /* raw bytes up to the closing quote */
	size_t esc;               /* escapes it holds (a surrogate pair counts once) */
	enum json_lex_fault fault;
	const char *at;           /* where the fault is */
};

/* The value of four hex digits at p (p + 4 <= the end), or -1. */
int json_hex4(const char *p);

/* The escape at q (q[0] a backslash, before end), checked by flags and
 * decoded into out (1 to 4 bytes, *len of them; every byte of the escape
 * is read before one is written, so out may be q itself: unescaping in
 * place). Returns the bytes it takes (2, 6, or 12 for a surrogate pair),
 * or 0 with *fault (JSON_LEX_UNCLOSED when the text ends inside it). */
size_t json_lex_escape(const char *q, const char *end, unsigned flags, char *out, size_t *len,
		       enum json_lex_fault *fault);

/* The first quote, backslash or control character in [q, end), or end;
 * sixteen bytes a step where SSE2 is there. */
const char *json_string_stop(const char *q, const char *end);

/* What each escape letter of one byte stands for (0: none; \u apart). */
extern const char json_escape_byte[256];

/* The string whose opening quote is at p, checked by flags, into *out
 * from q on (out->s and out->esc set for the bytes before q): the scanner
 * itself; json_lex_string is its quick start. */
const char *json_lex_string_from(const char *p, const char *q, const char *end, unsigned flags,
				 struct json_lex_str *out);

/* The string whose opening quote is at p, checked by flags, into *out.
 * Returns the byte past its closing quote, or NULL with out->fault and
 * out->at. Inline: the usual string (text and one-byte escapes) is read
 * here, anything else from where it starts by json_lex_string_from. */
static inline const char *json_lex_string(const char *p, const char *end, unsigned flags, struct json_lex_str *out)
{
	const char *q = p + 1;
	size_t esc = 0; /* a local: out's fields may alias the text */
	out->s = q;
	if (!(flags & JSON_LEX_UTF8))
		for (;;) {
			q = json_string_stop(q, end);
			if (q < end && *q == '"') {
				out->n = (size_t)(q - (p + 1));
				out->esc = esc;
				out->fault = JSON_LEX_OK;
				return q + 1;
			}
			if (end - q < 2 || *q != '\\' || !json_escape_byte[(unsigned char)q[1]])
				break;
			esc++;
			q += 2;
		}
	out->esc = esc;
	return json_lex_string_from(p, q, end, flags, out);
}

/* The string whose opening quote is at p (before end) checked and
 * unescaped into o in one pass: the bytes past its closing quote, or NULL
 * with *fault. *len the unescaped length. o has room for the rest of the
 * text (end - p bytes: sixteen bytes are copied at a time up to a quote,
 * backslash or control character, and the output never runs ahead of the
 * input, as an escape is longer than what it stands for). */
const char *json_lex_unescape(const char *p, const char *end, unsigned flags, char *o, size_t *len,
			      enum json_lex_fault *fault);

/* The index of the quote closing the string opened at s[open], or n when
 * it is unclosed (a quote after an odd run of backslashes is escaped): for
 * text already known to be JSON (memchr from quote to quote). */
static inline size_t json_string_end(const char *s, size_t n, size_t open)
{
	size_t from = open + 1;
	while (from < n) {
		const char *q = memchr(s + from, '"', n - from);
		if (!q)
			return n;
		size_t at = (size_t)(q - s), back = 0;
		while (at - back > open + 1 && s[at - back - 1] == '\\')
			back++;
		if (back % 2 == 0)
			return at;
		from = at + 1;
	}
	return n;
}

/* The body of a JSON string at s (past its opening quote; text cJSON took)
 * unescaped in place as cJSON reads it, n the length of cJSON's value
 * (strlen: a \u with a bad hex digit reads as a NUL, where cJSON's value
 * ends), and s[n] set to NUL. It only shrinks, so nothing past the closing
 * quote is touched. The text is JSON no more: call it only once nothing
 * will read it as JSON again (errors included). */
void json_unescape_in_place(char *s, size_t n);

/* The first \u0000 escape (its backslash) in the string body s[from, to)
 * of text s[0..n), or -1. */
long json_string_nul(const char *s, size_t n, size_t from, size_t to);
/* Whether s[0..n) may hold a \u0000 escape: false when the six bytes
 * appear nowhere (one search of a whole text instead of one per string). */
bool json_may_hold_nul(const char *s, size_t n);

/* The first byte of s[0..n) that starts no valid UTF-8 character, or n. */
size_t json_utf8_bad(const char *s, size_t n);

/* ---- numbers ----------------------------------------------------------- */

/* A number of the JSON grammar as scanned. */
struct json_lex_num {
	const char *s;      /* its text, s[0..n) */
	size_t n;
	bool neg;           /* a minus sign */
	bool frac, exp;     /* a fraction, an exponent */
	bool lead_zero;     /* a leading zero, then digits ("01": the grammar ends the number after the 0) */
	int digits;         /* digits before the exponent (the fraction's too) */
	int frac_digits;    /* of which after the point */
	uint64_t mantissa;  /* those digits as one integer: exact while digits <= 19 */
	bool count;         /* a whole non-negative number, no sign, fraction or exponent, at most
			     * JSON_LEX_COUNT_MAX: its value in `value` */
	long long value;
	const char *at;     /* on a fault: where a digit was wanted */
	bool no_value;      /* on a fault: no digit at all (not a number), else none after its point or exponent */
};
#define JSON_LEX_COUNT_MAX 9223372036854775799LL /* a count past this is no count (it would not fit a long long
						    * with a digit to spare) */

/* The number at p (a digit or '-'): the byte past it, or NULL with out->at
 * where a digit is missing. A leading zero ends the grammar's number; the
 * digits after it are taken too and told (lead_zero), for the readers
 * that decline such text or read it as cJSON does. */
const char *json_lex_number(const char *p, const char *end, struct json_lex_num *out);

/* Past the characters cJSON collects for a number ("+-.0123456789eE"). */
const char *json_number_chars(const char *p, const char *end);

/* ---- keys -------------------------------------------------------------- */

#define JSON_KEYS_MAX 48 /* keys of one object a key set holds */

/* The keys of one object so far, to tell one written twice: a key's length
 * and first, second and last bytes pick one of 64 bits, and only keys on a
 * bit already taken are compared. Borrowed: the keys' bytes must outlive it. */
struct json_keyset {
	const char *k[JSON_KEYS_MAX];
	size_t len[JSON_KEYS_MAX];
	uint64_t seen;
	size_t n;
};
/* An empty set (only the count and bits set: the arrays are read below n). */
static inline void json_keyset_init(struct json_keyset *ks)
{
	ks->seen = 0;
	ks->n = 0;
}

#define JSON_KEY_NEW (-1)  /* json_keyset_add: a key not seen before, added */
#define JSON_KEY_FULL (-2) /* json_keyset_add: JSON_KEYS_MAX keys already */

/* Adds s[0..n): JSON_KEY_NEW, JSON_KEY_FULL, or the index (in the order
 * added) of the same key added before. */
static inline int json_keyset_add(struct json_keyset *ks, const char *s, size_t n)
{
	const unsigned char *k = (const unsigned char *)s;
	unsigned bit = (unsigned)(n * 11u + (n ? k[0] * 5u + (n > 1 ? k[1] * 3u : 0u) + k[n - 1] : 0u)) & 63u;
	if (ks->seen & (1ull << bit))
		for (size_t i = 0; i < ks->n; i++)
			if (ks->len[i] == n && !memcmp(ks->k[i], s, n))
				return (int)i;
	if (ks->n == JSON_KEYS_MAX)
		return JSON_KEY_FULL;
	ks->seen |= 1ull << bit;
	ks->k[ks->n] = s;
	ks->len[ks->n++] = n;
	return JSON_KEY_NEW;
}

#endif
