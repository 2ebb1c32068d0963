/* stack.c (memory): the seed's assembleStackContext (ctxscope-formats(5) section 4b).
 * The context is the root goal; for each frame between the root and the
 * current one its result when complete, else its goal; the results of the
 * completed frames sharing the current frame's parent (the seed's filter,
 * which keeps the current frame itself when it is complete); then the
 * standard builder for the current frame with what remains of the budget:
 * budget - estimateTokens([root, ...path, ...siblings].join("\n")), an
 * `undefined` (a complete frame without a result) joining as nothing. The
 * seed's ~5% / ~15% / ~10% shares are comments in its code, not limits:
 * shown as targets, with a warning for a layer over its target.
 * Decisions where the seed is silent: combineContexts renders each layer as
 * a section ("## Root Goal", "## Task Path", "## Completed Siblings") before
 * the builder's, texts joined by "\n\n" as the builder joins its items;
 * nothing is rendered for an undefined result. */
#include "memory.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "base/utf8.h"

#include <math.h>
#include <string.h>

static const char *const stack_names[] = {
#define MSL_X_NAME(e, name, title, target) name,
	MEMORY_STACK_LAYERS(MSL_X_NAME)
#undef MSL_X_NAME
};
static const char *const stack_titles[] = {
#define MSL_X_TITLE(e, name, title, target) title,
	MEMORY_STACK_LAYERS(MSL_X_TITLE)
#undef MSL_X_TITLE
};
static const int stack_targets[] = {
#define MSL_X_TARGET(e, name, title, target) target,
	MEMORY_STACK_LAYERS(MSL_X_TARGET)
#undef MSL_X_TARGET
};

/* The frames of the three layers in order: calls each(layer, frame, text,
 * ctx), text NULL for an undefined result. The path is root to current. */
typedef void (*frame_fn)(int layer, const struct memory_frame *f, const char *text, void *ctx);

static void walk_layers(const struct memory_stack *st, frame_fn each, void *ctx)
{
	long n = 0;
	for (long k = st->current; k >= 0 && n <= (long)st->nframes; k = st->frames[k].parent)
		n++;
	long *path = cs_malloc((size_t)(n ? n : 1) * sizeof *path);
	if (!path)
		return;
	long at = n;
	for (long k = st->current; k >= 0 && at > 0; k = st->frames[k].parent)
		path[--at] = k;
	const struct memory_frame *root = &st->frames[path[0]];
	each(MSL_ROOT, root, root->goal, ctx);
	for (long j = 1; j < n - 1; j++) {
		const struct memory_frame *f = &st->frames[path[j]];
		each(MSL_PATH, f, f->status == MF_COMPLETE ? f->result : f->goal, ctx);
	}
	long parent = st->frames[st->current].parent;
	for (size_t i = 0; i < st->nframes; i++) {
		const struct memory_frame *f = &st->frames[i];
		if (f->parent == parent && f->status == MF_COMPLETE)
			each(MSL_SIBLINGS, f, f->result, ctx);
	}
	cs_free(path);
}

struct measure {
	size_t all_cp, all_n;           /* the whole join: code points, elements */
	size_t cp[MSL_COUNT], n[MSL_COUNT];
};

static void measure_one(int layer, const struct memory_frame *f, const char *text, void *ctx)
{
	(void)f;
	struct measure *ms = ctx;
	size_t cp = text ? utf8_count_code_points(text, strlen(text)) : 0;
	ms->all_cp += cp;
	ms->all_n++;
	ms->cp[layer] += cp;
	ms->n[layer]++;
}

void memory_stack_measure(const struct memory *m, long budget, double chars_per_token,
			  struct memory_stack_take *take)
{
	memset(take, 0, sizeof *take);
	take->remaining = budget;
	if (!m->stack.frames)
		return;
	struct measure ms;
	memset(&ms, 0, sizeof ms);
	walk_layers(&m->stack, measure_one, &ms);
	/* join("\n"): one newline between elements */
	take->seed_tokens = tokens_estimate(ms.all_cp + (ms.all_n ? ms.all_n - 1 : 0), chars_per_token);
	for (int l = 0; l < MSL_CURRENT; l++) {
		take->layer_tokens[l] = tokens_estimate(ms.cp[l] + (ms.n[l] ? ms.n[l] - 1 : 0), chars_per_token);
		take->nframes[l] = ms.n[l];
	}
	take->remaining = budget - take->seed_tokens;
	take->layer_tokens[MSL_CURRENT] = take->remaining;
	take->nframes[MSL_CURRENT] = 1;
}

int memory_groupings(const struct memory *m, struct assembly *a)
{
	const char *layers[MEMORY_NSECTIONS + MSL_CURRENT];
	for (int k = 0; k < MEMORY_NSECTIONS; k++)
		layers[k] = memory_section_title(k);
	bool on = memory_stack_on(m);
	for (int l = 0; on && l < MSL_CURRENT; l++)
		layers[MEMORY_NSECTIONS + l] = stack_titles[l];
	if (asm_grouping(a, "section", layers, MEMORY_NSECTIONS + (on ? MSL_CURRENT : 0)) < 0)
		return CS_ENOMEM;
	if (on && asm_grouping(a, "stack", stack_names, MSL_COUNT) < 0)
		return CS_ENOMEM;
	return CS_OK;
}

struct render {
	struct assembly *a;
	int layer;       /* the section being rendered, -1 none yet */
	long last_block; /* of that section, for its breakpoint */
	double chars_per_token;
	size_t cp, n;    /* the join so far: code points, elements */
	long charged;    /* estimateTokens of the join so far */
	long owed;       /* what an undefined result added, for the next block */
};

static void render_one(int layer, const struct memory_frame *f, const char *text, void *ctx)
{
	struct render *rd = ctx;
	struct assembly *a = rd->a;
	/* Each frame is charged what it adds to the estimate of the join, so
	 * the blocks sum to the seed's estimateTokens of the whole join. */
	rd->cp += text ? utf8_count_code_points(text, strlen(text)) : 0;
	rd->n++;
	long upto = tokens_estimate(rd->cp + rd->n - 1, rd->chars_per_token), adds = upto - rd->charged;
	rd->charged = upto;
	if (!text) {
		rd->owed += adds;
		return; /* undefined joins as nothing (what it adds goes to the next) */
	}
	int sec = MEMORY_NSECTIONS + layer;
	if (rd->layer != layer) {
		if (rd->last_block >= 0)
			a->blocks[rd->last_block].flags |= BLOCK_BREAKPOINT;
		struct block *h = asm_block(a, -1, sec, layer);
		h->label = stack_titles[layer];
		h->flags |= BLOCK_MADE;
		asm_textf(a, "%s## %s\n\n", a->nblocks > 1 ? "\n\n" : "", stack_titles[layer]);
		rd->layer = layer;
	} else {
		asm_block(a, -1, sec, layer)->flags |= BLOCK_MADE;
		asm_text(a, "\n\n", 2);
	}
	if (a->nomem)
		return;
	struct block *b = &a->blocks[a->nblocks - 1];
	b->flags |= BLOCK_MADE;
	b->budget_tokens = adds + rd->owed;
	rd->owed = 0;
	b->label = arena_printf(&a->arena, "%s: %s (%s)", stack_names[layer], f->id,
				f->status == MF_COMPLETE ? "result" : "goal");
	asm_span(a, text, strlen(text), (size_t)-1);
	rd->last_block = (long)a->nblocks - 1;
}

void memory_stack_render(const struct source *src, struct assembly *a, long budget, struct memory_stack_take *take)
{
	const struct memory *m = src->model;
	if (!memory_stack_on(m)) {
		memset(take, 0, sizeof *take);
		take->remaining = budget;
		return;
	}
	memory_stack_measure(m, budget, src->settings.chars_per_token, take);
	struct render rd = { .a = a, .layer = -1, .last_block = -1, .chars_per_token = src->settings.chars_per_token };
	walk_layers(&m->stack, render_one, &rd);
	if (rd.last_block >= 0 && !a->nomem) {
		a->blocks[rd.last_block].flags |= BLOCK_BREAKPOINT;
		a->blocks[rd.last_block].budget_tokens += rd.owed; /* trailing undefined results */
	}
}

bool memory_stack_off_task(const struct memory *m, const struct memory_item *it)
{
	if (!memory_stack_on(m) || !m->stack.task_ids)
		return false;
	const char *cur = m->stack.frames[m->stack.current].id;
	return !it->task_id || strcmp(it->task_id, cur) != 0;
}

/* One layer against its target, for the fact; warns when over. */
static void layer_text(struct assembly *a, long budget, const struct memory_stack_take *take, int l,
		       struct strbuf *out)
{
	char n1[32], n2[32];
	long target = (long)floor((double)budget * stack_targets[l] / 100.0);
	sb_printf(out, "%s%s %s (target ~%d%% = %s)", l ? " · " : "", stack_names[l],
		  fmt_thousands(n1, take->layer_tokens[l]), stack_targets[l], fmt_thousands(n2, target));
	if (take->layer_tokens[l] > target)
		asm_warn(a, -1, "the stack's %s layer is %s tokens, over its target of ~%d%% of the budget (%s): the seed's "
			 "shares are comments, its code does not enforce them",
			 stack_names[l], fmt_thousands(n1, take->layer_tokens[l]), stack_targets[l],
			 fmt_thousands(n2, target));
}

void memory_fact_first(struct assembly *a)
{
	if (a->nfacts < 2)
		return;
	struct fact last = a->facts[a->nfacts - 1];
	memmove(a->facts + 1, a->facts, (a->nfacts - 1) * sizeof *a->facts);
	a->facts[0] = last;
}

void memory_stack_explain(const struct source *src, struct assembly *a, long budget,
			  const struct memory_stack_take *take, size_t first_block)
{
	const struct memory *m = src->model;
	if (!memory_stack_on(m)) {
		if (m->stack.frames)
			asm_fact(a, "assembly", "linear: the builder alone, the taskStack left out (--assembly stack)");
		return;
	}
	for (size_t b = first_block; b < a->nblocks; b++)
		if (a->blocks[b].layer[1] < 0)
			a->blocks[b].layer[1] = MSL_CURRENT;
	const struct memory_frame *cur = &m->stack.frames[m->stack.current];
	char n1[32], n2[32], n3[32];
	asm_fact(a, "assembly", "stack: root goal, path, completed siblings, then the builder for the current frame");
	asm_fact(a, "current frame", "%s: %s", cur->id, cur->goal);
	asm_fact(a, "current items", "%s", m->stack.task_ids ? "those whose taskId is the current frame's"
							    : "all (no item carries a taskId)");
	struct strbuf t = STRBUF_INIT;
	for (int l = 0; l < MSL_CURRENT; l++)
		layer_text(a, budget, take, l, &t);
	asm_fact(a, "stack layers", "%s", t.failed ? "" : sb_str(&t));
	sb_fini(&t);
	asm_fact(a, "stack budget", "%s - %s (estimateTokens of the three joined) = %s for the current frame",
		 fmt_thousands(n1, budget), fmt_thousands(n2, take->seed_tokens), fmt_thousands(n3, take->remaining));
	asm_fact(a, "stack", "current frame %s; root %s, path %s, siblings %s of %s: %s left for it", cur->id,
		 fmt_thousands(n1, take->layer_tokens[MSL_ROOT]), fmt_thousands(n2, take->layer_tokens[MSL_PATH]),
		 fmt_thousands(n3, take->layer_tokens[MSL_SIBLINGS]), fmt_thousands((char[32]){ 0 }, budget),
		 fmt_thousands((char[32]){ 0 }, take->remaining));
	memory_fact_first(a);
	if (take->remaining < 0)
		asm_warn(a, -1, "the stack's layers take %s tokens, more than the budget of %s: nothing is left for the "
			 "current frame", fmt_thousands(n1, take->seed_tokens), fmt_thousands(n2, budget));
}
