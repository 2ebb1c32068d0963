/* assemble.c (memory): seed 003's context builder on a memory snapshot, in
 * the seed's two passes (ctxscope-formats(5) section 4):
 * 0. the request's filters (filters.c) and the user's exclusions take items
 *    out before any query;
 * 1. each source query keeps what fits its share, floor(budget * percent /
 *    100), greedily by that source's own score (the seed's queryRecent,
 *    querySemantic, queryEntities and queryRelations each end with
 *    selectWithinTokens): events (recent) by recency, chunks (semantic) by
 *    relevance, entities by salience, relations by weight, else relevance;
 *    patterns have no share. What a query does not keep is over-allocation.
 *    `allocation-caps off` skips this pass;
 * 2. finalScore = recency*recencyWeight + relevance*relevanceWeight +
 *    salience*salientWeight over what pass 1 kept (results[].score), sorted
 *    descending (ties keep input order), and selectWithinBudget: an item goes
 *    in when it fits what is left of the whole budget (the seed's
 *    budget.remaining(): allocate never spends), else over-budget;
 * 3. formatContext: sections "## Title\n\n" + items joined by "\n\n" (in
 *    score order), sections joined by "\n\n", the additional context last.
 * As in the seed, only item tokens are charged against the budget; section
 * headers, separators and the additional context are rendered and counted
 * in the totals but not budgeted (a warning says when that goes over).
 * truncated is the seed's scored.length > selected.length: what pass 2
 * dropped. The cutoff score is the highest final score of an item either
 * pass dropped: every item scoring above it went in (assembly.cutoff, a fact).
 * In phases: rank; pass 1; pass 2; render the sections; explain (the
 * sentences name the cutoff, known only once every item is decided). */
#include "memory.h"
#include "base/tune.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the three phases share: the items in score order, the decision for
 * each (by rank, as order), and the totals the decisions left. */
struct run {
	const struct source *src;
	const struct memory *m;
	const struct memory_strategy *s;
	long budget;
	long cap[MA_COUNT], share_used[MA_COUNT];
	size_t n;
	struct memory_slot *order; /* the model's kept slots (rank.c), refreshed by rank() */
	const size_t *rank_of; /* piece -> its place in order */
	struct memory_decision *dec; /* what happened to each item, decided before any sentence is written
				      * (the sentences name the cutoff, known only at the end) */
	bool has_cutoff, has_included;
	double cutoff, lowest_in;
	size_t dropped_budget, dropped_alloc, scored;
	const char *compressed; /* the compression fact (arena), NULL when off */
	struct memory_flags *flags; /* by piece: what an edit can change (rank) */
	unsigned long results_of[2]; /* the assemblies whose results the kept build's were, before the patch (0 none) */
};

static const char *archetype_text(const struct memory *m, struct arena *ar)
{
	const struct memory_strategy *s = &m->cur;
	size_t n;
	const struct memory_preset *p = memory_presets(&n);
	if (s->archetype < 0)
		return "none given (coding preset for what the snapshot's strategy leaves out)";
	bool preset = !memcmp(s->weights, p[s->archetype].weights, sizeof s->weights) &&
		      !memcmp(s->allocation, p[s->archetype].allocation, sizeof s->allocation);
	bool input = !memcmp(s, &m->input, sizeof *s);
	return arena_printf(ar, "%s (%s)", p[s->archetype].name,
			    preset ? "the preset's numbers"
			    : input ? "preset overridden by the snapshot's strategy"
				    : "preset, numbers changed by you");
}

/* Scores every item (into results) and refreshes, in the kept score order
 * (memory_rank), what an edit can change: the exclusions, the filters,
 * what this build holds out and the tokens compression cut. Pieces and
 * items are read in sequence, then their flags placed by rank, so no phase
 * reaches back into them at random. false on out of memory. */
static bool rank(struct run *r, struct assembly *a)
{
	struct memory_cache *mc = memory_cache(r->src);
	const struct source *src = r->src;
	const struct memory *cache = src->model; /* its cache holds the kept order (rank.c) */
	struct memory_flags *flags = r->flags = cs_malloc((r->n ? r->n : 1) * sizeof *flags);
	if (!flags || !memory_rank(cache, src, r->s->weights))
		return false;
	for (size_t i = 0; i < r->n; i++) {
		const struct piece *p = &src->pieces[i];
		const struct memory_item *it = &r->m->items[p->kind_index];
		a->results[i] = (struct piece_result){ .outcome = OUTCOME_DROPPED, .block = -1, .score = mc->score_of[i],
						       .original_tokens = it->tokens }; /* asm_init_unset left it */
		flags[i] = (struct memory_flags){ piece_excluded(p), (unsigned char)it->filtered,
						(unsigned char)memory_held_out(r->m, it) };
	}
	r->order = mc->slots;
	r->rank_of = mc->rank_of;
	for (size_t k = 0; k < r->n; k++) {
		struct memory_slot *o = &r->order[k];
		struct memory_flags f = flags[o->index];
		o->excluded = f.excluded;
		o->filtered = f.filtered;
		o->held = f.held;
		o->tokens = o->full_tokens;
	}
	return true;
}

struct own {
	int share;
	double score;
	size_t index;
};

static int cmp_own(const void *x, const void *y)
{
	const struct own *a = x, *b = y;
	if (a->share != b->share)
		return a->share < b->share ? -1 : 1;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index; /* ties: input order */
}

/* Makes m->cache.pass1_order and pass1 (once: own scores never change), then
 * pass1's ranks for the current layout of the slots. false on out of memory. */
static bool pass1_order(const struct memory *m, const struct source *src)
{
	struct memory_cache *mc = memory_cache(src);
	size_t n = src->npieces, k = 0;
	if (!mc->pass1_valid) {
		struct own *o = cs_malloc((n ? n : 1) * sizeof *o);
		cs_free(mc->pass1_order);
		cs_free(mc->pass1);
		mc->pass1_order = cs_malloc((n ? n : 1) * sizeof *mc->pass1_order);
		mc->pass1 = cs_malloc((n ? n : 1) * sizeof *mc->pass1);
		if (!o || !mc->pass1_order || !mc->pass1) {
			cs_free(o);
			return false;
		}
		for (size_t i = 0; i < n; i++) {
			const struct memory_item *it = &m->items[src->pieces[i].kind_index];
			int share = memory_allocation_of_type(it->type);
			if (share >= 0)
				o[k++] = (struct own){ share, memory_own_score(it), i };
		}
		qsort(o, k, sizeof *o, cmp_own);
		for (size_t j = 0; j < k; j++) {
			const struct memory_item *it = &m->items[src->pieces[o[j].index].kind_index];
			mc->pass1_order[j] = o[j].index;
			mc->pass1[j] = (struct memory_pass1){ 0, it->tokens, o[j].share };
		}
		mc->npass1 = k;
		cs_free(o);
		mc->pass1_valid = true;
		mc->pass1_layout = 0; /* no ranks yet */
	}
	if (mc->pass1_layout != mc->layout) {
		for (size_t j = 0; j < mc->npass1; j++)
			mc->pass1[j].rank = mc->rank_of[mc->pass1_order[j]];
		mc->pass1_layout = mc->layout;
	}
	return true;
}

/* Pass 1: each source query keeps what fits its share, by its own score
 * (read in that order: the items' flags, small, not their slots). */
static void pass_queries(struct run *r)
{
	struct memory_cache *mc = memory_cache(r->src);
	for (size_t j = 0; r->m->caps && j < mc->npass1; j++) {
		struct memory_flags f = r->flags[mc->pass1_order[j]];
		if (f.excluded || f.filtered != MF_NONE || f.held)
			continue;
		const struct memory_pass1 *q = &mc->pass1[j];
		struct memory_decision *d = &r->dec[q->rank];
		d->share_used = r->share_used[q->share];
		if (r->share_used[q->share] + q->tokens > r->cap[q->share]) {
			d->reason = REASON_OVER_ALLOCATION;
			r->dropped_alloc++;
			continue;
		}
		r->share_used[q->share] += q->tokens;
	}
}

/* Pass 2: selectWithinBudget over what pass 1 kept, in final-score order. */
static void pass_select(struct run *r)
{
	long used = 0;
	for (size_t k = 0; k < r->n; k++) {
		const struct memory_slot *o = &r->order[k];
		struct memory_decision *d = &r->dec[k];
		if (o->excluded || o->filtered != MF_NONE || o->held) {
			d->reason = o->excluded ? REASON_EXCLUDED_BY_USER : o->held ? o->held : REASON_FILTERED;
			continue;
		}
		if (d->reason == REASON_NONE) {
			r->scored++;
			d->left = r->budget - used;
			if (used + o->tokens > r->budget) {
				d->reason = REASON_OVER_BUDGET;
				r->dropped_budget++;
			}
		}
		if (d->reason != REASON_NONE) {
			if (!r->has_cutoff)
				r->cutoff = o->score;
			r->has_cutoff = true;
			continue;
		}
		used += o->tokens;
		r->lowest_in = o->score;
		r->has_included = true;
	}
}

/* Names the items now in that were not: "a, b and 3 more". */
static void now_fit(const struct run *r, const bool *was_in, struct strbuf *out, size_t *count)
{
	*count = 0;
	for (size_t k = 0; k < r->n; k++) {
		if (was_in[k] || r->dec[k].reason != REASON_NONE)
			continue;
		if (++*count <= 5)
			sb_printf(out, "%s%s", *count > 1 ? ", " : "", r->src->pieces[r->order[k].index].id);
	}
	if (*count > 5)
		sb_printf(out, " and %zu more", *count - 5);
}

/* Pass 2, with compression (compress.c) when on: select once as the
 * builder does, then shrink the lowest-scoring of what pass 1 kept until
 * they fit the budget and select again; a fact names what was summarized
 * and what then fits. */
static void select_compressed(struct run *r, struct assembly *a)
{
	struct memory_decision *kept = r->m->compress ? cs_malloc((r->n ? r->n : 1) * sizeof *kept) : NULL;
	if (kept)
		memcpy(kept, r->dec, r->n * sizeof *kept); /* what pass 1 left */
	pass_select(r);
	if (!r->m->compress)
		return;
	size_t n = r->n ? r->n : 1;
	double *score = cs_malloc(n * sizeof *score);
	long *tokens = cs_malloc(n * sizeof *tokens), *out = cs_malloc(n * sizeof *out);
	bool *eligible = cs_malloc(n * sizeof *eligible), *was_in = cs_malloc(n * sizeof *was_in);
	if (!kept || !score || !tokens || !out || !eligible || !was_in) {
		a->nomem = true;
	} else {
		for (size_t k = 0; k < r->n; k++) {
			score[k] = r->order[k].score;
			tokens[k] = r->order[k].tokens;
			eligible[k] = kept[k].reason == REASON_NONE && !r->order[k].excluded && !r->order[k].held &&
				      r->order[k].filtered == MF_NONE;
			was_in[k] = r->dec[k].reason == REASON_NONE;
		}
		size_t c = memory_compress_plan(score, tokens, eligible, r->n, r->budget, out);
		long freed = 0;
		for (size_t k = 0; k < r->n; k++) {
			freed += tokens[k] - out[k];
			r->order[k].tokens = out[k];
		}
		if (c) {
			memcpy(r->dec, kept, r->n * sizeof *r->dec);
			r->has_cutoff = r->has_included = false;
			r->dropped_budget = r->scored = 0;
			pass_select(r);
		}
		struct strbuf names = STRBUF_INIT;
		size_t fit = 0;
		now_fit(r, was_in, &names, &fit);
		char n1[32];
		if (c == 0)
			r->compressed = "on: the candidates fit the budget, nothing to summarize";
		else
			r->compressed = arena_printf(&a->arena, "compressing %zu item%s frees %s tokens: %s%s", c,
						     c == 1 ? "" : "s", fmt_thousands(n1, freed),
						     fit == 0 ? "no item that was out now fits" : names.failed ? "" : sb_str(&names),
						     fit == 0 ? "" : fit == 1 ? " now fits" : " now fit");
		sb_fini(&names);
	}
	cs_free(kept);
	cs_free(score);
	cs_free(tokens);
	cs_free(out);
	cs_free(eligible);
	cs_free(was_in);
}

/* ---- formatContext's pieces (the builder's render and the updates' replay) ---- */

void memory_render_heading(struct assembly *a, int sec, bool *first)
{
	struct block *h = asm_block(a, -1, sec, -1);
	h->label = memory_section_title(sec);
	h->flags |= BLOCK_MADE | BLOCK_HEADING;
	asm_textf(a, "%s## %s\n\n", *first ? "" : "\n\n", memory_section_title(sec));
	*first = false;
}

long memory_render_item(struct assembly *a, const struct piece *p, long i, int sec, bool sep, long tokens, long full,
			const char *why)
{
	struct block *blk = asm_block(a, i, sec, -1); /* the scratch block on out of memory */
	if (sep)
		asm_text(a, "\n\n", 2);
	long b = a->nomem ? -1 : (long)a->nblocks - 1;
	blk->budget_tokens = tokens;
	blk->keep_head = p->text_bytes;
	if (why)
		asm_textf(a, "[would be summarized: %ld → %ld tokens] ", full, tokens);
	asm_span(a, p->text, p->text_bytes, p->code_points);
	if (why)
		asm_cut(a, i, b, tokens, REASON_WOULD_COMPACT, "%s", why);
	else
		asm_whole(a, i, b, tokens);
	return b;
}

long memory_render_additional(const struct memory *m, struct assembly *a, bool *first)
{
	if (!(m->additional && m->additional[0]))
		return -1;
	memory_render_heading(a, MEMORY_SECTION_ADDITIONAL, first);
	struct block *blk = asm_block(a, -1, MEMORY_SECTION_ADDITIONAL, -1);
	long b = a->nomem ? -1 : (long)a->nblocks - 1;
	blk->label = "additional context";
	blk->flags |= BLOCK_MADE;
	asm_span(a, m->additional, m->additional_bytes, (size_t)-1);
	return b;
}

/* Render, one section: its heading, then its items in score order (or the
 * additional context), "\n\n" between them, a breakpoint after its last
 * block. *first_section: no separator before the first section rendered. */
static void render_section(const struct run *r, struct assembly *a, int sec, bool *first_section, const size_t *in,
			   size_t nin)
{
	long last = -1; /* the section's last block; -1 after running out of memory */
	if (sec == MEMORY_SECTION_ADDITIONAL) {
		last = memory_render_additional(r->m, a, first_section);
	} else {
		bool started = false;
		for (size_t j = 0; j < nin; j++) {
			size_t k = in[j];
			if (r->order[k].type != sec)
				continue;
			if (!started)
				memory_render_heading(a, sec, first_section);
			long i = (long)r->order[k].index, t = r->order[k].tokens, full = r->order[k].full_tokens;
			char why[200];
			if (t != full)
				snprintf(why, sizeof why,
					 "compressed: the seed's compressContext would summarize it to a third, %ld → %ld tokens "
					 "(lowest scores first until the items fit)", full, t);
			last = memory_render_item(a, &r->src->pieces[i], i, sec, started, t, full, t != full ? why : NULL);
			started = true;
		}
	}
	if (last >= 0)
		a->blocks[last].flags |= BLOCK_BREAKPOINT; /* the end of each section */
}

/* Render: formatContext, one section per type with items, in score order
 * (in: the ranks of what went in, nin of them: a few of a million). */
static void render_in(const struct run *r, struct assembly *a, const size_t *in, size_t nin)
{
	bool first_section = a->nblocks == 0; /* the task stack's layers may come first */
	for (int sec = 0; sec < MEMORY_NSECTIONS; sec++)
		render_section(r, a, sec, &first_section, in, nin);
}

/* Render, the ranks of what went in gathered once from the decisions. */
static void render(const struct run *r, struct assembly *a)
{
	size_t nin = 0;
	for (size_t k = 0; k < r->n; k++)
		nin += r->dec[k].reason == REASON_NONE;
	size_t *in = cs_malloc((nin ? nin : 1) * sizeof *in);
	if (!in) {
		a->nomem = true;
		return;
	}
	nin = 0;
	for (size_t k = 0; k < r->n; k++)
		if (r->dec[k].reason == REASON_NONE)
			in[nin++] = k;
	render_in(r, a, in, nin);
	cs_free(in);
}

/* The drop sentences of one build, written without printf and only when
 * read (asm_sentence: the inspector shows a screenful of a million), from
 * the numbers explain_drops leaves in results[].why: what stays the same
 * for the whole build is formatted once, here. */
struct drop_text {
	double cutoff;
	long budget;
	double weights[MW_COUNT]; /* the build's: its score order lists what did not go in whole */
	size_t listed;     /* not_whole's entries before the builder's */
	char below[64];    /* "below the cutoff 0.412" */
	char share_head[MA_COUNT][64]; /* "dropped in pass 1 (the recent query, by " */
	char share_mid[MA_COUNT][128]; /* "): over allocation: its share (40% = 1,600 tokens) had " */
};

/* A literal, its length known at compile time. */
#define PUT_LIT(sb, lit) sb_append((sb), lit, sizeof lit - 1)

/* The run's drop_text in a's arena; NULL on out of memory. */
static struct drop_text *drop_text_new(const struct run *r, struct assembly *a)
{
	char f[FIXED3_MAX], n[32];
	struct drop_text *t = arena_alloc(&a->arena, sizeof *t);
	if (!t)
		return NULL;
	t->cutoff = r->cutoff;
	t->budget = r->budget;
	memcpy(t->weights, r->s->weights, sizeof t->weights);
	t->listed = a->nnot_whole;
	snprintf(t->below, sizeof t->below, "below the cutoff %s", fmt_fixed3(f, r->cutoff));
	for (int s = 0; s < MA_COUNT; s++) {
		snprintf(t->share_head[s], sizeof t->share_head[s], "dropped in pass 1 (the %s query, by ",
			 memory_allocation_name(s));
		snprintf(t->share_mid[s], sizeof t->share_mid[s], "): over allocation: its share (%g%% = %s tokens) had ",
			 r->s->allocation[s], fmt_thousands(n, r->cap[s]));
	}
	return t;
}

/* "...; final score 0.412, below the cutoff 0.5" */
static void put_final(struct strbuf *sb, const struct drop_text *t, double score)
{
	char f[FIXED3_MAX];
	PUT_LIT(sb, "; final score ");
	sb_puts(sb, fmt_fixed3(f, score));
	PUT_LIT(sb, ", ");
	if (score == t->cutoff)
		PUT_LIT(sb, "which is the cutoff: every item scoring higher went in");
	else
		sb_puts(sb, t->below);
}

/* why: the tokens it needs, the budget left when it was considered. */
static void over_budget(struct strbuf *sb, const struct drop_text *t, const struct piece_result *res)
{
	char n[32];
	PUT_LIT(sb, "dropped in pass 2 (selectWithinBudget, by final score): over budget: needs ");
	sb_puts(sb, fmt_thousands(n, res->why[0]));
	PUT_LIT(sb, " tokens, ");
	sb_puts(sb, fmt_thousands(n, res->why[1]));
	PUT_LIT(sb, " left of ");
	sb_puts(sb, fmt_thousands(n, t->budget));
	put_final(sb, t, res->score);
}

/* why: the tokens it needs, its share's tokens kept when it was considered. */
static void over_allocation(struct strbuf *sb, const struct drop_text *t, const struct memory_item *it,
			    const struct piece_result *res)
{
	char n[32], f[FIXED3_MAX];
	int share = memory_allocation_of_type(it->type);
	sb_puts(sb, t->share_head[share]);
	sb_puts(sb, memory_own_score_name(it));
	sb_putc(sb, ' ');
	sb_puts(sb, fmt_fixed3(f, memory_own_score(it)));
	sb_puts(sb, t->share_mid[share]);
	sb_puts(sb, fmt_thousands(n, res->why[1]));
	PUT_LIT(sb, " kept and needs ");
	sb_puts(sb, fmt_thousands(n, res->why[0]));
	PUT_LIT(sb, " more");
	put_final(sb, t, res->score);
}

/* "<what> (score 0.412)" */
static void with_score(struct strbuf *sb, const char *what, double score)
{
	char f[FIXED3_MAX];
	sb_puts(sb, what);
	sb_puts(sb, " (score ");
	sb_puts(sb, fmt_fixed3(f, score));
	sb_putc(sb, ')');
}

/* The assembly's sentence_fn: a deferred drop sentence. */
static bool drop_sentence(const struct assembly *a, long piece, struct strbuf *out)
{
	const struct drop_text *t = a->sentence_ctx;
	const struct memory *m = a->src->model;
	const struct memory_item *it = &m->items[a->src->pieces[piece].kind_index];
	const struct piece_result *res = &a->results[piece];
	sb_reset(out);
	switch (res->reason) {
	case REASON_EXCLUDED_BY_USER:
		with_score(out, "excluded by you", res->score);
		break;
	case REASON_OVER_BUDGET:
		over_budget(out, t, res);
		break;
	case REASON_OVER_ALLOCATION:
		over_allocation(out, t, it, res);
		break;
	default:
		break;
	}
	return !out->failed;
}

/* Explain, one item that stayed out: the sentence names the pass that
 * dropped it and the score it was ranked by there (deferred, drop_sentence,
 * but for the rarer reasons). sb: scratch. */
static void explain_one(const struct run *r, struct assembly *a, size_t k, struct strbuf *sb)
{
	long i = (long)r->order[k].index;
	const struct memory_decision *d = &r->dec[k];
	const struct memory_item *it = r->order[k].item;
	double score = r->order[k].score;
	switch (d->reason) {
	case REASON_EXCLUDED_BY_USER:
		asm_drop_later(a, i, REASON_EXCLUDED_BY_USER, 0, 0);
		break;
	case REASON_OFF_PATH:
		asm_drop(a, i, REASON_OFF_PATH, "not the current task frame's (%s): its taskId is %s; score %.3f",
			 r->m->stack.frames[r->m->stack.current].id, it->task_id ? it->task_id : "absent", score);
		break;
	case REASON_LATER:
		asm_drop(a, i, REASON_LATER, "a new event (newEvents[%ld]): not part of this build", it->arrival);
		break;
	case REASON_FILTERED: {
		const char *why = memory_filter_sentence(r->src, it, &a->arena);
		if (!why)
			a->nomem = true;
		sb_reset(sb);
		with_score(sb, why ? why : "filtered out", score);
		asm_drop_text(a, i, REASON_FILTERED, sb->failed ? NULL : arena_strndup(&a->arena, sb_str(sb), sb->len));
		break;
	}
	case REASON_OVER_BUDGET:
		asm_drop_later(a, i, REASON_OVER_BUDGET, r->order[k].tokens, d->left);
		break;
	case REASON_OVER_ALLOCATION:
		asm_drop_later(a, i, REASON_OVER_ALLOCATION, r->order[k].tokens, d->share_used);
		break;
	default:
		break;
	}
}

/* Sets the deferred sentences' writer; false on out of memory. */
static bool defer_sentences(const struct run *r, struct assembly *a)
{
	asm_expect_not_whole(a, a->nnot_whole + r->n); /* most of a large snapshot stays out */
	a->sentence_ctx = drop_text_new(r, a);
	if (!a->sentence_ctx) {
		a->nomem = true;
		return false;
	}
	a->sentence_fn = drop_sentence;
	return true;
}

/* Explain, the pieces: each item that stayed out, in score order. */
static void explain_drops(const struct run *r, struct assembly *a)
{
	struct strbuf sb = STRBUF_INIT;
	if (defer_sentences(r, a))
		for (size_t k = 0; k < r->n; k++) {
			explain_one(r, a, k, &sb);
			a->results[r->order[k].index].original_tokens = r->order[k].full_tokens;
		}
	sb_fini(&sb);
}

/* Explain, the whole: the header facts, the cutoff and the warnings. */
static void explain_facts(const struct run *r, struct assembly *a)
{
	const struct memory *m = r->m;
	const struct memory_strategy *s = r->s;
	const long *cap = r->cap, *used = r->share_used;
	char n1[32], n2[32], n3[32], n4[32], n5[32], n6[32], n7[32], n8[32];
	if (m->query)
		asm_fact(a, "query", "%s", m->query);
	asm_fact(a, "archetype", "%s", archetype_text(m, &a->arena));
	asm_fact(a, "weights", "recency %g · relevance %g · salience %g", s->weights[MW_RECENCY],
		 s->weights[MW_RELEVANCE], s->weights[MW_SALIENCE]);
	asm_fact(a, "allocation", "recent %g%% (%s) · semantic %g%% (%s) · entities %g%% (%s) · relations %g%% (%s)",
		 s->allocation[MA_RECENT], fmt_thousands(n1, cap[MA_RECENT]), s->allocation[MA_SEMANTIC],
		 fmt_thousands(n2, cap[MA_SEMANTIC]), s->allocation[MA_ENTITIES], fmt_thousands(n3, cap[MA_ENTITIES]),
		 s->allocation[MA_RELATIONS], fmt_thousands(n4, cap[MA_RELATIONS]));
	if (m->caps)
		asm_fact(a, "pass 1 kept", "recent %s/%s · semantic %s/%s · entities %s/%s · relations %s/%s",
			 fmt_thousands(n1, used[MA_RECENT]), fmt_thousands(n2, cap[MA_RECENT]),
			 fmt_thousands(n3, used[MA_SEMANTIC]), fmt_thousands(n4, cap[MA_SEMANTIC]),
			 fmt_thousands(n5, used[MA_ENTITIES]), fmt_thousands(n6, cap[MA_ENTITIES]),
			 fmt_thousands(n7, used[MA_RELATIONS]), fmt_thousands(n8, cap[MA_RELATIONS]));
	asm_fact(a, "allocation caps", "%s",
		 m->caps ? "on: pass 1, each source query keeps its share by its own score (events by recency, chunks by "
			   "relevance, entities by salience, relations by weight, else relevance; patterns: no share), "
			   "then pass 2 selects by final score within the whole budget"
			 : "off: pass 1 skipped, pass 2 selects by final score within the whole budget");
	if (m->filters.removed)
		asm_fact(a, "filters", "%zu item%s removed before the queries", m->filters.removed,
			 m->filters.removed == 1 ? "" : "s");
	asm_fact(a, "budget", "%s", r->src->settings.budget >= 0 ? "set with b or --budget, instead of maxTokens" : "maxTokens");
	if (r->has_cutoff)
		asm_cutoff(a, r->cutoff);
	asm_fact(a, "cutoff score", "%s", a->cutoff_text ? a->cutoff_text : "none");
	if (r->has_included)
		asm_fact(a, "lowest included", "%.6g", r->lowest_in);
	asm_fact(a, "charged", "item tokens only (as the memory framework's ContextBuilder charges): headers, separators and additional context are not");
	asm_fact(a, "truncated", "%s: %zu scored (kept by pass 1), %zu selected (the seed's scored.length > selected.length)",
		 r->dropped_budget ? "yes" : "no", r->scored, r->scored - r->dropped_budget);
	if (r->dropped_alloc)
		asm_warn(a, -1, "%zu item%s did not fit %s source's allocation (pass 1)", r->dropped_alloc,
			 r->dropped_alloc == 1 ? "" : "s", r->dropped_alloc == 1 ? "its" : "their");
	if (r->dropped_budget)
		asm_warn(a, -1, "%zu item%s did not fit the budget (pass 2)", r->dropped_budget,
			 r->dropped_budget == 1 ? "" : "s");
	if (r->dropped_budget)
		a->flags |= ASM_TRUNCATED;
}

/* rank → pass 1 → pass 2 → render → explain, every item decided; the
 * build is then kept (patch.c). false on out of memory. */
static bool build_anew(struct run *r, struct assembly *a)
{
	struct memory_cache *mc = memory_cache(r->src);
	const struct memory *cache = r->src->model; /* its cache holds the pass-1 order (pass1_order) */
	if (asm_reuse_decline(a) != CS_OK) /* rank() writes every result */
		return false;
	r->dec = cs_calloc(r->n ? r->n : 1, sizeof *r->dec);
	if (!r->dec || !rank(r, a) || (r->m->caps && !pass1_order(cache, r->src))) {
		cs_free(r->dec);
		cs_free(r->flags);
		return false;
	}
	pass_queries(r);
	select_compressed(r, a);
	render(r, a);
	if (!r->m->quiet)
		explain_drops(r, a);
	if (a->nomem && mc->kept) /* results part written: nothing to keep */
		mc->kept->valid = false;
	if (a->nomem) {
		cs_free(r->dec);
		cs_free(r->flags);
	} else {
		memory_keep(cache, r->src, r->budget, r->dec, r->flags, a->results, r->share_used, r->dropped_budget,
			    r->dropped_alloc, r->scored, a->serial, a->lazy); /* takes dec and flags */
	}
	r->dec = NULL;
	r->flags = NULL;
	return true;
}

/* The cutoff and the lowest score in, from the kept ranks. */
static void kept_cutoff(struct run *r, const struct memory_kept *k)
{
	r->has_cutoff = k->cut != SIZE_MAX;
	if (r->has_cutoff)
		r->cutoff = r->order[k->cut].score;
	r->has_included = k->nin > 0;
	if (r->has_included)
		r->lowest_in = r->order[k->in[k->nin - 1]].score;
}

/* A piece's result from the kept arrays, as a build from nothing leaves
 * it before the render (dropped; render_in writes what went in). */
static void kept_result(const struct memory *cache, const struct memory_kept *k, size_t i, struct piece_result *out)
{
	int why = k->preason[i];
	long full = k->full[i];
	bool numbers = why == REASON_OVER_BUDGET || why == REASON_OVER_ALLOCATION;
	*out = (struct piece_result){ .outcome = OUTCOME_DROPPED, .reason = why, .why = { numbers ? full : 0, k->why1[i] },
				      .original_tokens = full, .block = -1, .score = cache->cache.score_of[i] };
}

/* Every result written in input order from the kept arrays (no walk over
 * a million results in score order), then what stayed out listed in score
 * order, as build_anew leaves them. */
static void write_all(struct run *r, struct assembly *a, const struct memory_kept *k)
{
	struct memory_cache *mc = memory_cache(r->src);
	const struct memory *cache = r->m;
	for (size_t i = 0; i < r->n; i++)
		kept_result(cache, k, i, &a->results[i]); /* in place: a million, not copied through the stack */
	render_in(r, a, k->in, k->nin);
	struct strbuf sb = STRBUF_INIT;
	size_t nw = a->nnot_whole, deferred = 0; /* in registers: a million of them */
	if (defer_sentences(r, a) && a->cap_not_whole >= a->nnot_whole + r->n)
		for (size_t q = 0; q < r->n; q++) {
			int why = k->rreason[q];
			if (why == REASON_EXCLUDED_BY_USER || why == REASON_OVER_BUDGET || why == REASON_OVER_ALLOCATION) {
				a->not_whole[nw++] = (long)mc->rank_order[q]; /* its result written above */
				deferred++;
			} else if (why != REASON_NONE) {
				a->nnot_whole = nw;
				explain_one(r, a, q, &sb); /* lists it itself */
				nw = a->nnot_whole;
			}
		}
	a->nnot_whole = nw;
	a->ndeferred += deferred;
	sb_fini(&sb);
}

/* The assembly's list_fn: what did not go in whole, in the build's score
 * order (what write_all lists), from the results. */
static bool list_not_whole(struct assembly *a)
{
	const struct drop_text *t = a->sentence_ctx;
	const struct source *src = a->src;
	size_t *owned;
	const size_t *order = memory_rank_order(src->model, src, t->weights, &owned);
	if (!order)
		return false;
	a->nnot_whole = t->listed;
	asm_expect_not_whole(a, t->listed + src->npieces);
	if (!a->nomem)
		for (size_t k = 0; k < src->npieces; k++)
			if (a->results[order[k]].reason != REASON_NONE)
				a->not_whole[a->nnot_whole++] = (long)order[k];
	cs_free(owned);
	return !a->nomem;
}

/* The previous build's results taken over and patched: only the pieces the
 * patch re-decided written (asm_set_result lists those that change), what
 * went in rendered (a block that moved changes its piece's result), the
 * list of what did not go in whole left until it is read. */
static void write_touched(struct run *r, struct assembly *a, const struct memory_kept *k)
{
	const struct memory *cache = r->m;
	for (size_t t = 0; t < k->ntouched; t++) {
		size_t i = r->order[k->touched[t]].index;
		struct piece_result res;
		kept_result(cache, k, i, &res);
		asm_set_result(a, (long)i, &res);
	}
	render_in(r, a, k->in, k->nin);
	if (!defer_sentences(r, a))
		return;
	a->list_fn = list_not_whole;
	const size_t *nr = k->nreason;
	size_t deferred = nr[REASON_EXCLUDED_BY_USER] + nr[REASON_OVER_BUDGET] + nr[REASON_OVER_ALLOCATION];
	a->ndeferred += deferred;
	if (deferred + nr[REASON_NONE] == r->n)
		return;
	/* sentences written at once (filters, the task stack, new events) live
	 * in the previous arena: written again */
	struct strbuf sb = STRBUF_INIT;
	for (size_t q = 0; q < r->n; q++) {
		int why = k->rreason[q];
		if (why != REASON_NONE && why != REASON_EXCLUDED_BY_USER && why != REASON_OVER_BUDGET &&
		    why != REASON_OVER_ALLOCATION)
			explain_one(r, a, q, &sb);
	}
	sb_fini(&sb);
}


/* A long cascade (an item kept in pass 1 excluded: every later one in its
 * share says a new total) is written whole, in input order, and compared
 * whole: cheaper than a quarter of a million results listed and sorted. */
static bool long_cascade(size_t touched, size_t n)
{
	return touched > cs_tuned->memory_cascade_min && touched > n / 16;
}

/* The build from the kept one (memory_patch re-decided it): the previous
 * results patched when a holds them and they are the kept build's, else
 * every result written. false on out of memory. */
static bool from_kept(struct run *r, struct assembly *a)
{
	struct memory_cache *mc = memory_cache(r->src); /* the kept build: its results are now a's */
	struct memory_kept *k = mc->kept;
	bool patch = a->reused && (a->reused_from == r->results_of[0] || a->reused_from == r->results_of[1]) &&
		     !long_cascade(k->ntouched, r->n);
	if (!patch && asm_reuse_decline(a) != CS_OK)
		return false;
	r->order = mc->slots;
	r->rank_of = mc->rank_of;
	r->dec = k->dec; /* the kept build's, borrowed */
	memcpy(r->share_used, k->share_used, sizeof r->share_used);
	r->dropped_budget = k->dropped_budget;
	r->dropped_alloc = k->dropped_alloc;
	r->scored = k->scored;
	kept_cutoff(r, k);
	if (patch)
		write_touched(r, a, k);
	else
		write_all(r, a, k);
	r->dec = NULL;
	k->reused += patch;
	k->serial = a->nomem ? 0 : a->serial;
	/* re-decided nothing: the results are those it was patched from, and
	 * the previous assembly may still be the one the next build starts from
	 * (the inspector's, when this is its baseline's) */
	k->serial_alike = a->nomem || k->ntouched || patch ? 0 : r->results_of[0];
	return true;
}

/* The run's figures, then the build from the kept one or anew, the facts. */
int memory_build(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	const struct memory *m = src->model;
	/* build_anew's rank() or from_kept writes every result, or from_kept
	 * patches the inspector's last ones (not a build the updates replay on) */
	int rc = !m->nnew && !m->quiet && !m->hold_from ? asm_init_reuse(a, run, ASM_DOCUMENT)
							: asm_init_unset(a, run, ASM_DOCUMENT);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	if (memory_groupings(m, a) != CS_OK)
		a->nomem = true;

	struct run r = { .src = src, .m = m, .s = &m->cur, .n = src->npieces };
	long budget = src->settings.budget >= 0 ? src->settings.budget : m->max_tokens;
	a->budget.limit = budget;
	a->budget.reserve = 0;
	a->budget.usable = budget;
	struct memory_stack_take take;
	memory_stack_render(src, a, budget, &take); /* the task stack's layers, when on */
	size_t first_block = a->nblocks;
	r.budget = take.remaining;
	for (int k = 0; k < MA_COUNT; k++)
		r.cap[k] = (long)floor((double)r.budget * (r.s->allocation[k] / 100.0)); /* the seed's TokenBudget.allocate */

	const struct memory *cache = src->model; /* its cache holds the kept orders and build */
	if (cache->cache.kept) { /* the patch forgets them */
		r.results_of[0] = cache->cache.kept->serial;
		r.results_of[1] = cache->cache.kept->serial_alike;
	}
	bool patched = !m->quiet && m->hold_from == 0 && memory_rank(cache, src, r.s->weights) &&
		       memory_kept_matches(m, src, r.budget) && memory_patch(cache, src, r.cap);
	if (patched ? !from_kept(&r, a) : !build_anew(&r, a)) {
		asm_fini(a);
		return cs_error_nomem(err);
	}
	explain_facts(&r, a);
	if (r.compressed) {
		asm_fact(a, "compression", "%s", r.compressed);
		memory_fact_first(a);
	}
	memory_stack_explain(src, a, budget, &take, first_block);

	char n1[32], n2[32];
	rc = asm_finish(a, err);
	if (rc == CS_OK && a->total_tokens > budget)
		asm_warn(a, -1, "the rendered context is %s tokens (estimated), over the budget of %s: the ContextBuilder charges "
			 "item tokens only", fmt_thousands(n1, a->total_tokens), fmt_thousands(n2, budget));
	return rc;
}

int memory_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct memory *m = run->src->model;
	return m->nnew ? memory_assemble_incremental(run, a, err) : memory_build(run, a, err);
}
