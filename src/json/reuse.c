/* json/reuse.c: one pool for a run of small JSON documents (see json/reuse.h). */
#include "json/reuse.h"

#include "json/lex.h"

#include <string.h>

void json_reuse_fini(struct json_reuse *r)
{
	json_pool_fini(&r->pool);
}

void json_reuse_keep(struct json_reuse *r, struct json_doc *d)
{
	if (d->root && !d->pool.head) { /* a tree of r's pool (json_doc_parse's own has its pool) */
		d->pool = r->pool;
		r->pool = (struct json_pool){ 0 };
	}
}

/* ---- the checks: true when json_doc_parse would find nothing ------------ */

/* Only blanks from s[at] to the end: cJSON took the whole text (json/doc.c's
 * depth count runs over all of it, a tree's depth over what cJSON took). */
static bool all_taken(const char *s, size_t n, const char *end)
{
	return end && end >= s && end <= s + n && json_ws(end, s + n) == s + n;
}

/* Whether two keys of obj are the same, or there are more keys than a key
 * set holds (json_doc_parse tells). */
static bool keys_repeat(const cJSON *obj)
{
	struct json_keyset ks;
	json_keyset_init(&ks);
	for (const cJSON *it = obj->child; it; it = it->next)
		if (it->string && json_keyset_add(&ks, it->string, strlen(it->string)) != JSON_KEY_NEW)
			return true;
	return false;
}

/* The tree nests JSON_MAX_DEPTH containers at most (depth: v's own) and no
 * object has a key twice. */
static bool tree_passes(const cJSON *v, size_t depth)
{
	if (!cJSON_IsObject(v) && !cJSON_IsArray(v))
		return true;
	if (depth > JSON_MAX_DEPTH || (cJSON_IsObject(v) && keys_repeat(v)))
		return false;
	for (const cJSON *it = v->child; it; it = it->next)
		if (!tree_passes(it, depth + 1))
			return false;
	return true;
}

int json_reuse_parse(struct json_reuse *r, struct json_doc *d, const char *data, size_t len, struct cs_error *err)
{
	*d = (struct json_doc){ .data = data, .len = len };
	if (!json_may_hold_nul(data, len) && !memchr(data, 0, len)) { /* a raw NUL too: json_doc_parse tells it */
		json_pool_reset(&r->pool);
		const char *end = NULL;
		cJSON *root = json_pool_parse(&r->pool, data, len, &end);
		if (root && all_taken(data, len, end) && tree_passes(root, 1)) {
			d->root = root;
			return CS_OK;
		}
	}
	return json_doc_parse(d, data, len, err); /* its error, or its own answer on what this scan could not tell */
}
