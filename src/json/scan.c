/* json/scan.c: tree-less JSON scanning (see json/scan.h). It trusts the
 * text only as far as it must: malformed input ends a scan with "not found",
 * never with a read past the end. */
#include "json/scan.h"

#include "base/alloc.h"
#include "base/utf8.h"

#include <stdlib.h>
#include <string.h>

/* Past the grammar's white space from s[i]. */
static size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && json_is_ws(s[i]))
		i++;
	return i;
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
		} else if (c == ',' || c == ':' || json_is_ws(c)) {
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
