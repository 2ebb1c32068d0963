/* cycle.c: a loom tree's edges must lead away from its root. A node that is
 * its own ancestor through the primary sources of the edges (two nodes each
 * other's parent, the root given a parent below it), or a root given any
 * parent at all, is a structural fault: an error positioned at the edge that
 * closes the cycle (the last one in the file), naming every edge on it.
 * Without this, the walk from the active node could stop at the root before
 * it met the cycle, and the tree was accepted. */
#include "loom_priv.h"

#include "base/alloc.h"
#include "base/strbuf.h"

#include <string.h>

/* One step of the depth-first walk from a node up to its parents: the node,
 * the incoming edge being followed (in_edges[in_first + k]) and the source
 * of that edge to try next. */
struct frame {
	size_t node;
	size_t k;
	size_t s;
};

enum { WHITE, GREY, BLACK };

/* The next parent of the top frame (a primary source of one of its incoming
 * edges), with the edge leading from it; false when it has none left. */
static bool next_parent(const struct loader *L, struct frame *f, size_t *parent, size_t *edge)
{
	const struct tnode *t = &L->nodes[f->node];
	while (f->k < t->in_count) {
		const struct tedge *e = &L->edges[L->in_edges[t->in_first + f->k]];
		while (f->s < e->nsrc) {
			const struct tsource *ts = &L->srcs[e->first_src + f->s++];
			if (ts->role == SRC_PRIMARY) {
				*parent = ts->node;
				*edge = e->index;
				return true;
			}
		}
		f->k++;
		f->s = 0;
	}
	return false;
}

/* The error for the cycle stack[from .. top] closed by edge `closing` (from
 * stack[from].node down to stack[top].node). */
static int cycle_error(struct loader *L, const struct frame *stack, size_t from, size_t top, size_t closing)
{
	/* Parent to child: stack[from] -> stack[top] -> ... -> stack[from + 1] -> stack[from]. */
	struct strbuf sb = STRBUF_INIT;
	size_t last = closing;
	sb_printf(&sb, "the edges form a cycle: \"%s\"", L->nodes[stack[from].node].id);
	sb_printf(&sb, " -> \"%s\" (edge \"%s\")", L->nodes[stack[top].node].id, L->edges[closing].id);
	for (size_t i = top; i-- > from;) {
		size_t e = L->in_edges[L->nodes[stack[i].node].in_first + stack[i].k];
		if (e > last)
			last = e;
		sb_printf(&sb, " -> \"%s\" (edge \"%s\")", L->nodes[stack[i].node].id, L->edges[e].id);
	}
	sb_puts(&sb, "; a node cannot be its own ancestor");
	if (sb.failed) {
		sb_fini(&sb);
		return loom_nomem(L);
	}
	struct jpath ep = JPATH_KEY(JPATH_ROOT, "edges");
	struct jpath ip = JPATH_INDEX(&ep, last);
	int rc = json_fail(&L->doc, L->err, CS_ESTRUCT, &ip, "targetNodeId", "%s", sb_str(&sb));
	sb_fini(&sb);
	return rc;
}

/* Walks up from `start` (white), colouring what it meets; a grey node met
 * again closes a cycle. */
static int walk_from(struct loader *L, size_t start, unsigned char *colour, struct frame *stack)
{
	size_t top = 0;
	stack[0] = (struct frame){ start, 0, 0 };
	colour[start] = GREY;
	for (;;) {
		size_t parent, edge;
		if (!next_parent(L, &stack[top], &parent, &edge)) {
			colour[stack[top].node] = BLACK;
			if (top-- == 0)
				return CS_OK;
			continue;
		}
		if (colour[parent] == BLACK)
			continue;
		if (colour[parent] == GREY) {
			size_t from = top;
			while (stack[from].node != parent)
				from--;
			return cycle_error(L, stack, from, top, edge);
		}
		colour[parent] = GREY;
		stack[++top] = (struct frame){ parent, 0, 0 };
	}
}

int loom_check_cycles(struct loader *L, size_t root)
{
	unsigned char *colour = cs_calloc(L->nnodes ? L->nnodes : 1, 1);
	struct frame *stack = cs_malloc((L->nnodes ? L->nnodes : 1) * sizeof *stack);
	int rc = CS_OK;
	if (!colour || !stack)
		rc = loom_nomem(L);
	for (size_t i = 0; rc == CS_OK && i < L->nnodes; i++)
		if (colour[i] == WHITE)
			rc = walk_from(L, i, colour, stack);
	cs_free(colour);
	cs_free(stack);
	if (rc != CS_OK || root == NONE)
		return rc;
	const struct tnode *r = &L->nodes[root];
	for (size_t k = 0; k < r->in_count; k++) {
		const struct tedge *e = &L->edges[L->in_edges[r->in_first + k]];
		struct jpath ep = JPATH_KEY(JPATH_ROOT, "edges");
		struct jpath ip = JPATH_INDEX(&ep, e->index);
		return json_fail(&L->doc, L->err, CS_ESTRUCT, &ip, "targetNodeId",
				 "edge \"%s\" gives the root \"%s\" (loomTree.rootNodeId) a parent; a root has none",
				 e->id, r->id);
	}
	return CS_OK;
}
