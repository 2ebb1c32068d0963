/* json/scan.c: tree-less JSON scanning (see json/scan.h). It trusts the
 * text only as far as it must: malformed input ends a scan with "not found",
 * never with a read past the end. */
#include "json/scan.h"

#include "base/alloc.h"
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

size_t json_string_end(const char *s, size_t n, size_t open)
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

bool json_quick_string(struct json_quick *q, const char **s, size_t *n, size_t *esc)
{
	if (!json_quick_eat(q, '"'))
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

/* i at the opening quote; returns the index just past the closing quote, or
 * n. memchr skips the text between quotes (kind detection skips every
 * top-level value: byte by byte, this was 12% of a ledger's load). */
static size_t skip_string(const char *s, size_t n, size_t i)
{
	size_t end = json_string_end(s, n, i);
	return end < n ? end + 1 : n;
}

/* Skips one value starting at i (after whitespace); returns the index after
 * it, or n when the text ends first. Iterative over nesting. */
static size_t skip_value(const char *s, size_t n, size_t i)
{
	size_t depth = 0;
	i = skip_ws(s, n, i);
	while (i < n) {
		char c = s[i];
		if (c == '"') {
			i = skip_string(s, n, i);
		} else if (c == '{' || c == '[') {
			depth++;
			i++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i; /* the end of the enclosing container */
			depth--;
			i++;
		} else if (c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (depth == 0)
				return i;
			i++;
		} else {
			i++; /* inside a literal or number */
		}
		if (depth == 0 && (c == '"' || c == '}' || c == ']'))
			return i;
	}
	return n;
}

void text_position(const char *data, size_t len, size_t offset, long *line, long *column)
{
	if (offset > len)
		offset = len;
	long ln = 1;
	size_t line_start = 0;
	for (const char *p = data; (p = memchr(p, '\n', (size_t)(data + offset - p))) != NULL; p++) {
		ln++;
		line_start = (size_t)(p - data) + 1;
	}
	*line = ln;
	*column = (long)utf8_count_code_points(data + line_start, offset - line_start) + 1;
}

int json_scan_top_keys(const char *s, size_t n, struct json_keys *out, struct cs_error *err)
{
	out->names = NULL;
	out->n = 0;
	size_t i = skip_ws(s, n, 0);
	if (i + 3 <= n && memcmp(s + i, "\xEF\xBB\xBF", 3) == 0)
		i = skip_ws(s, n, i + 3);
	if (i >= n || s[i] != '{') {
		long line, col;
		text_position(s, n, i, &line, &col);
		cs_error_pos(err, line, col);
		return cs_error_set(err, CS_ESYNTAX, i >= n ? "the file is empty" : "expected a JSON object here");
	}
	size_t cap = 0;
	i++;
	for (;;) {
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != '"')
			break;
		size_t end = skip_string(s, n, i);
		if (end >= n)
			break;
		if (CS_GROW(out->names, cap, out->n + 1) != 0) {
			json_keys_fini(out);
			return cs_error_nomem(err);
		}
		char *name = cs_strndup(s + i + 1, end - i - 2);
		if (!name) {
			json_keys_fini(out);
			return cs_error_nomem(err);
		}
		out->names[out->n++] = name;
		i = skip_ws(s, n, end);
		if (i >= n || s[i] != ':')
			break;
		i = skip_value(s, n, i + 1);
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != ',')
			break;
		i++;
	}
	return CS_OK;
}

bool json_keys_has(const struct json_keys *keys, const char *name)
{
	for (size_t i = 0; i < keys->n; i++)
		if (strcmp(keys->names[i], name) == 0)
			return true;
	return false;
}

void json_keys_fini(struct json_keys *keys)
{
	for (size_t i = 0; i < keys->n; i++)
		cs_free(keys->names[i]);
	cs_free(keys->names);
	keys->names = NULL;
	keys->n = 0;
}

/* Finds key (len klen) in the object whose '{' is at i; returns the offset
 * of its value or n. */
static size_t find_key(const char *s, size_t n, size_t i, const char *key, size_t klen)
{
	i++;
	for (;;) {
		i = skip_ws(s, n, i);
		if (i >= n || s[i] != '"')
			return n;
		size_t end = skip_string(s, n, i);
		if (end >= n)
			return n;
		bool match = end - i - 2 == klen && memcmp(s + i + 1, key, klen) == 0;
		i = skip_ws(s, n, end);
		if (i >= n || s[i] != ':')
			return n;
		i = skip_ws(s, n, i + 1);
		if (match)
			return i;
		i = skip_ws(s, n, skip_value(s, n, i));
		if (i >= n || s[i] != ',')
			return n;
		i++;
	}
}

static size_t find_index(const char *s, size_t n, size_t i, unsigned long index)
{
	i = skip_ws(s, n, i + 1);
	for (unsigned long k = 0; i < n && s[i] != ']'; k++) {
		if (k == index)
			return i;
		i = skip_ws(s, n, skip_value(s, n, i));
		if (i >= n || s[i] != ',')
			return n;
		i = skip_ws(s, n, i + 1);
	}
	return n;
}

long json_locate(const char *s, size_t n, const char *path)
{
	size_t i = skip_ws(s, n, 0);
	const char *p = path;
	while (*p && i < n) {
		if (*p == '.')
			p++;
		if (*p == '[') {
			char *end;
			unsigned long index = strtoul(p + 1, &end, 10);
			if (*end != ']' || s[i] != '[')
				return -1;
			i = find_index(s, n, i, index);
			p = end + 1;
		} else {
			size_t klen = strcspn(p, ".[");
			if (s[i] != '{')
				return -1;
			i = find_key(s, n, i, p, klen);
			p += klen;
		}
	}
	return i < n ? (long)i : -1;
}

void json_error_at(struct cs_error *err, const char *data, size_t len, const char *path)
{
	if (!err)
		return;
	cs_error_path(err, path);
	long at = json_locate(data, len, path);
	if (at >= 0) {
		long line, col;
		text_position(data, len, (size_t)at, &line, &col);
		cs_error_pos(err, line, col);
	}
}

long json_member_at(const char *s, size_t n, size_t at, const char *key)
{
	if (at >= n || s[at] != '{')
		return -1;
	size_t i = find_key(s, n, at, key, strlen(key));
	return i < n ? (long)i : -1;
}

/* cJSON's parse_hex4: 0 when any of the four is not a hex digit. */
static unsigned hex4(const char *h)
{
	unsigned v = 0;
	for (int k = 0; k < 4; k++) {
		char c = h[k];
		unsigned d = c >= '0' && c <= '9'	? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16u;
		if (d == 16)
			return 0;
		v = v << 4 | d;
	}
	return v;
}

/* The \u escape at r (before stop, the closing quote) as cJSON's
 * utf16_literal_to_utf8 reads it, written at *w (every byte read before
 * one is written: *w may be r); the bytes it took, 0 when invalid. */
static size_t unescape_u(const char *r, const char *stop, char **w)
{
	if (stop - r < 6)
		return 0;
	unsigned first = hex4(r + 2), cp = first;
	size_t took = 6;
	if (first >= 0xDC00 && first <= 0xDFFF)
		return 0;
	if (first >= 0xD800 && first <= 0xDBFF) {
		if (stop - r < 12 || r[6] != '\\' || r[7] != 'u')
			return 0;
		unsigned second = hex4(r + 8);
		if (second < 0xDC00 || second > 0xDFFF)
			return 0;
		cp = 0x10000 + (((first & 0x3FF) << 10) | (second & 0x3FF));
		took = 12;
	}
	unsigned char *o = (unsigned char *)*w;
	if (cp < 0x80) {
		*o++ = (unsigned char)cp;
	} else if (cp < 0x800) {
		*o++ = (unsigned char)(0xC0 | cp >> 6);
		*o++ = (unsigned char)(0x80 | (cp & 0x3F));
	} else if (cp < 0x10000) {
		*o++ = (unsigned char)(0xE0 | cp >> 12);
		*o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (unsigned char)(0x80 | (cp & 0x3F));
	} else {
		*o++ = (unsigned char)(0xF0 | cp >> 18);
		*o++ = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
		*o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
		*o++ = (unsigned char)(0x80 | (cp & 0x3F));
	}
	*w = (char *)o;
	return took;
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
		size_t took = 2;
		switch (r[1]) {
		case 'b': *w++ = '\b'; break;
		case 'f': *w++ = '\f'; break;
		case 'n': *w++ = '\n'; break;
		case 'r': *w++ = '\r'; break;
		case 't': *w++ = '\t'; break;
		case 'u': took = unescape_u(r, r + 12, &w); break;
		default: *w++ = r[1]; break; /* \" \\ \/ (cJSON refuses any other) */
		}
		if (!took) { /* never for text cJSON took */
			*w++ = *r;
			took = 1;
		}
		r += took;
	}
	*full = '\0';
}
