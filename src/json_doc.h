/* json_doc.h: cJSON documents with positioned errors, for the JSON loaders
 * (loom, ledger, memory). A document path is a chain of struct jpath on the
 * caller's stack, rendered to text ("nodes[12].metadata.excluded") only when
 * an error needs it, so walking a million nodes costs nothing extra. Errors
 * name the path and, by scanning the raw text (json_scan.h), its line and
 * column. Always look keys up case-sensitively (cJSON_GetObjectItem ignores
 * case) and walk arrays with cJSON_ArrayForEach (indexing is O(i)). */
#ifndef CTXSCOPE_JSON_DOC_H
#define CTXSCOPE_JSON_DOC_H

#include "error.h"

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

struct json_doc {
	cJSON *root;       /* owned, in pool: never cJSON_Delete it, never edit the tree */
	const char *data;  /* the raw text, borrowed: must outlive the doc's errors */
	size_t len;
	struct json_pool pool;
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
 * CS_ESYNTAX for a \u0000 escape in a string (cJSON would silently cut the
 * string there); CS_ESTRUCT, with its path, for a key that appears twice
 * in one object (cJSON keeps both; other readers take the last);
 * CS_ENOMEM. Free with json_doc_free (safe after failure). */
int json_doc_parse(struct json_doc *d, const char *data, size_t len, struct cs_error *err);
void json_doc_free(struct json_doc *d);

/* The byte offset of the first \u0000 escape inside a string of the JSON
 * text s[0..n) (the backslash), or -1. A \\u0000 (an escaped backslash and
 * the letters) is not one. */
long json_find_nul_escape(const char *s, size_t n);

/* A positioned error at path `at` (plus `key` when not NULL). Returns code. */
int json_fail(const struct json_doc *d, struct cs_error *err, enum cs_status code, const struct jpath *at,
	      const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

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

#endif
