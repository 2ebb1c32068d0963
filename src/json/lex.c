/* json/lex.c: the one JSON lexer (see json/lex.h). */
#include "json/lex.h"

#include "base/utf8.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- strings ----------------------------------------------------------- */

/* Each byte's value as a hex digit, plus one (0: no hex digit). */
static const unsigned char hex_of[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static inline int hex4(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	unsigned a = hex_of[u[0]], b = hex_of[u[1]], c = hex_of[u[2]], d = hex_of[u[3]];
	if (!a || !b || !c || !d)
		return -1;
	return (int)((a - 1) << 12 | (b - 1) << 8 | (c - 1) << 4 | (d - 1));
}

int json_hex4(const char *p)
{
	return hex4(p);
}

/* The four hex digits after the \u at q, as flags read them; -1 bad. */
static int u_value(const char *q, const char *end, unsigned flags)
{
	if (end - q < 6)
		return -1;
	int v = hex4(q + 2);
	return v < 0 && (flags & JSON_LEX_CJSON_HEX) ? 0 : v;
}

static size_t fault_at(enum json_lex_fault *fault, enum json_lex_fault f)
{
	*fault = f;
	return 0;
}

/* The \u escape at q: its code point into *cp (a surrogate pair joined),
 * the bytes it takes, or 0 with *fault. */
static size_t escape_u(const char *q, const char *end, unsigned flags, int32_t *cp, enum json_lex_fault *fault)
{
	if (flags & JSON_LEX_NO_U)
		return fault_at(fault, JSON_LEX_U);
	int first = u_value(q, end, flags);
	if (first < 0)
		return fault_at(fault, JSON_LEX_HEX);
	if (first == 0 && (flags & JSON_LEX_NO_NUL))
		return fault_at(fault, JSON_LEX_NUL);
	*cp = first;
	if (first < 0xD800 || first > 0xDFFF)
		return 6;
	if (!(flags & JSON_LEX_PAIRS)) {
		*cp = 0xFFFD; /* a lone half read as text: never written (only unescaping checks pairs, cJSON's way) */
		return 6;
	}
	if (first >= 0xDC00 || end - q < 12 || q[6] != '\\' || q[7] != 'u')
		return fault_at(fault, JSON_LEX_SURROGATE);
	int second = u_value(q + 6, end, flags);
	if (second < 0xDC00 || second > 0xDFFF)
		return fault_at(fault, second < 0 ? JSON_LEX_HEX : JSON_LEX_SURROGATE);
	*cp = 0x10000 + (((first & 0x3FF) << 10) | (second & 0x3FF));
	return 12;
}

const char json_escape_byte[256] = { ['"'] = '"',   ['\\'] = '\\', ['/'] = '/',   ['b'] = '\b',
				    ['f'] = '\f', ['n'] = '\n',  ['r'] = '\r', ['t'] = '\t' };

/* The escape at q checked: its code point into *cp, the bytes it takes, or
 * 0 with *fault. */
static size_t escape_at(const char *q, const char *end, unsigned flags, int32_t *cp, enum json_lex_fault *fault)
{
	if (end - q < 2)
		return fault_at(fault, JSON_LEX_UNCLOSED);
	char c = json_escape_byte[(unsigned char)q[1]];
	if (c) {
		*cp = (unsigned char)c;
		return 2;
	}
	if (q[1] != 'u')
		return fault_at(fault, JSON_LEX_ESCAPE);
	return escape_u(q, end, flags, cp, fault);
}

size_t json_lex_escape(const char *q, const char *end, unsigned flags, char *out, size_t *len,
		       enum json_lex_fault *fault)
{
	int32_t cp = 0;
	size_t took = escape_at(q, end, flags, &cp, fault);
	if (took)
		*len = utf8_encode(cp, out);
	return took;
}

const char *json_string_stop(const char *q, const char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
	for (; end - q >= 16; q += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)),
					   _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));
		unsigned m = (unsigned)_mm_movemask_epi8(hit);
		if (m)
			return q + __builtin_ctz(m);
	}
#endif
	for (; q < end; q++)
		if (*q == '"' || *q == '\\' || (unsigned char)*q < 0x20)
			return q;
	return end;
}

static const char *string_fault(struct json_lex_str *out, enum json_lex_fault f, const char *at)
{
	out->fault = f;
	out->at = at;
	return NULL;
}

const char *json_lex_string_from(const char *p, const char *q, const char *end, unsigned flags,
				 struct json_lex_str *out)
{
	for (;;) {
		const char *stop = json_string_stop(q, end);
		if ((flags & JSON_LEX_UTF8) && json_utf8_bad(q, (size_t)(stop - q)) < (size_t)(stop - q))
			return string_fault(out, JSON_LEX_BAD_UTF8, q + json_utf8_bad(q, (size_t)(stop - q)));
		q = stop;
		if (q >= end)
			return string_fault(out, JSON_LEX_UNCLOSED, p);
		if (*q == '"')
			break;
		if ((unsigned char)*q < 0x20)
			return string_fault(out, JSON_LEX_CONTROL, q);
		out->esc++;
		int32_t cp;
		size_t took = escape_at(q, end, flags, &cp, &out->fault);
		if (!took)
			return string_fault(out, out->fault, out->fault == JSON_LEX_UNCLOSED ? p : q);
		q += took;
	}
	out->n = (size_t)(q - out->s);
	out->fault = JSON_LEX_OK;
	return q + 1;
}

const char *json_lex_unescape(const char *p, const char *end, unsigned flags, char *o, size_t *len,
			      enum json_lex_fault *fault)
{
	const char *q = p + 1;
	char *out = o;
	for (;;) {
#ifdef __SSE2__
		const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
		while (end - q >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
			_mm_storeu_si128((__m128i *)(void *)o, v);
			__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)),
						   _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));
			unsigned m = (unsigned)_mm_movemask_epi8(hit);
			if (m) {
				q += __builtin_ctz(m);
				o += __builtin_ctz(m);
				break;
			}
			q += 16;
			o += 16;
		}
#endif
		while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
			*o++ = *q++;
		if (q >= end) {
			*fault = JSON_LEX_UNCLOSED;
			return NULL;
		}
		if ((unsigned char)*q < 0x20) {
			*fault = JSON_LEX_CONTROL;
			return NULL;
		}
		if (*q == '"') {
			*len = (size_t)(o - out);
			return q + 1;
		}
		if (end - q >= 2 && json_escape_byte[(unsigned char)q[1]]) { /* the usual escape, without a call */
			*o++ = json_escape_byte[(unsigned char)q[1]];
			q += 2;
			continue;
		}
		size_t wrote, took = json_lex_escape(q, end, flags, o, &wrote, fault);
		if (!took)
			return NULL;
		q += took;
		o += wrote;
	}
}


void json_unescape_in_place(char *s, size_t n)
{
	char *r = s, *w = s, *full = s + n;
	while (w < full) {
		/* n - (w - s) bytes to write, each taking at least one: none of
		 * these raw bytes is past the closing quote */
		char *b = memchr(r, '\\', (size_t)(full - w));
		size_t run = b ? (size_t)(b - r) : (size_t)(full - w);
		if (w != r)
			memmove(w, r, run);
		w += run;
		r += run;
		if (w == full)
			break;
		char c = json_escape_byte[(unsigned char)r[1]];
		if (c) { /* the usual escape, without a call */
			*w++ = c;
			r += 2;
			continue;
		}
		/* text cJSON took: a \u escape, a pair where cJSON wants one,
		 * within the next twelve bytes */
		enum json_lex_fault fault;
		size_t wrote, took = json_lex_escape(r, r + 12, JSON_LEX_PAIRS | JSON_LEX_CJSON_HEX, w, &wrote, &fault);
		if (!took) { /* never for text cJSON took */
			*w = *r;
			took = wrote = 1;
		}
		w += wrote;
		r += took;
	}
	*full = '\0';
}

long json_string_nul(const char *s, size_t n, size_t from, size_t to)
{
	while (from < to) {
		const char *q = memchr(s + from, '\\', to - from);
		if (!q)
			return -1;
		size_t b = (size_t)(q - s);
		if (b + 5 < n && s[b + 1] == 'u' && s[b + 2] == '0' && s[b + 3] == '0' && s[b + 4] == '0' && s[b + 5] == '0')
			return (long)b;
		from = b + 2; /* the escaped character */
	}
	return -1;
}

/* memchr from backslash to backslash: most text has few, and glibc's
 * memchr is quicker than any search for the pair (its memmem took 4% of a
 * ledger's load). */
bool json_may_hold_nul(const char *s, size_t n)
{
	for (size_t from = 0; from < n;) {
		const char *q = memchr(s + from, '\\', n - from);
		if (!q)
			return false;
		size_t b = (size_t)(q - s);
		if (n - b >= 6 && !memcmp(q, "\\u0000", 6))
			return true;
		from = b + 1;
	}
	return false;
}

size_t json_utf8_bad(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (!((unsigned char)s[i] & 0x80)) {
			i++;
			continue;
		}
		int32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);
		if (cp == UTF8_INVALID)
			return i;
		i += k;
	}
	return n;
}

/* ---- numbers ----------------------------------------------------------- */

static const char *number_fault(struct json_lex_num *out, const char *at, bool no_value)
{
	out->at = at;
	out->no_value = no_value;
	return NULL;
}

/* Past the digits at p, each into *m (locals, not out's fields: the text
 * is chars, which the compiler must assume may alias them). */
static inline const char *digits(const char *p, const char *end, uint64_t *m)
{
	uint64_t v = *m;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	*m = v;
	return p;
}

const char *json_lex_number(const char *p, const char *end, struct json_lex_num *out)
{
	out->s = p;
	bool neg = p < end && *p == '-';
	const char *d = p + neg;
	uint64_t m = 0;
	p = digits(d, end, &m);
	if (p == d)
		return number_fault(out, p, true);
	const char *sig = d, *int_end = p; /* sig: the first digit that counts */
	bool lead_zero = *d == '0' && p - d > 1;
	while (lead_zero && sig < p - 1 && *sig == '0')
		sig++;
	/* at most JSON_LEX_COUNT_MAX: 19 digits or fewer (10^19 < 2^64: m is exact) */
	bool fits = p - sig < 19 || (p - sig == 19 && m <= (uint64_t)JSON_LEX_COUNT_MAX);
	out->value = fits ? (long long)m : 0;
	bool frac = p < end && *p == '.', exp = false;
	int frac_digits = 0;
	if (frac) {
		const char *f = ++p;
		p = digits(p, end, &m);
		if (p == f)
			return number_fault(out, p, false);
		frac_digits = (int)(p - f);
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		exp = true;
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *e = p;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
		if (p == e)
			return number_fault(out, p, false);
	}
	out->n = (size_t)(p - out->s);
	out->neg = neg;
	out->frac = frac;
	out->exp = exp;
	out->lead_zero = lead_zero;
	out->mantissa = m;
	out->digits = (int)(int_end - d) + frac_digits;
	out->frac_digits = frac_digits;
	out->count = !neg && !frac && !exp && fits;
	return p;
}

const char *json_number_chars(const char *p, const char *end)
{
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '+' || *p == '-' || *p == '.' || *p == 'e' || *p == 'E'))
		p++;
	return p;
}
