/* memory.c (loom): reading seed 000's loom-aware extensions in Aspen
 * Grove's format (ctxscope-formats(5) section 1): loomAware.systemAddendum and
 * loomAware.operationalMemory {pinned: [{label, text}], recentActions,
 * stashes}. Pinned entries become pieces (they can be excluded like nodes);
 * recent actions and stash names are kept as lines of text. The assembler
 * renders them only with loom-aware rendering on.
 * Decisions where ctxscope-formats(5) is silent:
 *   - a pinned entry without a label is labelled "pinned N" (1-based); two
 *     entries with one label keep both, with a warning (an --exclude by
 *     label then names the first);
 *   - non-string items of recentActions or stashes are positioned warnings
 *     and left out; empty strings are left out silently. */
#include "loom_priv.h"

#include "base/alloc.h"
#include "json/doc.h"
#include "source.h"

#include <stdio.h>
#include <string.h>

/* A string array's non-empty strings into the arena. */
static int read_lines(struct loader *L, const cJSON *obj, const struct jpath *at, const char *key,
		      const char ***out, size_t *n)
{
	const cJSON *arr = NULL;
	int rc = json_get_array(&L->doc, obj, at, key, JSON_OPTIONAL, &arr, L->err);
	if (rc || !arr)
		return rc;
	size_t cap = json_length(arr);
	*out = arena_alloc(&L->src->arena, (cap ? cap : 1) * sizeof **out);
	if (!*out)
		return loom_nomem(L);
	struct jpath kp = JPATH_KEY(at, key);
	long i = 0;
	const cJSON *v;
	JSON_EACH(v, arr)
	{
		struct jpath ip = JPATH_INDEX(&kp, i++);
		if (!json_is_string(v)) {
			if ((rc = loom_warn_at(L, -1, &ip, NULL, "expected a string, got %s; left out",
					       json_type_name(v))))
				return rc;
			continue;
		}
		const char *s = json_string_value(v);
		size_t len = strlen(s);
		loom_trim(&s, &len);
		if (!len)
			continue;
		if (!((*out)[*n] = arena_strndup(&L->src->arena, s, len)))
			return loom_nomem(L);
		(*n)++;
	}
	return CS_OK;
}

static int read_pinned(struct loader *L, const cJSON *mem, const struct jpath *at)
{
	const cJSON *arr = NULL;
	int rc = json_get_array(&L->doc, mem, at, "pinned", JSON_OPTIONAL, &arr, L->err);
	if (rc || !arr)
		return rc;
	struct jpath pp = JPATH_KEY(at, "pinned");
	long i = 0;
	const cJSON *v;
	size_t first = L->src->npieces;
	JSON_EACH(v, arr)
	{
		struct jpath ip = JPATH_INDEX(&pp, i++);
		if (!json_is_object(v))
			return json_fail(&L->doc, L->err, CS_ETYPE, &ip, NULL, "expected a pinned entry {label, text}, got %s",
					 json_type_name(v));
		const char *label = NULL, *text = "";
		if ((rc = json_get_string(&L->doc, v, &ip, "label", JSON_OPTIONAL, &label, L->err)) ||
		    (rc = json_get_string(&L->doc, v, &ip, "text", JSON_OPTIONAL, &text, L->err)))
			return rc;
		char fallback[32];
		if (!label || !label[0]) {
			snprintf(fallback, sizeof fallback, "pinned %ld", i);
			label = fallback;
		}
		for (size_t k = first; k < L->src->npieces; k++)
			if (!strcmp(L->src->pieces[k].label, label)) {
				if ((rc = loom_warn_at(L, (long)k, &ip, "label",
						       "a second pinned entry labelled \"%s\": both are kept; "
						       "--exclude by this label names the first", label)))
					return rc;
				break;
			}
		if ((rc = loom_add_pinned(L, label, text)))
			return rc;
	}
	return CS_OK;
}

int loom_read_loom_aware(struct loader *L, const cJSON *root)
{
	struct loom *m = L->m;
	m->addendum = "";
	const cJSON *la = NULL, *mem = NULL;
	int rc = json_get_object(&L->doc, root, JPATH_ROOT, "loomAware", JSON_OPTIONAL, &la, L->err);
	if (rc || !la)
		return rc;
	struct jpath lp = JPATH_KEY(JPATH_ROOT, "loomAware");
	const char *add = "";
	if ((rc = json_get_string(&L->doc, la, &lp, "systemAddendum", JSON_OPTIONAL, &add, L->err)) ||
	    (rc = json_get_object(&L->doc, la, &lp, "operationalMemory", JSON_OPTIONAL, &mem, L->err)))
		return rc;
	size_t n = strlen(add);
	loom_trim(&add, &n);
	if (!(m->addendum = arena_strndup(&L->src->arena, add, n)))
		return loom_nomem(L);
	if (!mem)
		return CS_OK;
	struct jpath mp = JPATH_KEY(&lp, "operationalMemory");
	if ((rc = read_pinned(L, mem, &mp)) ||
	    (rc = read_lines(L, mem, &mp, "recentActions", &m->recent_actions, &m->nrecent)) ||
	    (rc = read_lines(L, mem, &mp, "stashes", &m->stashes, &m->nstashes)))
		return rc;
	return CS_OK;
}
