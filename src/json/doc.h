/* json/doc.h: cJSON documents with positioned errors, for the JSON loaders
 * (loom, ledger, memory). A document path is a chain of struct jpath on the
 * caller's stack, rendered to text ("nodes[12].metadata.excluded") only when
 * an error needs it, so walking a million nodes costs nothing extra. Errors
 * name the path and, by scanning the raw text (json/scan.h), its line and
 * column. Always look keys up case-sensitively (json_member; cJSON_GetObjectItem
 * ignores case) and walk arrays with cJSON_ArrayForEach (indexing is O(i)). */
#ifndef CTXSCOPE_JSON_DOC_H
#define CTXSCOPE_JSON_DOC_H

#include "base/error.h"

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 512 /* nesting we accept; cJSON's own limit is 1000 (recursion) */
#define JSON_MAX_WHOLE 9e15 /* json_get_long: past 2^53 a double no longer holds every whole number */

/* The memory of one document's tree: chunks handed out in order and freed
 * together (a tree is never edited, and freeing a million nodes one by one
 * cost as much as parsing them). */
struct json_pool_chunk;
struct json_pool {
	struct json_pool_chunk *head; /* newest first */
	size_t next_cap;              /* the next chunk's size */
};

#define JSON_LAZY_MAX 8 /* lazy arrays a document keeps the place of */

/* A top-level array left unparsed by json_doc_parse_lazy: its place. */
struct json_span {
	const char *key; /* its key, raw in data (a key with escapes is never lazy) */
	size_t keylen;
	size_t start, end; /* data[start] is '[', data[end - 1] its ']' */
	size_t count;      /* its elements (as the separators tell: exact when it is valid) */
};

struct json_doc {
	cJSON *root;       /* owned, in pool: never cJSON_Delete it, never edit the tree */
	const char *data;  /* the raw text, borrowed: must outlive the doc's errors */
	size_t len;
	struct json_pool pool;
	/* json_doc_parse_lazy only (zero otherwise): */
	const char *const *lazy; /* the names of the top-level arrays left unparsed */
	struct json_span spans[JSON_LAZY_MAX];
	size_t nspans;
	struct json_pool elem; /* the element a json_iter is on, and nothing else */
};

/* A step of a document path: a key, or an index when key is NULL. */
struct jpath {
	const struct jpath *up;
	const char *key;
	long index;
};
#define JPATH_ROOT ((const struct jpath *)NULL)
#define JPATH_KEY(up_, key_) ((struct jpath){ (up_), (key_), -1 })
#define JPATH_INDEX(up_, i_) ((struct jpath){ (up_), NULL, (long)(i_) })

/* "nodes[12].metadata.excluded" into buf. */
void jpath_format(const struct jpath *p, char *buf, size_t n);

/* Parses data (borrowed; keep it alive while errors may be formatted).
 * CS_ESYNTAX with line and column; CS_ELIMIT past JSON_MAX_DEPTH;
 * CS_ESYNTAX for a \u0000 escape or a raw NUL byte in a string, at its
 * place (cJSON would silently cut the
 * string there); CS_ESTRUCT, with its path, for a key that appears twice
 * in one object (cJSON keeps both; other readers take the last);
 * CS_ENOMEM. Free with json_doc_free (safe after failure). */
int json_doc_parse(struct json_doc *d, const char *data, size_t len, struct cs_error *err);
void json_doc_free(struct json_doc *d);

/* A pool used again and again (json/reuse.h: a JSON Lines file's lines):
 * cJSON_ParseWithLengthOpts of text[0..len) with every allocation in pool
 * (*end: where it stopped; NULL root when cJSON refused the text or memory
 * ran out); reset drops what the pool holds but its largest chunk, kept
 * for the next document (under AddressSanitizer it drops everything, so a
 * pointer kept into a dropped tree is caught); fini frees it all. */
cJSON *json_pool_parse(struct json_pool *pool, const char *text, size_t len, const char **end);
void json_pool_reset(struct json_pool *pool);
void json_pool_fini(struct json_pool *pool);

/* Like json_doc_parse, but the top-level arrays named in `lazy` (NULL
 * ended, at most JSON_LAZY_MAX; the strings must outlive d) are not
 * parsed: their place is kept, and json_iter parses them one element at a
 * time, so a document's memory is its small members plus one element's
 * tree. Errors are the same, at the same line and column: a syntax error
 * anywhere, found now or while an array is walked, is the first one in the
 * text; \u0000, depth and duplicate keys as json_doc_parse, those inside a
 * lazy array's element when the element is reached. d->root holds every
 * other member. A text whose top level is not an object is parsed whole. */
int json_doc_parse_lazy(struct json_doc *d, const char *data, size_t len, const char *const *lazy,
			struct cs_error *err);

/* An array to walk: a lazy one's place, or an array of the tree. */
struct json_array {
	const struct json_span *span; /* lazy: its place */
	const cJSON *tree;            /* else the array */
	size_t count;                 /* its elements */
	bool present;
};

/* The top-level array `key`: lazy (its place) or in d->root. Absent or
 * null and optional: CS_OK with out->present false; absent and required, or
 * not an array: a positioned error, as json_get_array. */
int json_get_lazy(const struct json_doc *d, const char *key, int required, struct json_array *out,
		  struct cs_error *err);

/* Walks an array's elements in order. One iterator at a time per document:
 * the element handed out lives until the next call (its strings too: copy
 * what you keep). */
struct json_iter {
	struct json_doc *d;
	struct json_array a;
	const struct jpath *at; /* the array's path, for an element's duplicate keys */
	size_t pos;             /* lazy: where the next separator or ']' is looked for */
	size_t i;               /* elements handed out */
	const cJSON *next;      /* tree: the next element */
	size_t el_start;        /* lazy: the last element's offset in data (json_doc_element) */
};
void json_iter_init(struct json_iter *it, struct json_doc *d, const struct json_array *a, const struct jpath *at);
/* CS_OK with *el the next element, or NULL after the last; else an error
 * (a syntax error positioned at the text's first one; a duplicate key;
 * CS_ENOMEM). */
int json_iter_next(struct json_iter *it, const cJSON **el, struct cs_error *err);

/* A reader of its own for an element (a quick way, declining what it does
 * not know): json_iter_peek gives the offset where the next element of a
 * lazy array starts, or SIZE_MAX when there is none to offer (the end, a
 * missing separator, more elements than counted, a tree array: then
 * json_iter_next says which); json_iter_skip counts the element at start,
 * read by the caller up to data[end), as handed out. */
size_t json_iter_peek(const struct json_iter *it);
void json_iter_skip(struct json_iter *it, size_t start, size_t end);
/* Where the member `key` of the element json_iter_next just handed out
 * holds a string: its body's first byte in the document's text (past the
 * quote, still escaped: json_unescape_in_place), or NULL (not a lazy
 * array's element, absent, not a string, a key written with escapes). */
const char *json_iter_string_at(const struct json_iter *it, const char *key);

/* The element that starts at data[start] (an offset json_iter gave, so
 * already checked), parsed again into the element memory: valid until the
 * next call or json_iter_next. CS_ENOMEM. */
int json_doc_element(struct json_doc *d, size_t start, const cJSON **el, struct cs_error *err);

/* The byte offset of the first \u0000 escape (the backslash) or raw NUL
 * byte inside a string of the JSON text s[0..n), or -1. A \\u0000 (an escaped backslash and
 * the letters) is not one. */
long json_find_nul_escape(const char *s, size_t n);

/* A positioned error at path `at` (plus `key` when not NULL). Returns code. */
int json_fail(const struct json_doc *d, struct cs_error *err, enum cs_status code, const struct jpath *at,
	      const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* obj[key], case-sensitive, or NULL (obj NULL too): as
 * cJSON_GetObjectItemCaseSensitive, but a key's first byte is compared
 * before strcmp is called (a row's lookups were 8% of a ledger's load). */
const cJSON *json_member(const cJSON *obj, const char *key);

/* "a string", "a number", "null"... for messages. */
const char *json_type_name(const cJSON *v);

enum { JSON_OPTIONAL = 0, JSON_REQUIRED = 1 };

/* Typed getters: obj[key] (case-sensitive). Absent or null and optional:
 * CS_OK with *out left as it was (set your default first). Absent and
 * required, or of another type: a positioned error ("expected a string,
 * got a number"). */
int json_get_string(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, const char **out, struct cs_error *err);
int json_get_number(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, double *out, struct cs_error *err);
int json_get_long(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, long *out, struct cs_error *err); /* a whole number */
int json_get_bool(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, bool *out, struct cs_error *err);
int json_get_array(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		   int required, const cJSON **out, struct cs_error *err);
int json_get_object(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, const cJSON **out, struct cs_error *err);

/* Token counts (usage.input_tokens and the like), read the same way by
 * every kind. A count is a number that is a whole number from 0 up to
 * JSON_MAX_WHOLE ("1.0" and "1e3" are counts; "-5", "1.5", "1e999", 2^64
 * and the string "12" are not). */
enum { JSON_COUNT_BAD = -1, JSON_COUNT_ABSENT = 0, JSON_COUNT_OK = 1 };

/* v as a count: NULL with *out set, or why not ("is negative", "is not a
 * whole number", "is too big", "is a string"...), *out untouched. */
const char *json_count_value(const cJSON *v, long *out);

/* obj[key] (case-sensitive) as a count. JSON_COUNT_OK with *out set;
 * JSON_COUNT_ABSENT when absent or null (*out untouched: set your default
 * first); JSON_COUNT_BAD, *out untouched, with a positioned warning in
 * warn[0..n) (always NUL-ended; warn may be NULL):
 *   "line 12, column 40: usage.input_tokens is -5, not a count"
 * d (may be NULL: then no position, and the value as cJSON read it) is the
 * parsed document whose text holds obj, at obj's path in it; first_line is
 * the number of the text's first line in its file (a JSON Lines file's line
 * parsed alone: its line number; a whole file: 1). The value is quoted as
 * written in the text (a number's digits, not cJSON's double), and control
 * bytes never reach the warning. */
int json_get_count(const struct json_doc *d, long first_line, const cJSON *obj, const struct jpath *at,
		   const char *key, long *out, char *warn, size_t n);

/* json_get_count with more said about the place, for a loader that files
 * the warning itself: pl->line and pl->column are where it points (0:
 * unknown). pl->foreign: d's text is not the file's (a JSON text held in a
 * string of the file): the warning names pl->first_line alone. pl->name
 * (NULL: use at): the caller's name for obj ("response.body.usage"), shown
 * in the warning; obj's place in d is then found by a walk of d's tree,
 * made only for a warning. */
struct json_count_place {
	const struct json_doc *d; /* may be NULL: no position */
	long first_line;          /* as json_get_count's */
	bool foreign;
	const char *name;
	long line, column; /* OUT */
};
int json_count_at(struct json_count_place *pl, const cJSON *obj, const struct jpath *at, const char *key, long *out,
		  char *warn, size_t n);

/* Numbers as written, for a writer that gives a document back (a request's
 * `dump`): walks d's text beside its tree (call it while the text is as
 * parsed, before anything unescapes it in place) and keeps, in d's pool,
 * the text of each number that is not a plain integer of at most 15 digits
 * (1e999, 18446744073709551616, 0.7: a double would print them otherwise:
 * null, 1.8446744073709552e+19, 0.69999999999999996). A number whose text
 * does not read back as the tree's value stops the walk (the text changed):
 * those after it are not kept. Not for a lazy document. CS_OK or CS_ENOMEM
 * (then some numbers are not kept; the tree is whole either way). */
int json_keep_number_text(struct json_doc *d);
/* The text json_keep_number_text kept for the number v, else NULL (v not a
 * number, or a plain integer, or not kept: print v->valuedouble). */
const char *json_number_written(const cJSON *v);

/* ---- getters for the loaders ---------------------------------------------- */

/* obj[key] as a count for a strict reader: absent or null, CS_OK with *out
 * untouched; a value that is not a count (json_count_value) is an error at
 * its place, worded as json_get_count's warning ("-5 is not a count
 * (negative)"): CS_ELIMIT when too big, else CS_ETYPE. */
int json_require_count(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key, long *out,
		       struct cs_error *err);

/* Lenient getters, for the tolerant readers (logs, sessions, captures)
 * that take what they know and pass over the rest: never an error; NULL,
 * false or 0 when a value is absent or of another type (v and obj may be
 * NULL). What a loader reads of a tree goes through these and the typed
 * getters above, so the tree's library stays behind this header. */
static inline bool json_is_object(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_Object; }
static inline bool json_is_array(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_Array; }
static inline bool json_is_string(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_String; }
static inline bool json_is_number(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_Number; }
static inline bool json_is_null(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_NULL; }
static inline bool json_is_true(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_True; }
static inline bool json_is_false(const cJSON *v) { return v && (v->type & 0xFF) == cJSON_False; }
static inline bool json_is_bool(const cJSON *v) { return v && (v->type & (cJSON_True | cJSON_False)) != 0; }
/* Absent (NULL) or null. */
static inline bool json_absent(const cJSON *v) { return !v || (v->type & 0xFF) == cJSON_NULL; }

/* v's text when v is a string, else NULL (borrowed from the tree). */
static inline const char *json_string_value(const cJSON *v) { return json_is_string(v) ? v->valuestring : NULL; }
/* v's number when v is one, else fallback. */
static inline double json_number_value(const cJSON *v, double fallback)
{
	return json_is_number(v) ? v->valuedouble : fallback;
}
/* The key of an object's member (the element JSON_EACH handed out), NULL
 * for an array's element. */
static inline const char *json_key(const cJSON *member) { return member ? member->string : NULL; }

/* obj[key] (case-sensitive) when it is of the type named, else NULL. */
static inline const char *json_opt_string(const cJSON *obj, const char *key)
{
	return json_string_value(json_member(obj, key));
}
static inline const cJSON *json_opt_object(const cJSON *obj, const char *key)
{
	const cJSON *v = json_member(obj, key);
	return json_is_object(v) ? v : NULL;
}
static inline const cJSON *json_opt_array(const cJSON *obj, const char *key)
{
	const cJSON *v = json_member(obj, key);
	return json_is_array(v) ? v : NULL;
}
/* obj[key] into *out when it is a number (or true/false): whether it was. */
static inline bool json_opt_number(const cJSON *obj, const char *key, double *out)
{
	const cJSON *v = json_member(obj, key);
	if (json_is_number(v))
		*out = v->valuedouble;
	return json_is_number(v);
}
static inline bool json_opt_bool(const cJSON *obj, const char *key, bool *out)
{
	const cJSON *v = json_member(obj, key);
	if (json_is_bool(v))
		*out = json_is_true(v);
	return json_is_bool(v);
}

/* The elements of an array (or the members of an object) in order: el is
 * a `const cJSON *` (v NULL or a scalar: none). Walk, never index: an
 * index is O(i). */
#define JSON_EACH(el, v) for ((el) = (v) ? (v)->child : NULL; (el) != NULL; (el) = (el)->next)
/* The first element (member) of v and the one after el, for a walk that
 * JSON_EACH does not fit: NULL at the end. */
static inline const cJSON *json_first(const cJSON *v) { return v ? v->child : NULL; }
static inline const cJSON *json_next(const cJSON *el) { return el ? el->next : NULL; }
/* How many elements (members) v holds: 0 for NULL or a scalar. */
static inline size_t json_length(const cJSON *v)
{
	size_t n = 0;
	for (const cJSON *c = v && (json_is_array(v) || json_is_object(v)) ? v->child : NULL; c; c = c->next)
		n++;
	return n;
}
/* The element at index i, or NULL (O(i): for the first few only). */
static inline const cJSON *json_item(const cJSON *v, size_t i)
{
	const cJSON *c = v && (json_is_array(v) || json_is_object(v)) ? v->child : NULL;
	while (c && i--)
		c = c->next;
	return c;
}

/* A tree of the text s[0..n) (or of the NUL-ended s), with no positions
 * and none of json_doc_parse's checks: for a probe (is this text JSON?
 * what does its first line hold?) or a JSON value held in a string of a
 * document. NULL when it is not JSON or memory ran out. Owned: free with
 * json_tree_free (NULL is fine). */
cJSON *json_tree_parse(const char *s, size_t n);
cJSON *json_tree_parse_str(const char *s);
void json_tree_free(cJSON *t);
/* v as compact JSON text, NULL when memory ran out. Owned: json_text_free. */
char *json_print_compact(const cJSON *v);
void json_text_free(char *s);

/* A tree built by hand (a database's row handed to a JSON loader's
 * getters): each new value is owned by the caller until json_add_member
 * gives it to obj (true; false when memory ran out: still the caller's).
 * key is borrowed and must outlive obj. NULL when memory ran out. */
cJSON *json_new_number(double v);
cJSON *json_new_string(const char *s);
cJSON *json_new_null(void);
cJSON *json_new_object(void);
bool json_add_member(cJSON *obj, const char *key, cJSON *v);

#endif
