/* loom/load.c: reading an Aspen Grove loom tree (ctxscope-formats(5) section 1).
 * Every node and edge is checked (types, dangling ids, duplicate ids); the
 * path is resolved (path.nodeIds, else a walk up from path.activeNodeId with
 * path.selections); then only the nodes the path uses become pieces, their
 * text copied into the source's arena, and the cJSON tree is freed.
 * Decisions where ctxscope-formats(5) is silent:
 *   - steps of path.nodeIds may be joined by a continuation or an annotation
 *     edge (an annotation edge is what makes the `annotation` exclusion
 *     reachable); a walk up follows continuation edges, and an annotation
 *     edge only where a node has no incoming continuation edge;
 *   - a mixed node's blocks are joined with a newline;
 *   - in dialogue mode a piece's text is the node's text trimmed; in buffer
 *     mode it is kept byte for byte;
 *   - a node used as a context source twice, or also on the path, is one
 *     piece (its first use), with a warning.
 * The loom-aware extensions (loomAware) are read in memory.c, the recorded
 * usage (rawApiResponses) in usage.c.
 * The time parsing is time.c; the pieces are made in pieces.c; the kind's
 * table and settings are kind.c. */
#include "loom_priv.h"

#include "base/alloc.h"
#include "assembly.h"
#include "json/doc.h"
#include "models.h"
#include "source.h"
#include "base/strbuf.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool idmap_init(struct idmap *im, size_t n)
{
	size_t cap = 16;
	while (cap < n * 2)
		cap *= 2;
	im->keys = cs_calloc(cap, sizeof *im->keys);
	im->vals = cs_calloc(cap, sizeof *im->vals);
	im->mask = cap - 1;
	return im->keys && im->vals;
}

static void idmap_fini(struct idmap *im)
{
	cs_free(im->keys);
	cs_free(im->vals);
}

/* Inserts key -> val; returns the index already there for a duplicate, else NONE. */
static size_t idmap_put(struct idmap *im, const char *key, size_t val)
{
	for (size_t i = hash_str(key) & im->mask;; i = (i + 1) & im->mask) {
		if (!im->keys[i]) {
			im->keys[i] = key;
			im->vals[i] = val;
			return NONE;
		}
		if (strcmp(im->keys[i], key) == 0)
			return im->vals[i];
	}
}

static size_t idmap_get(const struct idmap *im, const char *key)
{
	for (size_t i = hash_str(key) & im->mask; im->keys[i]; i = (i + 1) & im->mask)
		if (strcmp(im->keys[i], key) == 0)
			return im->vals[i];
	return NONE;
}

size_t loom_node_index(const struct loader *L, const char *id)
{
	return idmap_get(&L->node_ids, id);
}

int loom_nomem(struct loader *L)
{
	return cs_error_nomem(L->err);
}

/* ---- reading ------------------------------------------------------------- */

char *loom_keep(struct loader *L, const char *s)
{
	return s ? arena_strdup(&L->src->arena, s) : NULL;
}

static int read_time(struct loader *L, const cJSON *obj, const struct jpath *at, long long *out)
{
	const cJSON *v = json_member(obj, "createdAt");
	*out = LOOM_NO_TIME;
	if (!v || json_is_null(v))
		return CS_OK;
	if (json_is_number(v) &&
	    !(fabs(json_number_value(v, 0)) <= JSON_MAX_WHOLE)) /* 1e300, NaN: no long long holds it */
		return json_fail(&L->doc, L->err, CS_ELIMIT, at, "createdAt",
				 "%g is no time in milliseconds (at most %.0f either way)", json_number_value(v, 0),
				 (double)JSON_MAX_WHOLE);
	if (json_is_number(v)) {
		*out = (long long)json_number_value(v, 0);
		return CS_OK;
	}
	if (json_is_string(v) && loom_parse_time(json_string_value(v), out))
		return CS_OK;
	return json_fail(&L->doc, L->err, CS_ETYPE, at, "createdAt",
			 "expected an ISO 8601 time or epoch milliseconds, got %s", json_type_name(v));
}

/* Checks a content object (text / image / audio / mixed). */
static int check_content(struct loader *L, const cJSON *c, const struct jpath *at)
{
	const char *type = NULL;
	int rc = json_get_string(&L->doc, c, at, "type", JSON_REQUIRED, &type, L->err);
	if (rc)
		return rc;
	if (!strcmp(type, "text")) {
		const char *t = "";
		return json_get_string(&L->doc, c, at, "text", JSON_OPTIONAL, &t, L->err);
	}
	if (!strcmp(type, "image") || !strcmp(type, "audio"))
		return CS_OK;
	if (strcmp(type, "mixed"))
		return json_fail(&L->doc, L->err, CS_ETYPE, at, "type",
				 "unknown content type \"%s\": expected text, image, audio or mixed", type);
	const cJSON *blocks = NULL;
	if ((rc = json_get_array(&L->doc, c, at, "blocks", JSON_REQUIRED, &blocks, L->err)))
		return rc;
	struct jpath bp = JPATH_KEY(at, "blocks");
	long i = 0;
	const cJSON *b;
	JSON_EACH(b, blocks)
	{
		struct jpath ip = JPATH_INDEX(&bp, i++);
		if (!json_is_object(b))
			return json_fail(&L->doc, L->err, CS_ETYPE, &ip, NULL, "expected a content block, got %s",
					 json_type_name(b));
		const char *bt = NULL;
		if ((rc = json_get_string(&L->doc, b, &ip, "type", JSON_REQUIRED, &bt, L->err)))
			return rc;
		if (!strcmp(bt, "mixed") || (strcmp(bt, "text") && strcmp(bt, "image") && strcmp(bt, "audio")))
			return json_fail(&L->doc, L->err, CS_ETYPE, &ip, "type",
					 "unknown block type \"%s\": expected text, image or audio", bt);
		if ((rc = check_content(L, b, &ip)))
			return rc;
	}
	return CS_OK;
}

/* The node's assembled text (ctxscope-formats(5): non-text is a literal stand-in). */
void loom_content_text(const cJSON *c, struct strbuf *out)
{
	const char *type = json_string_value(json_member(c, "type"));
	if (!type)
		return;
	if (!strcmp(type, "text")) {
		const char *t = json_string_value(json_member(c, "text"));
		if (t)
			sb_puts(out, t);
	} else if (!strcmp(type, "image")) {
		sb_puts(out, "[image content]");
	} else if (!strcmp(type, "audio")) {
		sb_puts(out, "[audio content]");
	} else {
		const cJSON *b;
		bool first = true;
		JSON_EACH(b, json_member(c, "blocks"))
		{
			if (!first)
				sb_putc(out, '\n');
			first = false;
			loom_content_text(b, out);
		}
	}
}

/* A string of the element into the loader's arena (the element is gone
 * after it): absent leaves *out as it was. */
static int keep_id(struct loader *L, const cJSON *v, const struct jpath *at, const char *key, int required,
		   const char **out)
{
	const char *s = NULL;
	int rc = json_get_string(&L->doc, v, at, key, required, &s, L->err);
	if (rc || !s)
		return rc;
	return (*out = arena_strdup(&L->ids, s)) ? CS_OK : loom_nomem(L);
}

/* One node (nodes[i]): its fields checked, what the path needs kept. */
static int read_node(struct loader *L, const cJSON *v, const struct jpath *ip, size_t i)
{
	struct tnode *t = &L->nodes[i];
	int rc;
	if (!json_is_object(v))
		return json_fail(&L->doc, L->err, CS_ETYPE, ip, NULL, "expected a node object, got %s", json_type_name(v));
	t->piece = -1;
	if ((rc = keep_id(L, v, ip, "id", JSON_REQUIRED, &t->id)))
		return rc;
	size_t dup = idmap_put(&L->node_ids, t->id, i);
	if (dup != NONE)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, ip, "id", "duplicate node id \"%s\" (also nodes[%zu])", t->id,
				 dup);
	if ((rc = keep_id(L, v, ip, "localId", JSON_OPTIONAL, &t->local_id)))
		return rc;
	const char *author = NULL;
	if ((rc = json_get_string(&L->doc, v, ip, "authorType", JSON_REQUIRED, &author, L->err)))
		return rc;
	if (!strcmp(author, "human"))
		t->author = 0;
	else if (!strcmp(author, "model"))
		t->author = 1;
	else
		return json_fail(&L->doc, L->err, CS_ETYPE, ip, "authorType",
				 "unknown authorType \"%s\": expected human or model", author);
	const cJSON *content = NULL, *meta = NULL;
	if ((rc = json_get_object(&L->doc, v, ip, "content", JSON_REQUIRED, &content, L->err)))
		return rc;
	struct jpath cp = JPATH_KEY(ip, "content");
	if ((rc = check_content(L, content, &cp)))
		return rc;
	if ((rc = json_get_object(&L->doc, v, ip, "metadata", JSON_OPTIONAL, &meta, L->err)))
		return rc;
	if (meta) {
		struct jpath mp = JPATH_KEY(ip, "metadata");
		if ((rc = json_get_bool(&L->doc, meta, &mp, "excluded", JSON_OPTIONAL, &t->excluded, L->err)) ||
		    (rc = json_get_bool(&L->doc, meta, &mp, "pruned", JSON_OPTIONAL, &t->pruned, L->err)) ||
		    (rc = json_get_bool(&L->doc, meta, &mp, "bookmarked", JSON_OPTIONAL, &t->bookmarked, L->err)) ||
		    (rc = json_get_bool(&L->doc, meta, &mp, "includeAnnotation", JSON_OPTIONAL, &t->include_annotation,
					L->err)))
			return rc;
	}
	return read_time(L, v, ip, &t->created_ms);
}

/* The nodes, one element at a time (the text of the few the path uses is
 * parsed again when their pieces are made). */
static int read_nodes(struct loader *L, const struct json_array *arr)
{
	struct jpath np = JPATH_KEY(JPATH_ROOT, "nodes");
	size_t n = arr->count;
	if (n > LOOM_MAX_NODES)
		return json_fail(&L->doc, L->err, CS_ELIMIT, &np, NULL, "more than 10,000,000 nodes");
	L->nodes = cs_calloc(n ? n : 1, sizeof *L->nodes);
	if (!L->nodes || !idmap_init(&L->node_ids, n))
		return loom_nomem(L);
	struct json_iter it;
	json_iter_init(&it, &L->doc, arr, &np);
	const cJSON *v;
	int rc;
	while ((rc = json_iter_next(&it, &v, L->err)) == CS_OK && v) {
		struct jpath ip = JPATH_INDEX(&np, L->nnodes);
		struct tnode *t = &L->nodes[L->nnodes];
		t->json = arr->tree ? v : NULL;
		t->at = it.el_start;
		if ((rc = read_node(L, v, &ip, L->nnodes)))
			return rc;
		L->nnodes++;
	}
	return rc;
}

int loom_node_content(struct loader *L, const struct tnode *t, const cJSON **content)
{
	const cJSON *v = t->json;
	int rc = v ? CS_OK : json_doc_element(&L->doc, t->at, &v, L->err);
	*content = json_member(v, "content");
	return rc;
}

static int node_ref(struct loader *L, const cJSON *obj, const struct jpath *at, const char *key, int required,
		    size_t *out)
{
	const char *id = NULL;
	int rc = json_get_string(&L->doc, obj, at, key, required, &id, L->err);
	if (rc)
		return rc;
	*out = NONE;
	if (!id)
		return CS_OK;
	*out = idmap_get(&L->node_ids, id);
	if (*out == NONE)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, at, key, "no node \"%s\"", id);
	return CS_OK;
}

/* One edge's sources: each a node and a role, none the edge's own target,
 * at least one primary; counts what leaves each primary source. */
static int read_sources(struct loader *L, const cJSON *v, const struct jpath *ip, struct tedge *e)
{
	const cJSON *sources = NULL;
	int rc;
	if ((rc = json_get_array(&L->doc, v, ip, "sources", JSON_REQUIRED, &sources, L->err)))
		return rc;
	struct jpath sp = JPATH_KEY(ip, "sources");
	e->first_src = L->nsrcs;
	size_t primaries = 0;
	const cJSON *s;
	JSON_EACH(s, sources)
	{
		struct jpath kp = JPATH_INDEX(&sp, e->nsrc);
		if (!json_is_object(s))
			return json_fail(&L->doc, L->err, CS_ETYPE, &kp, NULL, "expected a source object, got %s",
					 json_type_name(s));
		if (CS_GROW(L->srcs, L->srcs_cap, L->nsrcs + 1))
			return loom_nomem(L);
		struct tsource *ts = &L->srcs[L->nsrcs];
		if ((rc = node_ref(L, s, &kp, "nodeId", JSON_REQUIRED, &ts->node)))
			return rc;
		const char *role = "primary";
		if ((rc = json_get_string(&L->doc, s, &kp, "role", JSON_OPTIONAL, &role, L->err)))
			return rc;
		if (!strcmp(role, "primary"))
			ts->role = SRC_PRIMARY, primaries++;
		else if (!strcmp(role, "context"))
			ts->role = SRC_CONTEXT;
		else if (!strcmp(role, "instruction"))
			ts->role = SRC_INSTRUCTION;
		else
			return json_fail(&L->doc, L->err, CS_ETYPE, &kp, "role",
					 "unknown source role \"%s\": expected primary, context or instruction", role);
		if (ts->node == e->target)
			return json_fail(&L->doc, L->err, CS_ESTRUCT, &kp, "nodeId",
					 "the edge's source is its own target \"%s\" (a cycle)", L->nodes[e->target].id);
		L->nsrcs++;
		e->nsrc++;
	}
	if (!primaries)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, ip, "sources", "the edge has no primary source");
	for (size_t k = 0; k < e->nsrc; k++) {
		struct tsource *ts = &L->srcs[e->first_src + k];
		if (ts->role != SRC_PRIMARY)
			continue;
		if (e->type == EDGE_CONTINUATION)
			L->nodes[ts->node].cont_out++;
		else
			L->nodes[ts->node].ann_out++;
	}
	return CS_OK;
}

/* One edge: its id (unique), type, target and sources. */
static int read_edge(struct loader *L, const cJSON *v, const struct jpath *ip, size_t i)
{
	struct tedge *e = &L->edges[i];
	int rc;
	if (!json_is_object(v))
		return json_fail(&L->doc, L->err, CS_ETYPE, ip, NULL, "expected an edge object, got %s",
				 json_type_name(v));
	e->index = i;
	if ((rc = keep_id(L, v, ip, "id", JSON_REQUIRED, &e->id)))
		return rc;
	size_t dup = idmap_put(&L->edge_ids, e->id, i);
	if (dup != NONE)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, ip, "id", "duplicate edge id \"%s\" (also edges[%zu])",
				 e->id, dup);
	const char *type = NULL;
	if ((rc = json_get_string(&L->doc, v, ip, "edgeType", JSON_REQUIRED, &type, L->err)))
		return rc;
	if (!strcmp(type, "continuation"))
		e->type = EDGE_CONTINUATION;
	else if (!strcmp(type, "annotation"))
		e->type = EDGE_ANNOTATION;
	else
		return json_fail(&L->doc, L->err, CS_ETYPE, ip, "edgeType",
				 "unknown edgeType \"%s\": expected continuation or annotation", type);
	if ((rc = node_ref(L, v, ip, "targetNodeId", JSON_REQUIRED, &e->target)))
		return rc;
	return read_sources(L, v, ip, e);
}

static int read_edges(struct loader *L, const struct json_array *arr)
{
	struct jpath ep = JPATH_KEY(JPATH_ROOT, "edges");
	size_t n = arr->count;
	L->edges = cs_calloc(n ? n : 1, sizeof *L->edges);
	if (!L->edges || !idmap_init(&L->edge_ids, n))
		return loom_nomem(L);
	struct json_iter it;
	json_iter_init(&it, &L->doc, arr, &ep);
	const cJSON *v;
	int rc;
	while ((rc = json_iter_next(&it, &v, L->err)) == CS_OK && v) {
		size_t i = L->nedges;
		struct jpath ip = JPATH_INDEX(&ep, i);
		if ((rc = read_edge(L, v, &ip, i)))
			return rc;
		L->nodes[L->edges[i].target].in_count++;
		L->nedges++;
	}
	if (rc)
		return rc;
	/* incoming edges per node, in edge order */
	L->in_edges = cs_calloc(L->nedges ? L->nedges : 1, sizeof *L->in_edges);
	if (!L->in_edges)
		return loom_nomem(L);
	size_t at = 0;
	for (size_t i = 0; i < L->nnodes; i++) {
		L->nodes[i].in_first = at;
		at += L->nodes[i].in_count;
		L->nodes[i].in_count = 0;
	}
	for (size_t i = 0; i < L->nedges; i++) {
		struct tnode *t = &L->nodes[L->edges[i].target];
		L->in_edges[t->in_first + t->in_count++] = i;
	}
	return CS_OK;
}

/* Whether node is a primary source of edge e. */
static bool is_primary_of(const struct loader *L, const struct tedge *e, size_t node)
{
	for (size_t k = 0; k < e->nsrc; k++)
		if (L->srcs[e->first_src + k].role == SRC_PRIMARY && L->srcs[e->first_src + k].node == node)
			return true;
	return false;
}

struct selection {
	size_t target, edge, source; /* NONE when not given */
	long index;
};

static int read_selections(struct loader *L, const cJSON *path, const struct jpath *pp, struct selection **out,
			   size_t *nout)
{
	const cJSON *arr = NULL;
	int rc = json_get_array(&L->doc, path, pp, "selections", JSON_OPTIONAL, &arr, L->err);
	*out = NULL;
	*nout = 0;
	if (rc || !arr)
		return rc;
	size_t n = json_length(arr);
	struct selection *sel = cs_calloc(n ? n : 1, sizeof *sel);
	if (!sel)
		return loom_nomem(L);
	*out = sel; /* the caller frees it, on error too */
	*nout = n;
	struct jpath sp = JPATH_KEY(pp, "selections");
	const cJSON *v;
	size_t i = 0;
	JSON_EACH(v, arr)
	{
		struct jpath ip = JPATH_INDEX(&sp, i);
		sel[i].index = (long)i;
		if (!json_is_object(v)) {
			return json_fail(&L->doc, L->err, CS_ETYPE, &ip, NULL, "expected a selection object, got %s",
					 json_type_name(v));
		}
		const char *eid = NULL;
		if ((rc = node_ref(L, v, &ip, "targetNodeId", JSON_REQUIRED, &sel[i].target)) ||
		    (rc = node_ref(L, v, &ip, "selectedSourceNodeId", JSON_OPTIONAL, &sel[i].source)) ||
		    (rc = json_get_string(&L->doc, v, &ip, "selectedEdgeId", JSON_OPTIONAL, &eid, L->err))) {
			return rc;
		}
		sel[i].edge = NONE;
		if (eid) {
			sel[i].edge = idmap_get(&L->edge_ids, eid);
			if (sel[i].edge == NONE) {
					return json_fail(&L->doc, L->err, CS_ESTRUCT, &ip, "selectedEdgeId", "no edge \"%s\"", eid);
			}
			if (L->edges[sel[i].edge].target != sel[i].target) {
					return json_fail(&L->doc, L->err, CS_ESTRUCT, &ip, "selectedEdgeId",
						 "edge \"%s\" does not lead to node \"%s\"", eid, L->nodes[sel[i].target].id);
			}
		}
		i++;
	}
	return CS_OK;
}

static const struct selection *find_selection(const struct selection *sel, size_t n, size_t target)
{
	for (size_t i = 0; i < n; i++)
		if (sel[i].target == target)
			return &sel[i];
	return NULL;
}

/* The primary source of edge e to step to: the selected one, the only one,
 * or the one created last (ctxscope-formats(5): buffer-mode versions). */
static int pick_primary(struct loader *L, const struct tedge *e, const struct selection *s,
			const struct jpath *sp, size_t *out)
{
	if (s && s->source != NONE) {
		if (!is_primary_of(L, e, s->source)) {
			struct jpath ip = JPATH_INDEX(sp, s->index);
			return json_fail(&L->doc, L->err, CS_ESTRUCT, &ip, "selectedSourceNodeId",
					 "node \"%s\" is not a primary source of edge \"%s\"", L->nodes[s->source].id, e->id);
		}
		*out = s->source;
		return CS_OK;
	}
	size_t best = NONE;
	for (size_t k = 0; k < e->nsrc; k++) {
		const struct tsource *ts = &L->srcs[e->first_src + k];
		if (ts->role != SRC_PRIMARY)
			continue;
		if (best == NONE || L->nodes[ts->node].created_ms >= L->nodes[best].created_ms)
			best = ts->node;
	}
	*out = best;
	return CS_OK;
}

/* Walks up from the active node (ctxscope-formats(5) section 1). */
static int walk_up(struct loader *L, size_t active, const struct selection *sel, size_t nsel,
		   const struct jpath *pp, size_t root)
{
	struct jpath sp = JPATH_KEY(pp, "selections");
	unsigned char *seen = cs_calloc(L->nnodes, 1);
	size_t *rev = cs_calloc(L->nnodes + 1, sizeof *rev), *revedge = cs_calloc(L->nnodes + 1, sizeof *revedge);
	int rc = CS_OK;
	if (!seen || !rev || !revedge) {
		rc = loom_nomem(L);
		goto out;
	}
	size_t n = 0, at = active, via = NONE;
	for (;;) {
		if (seen[at]) {
			rc = json_fail(&L->doc, L->err, CS_ESTRUCT, pp, "activeNodeId",
				       "the path from \"%s\" runs in a cycle through node \"%s\"", L->nodes[active].id,
				       L->nodes[at].id);
			goto out;
		}
		seen[at] = 1;
		rev[n] = at;
		revedge[n] = via;
		n++;
		if (at == root)
			break;
		const struct tnode *t = &L->nodes[at];
		const struct selection *s = find_selection(sel, nsel, at);
		size_t edge = NONE, conts = 0, anns = 0, first_cont = NONE, first_ann = NONE;
		for (size_t k = 0; k < t->in_count; k++) {
			size_t ei = L->in_edges[t->in_first + k];
			if (L->edges[ei].type == EDGE_CONTINUATION) {
				if (!conts++)
					first_cont = ei;
			} else if (!anns++) {
				first_ann = ei;
			}
		}
		if (s && s->edge != NONE)
			edge = s->edge;
		else if (conts == 1)
			edge = first_cont;
		else if (conts == 0 && anns == 1)
			edge = first_ann;
		else if (conts > 1 || anns > 1) {
			rc = json_fail(&L->doc, L->err, CS_ESTRUCT, pp, "activeNodeId",
				       "ambiguous path at node %s: %zu incoming %s edges; add path.selections", t->id,
				       conts > 1 ? conts : anns, conts > 1 ? "continuation" : "annotation");
			goto out;
		} else {
			rc = json_fail(&L->doc, L->err, CS_ESTRUCT, pp, "activeNodeId",
				       "the path from \"%s\" stops at node \"%s\", which has no incoming edge and is not "
				       "the root \"%s\"",
				       L->nodes[active].id, t->id, L->nodes[root].id);
			goto out;
		}
		size_t up = NONE;
		if ((rc = pick_primary(L, &L->edges[edge], s, &sp, &up)))
			goto out;
		via = edge;
		at = up;
		revedge[n - 1] = edge; /* the edge into rev[n-1] */
	}
	L->path = cs_calloc(n, sizeof *L->path);
	L->path_edge = cs_calloc(n, sizeof *L->path_edge);
	if (!L->path || !L->path_edge) {
		rc = loom_nomem(L);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		L->path[i] = rev[n - 1 - i];
		L->path_edge[i] = revedge[n - 1 - i];
	}
	L->path_edge[0] = NONE;
	L->npath = n;
out:
	cs_free(seen);
	cs_free(rev);
	cs_free(revedge);
	return rc;
}

static int explicit_path(struct loader *L, const cJSON *ids, const struct jpath *pp, const struct selection *sel,
			 size_t nsel, size_t root)
{
	struct jpath ip = JPATH_KEY(pp, "nodeIds");
	size_t n = json_length(ids);
	if (n == 0)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, pp, "nodeIds", "the path is empty");
	L->path = cs_calloc(n, sizeof *L->path);
	L->path_edge = cs_calloc(n, sizeof *L->path_edge);
	unsigned char *seen = cs_calloc(L->nnodes ? L->nnodes : 1, 1);
	int rc = CS_OK;
	if (!L->path || !L->path_edge || !seen) {
		cs_free(seen);
		return loom_nomem(L);
	}
	const cJSON *v;
	size_t i = 0;
	JSON_EACH(v, ids)
	{
		struct jpath kp = JPATH_INDEX(&ip, i);
		if (!json_is_string(v)) {
			rc = json_fail(&L->doc, L->err, CS_ETYPE, &kp, NULL, "expected a node id, got %s", json_type_name(v));
			break;
		}
		size_t node = idmap_get(&L->node_ids, json_string_value(v));
		if (node == NONE) {
			rc = json_fail(&L->doc, L->err, CS_ESTRUCT, &kp, NULL, "no node \"%s\"", json_string_value(v));
			break;
		}
		if (seen[node]) {
			rc = json_fail(&L->doc, L->err, CS_ESTRUCT, &kp, NULL,
				       "node \"%s\" is on the path twice (a cycle)", json_string_value(v));
			break;
		}
		seen[node] = 1;
		if (i == 0 && node != root) {
			rc = json_fail(&L->doc, L->err, CS_ESTRUCT, &kp, NULL,
				       "the path must start at the root \"%s\", not \"%s\"", L->nodes[root].id,
				       json_string_value(v));
			break;
		}
		L->path[i] = node;
		L->path_edge[i] = NONE;
		if (i > 0) {
			/* the joining edge: the selected one, else a continuation, else an annotation */
			const struct selection *s = find_selection(sel, nsel, node);
			const struct tnode *t = &L->nodes[node];
			size_t found = NONE;
			for (size_t k = 0; k < t->in_count; k++) {
				size_t ei = L->in_edges[t->in_first + k];
				const struct tedge *e = &L->edges[ei];
				if (!is_primary_of(L, e, L->path[i - 1]))
					continue;
				if (s && s->edge != NONE) {
					if (ei == s->edge)
						found = ei;
				} else if (found == NONE || (e->type == EDGE_CONTINUATION &&
							     L->edges[found].type != EDGE_CONTINUATION)) {
					found = ei;
				}
			}
			if (found == NONE) {
				rc = json_fail(&L->doc, L->err, CS_ESTRUCT, &kp, NULL,
					       "no edge joins \"%s\" to \"%s\" (each step of the path needs one)",
					       L->nodes[L->path[i - 1]].id, json_string_value(v));
				break;
			}
			L->path_edge[i] = found;
		}
		i++;
	}
	cs_free(seen);
	L->npath = i;
	return rc;
}

/* ---- top level ----------------------------------------------------------- */

static int read_agents(struct loader *L, const cJSON *root, const char *agent_id)
{
	const cJSON *arr = NULL;
	int rc = json_get_array(&L->doc, root, JPATH_ROOT, "agents", JSON_OPTIONAL, &arr, L->err);
	if (rc || !arr)
		return rc;
	struct jpath ap = JPATH_KEY(JPATH_ROOT, "agents");
	const cJSON *v, *chosen = NULL;
	size_t i = 0, models = 0;
	JSON_EACH(v, arr)
	{
		struct jpath ip = JPATH_INDEX(&ap, i++);
		if (!json_is_object(v))
			return json_fail(&L->doc, L->err, CS_ETYPE, &ip, NULL, "expected an agent object, got %s",
					 json_type_name(v));
		const char *id = NULL, *type = "model", *prompt = NULL, *name = NULL, *ref = NULL;
		const cJSON *conf = NULL;
		if ((rc = json_get_string(&L->doc, v, &ip, "id", JSON_REQUIRED, &id, L->err)) ||
		    (rc = json_get_string(&L->doc, v, &ip, "type", JSON_OPTIONAL, &type, L->err)) ||
		    (rc = json_get_string(&L->doc, v, &ip, "name", JSON_OPTIONAL, &name, L->err)) ||
		    (rc = json_get_string(&L->doc, v, &ip, "modelRef", JSON_OPTIONAL, &ref, L->err)) ||
		    (rc = json_get_object(&L->doc, v, &ip, "configuration", JSON_OPTIONAL, &conf, L->err)))
			return rc;
		if (conf) {
			struct jpath cp = JPATH_KEY(&ip, "configuration");
			if ((rc = json_get_string(&L->doc, conf, &cp, "systemPrompt", JSON_OPTIONAL, &prompt, L->err)))
				return rc;
		}
		if (strcmp(type, "model"))
			continue;
		models++;
		if (agent_id ? !strcmp(agent_id, id) : !chosen)
			chosen = v;
	}
	if (agent_id && !chosen)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, JPATH_ROOT, "path.agentId", "no model agent \"%s\"",
				 agent_id);
	if (!agent_id && models > 1)
		return json_fail(&L->doc, L->err, CS_ESTRUCT, JPATH_ROOT, "path",
				 "%zu model agents and no path.agentId: say which one's systemPrompt applies", models);
	if (!chosen)
		return CS_OK;
	const cJSON *conf = json_member(chosen, "configuration");
	const char *prompt = json_string_value(json_member(conf, "systemPrompt"));
	const char *name = json_string_value(json_member(chosen, "name"));
	const char *ref = json_string_value(json_member(chosen, "modelRef"));
	size_t n = prompt ? strlen(prompt) : 0;
	if (prompt)
		loom_trim(&prompt, &n);
	L->m->agent_prompt = arena_strndup(&L->src->arena, prompt ? prompt : "", n);
	L->m->agent_name = loom_keep(L, name ? name : json_string_value(json_member(chosen, "id")));
	if (ref && !L->m->model_ref)
		L->m->model_ref = loom_keep(L, ref);
	if (!L->m->agent_prompt || !L->m->agent_name || (ref && !L->m->model_ref))
		return loom_nomem(L);
	return CS_OK;
}

static int read_preferences(struct loader *L, const cJSON *root)
{
	struct loom *m = L->m;
	m->strategy = STRAT_TRUNCATE_MIDDLE;
	m->min_recent = LOOM_DEFAULT_MIN_RECENT;
	m->token_buffer = LOOM_DEFAULT_TOKEN_BUFFER;
	const cJSON *prefs = NULL;
	int rc = json_get_object(&L->doc, root, JPATH_ROOT, "preferences", JSON_OPTIONAL, &prefs, L->err);
	if (rc || !prefs)
		return rc;
	struct jpath pp = JPATH_KEY(JPATH_ROOT, "preferences");
	const char *strategy = NULL;
	if ((rc = json_get_string(&L->doc, prefs, &pp, "truncationStrategy", JSON_OPTIONAL, &strategy, L->err)) ||
	    (rc = json_get_long(&L->doc, prefs, &pp, "minimumRecentNodes", JSON_OPTIONAL, &m->min_recent, L->err)) ||
	    (rc = json_get_long(&L->doc, prefs, &pp, "tokenBuffer", JSON_OPTIONAL, &m->token_buffer, L->err)))
		return rc;
	if (strategy) {
		m->strategy = strategy_from_name(strategy);
		if (m->strategy != STRAT_TRUNCATE_MIDDLE && m->strategy != STRAT_ROLLING_WINDOW &&
		    m->strategy != STRAT_STOP_AT_LIMIT)
			return json_fail(&L->doc, L->err, CS_ETYPE, &pp, "truncationStrategy",
					 "unknown strategy \"%s\": expected truncateMiddle, rollingWindow or stopAtLimit",
					 strategy);
	}
	if (m->min_recent < 0)
		return json_fail(&L->doc, L->err, CS_ETYPE, &pp, "minimumRecentNodes", "expected 0 or more, got %ld",
				 m->min_recent);
	if (m->token_buffer < 0)
		return json_fail(&L->doc, L->err, CS_ETYPE, &pp, "tokenBuffer", "expected 0 or more, got %ld",
				 m->token_buffer);
	return CS_OK;
}

static int read_model(struct loader *L, const cJSON *root)
{
	struct loom *m = L->m;
	const cJSON *model = NULL;
	int rc = json_get_object(&L->doc, root, JPATH_ROOT, "model", JSON_OPTIONAL, &model, L->err);
	if (rc)
		return rc;
	long limit = LONG_MIN; /* absent */
	if (model) {
		struct jpath mp = JPATH_KEY(JPATH_ROOT, "model");
		const char *ref = NULL;
		if ((rc = json_get_string(&L->doc, model, &mp, "ref", JSON_OPTIONAL, &ref, L->err)) ||
		    (rc = json_get_long(&L->doc, model, &mp, "contextLimit", JSON_OPTIONAL, &limit, L->err)))
			return rc;
		if (limit != LONG_MIN && limit <= 0)
			return json_fail(&L->doc, L->err, CS_ETYPE, &mp, "contextLimit", "expected a positive number, got %ld",
					 limit);
		if (ref && !(m->model_ref = loom_keep(L, ref)))
			return loom_nomem(L);
	}
	m->limit = limit == LONG_MIN ? -1 : limit;
	return CS_OK;
}

static void settle_limit(struct loom *m)
{
	if (m->limit > 0) {
		m->limit_source = "model.contextLimit";
		return;
	}
	bool known = false;
	m->limit = m->model_ref ? model_context_limit(m->model_ref, &known) : MODELS_FALLBACK_LIMIT;
	m->limit_source = known ? "the model table" : m->model_ref ? "fallback (model not in the table)" : "fallback (no model)";
}

void loom_free(void *model)
{
	struct loom *m = model;
	if (!m)
		return;
	loom_usage_free(m->cache.usage);
	cs_free(m->items);
	cs_free(m);
}

static int read_tree(struct loader *L, const cJSON *root, size_t *root_node)
{
	struct loom *m = L->m;
	const cJSON *tree = NULL;
	int rc = json_get_object(&L->doc, root, JPATH_ROOT, "loomTree", JSON_REQUIRED, &tree, L->err);
	if (rc)
		return rc;
	struct jpath tp = JPATH_KEY(JPATH_ROOT, "loomTree");
	const char *id = "", *title = "", *mode = "dialogue", *ctx = "";
	if ((rc = json_get_string(&L->doc, tree, &tp, "id", JSON_OPTIONAL, &id, L->err)) ||
	    (rc = json_get_string(&L->doc, tree, &tp, "title", JSON_OPTIONAL, &title, L->err)) ||
	    (rc = json_get_string(&L->doc, tree, &tp, "mode", JSON_OPTIONAL, &mode, L->err)) ||
	    (rc = json_get_string(&L->doc, tree, &tp, "systemContext", JSON_OPTIONAL, &ctx, L->err)) ||
	    (rc = json_get_bool(&L->doc, tree, &tp, "bufferModeSystemContext", JSON_OPTIONAL,
				&m->buffer_system_context, L->err)))
		return rc;
	if (!strcmp(mode, "dialogue"))
		m->mode = LOOM_DIALOGUE;
	else if (!strcmp(mode, "buffer"))
		m->mode = LOOM_BUFFER;
	else
		return json_fail(&L->doc, L->err, CS_ETYPE, &tp, "mode", "unknown mode \"%s\": expected dialogue or buffer",
				 mode);
	size_t n = strlen(ctx);
	loom_trim(&ctx, &n);
	m->tree_id = loom_keep(L, id);
	m->title = loom_keep(L, title);
	m->tree_context = arena_strndup(&L->src->arena, ctx, n);
	if (!m->tree_id || !m->title || !m->tree_context)
		return loom_nomem(L);
	const cJSON *perms = NULL;
	if ((rc = json_get_array(&L->doc, tree, &tp, "permissions", JSON_OPTIONAL, &perms, L->err)))
		return rc;
	if (perms) {
		struct strbuf sb = STRBUF_INIT;
		const cJSON *v;
		JSON_EACH(v, perms)
			if (json_is_string(v))
				sb_printf(&sb, "%s%s", sb.len ? ", " : "", json_string_value(v));
		m->permissions = sb.failed ? NULL : loom_keep(L, sb_str(&sb));
		sb_fini(&sb);
		if (!m->permissions)
			return loom_nomem(L);
	}
	return node_ref(L, tree, &tp, "rootNodeId", JSON_REQUIRED, root_node);
}

/* After the path: the working buffer, the limit, the pieces, the
 * loom-aware extensions and the recorded usage. */
static int finish(struct loader *L, const cJSON *root)
{
	struct loom *m = L->m;
	const char *wb = "";
	int rc = json_get_string(&L->doc, root, JPATH_ROOT, "workingBuffer", JSON_OPTIONAL, &wb, L->err);
	if (rc)
		return rc;
	m->working_buffer_bytes = strlen(wb);
	if (!(m->working_buffer = arena_strndup(&L->src->arena, wb, m->working_buffer_bytes)))
		return loom_nomem(L);
	if (!m->agent_prompt && !(m->agent_prompt = loom_keep(L, "")))
		return loom_nomem(L);
	settle_limit(m);
	if ((rc = loom_make_pieces(L)) || (rc = loom_read_loom_aware(L, root)) || (rc = loom_read_responses(L, root)))
		return rc;
	if (m->token_buffer >= m->limit)
		rc = source_warn(L->src, -1, 0, 0, "preferences.tokenBuffer %ld leaves nothing of the %ld-token limit",
				 m->token_buffer, m->limit);
	return rc;
}

int loom_load(struct source *src, const char *data, size_t len, struct cs_error *err)
{
	struct loader L = { .src = src, .err = err };
	struct loom *m = cs_calloc(1, sizeof *m);
	if (!m)
		return cs_error_nomem(err);
	src->model = m;
	L.m = m;
	m->min_recent_override = -1;
	m->latest_ms = LOOM_NO_TIME;
	m->replay_pos = SIZE_MAX;
	m->want_request = -1;
	m->addendum = "";
	struct selection *sel = NULL;
	size_t nsel = 0;
	static const char *const lazy[] = { "nodes", "edges", NULL };
	arena_init(&L.ids);
	int rc = json_doc_parse_lazy(&L.doc, data, len, lazy, err);
	if (rc)
		goto out;
	const cJSON *root = L.doc.root;
	if (!json_is_object(root)) {
		rc = json_fail(&L.doc, err, CS_ETYPE, JPATH_ROOT, NULL, "expected a loom tree object, got %s",
			       json_type_name(root));
		goto out;
	}
	const cJSON *path = NULL;
	struct json_array nodes, edges;
	size_t root_node = NONE;
	if ((rc = json_get_lazy(&L.doc, "nodes", JSON_REQUIRED, &nodes, err)) ||
	    (rc = json_get_lazy(&L.doc, "edges", JSON_REQUIRED, &edges, err)) ||
	    (rc = read_nodes(&L, &nodes)) || (rc = read_edges(&L, &edges)) || (rc = read_tree(&L, root, &root_node)) ||
	    (rc = loom_check_cycles(&L, root_node)) ||
	    (rc = read_model(&L, root)) || (rc = read_preferences(&L, root)))
		goto out;
	for (size_t i = 0; i < L.nnodes; i++)
		if (L.nodes[i].cont_out > 1)
			m->branch_points++;
	m->nnodes = L.nnodes;
	m->nedges = L.nedges;

	if ((rc = json_get_object(&L.doc, root, JPATH_ROOT, "path", JSON_REQUIRED, &path, err)))
		goto out;
	struct jpath pp = JPATH_KEY(JPATH_ROOT, "path");
	const char *agent_id = NULL;
	if ((rc = json_get_string(&L.doc, path, &pp, "agentId", JSON_OPTIONAL, &agent_id, err)) ||
	    (rc = read_agents(&L, root, agent_id)) || (rc = read_selections(&L, path, &pp, &sel, &nsel)))
		goto out;
	const cJSON *ids = NULL;
	if ((rc = json_get_array(&L.doc, path, &pp, "nodeIds", JSON_OPTIONAL, &ids, err)))
		goto out;
	if (ids && json_length(ids) > 0) {
		rc = explicit_path(&L, ids, &pp, sel, nsel, root_node);
		m->path_source = "path.nodeIds";
	} else {
		size_t active;
		if ((rc = node_ref(&L, path, &pp, "activeNodeId", JSON_REQUIRED, &active)))
			goto out;
		rc = walk_up(&L, active, sel, nsel, &pp, root_node);
		m->path_source = arena_printf(&src->arena, "walk-up from activeNodeId %s", L.nodes[active].id);
	}
	if (rc)
		goto out;
	if (!m->path_source) {
		rc = loom_nomem(&L);
		goto out;
	}
	m->depth = L.npath;
	for (size_t i = 0; i < L.npath; i++) {
		long long t = L.nodes[L.path[i]].created_ms;
		if (t != LOOM_NO_TIME && (m->latest_ms == LOOM_NO_TIME || t > m->latest_ms))
			m->latest_ms = t;
	}
	rc = finish(&L, root);
out:
	cs_free(sel);
	cs_free(L.nodes);
	cs_free(L.edges);
	cs_free(L.srcs);
	cs_free(L.in_edges);
	cs_free(L.path);
	cs_free(L.path_edge);
	idmap_fini(&L.node_ids);
	idmap_fini(&L.edge_ids);
	json_doc_free(&L.doc);
	arena_fini(&L.ids);
	if (rc == CS_ENOMEM && err && err->code != CS_ENOMEM)
		cs_error_nomem(err);
	return rc;
}
