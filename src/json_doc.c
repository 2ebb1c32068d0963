/* json_doc.c: cJSON with positioned errors (see json_doc.h). */
#include "json_doc.h"

#include "alloc.h"
#include "json_scan.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t format_steps(const struct jpath *p, char *buf, size_t n)
{
	if (!p)
		return 0;
	size_t len = format_steps(p->up, buf, n);
	if (len >= n)
		return len;
	int w = p->key ? snprintf(buf + len, n - len, "%s%s", len ? "." : "", p->key)
		       : snprintf(buf + len, n - len, "[%ld]", p->index);
	return len + (w > 0 ? (size_t)w : 0);
}

void jpath_format(const struct jpath *p, char *buf, size_t n)
{
	if (n == 0)
		return;
	buf[0] = '\0';
	format_steps(p, buf, n);
	buf[n - 1] = '\0';
}

/* The index of the quote closing the string opened at s[open], or n when
 * it is unclosed. A quote is escaped when an odd run of backslashes comes
 * before it; memchr skips the text between (most of a ledger's bytes are
 * message text: perf showed this scan at 9% of a load, byte by byte). */
static size_t string_end(const char *s, size_t n, size_t open)
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

/* The first \u0000 escape in the string body s[from, end) (the backslash),
 * or -1; memchr finds the backslashes, most strings have none. */
static long nul_in(const char *s, size_t n, size_t from, size_t end)
{
	while (from < end) {
		const char *q = memchr(s + from, '\\', end - from);
		if (!q)
			return -1;
		size_t b = (size_t)(q - s);
		if (b + 5 < n && s[b + 1] == 'u' && s[b + 2] == '0' && s[b + 3] == '0' && s[b + 4] == '0' && s[b + 5] == '0')
			return (long)b;
		from = b + 2; /* the escaped character */
	}
	return -1;
}

/* One pass over the raw text for what cJSON does not check: the deepest
 * nesting (stopping early past the limit when stop_deep, *deep_at where)
 * and the first \u0000 escape inside a string (*nul, -1 none). */
static size_t prescan(const char *s, size_t n, bool stop_deep, size_t *deep_at, long *nul)
{
	size_t depth = 0, deepest = 0;
	*nul = -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			size_t e = string_end(s, n, i);
			if (*nul < 0)
				*nul = nul_in(s, n, i + 1, e);
			i = e;
		} else if (c == '{' || c == '[') {
			if (++depth > deepest) {
				deepest = depth;
				if (deepest > JSON_MAX_DEPTH && stop_deep) {
					*deep_at = i;
					return deepest;
				}
			}
		} else if ((c == '}' || c == ']') && depth) {
			depth--;
		}
	}
	return deepest;
}

long json_find_nul_escape(const char *s, size_t n)
{
	size_t at;
	long nul;
	prescan(s, n, false, &at, &nul);
	return nul;
}

/* The first key of obj that appears twice (its second occurrence), or NULL.
 * Small objects compare pairwise; large ones sort their keys (an object of
 * 100,000 keys must not cost 10^10 comparisons). *nomem on out of memory. */
#define JSON_DUP_PAIRWISE_MAX 16 /* keys below which n^2/2 compares beat a sort */

static int by_key(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	int c = strcmp(x->string, y->string);
	/* ties: the later item second, so the reported one is the repeat */
	return c ? c : (x < y ? -1 : x > y);
}

static const cJSON *duplicate_key(const cJSON *obj, bool *nomem)
{
	size_t n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, obj) n++;
	if (n < 2)
		return NULL;
	if (n <= JSON_DUP_PAIRWISE_MAX) {
		for (const cJSON *a = obj->child; a; a = a->next)
			for (const cJSON *b = a->next; b; b = b->next)
				if (a->string && b->string && !strcmp(a->string, b->string))
					return b;
		return NULL;
	}
	const cJSON **keys = cs_reallocarray(NULL, n, sizeof *keys);
	if (!keys) {
		*nomem = true;
		return NULL;
	}
	size_t k = 0;
	cJSON_ArrayForEach(it, obj) if (it->string) keys[k++] = it;
	qsort(keys, k, sizeof *keys, by_key);
	const cJSON *dup = NULL;
	for (size_t i = 1; i < k && !dup; i++)
		if (!strcmp(keys[i - 1]->string, keys[i]->string))
			dup = keys[i];
	cs_free(keys);
	return dup;
}

static int check_duplicates(const struct json_doc *d, const cJSON *v, const struct jpath *at, struct cs_error *err)
{
	if (cJSON_IsObject(v)) {
		bool nomem = false;
		const cJSON *dup = duplicate_key(v, &nomem);
		if (nomem)
			return cs_error_set(err, CS_ENOMEM, "out of memory checking for duplicate keys");
		if (dup)
			return json_fail(d, err, CS_ESTRUCT, at, NULL,
					 "the key \"%s\" appears twice in one object (readers disagree on which wins)",
					 dup->string);
		const cJSON *it;
		cJSON_ArrayForEach(it, v)
		{
			struct jpath p = JPATH_KEY(at, it->string);
			int rc = check_duplicates(d, it, &p, err);
			if (rc)
				return rc;
		}
	} else if (cJSON_IsArray(v)) {
		long i = 0;
		const cJSON *it;
		cJSON_ArrayForEach(it, v)
		{
			struct jpath p = JPATH_INDEX(at, i++);
			int rc = check_duplicates(d, it, &p, err);
			if (rc)
				return rc;
		}
	}
	return CS_OK;
}

/* ---- the pool: cJSON's allocations while one document is parsed ---------- */

#define JSON_POOL_FIRST ((size_t)16 << 10)
#define JSON_POOL_MAX ((size_t)8 << 20)
#define JSON_POOL_ALIGN 16

struct json_pool_chunk {
	struct json_pool_chunk *next;
	size_t used, cap;
	_Alignas(JSON_POOL_ALIGN) unsigned char bytes[];
};

static struct json_pool *active_pool; /* the one cJSON allocates from, during json_doc_parse only */

static void *pool_alloc(size_t n)
{
	struct json_pool *p = active_pool;
	if (n > SIZE_MAX - JSON_POOL_ALIGN)
		return NULL;
	n = (n + JSON_POOL_ALIGN - 1) / JSON_POOL_ALIGN * JSON_POOL_ALIGN;
	struct json_pool_chunk *c = p->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = p->next_cap ? p->next_cap : JSON_POOL_FIRST;
		if (cap < n)
			cap = n;
		if (cap > SIZE_MAX - sizeof *c || !(c = cs_malloc(sizeof *c + cap)))
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = p->head;
		p->head = c;
		p->next_cap = cap < JSON_POOL_MAX / 2 ? cap * 2 : JSON_POOL_MAX;
	}
	void *out = c->bytes + c->used;
	c->used += n;
	return out;
}

static void pool_free(void *ptr)
{
	(void)ptr; /* the whole pool goes at once in json_doc_free */
}

static void pool_fini(struct json_pool *p)
{
	for (struct json_pool_chunk *c = p->head, *next; c; c = next) {
		next = c->next;
		cs_free(c);
	}
	*p = (struct json_pool){ 0 };
}

/* cJSON_ParseWithLengthOpts with its allocations in d's pool. */
static cJSON *parse_pooled(struct json_doc *d, const char **end)
{
	active_pool = &d->pool;
	cJSON_Hooks hooks = { .malloc_fn = pool_alloc, .free_fn = pool_free };
	cJSON_InitHooks(&hooks);
	cJSON *root = cJSON_ParseWithLengthOpts(d->data, d->len, end, false);
	cs_alloc_install_cjson_hooks(); /* every other tree (built, printed) as before */
	active_pool = NULL;
	return root;
}

int json_doc_parse(struct json_doc *d, const char *data, size_t len, struct cs_error *err)
{
	d->root = NULL;
	d->data = data;
	d->len = len;
	d->pool = (struct json_pool){ 0 };
	size_t at = 0;
	long nul;
	if (prescan(data, len, true, &at, &nul) > JSON_MAX_DEPTH) {
		long line, col;
		text_position(data, len, at, &line, &col);
		cs_error_pos(err, line, col);
		return cs_error_set(err, CS_ELIMIT, "JSON nested deeper than %d levels", JSON_MAX_DEPTH);
	}
	cs_alloc_install_cjson_hooks();
	const char *end = NULL;
	unsigned long failures = cs_alloc_failures();
	d->root = parse_pooled(d, &end);
	if (!d->root)
		pool_fini(&d->pool); /* what cJSON took before it gave up */
	if (!d->root && cs_alloc_failures() != failures)
		return cs_error_set(err, CS_ENOMEM, "out of memory parsing the JSON");
	if (!d->root) {
		/* cJSON reports no reason; out of memory was told apart above by
		 * the allocator's failure count. */
		size_t off = end && end >= data && end <= data + len ? (size_t)(end - data) : 0;
		long line, col;
		text_position(data, len, off, &line, &col);
		cs_error_pos(err, line, col);
		if (off >= len)
			return cs_error_set(err, CS_ESYNTAX, "the JSON ends too early (an unclosed string, array or object?)");
		return cs_error_set(err, CS_ESYNTAX, "invalid JSON near '%c'", data[off] >= 0x20 && data[off] < 0x7f ? data[off] : '?');
	}
	if (nul >= 0) {
		long line, col;
		text_position(data, len, (size_t)nul, &line, &col);
		cs_error_pos(err, line, col);
		json_doc_free(d);
		return cs_error_set(err, CS_ESYNTAX,
				    "a string holds \\u0000 (a NUL character), which would silently cut it short");
	}
	int rc = check_duplicates(d, d->root, JPATH_ROOT, err);
	if (rc != CS_OK)
		json_doc_free(d);
	return rc;
}

void json_doc_free(struct json_doc *d)
{
	if (d) {
		d->root = NULL;
		pool_fini(&d->pool);
	}
}

int json_fail(const struct json_doc *d, struct cs_error *err, enum cs_status code, const struct jpath *at,
	      const char *key, const char *fmt, ...)
{
	if (!err)
		return (int)code;
	struct jpath leaf = JPATH_KEY(at, key);
	char path[CS_ERROR_PATH_MAX];
	jpath_format(key ? &leaf : at, path, sizeof path);
	json_error_at(err, d->data, d->len, path);
	va_list ap;
	va_start(ap, fmt);
	int rc = cs_error_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

const char *json_type_name(const cJSON *v)
{
	if (!v)
		return "nothing";
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsBool(v))
		return "a boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsObject(v))
		return "an object";
	return "something else";
}

/* The item, or NULL when absent or null and optional; an error otherwise. */
static int lookup(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, const char *expected, const cJSON **item, struct cs_error *err)
{
	*item = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (!*item || cJSON_IsNull(*item)) {
		*item = NULL;
		if (required)
			return json_fail(d, err, CS_ESTRUCT, at, NULL, "missing \"%s\" (%s)", key, expected);
	}
	return CS_OK;
}

int json_get_string(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, const char **out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, "a string", &v, err);
	if (rc || !v)
		return rc;
	if (!cJSON_IsString(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected a string, got %s", json_type_name(v));
	*out = v->valuestring;
	return CS_OK;
}

int json_get_number(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, double *out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, "a number", &v, err);
	if (rc || !v)
		return rc;
	if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
		return json_fail(d, err, CS_ELIMIT, at, key, "the number is too big for a double");
	if (!cJSON_IsNumber(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected a number, got %s", json_type_name(v));
	*out = v->valuedouble;
	return CS_OK;
}

int json_get_long(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, long *out, struct cs_error *err)
{
	double v = 0;
	int rc = json_get_number(d, obj, at, key, required, &v, err);
	if (rc || !cJSON_GetObjectItemCaseSensitive(obj, key) || cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(obj, key)))
		return rc;
	if (v != floor(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected a whole number, got %g", v);
	if (fabs(v) > JSON_MAX_WHOLE)
		return json_fail(d, err, CS_ELIMIT, at, key, "%g is too big for this field (at most %.0f)", v,
				 (double)JSON_MAX_WHOLE);
	*out = (long)v;
	return CS_OK;
}

int json_get_bool(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, bool *out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, "true or false", &v, err);
	if (rc || !v)
		return rc;
	if (!cJSON_IsBool(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected true or false, got %s", json_type_name(v));
	*out = cJSON_IsTrue(v);
	return CS_OK;
}

int json_get_array(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		   int required, const cJSON **out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, "an array", &v, err);
	if (rc || !v)
		return rc;
	if (!cJSON_IsArray(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected an array, got %s", json_type_name(v));
	*out = v;
	return CS_OK;
}

int json_get_object(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, const cJSON **out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, "an object", &v, err);
	if (rc || !v)
		return rc;
	if (!cJSON_IsObject(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected an object, got %s", json_type_name(v));
	*out = v;
	return CS_OK;
}
