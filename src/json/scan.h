/* json/scan.h: reading JSON text without building a tree. Tells the top-level
 * keys of an object (for detecting the kind of a file), finds where the value
 * at a document path (nodes[12].metadata.excluded) starts in the raw bytes so
 * errors found on a parsed tree can name a line and column, and turns a byte
 * offset into a line and column. Scanning is iterative: no depth recursion. */
#ifndef CTXSCOPE_JSON_SCAN_H
#define CTXSCOPE_JSON_SCAN_H

#include "base/error.h"
#include "json/lex.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct json_keys {
	char **names; /* owned (cs_malloc'd), raw key text between the quotes */
	size_t n;
};

/* The keys of the top-level object in data. CS_ESYNTAX (positioned) when
 * the text does not start with an object; CS_ENOMEM. Free with json_keys_fini. */
int json_scan_top_keys(const char *data, size_t len, struct json_keys *out, struct cs_error *err);
bool json_keys_has(const struct json_keys *keys, const char *name);
void json_keys_fini(struct json_keys *keys);

/* The byte offset where the value at `path` begins (keys separated by '.',
 * array indexes as [N]; "" is the whole document), or -1 when not found. */
long json_locate(const char *data, size_t len, const char *path);

/* The offset of the value of `key` (its raw text: a key written with
 * escapes is not found) in the object whose '{' is at data[at], or -1. */
long json_member_at(const char *data, size_t len, size_t at, const char *key);

/* A quick reader's place (the memory and ledger kinds' quick.c: an element
 * of the usual shape read straight from its bytes; anything else declined). */
struct json_quick {
	const char *p, *end;
	struct json_lex_str str; /* the last string read */
	struct json_lex_num num; /* the last number read */
};
/* Past cJSON's white space (any byte up to a space). */
static inline void json_quick_ws(struct json_quick *q)
{
	q->p = json_ws_cjson(q->p, q->end);
}
/* Past white space and the byte c: false when c is not next. */
static inline bool json_quick_eat(struct json_quick *q, char c)
{
	json_quick_ws(q);
	if (q->p >= q->end || *q->p != c)
		return false;
	q->p++;
	return true;
}
/* Past white space and a string: *s its body (past the quote, still
 * escaped), *n its bytes, *esc the escapes it holds (each one byte
 * unescaped). False, declined, on a raw control character, a \u or a bad
 * escape, or no closing quote. */
static inline bool json_quick_string(struct json_quick *q, const char **s, size_t *n, size_t *esc)
{
	json_quick_ws(q);
	const char *after = q->p < q->end && *q->p == '"' ? json_lex_string(q->p, q->end, JSON_LEX_NO_U, &q->str) : NULL;
	if (!after)
		return false;
	*s = q->str.s;
	*n = q->str.n;
	*esc = q->str.esc;
	q->p = after;
	return true;
}
/* Past a member's key and its colon: the key's index in keys[0..nkeys),
 * marked in *seen (a bit each; nkeys <= 32); -1, declined, for a key
 * written with escapes, one not in keys, or one seen before. */
static inline int json_quick_key(struct json_quick *q, const char *const *keys, int nkeys, unsigned *seen)
{
	const char *k;
	size_t n, esc;
	if (!json_quick_string(q, &k, &n, &esc) || esc || !json_quick_eat(q, ':'))
		return -1;
	int key = 0;
	while (key < nkeys && !(strlen(keys[key]) == n && !memcmp(keys[key], k, n)))
		key++;
	if (key == nkeys || (*seen & (1u << key)))
		return -1;
	*seen |= 1u << key;
	return key;
}

/* 1-based line and column (in characters) of byte `offset` in data. */
void text_position(const char *data, size_t len, size_t offset, long *line, long *column);

/* Sets err's line and column to where `path` is in data (left 0 when not
 * found) and its path to `path`. */
void json_error_at(struct cs_error *err, const char *data, size_t len, const char *path);

#endif
