/* pieces.c (loom): the pieces a loom tree's path uses, made from the loader's nodes and edges. */
#include "loom_priv.h"

#include "base/alloc.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>

/* ---- pieces -------------------------------------------------------------- */

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

void loom_trim(const char **s, size_t *n)
{
	while (*n && is_space(**s))
		(*s)++, (*n)--;
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

static int add_piece(struct loader *L, size_t node, enum loom_use use, size_t path_pos, bool via_annotation,
		     struct strbuf *scratch)
{
	struct tnode *t = &L->nodes[node];
	long pi = source_add_piece(L->src);
	if (pi < 0)
		return loom_nomem(L);
	struct loom *m = L->m;
	if (CS_GROW(m->items, m->nitems, (size_t)pi + 1) != 0) /* nitems: the items' room, one per piece */
		return loom_nomem(L);
	t->piece = pi;
	struct loom_item *it = &m->items[pi];
	*it = (struct loom_item){
		.use = use, .author_type = t->author ? "model" : "human", .created_ms = t->created_ms,
		.continuations = t->cont_out, .annotations = t->ann_out, .bookmarked = t->bookmarked,
		.pruned = t->pruned, .via_annotation = via_annotation, .include_annotation = t->include_annotation,
		.path_pos = path_pos, .prompt_tokens = LOOM_NO_TOKENS, .completion_tokens = LOOM_NO_TOKENS,
		.provider = "", .response_ms = LOOM_NO_TIME, .response_index = -1,
	};
	const cJSON *content;
	int rc = loom_node_content(L, t, &content);
	if (rc)
		return rc;
	sb_reset(scratch);
	loom_content_text(content, scratch);
	if (scratch->failed)
		return loom_nomem(L);
	const char *text = sb_str(scratch);
	size_t len = scratch->len;
	if (m->mode == LOOM_DIALOGUE)
		loom_trim(&text, &len);
	struct piece *p = &L->src->pieces[pi];
	p->id = loom_keep(L, t->id);
	p->label = t->local_id ? loom_keep(L, t->local_id) : p->id;
	p->role = use == LOOM_INSTRUCTION ? "instruction" : t->author ? "assistant" : "user";
	p->input_excluded = t->excluded;
	p->kind_index = (size_t)pi;
	p->layer = use == LOOM_INSTRUCTION ? 0 : 1;
	if (!p->id || !p->label || source_set_piece_text(L->src, pi, text, len) != CS_OK)
		return loom_nomem(L);
	return CS_OK;
}

int loom_make_pieces(struct loader *L)
{
	struct strbuf scratch = STRBUF_INIT;
	unsigned char *on_path = cs_calloc(L->nnodes ? L->nnodes : 1, 1);
	if (!on_path)
		return loom_nomem(L);
	for (size_t i = 0; i < L->npath; i++)
		on_path[L->path[i]] = 1;
	int rc = CS_OK;
	/* instruction sources first, in path order: they form the system context */
	for (size_t i = 1; i < L->npath && !rc; i++) {
		const struct tedge *e = &L->edges[L->path_edge[i]];
		for (size_t k = 0; k < e->nsrc && !rc; k++) {
			const struct tsource *ts = &L->srcs[e->first_src + k];
			if (ts->role != SRC_INSTRUCTION)
				continue;
			if (on_path[ts->node] || L->nodes[ts->node].piece >= 0) {
				rc = source_warn(L->src, L->nodes[ts->node].piece, 0, 0,
						 "node %s is an instruction source of edge %s but is already in the "
						 "context (on the path or an earlier instruction); used once",
						 L->nodes[ts->node].id, e->id);
				continue;
			}
			rc = add_piece(L, ts->node, LOOM_INSTRUCTION, i, false, &scratch);
		}
	}
	/* the path nodes must keep their own piece even when also used as a context source */
	for (size_t i = 0; i < L->npath && !rc; i++) {
		/* context sources of the edge leaving path[i] go before it */
		if (i + 1 < L->npath) {
			const struct tedge *e = &L->edges[L->path_edge[i + 1]];
			for (size_t k = 0; k < e->nsrc && !rc; k++) {
				const struct tsource *ts = &L->srcs[e->first_src + k];
				if (ts->role != SRC_CONTEXT)
					continue;
				if (on_path[ts->node] || L->nodes[ts->node].piece >= 0) {
					rc = source_warn(L->src, -1, 0, 0,
							 "node %s is a context source of edge %s but is already in the "
							 "context; used once",
							 L->nodes[ts->node].id, e->id);
					continue;
				}
				rc = add_piece(L, ts->node, LOOM_CONTEXT, i + 1, false, &scratch);
			}
		}
		if (rc)
			break;
		bool via_ann = L->path_edge[i] != NONE && L->edges[L->path_edge[i]].type == EDGE_ANNOTATION;
		rc = add_piece(L, L->path[i], LOOM_PRIMARY, i, via_ann, &scratch);
	}
	cs_free(on_path);
	sb_fini(&scratch);
	return rc;
}

int loom_add_pinned(struct loader *L, const char *label, const char *text)
{
	long pi = source_add_piece(L->src);
	if (pi < 0)
		return loom_nomem(L);
	struct loom *m = L->m;
	if (CS_GROW(m->items, m->nitems, (size_t)pi + 1) != 0)
		return loom_nomem(L);
	m->items[pi] = (struct loom_item){
		.use = LOOM_PINNED, .author_type = "memory", .created_ms = LOOM_NO_TIME,
		.prompt_tokens = LOOM_NO_TOKENS, .completion_tokens = LOOM_NO_TOKENS, .provider = "",
		.response_ms = LOOM_NO_TIME, .response_index = -1,
	};
	const char *t = text;
	size_t len = strlen(text);
	loom_trim(&t, &len);
	struct piece *p = &L->src->pieces[pi];
	p->id = arena_printf(&L->src->arena, "pinned:%s", label);
	p->label = loom_keep(L, label);
	p->role = "pinned";
	p->kind_index = (size_t)pi;
	p->layer = 3;
	if (!p->id || !p->label || source_set_piece_text(L->src, pi, t, len) != CS_OK)
		return loom_nomem(L);
	m->npinned++;
	return CS_OK;
}
