/* json/doc.c: cJSON with positioned errors (see json/doc.h). */
#include "json/doc.h"

#include "base/alloc.h"
#include "json/scan.h"

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

/* The lazy array opening at s[at] when the last string of the top level,
 * s[key, key_end), names one of d's lazy keys; else NULL. */
static struct json_span *lazy_open(struct json_doc *d, const char *s, size_t key, size_t key_end, size_t at)
{
	if (!d || !d->lazy || d->nspans == JSON_LAZY_MAX || key_end < key || memchr(s + key, '\\', key_end - key))
		return NULL;
	for (const char *const *k = d->lazy; *k; k++)
		if (strlen(*k) == key_end - key && !memcmp(*k, s + key, key_end - key)) {
			struct json_span *sp = &d->spans[d->nspans++];
			*sp = (struct json_span){ .key = s + key, .keylen = key_end - key, .start = at };
			return sp;
		}
	return NULL;
}

/* One pass over the raw text for what cJSON does not check: the deepest
 * nesting (stopping early past the limit when stop_deep, *deep_at where)
 * and the first \u0000 escape or raw NUL byte inside a string (*nul, -1
 * none: cJSON would cut the string there without a word). With d, the
 * place and element count of each top-level array d names lazy (the
 * separators at its own level, so exact only for valid text). */
static size_t prescan(const char *s, size_t n, bool stop_deep, size_t *deep_at, long *nul, struct json_doc *d)
{
	size_t depth = 0, deepest = 0, key = 0, key_end = 0, commas = 0;
	struct json_span *open = NULL; /* the lazy array being scanned */
	bool filled = false;           /* it has a value */
	const char *z = memchr(s, 0, n);
	long raw = z ? (long)(z - s) : -1;        /* the next raw NUL byte */
	bool nul_seen = raw < 0 && !json_may_hold_nul(s, n); /* none to find */
	*nul = -1;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (c == '"') {
			size_t e = json_string_end(s, n, i);
			if (!nul_seen) {
				while (raw >= 0 && raw <= (long)i) /* one outside a string: cJSON refuses it */
					raw = (z = memchr(s + raw + 1, 0, n - (size_t)raw - 1)) ? (long)(z - s) : -1;
				long esc = json_string_nul(s, n, i + 1, e), in = raw >= 0 && raw < (long)e ? raw : -1;
				*nul = esc < 0 ? in : in < 0 || esc < in ? esc : in;
				nul_seen = *nul >= 0;
			}
			if (depth == 1)
				key = i + 1, key_end = e;
			filled |= open && depth == 2;
			i = e;
		} else if (c == '{' || c == '[') {
			filled |= open && depth == 2;
			if (c == '[' && depth == 1 && (open = lazy_open(d, s, key, key_end, i)))
				commas = 0, filled = false;
			if (++depth > deepest) {
				deepest = depth;
				if (deepest > JSON_MAX_DEPTH && stop_deep) {
					*deep_at = i;
					return deepest;
				}
			}
		} else if ((c == '}' || c == ']') && depth) {
			if (--depth == 1 && open) {
				open->end = i + 1;
				open->count = filled ? commas + 1 : 0;
				open = NULL;
			}
		} else if (open && depth == 2 && (unsigned char)c > ' ') {
			commas += c == ',';
			filled = true;
		}
	}
	return deepest;
}

long json_find_nul_escape(const char *s, size_t n)
{
	size_t at;
	long nul;
	prescan(s, n, false, &at, &nul, NULL);
	return nul;
}

/* The first key of obj that appears twice (its second occurrence), or NULL.
 * Small objects compare pairwise; large ones sort their keys (an object of
 * 100,000 keys must not cost 10^10 comparisons). *nomem on out of memory. */
#define JSON_DUP_PAIRWISE_MAX 32 /* keys up to which a key set (json/lex.h) beats a sort */
_Static_assert(JSON_DUP_PAIRWISE_MAX <= JSON_KEYS_MAX, "a key set holds the keys");

static int by_key(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	int c = strcmp(x->string, y->string);
	/* ties: the later item second, so the reported one is the repeat */
	return c ? c : (x < y ? -1 : x > y);
}

/* The repeat told for an object of at most JSON_DUP_PAIRWISE_MAX keys:
 * of the keys that appear again, the first, at its first repeat. */
static const cJSON *first_repeat(const cJSON *obj)
{
	struct json_keyset ks;
	json_keyset_init(&ks);
	const cJSON *dup = NULL, *it;
	int first = JSON_KEYS_MAX;
	cJSON_ArrayForEach(it, obj) if (it->string)
	{
		int was = json_keyset_add(&ks, it->string, strlen(it->string));
		if (was >= 0 && was < first)
			first = was, dup = it;
	}
	return dup;
}

static const cJSON *duplicate_key(const cJSON *obj, bool *nomem)
{
	size_t n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, obj) n++;
	if (n < 2)
		return NULL;
	if (n <= JSON_DUP_PAIRWISE_MAX)
		return first_repeat(obj);
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

void json_pool_fini(struct json_pool *p)
{
	for (struct json_pool_chunk *c = p->head, *next; c; c = next) {
		next = c->next;
		cs_free(c);
	}
	*p = (struct json_pool){ 0 };
}

/* Drops what a pool holds but its newest (largest) chunk, kept for reuse;
 * under AddressSanitizer every chunk goes, so that a pointer a loader kept
 * into an element already dropped is caught where it is read. */
void json_pool_reset(struct json_pool *p)
{
	struct json_pool_chunk *keep = p->head;
#ifdef __SANITIZE_ADDRESS__
	json_pool_fini(p); /* and the next chunk small again: not one of 8 MB per element */
	keep = NULL;
#endif
	if (!keep)
		return;
	for (struct json_pool_chunk *c = keep->next, *next; c; c = next) {
		next = c->next;
		cs_free(c);
	}
	keep->next = NULL;
	keep->used = 0;
}

cJSON *json_pool_parse(struct json_pool *pool, const char *text, size_t len, const char **end)
{
	active_pool = pool;
	cJSON_Hooks hooks = { .malloc_fn = pool_alloc, .free_fn = pool_free };
	cJSON_InitHooks(&hooks);
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, end, false);
	cs_alloc_install_cjson_hooks(); /* every other tree (built, printed) as before */
	active_pool = NULL;
	return root;
}

/* The positioned syntax error at data[off]; off past the end is the last
 * byte, as cJSON tells it. */
static int syntax_at(const char *data, size_t len, size_t off, struct cs_error *err)
{
	if (off >= len && len)
		off = len - 1;
	long line, col;
	text_position(data, len, off, &line, &col);
	cs_error_pos(err, line, col);
	if (off >= len)
		return cs_error_set(err, CS_ESYNTAX, "the JSON ends too early (an unclosed string, array or object?)");
	return cs_error_set(err, CS_ESYNTAX, "invalid JSON near '%c'", data[off] >= 0x20 && data[off] < 0x7f ? data[off] : '?');
}

static int too_deep(const char *data, size_t len, size_t at, struct cs_error *err)
{
	long line, col;
	text_position(data, len, at, &line, &col);
	cs_error_pos(err, line, col);
	return cs_error_set(err, CS_ELIMIT, "JSON nested deeper than %d levels", JSON_MAX_DEPTH);
}

static int nul_at(const char *data, size_t len, long nul, struct cs_error *err)
{
	long line, col;
	text_position(data, len, (size_t)nul, &line, &col);
	cs_error_pos(err, line, col);
	if (!data[nul])
		return cs_error_set(err, CS_ESYNTAX,
				    "a string holds a raw NUL byte (0x00), which would silently cut it short");
	return cs_error_set(err, CS_ESYNTAX, "a string holds \\u0000 (a NUL character), which would silently cut it short");
}

int json_doc_parse(struct json_doc *d, const char *data, size_t len, struct cs_error *err)
{
	*d = (struct json_doc){ .data = data, .len = len };
	size_t at = 0;
	long nul;
	if (prescan(data, len, true, &at, &nul, NULL) > JSON_MAX_DEPTH)
		return too_deep(data, len, at, err);
	cs_alloc_install_cjson_hooks();
	const char *end = NULL;
	unsigned long failures = cs_alloc_failures();
	d->root = json_pool_parse(&d->pool, data, len, &end);
	if (!d->root)
		json_pool_fini(&d->pool); /* what cJSON took before it gave up */
	if (!d->root && cs_alloc_failures() != failures)
		return cs_error_set(err, CS_ENOMEM, "out of memory parsing the JSON");
	if (!d->root) /* cJSON reports no reason; out of memory was told apart above by the allocator's failure count */
		return syntax_at(data, len, end && end >= data && end <= data + len ? (size_t)(end - data) : 0, err);
	if (nul >= 0) {
		json_doc_free(d);
		return nul_at(data, len, nul, err);
	}
	int rc = check_duplicates(d, d->root, JPATH_ROOT, err);
	if (rc != CS_OK)
		json_doc_free(d);
	return rc;
}

/* ---- lazy documents: the top level shallow, arrays element by element ----- */

static bool is_bom(const char *s, size_t n, size_t p)
{
	return p + 3 <= n && !memcmp(s + p, "\xEF\xBB\xBF", 3);
}

/* Where cJSON starts reading a whole text: past a byte order mark, which
 * it skips only when more than one byte follows it. */
static size_t text_start(const char *s, size_t n)
{
	return n > 4 && is_bom(s, n, 0) ? 3 : 0;
}

static size_t skip_ws(const char *s, size_t n, size_t p)
{
	return p < n ? (size_t)(json_ws_cjson(s + p, s + n) - s) : p;
}

/* The value at data[p] (white space skipped) parsed into pool; NULL with
 * *fail the error's offset, *nomem when memory ran out. cJSON reads a value
 * the same alone as inside the whole text, so *fail is where a parse of
 * the whole text stops; but alone it would skip a byte order mark. */
static cJSON *parse_at(const struct json_doc *d, struct json_pool *pool, size_t p, size_t *end, size_t *fail,
		       bool *nomem)
{
	*nomem = false;
	if (p >= d->len || is_bom(d->data, d->len, p)) {
		*fail = p;
		return NULL;
	}
	unsigned long failures = cs_alloc_failures();
	const char *e = NULL;
	cJSON *v = json_pool_parse(pool, d->data + p, d->len - p, &e);
	if (v) {
		*end = (size_t)(e - d->data);
		return v;
	}
	*nomem = cs_alloc_failures() != failures;
	*fail = e && e >= d->data + p && e <= d->data + d->len ? (size_t)(e - d->data) : p;
	return NULL;
}

static cJSON *pool_item(struct json_pool *pool)
{
	active_pool = pool;
	cJSON *v = pool_alloc(sizeof *v);
	active_pool = NULL;
	if (v)
		memset(v, 0, sizeof *v);
	return v;
}

static const struct json_span *span_at(const struct json_doc *d, size_t p)
{
	for (size_t k = 0; k < d->nspans; k++)
		if (d->spans[k].start == p && d->spans[k].end)
			return &d->spans[k];
	return NULL;
}

/* The element of a lazy array after the one that ended at *pos (i of them
 * so far), into d->elem, as cJSON's parse_array reads them. CS_OK with *el,
 * NULL after the last; CS_ESYNTAX with *fail; CS_ENOMEM. */
static int span_next(struct json_doc *d, const struct json_span *sp, size_t *pos, size_t i, const cJSON **el,
		     size_t *start, size_t *fail)
{
	const char *s = d->data;
	size_t n = d->len, p = skip_ws(s, n, i ? *pos : sp->start + 1), end = 0;
	*el = NULL;
	if (p < n && s[p] == ']')
		return CS_OK;
	if (i) {
		if (p >= n || s[p] != ',') {
			*fail = p;
			return CS_ESYNTAX;
		}
		p = skip_ws(s, n, p + 1);
	}
	if (i >= sp->count) { /* more than the scan counted: never for valid text */
		*fail = p;
		return CS_ESYNTAX;
	}
	bool nomem;
	cJSON *v = parse_at(d, &d->elem, p, &end, fail, &nomem);
	if (!v)
		return nomem ? CS_ENOMEM : CS_ESYNTAX;
	*el = v;
	*start = p;
	*pos = end;
	return CS_OK;
}

/* Every element of a lazy array parsed and dropped: CS_OK, or the first
 * syntax error (*fail) or CS_ENOMEM. */
static int span_check(struct json_doc *d, const struct json_span *sp, size_t *fail)
{
	size_t pos = 0, start;
	for (size_t i = 0;; i++) {
		const cJSON *el;
		json_pool_reset(&d->elem);
		int rc = span_next(d, sp, &pos, i, &el, &start, fail);
		if (rc || !el)
			return rc;
	}
}

/* A member into root: appended, cJSON's way (the head's prev is the last). */
static void link_member(cJSON *root, cJSON *v)
{
	if (!root->child) {
		root->child = v;
	} else {
		cJSON *last = root->child->prev;
		last->next = v;
		v->prev = last;
	}
	root->child->prev = v;
}

/* One member's value at data[p]: a lazy array's place (validate: its
 * elements checked), else the value parsed. *v the member (NULL when
 * validating), *end past it. */
static int top_value(struct json_doc *d, bool validate, size_t p, cJSON **v, size_t *end, size_t *fail)
{
	const struct json_span *sp = span_at(d, p);
	bool nomem = false;
	*v = NULL;
	if (sp) {
		*end = sp->end;
		if (validate)
			return span_check(d, sp, fail);
		if (!(*v = pool_item(&d->pool)))
			return CS_ENOMEM;
		(*v)->type = cJSON_Invalid; /* a lazy array: json_get_lazy */
		(*v)->valueint = (int)(sp - d->spans);
		return CS_OK;
	}
	*v = parse_at(d, validate ? &d->elem : &d->pool, p, end, fail, &nomem);
	if (!*v)
		return nomem ? CS_ENOMEM : CS_ESYNTAX;
	if (validate)
		*v = NULL;
	return CS_OK;
}

/* The top-level object member by member, as cJSON's parse_object reads it
 * (the same error offsets). Not validate: d->root gets every member, a lazy
 * array as a typeless stand-in; validate: every member and every element
 * of a lazy array is parsed into d->elem and dropped, to find the text's
 * first syntax error. CS_OK; CS_ESYNTAX with *fail; CS_ENOMEM. */
static int top_parse(struct json_doc *d, bool validate, size_t *fail)
{
	const char *s = d->data;
	size_t n = d->len, p = skip_ws(s, n, text_start(s, n)) + 1, end = 0; /* past the '{' */
	if (!validate) {
		if (!(d->root = pool_item(&d->pool)))
			return CS_ENOMEM;
		d->root->type = cJSON_Object;
	}
	p = skip_ws(s, n, p);
	if (p < n && s[p] == '}')
		return CS_OK;
	for (;;) {
		p = skip_ws(s, n, p);
		if (p >= n || s[p] != '"') {
			*fail = p + 1; /* where cJSON's parse_string gives up */
			return CS_ESYNTAX;
		}
		bool nomem;
		json_pool_reset(&d->elem);
		cJSON *key = parse_at(d, validate ? &d->elem : &d->pool, p, &end, fail, &nomem), *v;
		if (!key)
			return nomem ? CS_ENOMEM : CS_ESYNTAX;
		p = skip_ws(s, n, end);
		if (p >= n || s[p] != ':') {
			*fail = p;
			return CS_ESYNTAX;
		}
		int rc = top_value(d, validate, skip_ws(s, n, p + 1), &v, &end, fail);
		if (rc)
			return rc;
		if (v) {
			v->string = key->valuestring;
			key->valuestring = NULL;
			link_member(d->root, v);
		}
		p = skip_ws(s, n, end);
		if (p < n && s[p] == '}')
			return CS_OK;
		if (p >= n || s[p] != ',') {
			*fail = p;
			return CS_ESYNTAX;
		}
		p++;
	}
}

/* The text's first syntax error (a lazy array's elements are checked only
 * when walked, so one found later may not be the first): `found` when no
 * earlier one turns up. */
static int first_syntax_error(struct json_doc *d, size_t found, struct cs_error *err)
{
	size_t fail = found;
	int rc = top_parse(d, true, &fail);
	json_pool_reset(&d->elem);
	if (rc == CS_ENOMEM)
		return cs_error_set(err, CS_ENOMEM, "out of memory parsing the JSON");
	return syntax_at(d->data, d->len, rc == CS_ESYNTAX ? fail : found, err);
}

int json_doc_parse_lazy(struct json_doc *d, const char *data, size_t len, const char *const *lazy,
			struct cs_error *err)
{
	size_t p = skip_ws(data, len, text_start(data, len)), at = 0, fail = 0;
	if (p >= len || data[p] != '{')
		return json_doc_parse(d, data, len, err);
	*d = (struct json_doc){ .data = data, .len = len, .lazy = lazy };
	long nul;
	if (prescan(data, len, true, &at, &nul, d) > JSON_MAX_DEPTH)
		return too_deep(data, len, at, err);
	cs_alloc_install_cjson_hooks();
	int rc = top_parse(d, false, &fail);
	bool told = false;
	if (rc == CS_OK && nul >= 0 && (rc = top_parse(d, true, &fail)) == CS_OK) {
		rc = nul_at(data, len, nul, err); /* after any syntax error, as json_doc_parse tells them */
		told = true;
	}
	if (rc == CS_ESYNTAX && !told)
		rc = first_syntax_error(d, fail, err);
	else if (rc == CS_ENOMEM)
		cs_error_set(err, CS_ENOMEM, "out of memory parsing the JSON");
	if (rc == CS_OK)
		rc = check_duplicates(d, d->root, JPATH_ROOT, err);
	json_pool_reset(&d->elem);
	if (rc != CS_OK)
		json_doc_free(d);
	return rc;
}

int json_get_lazy(const struct json_doc *d, const char *key, int required, struct json_array *out,
		  struct cs_error *err)
{
	*out = (struct json_array){ 0 };
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(d->root, key);
	if (v && (v->type & 0xFF) == cJSON_Invalid && (size_t)v->valueint < d->nspans) {
		out->span = &d->spans[v->valueint];
		out->count = out->span->count;
		out->present = true;
		return CS_OK;
	}
	int rc = json_get_array(d, d->root, JPATH_ROOT, key, required, &out->tree, err);
	if (rc == CS_OK && out->tree) {
		out->count = (size_t)cJSON_GetArraySize(out->tree);
		out->present = true;
	}
	return rc;
}

void json_iter_init(struct json_iter *it, struct json_doc *d, const struct json_array *a, const struct jpath *at)
{
	*it = (struct json_iter){ .d = d, .a = *a, .at = at, .next = a->tree ? a->tree->child : NULL };
}

int json_iter_next(struct json_iter *it, const cJSON **el, struct cs_error *err)
{
	*el = NULL;
	if (!it->a.span) {
		if (it->next) {
			*el = it->next;
			it->next = it->next->next;
			it->i++;
		}
		return CS_OK;
	}
	if (it->pos == SIZE_MAX)
		return CS_OK;
	json_pool_reset(&it->d->elem); /* the element before: gone */
	size_t fail = 0;
	int rc = span_next(it->d, it->a.span, &it->pos, it->i, el, &it->el_start, &fail);
	if (rc == CS_ENOMEM)
		return cs_error_set(err, CS_ENOMEM, "out of memory parsing the JSON");
	if (rc)
		return first_syntax_error(it->d, fail, err);
	if (!*el) {
		it->pos = SIZE_MAX;
		return CS_OK;
	}
	struct jpath ip = JPATH_INDEX(it->at, it->i);
	it->i++;
	return check_duplicates(it->d, *el, &ip, err);
}

size_t json_iter_peek(const struct json_iter *it)
{
	const struct json_span *sp = it->a.span;
	if (!sp || it->pos == SIZE_MAX)
		return SIZE_MAX;
	const char *s = it->d->data;
	size_t n = it->d->len, p = skip_ws(s, n, it->i ? it->pos : sp->start + 1);
	if (it->i) {
		if (p >= n || s[p] != ',')
			return SIZE_MAX;
		p = skip_ws(s, n, p + 1);
	}
	return p < n && s[p] != ']' && it->i < sp->count ? p : SIZE_MAX;
}

void json_iter_skip(struct json_iter *it, size_t start, size_t end)
{
	it->el_start = start;
	it->pos = end;
	it->i++;
}

const char *json_iter_string_at(const struct json_iter *it, const char *key)
{
	if (!it->a.span || !it->i)
		return NULL;
	long at = json_member_at(it->d->data, it->d->len, it->el_start, key);
	return at >= 0 && it->d->data[at] == '"' ? it->d->data + at + 1 : NULL;
}

int json_doc_element(struct json_doc *d, size_t start, const cJSON **el, struct cs_error *err)
{
	size_t end, fail;
	bool nomem;
	json_pool_reset(&d->elem);
	*el = parse_at(d, &d->elem, start, &end, &fail, &nomem);
	if (*el)
		return CS_OK;
	return nomem ? cs_error_set(err, CS_ENOMEM, "out of memory parsing the JSON") : syntax_at(d->data, d->len, fail, err);
}

void json_doc_free(struct json_doc *d)
{
	if (d) {
		d->root = NULL;
		json_pool_fini(&d->pool);
		json_pool_fini(&d->elem);
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
	static const struct {
		int types; /* cJSON's type bits */
		const char *name;
	} names[] = { { cJSON_String, "a string" }, { cJSON_Number, "a number" }, { cJSON_True | cJSON_False, "a boolean" },
		      { cJSON_NULL, "null" },       { cJSON_Array, "an array" }, { cJSON_Object, "an object" } };
	if (!v)
		return "nothing";
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (v->type & 0xFF & names[i].types)
			return names[i].name;
	return "something else";
}

const cJSON *json_member(const cJSON *obj, const char *key)
{
	if (!obj || !key)
		return NULL;
	for (const cJSON *c = obj->child; c; c = c->next)
		if (c->string && c->string[0] == key[0] && !strcmp(c->string, key))
			return c;
	return NULL;
}

/* The item, or NULL when absent or null and optional; an error otherwise. */
static int lookup(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, const char *expected, const cJSON **item, struct cs_error *err)
{
	*item = json_member(obj, key);
	if (!*item || cJSON_IsNull(*item)) {
		*item = NULL;
		if (required)
			return json_fail(d, err, CS_ESTRUCT, at, NULL, "missing \"%s\" (%s)", key, expected);
	}
	return CS_OK;
}

/* The member key of obj into *out when `is` holds for it (*out left as
 * it was when absent or null and not required), else the error naming what
 * was expected. */
static int typed(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key, int required,
		 const char *expected, cJSON_bool (*is)(const cJSON *), const cJSON **out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, expected, &v, err);
	if (rc || !v)
		return rc;
	if (!is(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected %s, got %s", expected, json_type_name(v));
	*out = v;
	return CS_OK;
}

int json_get_string(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, const char **out, struct cs_error *err)
{
	const cJSON *v = NULL;
	int rc = typed(d, obj, at, key, required, "a string", cJSON_IsString, &v, err);
	*out = v ? v->valuestring : *out;
	return rc;
}

/* v (present, not null) as a number. */
static int number_of(const struct json_doc *d, const cJSON *v, const struct jpath *at, const char *key, double *out,
		     struct cs_error *err)
{
	if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
		return json_fail(d, err, CS_ELIMIT, at, key, "the number is too big for a double");
	if (!cJSON_IsNumber(v))
		return json_fail(d, err, CS_ETYPE, at, key, "expected a number, got %s", json_type_name(v));
	*out = v->valuedouble;
	return CS_OK;
}

int json_get_number(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, double *out, struct cs_error *err)
{
	const cJSON *v;
	int rc = lookup(d, obj, at, key, required, "a number", &v, err);
	return rc || !v ? rc : number_of(d, v, at, key, out, err);
}

int json_get_long(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		  int required, long *out, struct cs_error *err)
{
	const cJSON *item;
	double v = 0;
	int rc = lookup(d, obj, at, key, required, "a number", &item, err);
	if (rc || !item || (rc = number_of(d, item, at, key, &v, err)))
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
	const cJSON *v = NULL;
	int rc = typed(d, obj, at, key, required, "true or false", cJSON_IsBool, &v, err);
	*out = v ? cJSON_IsTrue(v) : *out;
	return rc;
}

int json_get_array(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		   int required, const cJSON **out, struct cs_error *err)
{
	return typed(d, obj, at, key, required, "an array", cJSON_IsArray, out, err);
}

int json_get_object(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key,
		    int required, const cJSON **out, struct cs_error *err)
{
	return typed(d, obj, at, key, required, "an object", cJSON_IsObject, out, err);
}

/* ---- token counts --------------------------------------------------------- */

const char *json_count_value(const cJSON *v, long *out)
{
	if (!cJSON_IsNumber(v))
		return json_type_name(v);
	double x = v->valuedouble;
	if (x != x)
		return "not a number";
	if (x < 0)
		return "negative";
	if (!isfinite(x) || x > JSON_MAX_WHOLE)
		return "too big";
	if (x != floor(x))
		return "not a whole number";
	*out = (long)x;
	return NULL;
}

/* The value at s[at] as written, into buf (cap >= 8): a number's
 * characters, or a string in quotes, printable ASCII only (any other byte
 * as '?'), cut with "..." past what fits; "" when it is neither. */
static void quote_raw(const char *s, size_t n, size_t at, char *buf, size_t cap)
{
	bool str = at < n && s[at] == '"';
	size_t end = at;
	if (str)
		end = json_string_end(s, n, at) + 1;
	else
		end = (size_t)(json_number_chars(s + at, s + n) - s);
	if (end > n)
		end = n;
	size_t k = 0, i = at, room = cap - 5; /* "...", a closing quote, the NUL */
	for (; i < end && k < room; i++) {
		unsigned char c = (unsigned char)s[i];
		buf[k++] = c >= ' ' && c < 0x7f ? (char)c : '?';
	}
	if (i < end) {
		memcpy(buf + k, "...", 3);
		k += 3;
		if (str)
			buf[k++] = '"';
	}
	buf[k] = '\0';
}

/* obj[key] as a count: JSON_COUNT_* (*v the member, *why the reason it is
 * not a count). */
static int count_member(const cJSON *obj, const char *key, long *out, const cJSON **v, const char **why)
{
	*v = json_member(obj, key);
	*why = NULL;
	if (!*v || cJSON_IsNull(*v))
		return JSON_COUNT_ABSENT;
	*why = json_count_value(*v, out);
	return *why ? JSON_COUNT_BAD : JSON_COUNT_OK;
}

/* The value v at `path` in d's text as written, into raw (quote_raw; a
 * number as a double when the text does not have it): its offset, or -1. */
static long value_as_written(const struct json_doc *d, const char *path, const cJSON *v, char *raw, size_t cap)
{
	long off = d && d->data && path ? json_locate(d->data, d->len, path) : -1;
	raw[0] = '\0';
	if (off >= 0)
		quote_raw(d->data, d->len, (size_t)off, raw, cap);
	if (!raw[0] && cJSON_IsNumber(v))
		snprintf(raw, cap, "%.17g", v->valuedouble);
	return off;
}

/* The path of the node v inside t, into buf at len ("a.b[3]"): whether it
 * was found. Depth is bounded by the parse (JSON_MAX_DEPTH). */
static bool path_of(const cJSON *t, const cJSON *v, char *buf, size_t n, size_t len)
{
	if (t == v)
		return true;
	long i = 0;
	for (const cJSON *c = t ? t->child : NULL; c; c = c->next, i++) {
		int w = cJSON_IsObject(t)
				? snprintf(buf + len, n - len, "%s%s", len ? "." : "", c->string ? c->string : "")
				: snprintf(buf + len, n - len, "[%ld]", i);
		if (w < 0 || (size_t)w >= n - len)
			continue;
		if (path_of(c, v, buf, n, len + (size_t)w))
			return true;
		buf[len] = '\0';
	}
	return false;
}

/* The warning for a value that is not a count: `shown` names it, `path`
 * (NULL: none) finds it in d's text; place->line and column set. */
static void count_warning(struct json_count_place *pl, const cJSON *v, const char *why, const char *shown,
			  const char *path, char *warn, size_t n)
{
	const struct json_doc *d = pl->d;
	char raw[40], where[64] = "";
	long off = value_as_written(d, path, v, raw, sizeof raw);
	pl->line = pl->first_line > 0 ? pl->first_line : 0;
	pl->column = 0;
	if (off >= 0 && !pl->foreign) {
		long line, col;
		text_position(d->data, d->len, (size_t)off, &line, &col);
		pl->line = line + (pl->first_line > 0 ? pl->first_line : 1) - 1;
		pl->column = col;
		snprintf(where, sizeof where, "line %ld, column %ld: ", pl->line, col);
	}
	if (!where[0] && pl->foreign && pl->line > 0)
		snprintf(where, sizeof where, "line %ld: ", pl->line);
	bool number = cJSON_IsNumber(v);
	if (raw[0] && number)
		snprintf(warn, n, "%s%s is %s, not a count (%s)", where, shown, raw, why);
	else if (raw[0])
		snprintf(warn, n, "%s%s is %s %s, not a count", where, shown, why, raw);
	else
		snprintf(warn, n, "%s%s is %s, not a count", where, shown, why);
}

int json_get_count(const struct json_doc *d, long first_line, const cJSON *obj, const struct jpath *at,
		   const char *key, long *out, char *warn, size_t n)
{
	struct json_count_place pl = { .d = d, .first_line = first_line };
	return json_count_at(&pl, obj, at, key, out, warn, n);
}

int json_count_at(struct json_count_place *pl, const cJSON *obj, const struct jpath *at, const char *key, long *out,
		  char *warn, size_t n)
{
	if (warn && n)
		warn[0] = '\0';
	pl->line = pl->column = 0;
	const cJSON *v;
	const char *why;
	int got = count_member(obj, key, out, &v, &why);
	if (got != JSON_COUNT_BAD || !warn || !n)
		return got;
	char path[256] = "", shown[256];
	if (pl->name) { /* the caller's name for obj; its place in d found by a walk */
		const cJSON *root = pl->d ? pl->d->root : NULL;
		bool found = root && path_of(root, obj, path, sizeof path, 0);
		if (found && path[0])
			snprintf(path + strlen(path), sizeof path - strlen(path), ".%s", key);
		else if (found)
			snprintf(path, sizeof path, "%s", key);
		snprintf(shown, sizeof shown, "%s%s%s", pl->name, pl->name[0] ? "." : "", key);
		count_warning(pl, v, why, shown, found ? path : NULL, warn, n);
	} else {
		struct jpath step = JPATH_KEY(at, key);
		jpath_format(&step, path, sizeof path);
		count_warning(pl, v, why, path, path, warn, n);
	}
	return JSON_COUNT_BAD;
}

/* ---- numbers as written ------------------------------------------------- */

struct number_walk {
	const char *s;
	size_t n, pos;
	struct json_pool *pool;
	int rc; /* CS_OK; CS_ENOMEM; CS_ESTATE: the text no longer matches the tree */
};

static void walk_ws(struct number_walk *w)
{
	w->pos = skip_ws(w->s, w->n, w->pos);
}

static void walk_eat(struct number_walk *w, char c)
{
	walk_ws(w);
	if (w->pos < w->n && w->s[w->pos] == c)
		w->pos++;
	else
		w->rc = CS_ESTATE;
}

/* Whether s[0..n) is what any reader prints for the number: an integer of
 * at most 15 digits (a double holds it, and it prints as written). */
static bool plain_integer(const char *s, size_t n)
{
	struct json_lex_num num;
	return json_lex_number(s, s + n, &num) == s + n && !num.frac && !num.exp && !num.lead_zero && num.digits <= 15;
}

/* The number at w->pos, kept on v when it is not plain and reads back as
 * v's value (a check that the text still is the tree's). */
static void walk_number(struct number_walk *w, cJSON *v)
{
	size_t start = w->pos;
	w->pos = (size_t)(json_number_chars(w->s + start, w->s + w->n) - w->s);
	size_t len = w->pos - start;
	char buf[64];
	if (!len || len >= sizeof buf) { /* cJSON reads at most 63 characters of a number */
		w->rc = len ? w->rc : CS_ESTATE;
		return;
	}
	memcpy(buf, w->s + start, len);
	buf[len] = '\0';
	double back = strtod(buf, NULL);
	if (!(back == v->valuedouble || (back != back && v->valuedouble != v->valuedouble))) {
		w->rc = CS_ESTATE;
		return;
	}
	if (plain_integer(buf, len))
		return;
	active_pool = w->pool;
	char *copy = pool_alloc(len + 1);
	active_pool = NULL;
	if (!copy) {
		w->rc = CS_ENOMEM;
		return;
	}
	memcpy(copy, buf, len + 1);
	v->valuestring = copy;
}

static void walk_value(struct number_walk *w, cJSON *v)
{
	walk_ws(w);
	if (w->rc != CS_OK || w->pos >= w->n) {
		w->rc = w->rc != CS_OK ? w->rc : CS_ESTATE;
		return;
	}
	if (cJSON_IsString(v)) {
		if (w->s[w->pos] != '"')
			w->rc = CS_ESTATE;
		w->pos = json_string_end(w->s, w->n, w->pos) + 1;
	} else if (cJSON_IsNumber(v)) {
		walk_number(w, v);
	} else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		bool obj = cJSON_IsObject(v);
		walk_eat(w, obj ? '{' : '[');
		for (cJSON *c = v->child; c && w->rc == CS_OK; c = c->next) {
			if (c != v->child)
				walk_eat(w, ',');
			if (obj) {
				walk_ws(w);
				if (w->pos >= w->n || w->s[w->pos] != '"') {
					w->rc = CS_ESTATE;
					break;
				}
				w->pos = json_string_end(w->s, w->n, w->pos) + 1;
				walk_eat(w, ':');
			}
			walk_value(w, c);
		}
		walk_eat(w, obj ? '}' : ']');
	} else { /* true, false, null */
		while (w->pos < w->n && w->s[w->pos] >= 'a' && w->s[w->pos] <= 'z')
			w->pos++;
	}
}

int json_keep_number_text(struct json_doc *d)
{
	if (!d || !d->root || !d->data || d->lazy)
		return CS_OK;
	struct number_walk w = { .s = d->data, .n = d->len, .pool = &d->pool };
	if (w.n >= 3 && !memcmp(w.s, "\xEF\xBB\xBF", 3))
		w.pos = 3;
	walk_value(&w, d->root);
	return w.rc == CS_ENOMEM ? CS_ENOMEM : CS_OK;
}

const char *json_number_written(const cJSON *v)
{
	return cJSON_IsNumber(v) ? v->valuestring : NULL;
}

/* ---- getters for the loaders -------------------------------------------- */

int json_require_count(const struct json_doc *d, const cJSON *obj, const struct jpath *at, const char *key, long *out,
		       struct cs_error *err)
{
	const cJSON *v;
	const char *why;
	if (count_member(obj, key, out, &v, &why) != JSON_COUNT_BAD)
		return CS_OK;
	char path[256], raw[40];
	struct jpath step = JPATH_KEY(at, key);
	jpath_format(&step, path, sizeof path);
	value_as_written(d, path, v, raw, sizeof raw);
	enum cs_status code = !strcmp(why, "too big") ? CS_ELIMIT : CS_ETYPE;
	if (raw[0] && cJSON_IsNumber(v))
		return json_fail(d, err, code, at, key, "%s is not a count (%s)", raw, why);
	if (raw[0])
		return json_fail(d, err, code, at, key, "%s %s is not a count", why, raw);
	return json_fail(d, err, code, at, key, "%s is not a count", why);
}

cJSON *json_tree_parse(const char *s, size_t n)
{
	return s ? cJSON_ParseWithLength(s, n) : NULL;
}

cJSON *json_tree_parse_str(const char *s)
{
	return s ? cJSON_Parse(s) : NULL;
}

void json_tree_free(cJSON *t)
{
	cJSON_Delete(t);
}

char *json_print_compact(const cJSON *v)
{
	return v ? cJSON_PrintUnformatted(v) : NULL;
}

void json_text_free(char *s)
{
	cJSON_free(s);
}

cJSON *json_new_number(double v)
{
	return cJSON_CreateNumber(v);
}

cJSON *json_new_string(const char *s)
{
	return cJSON_CreateString(s);
}

cJSON *json_new_null(void)
{
	return cJSON_CreateNull();
}

cJSON *json_new_object(void)
{
	return cJSON_CreateObject();
}

bool json_add_member(cJSON *obj, const char *key, cJSON *v)
{
	return cJSON_AddItemToObjectCS(obj, key, v) != 0;
}
