/* incremental.c (memory): the seed's updateContext on a snapshot's
 * `newEvents` (ctxscope-formats(5) section 4b), replayed one at a time onto the
 * builder's context. Each new event becomes a component at the start with
 * relevanceScore 1.0; when tokenCount + its tokens exceed the budget one
 * component goes:
 * - as-written (the seed's code): the components sorted ascending by score
 *   (a stable sort) and pop(), which removes the HIGHEST-scoring one; the
 *   new event goes in front of the sorted rest; tokenCount is set to the
 *   budget without checking (so every later event overflows too);
 * - as-intended (its comment): the lowest-scoring components go (the first
 *   in context order among equals) until the new one fits; order is kept.
 * Decisions where the seed is silent:
 * - The builder's context is its selection in score order (the seed's
 *   `components: selected`), tokenCount the sum of their tokens (what
 *   `budget.used()` is meant to return; the seed's TokenBudget has no such
 *   method). A component's relevanceScore is its final score (ScoredItem has
 *   no relevanceScore field; the seed's sort would compare undefined).
 * - updateContext keeps `content` as it was; shown here is formatContext of
 *   the components, each section in the order the context keeps them.
 * - as-intended: an event larger than the whole budget is not added and
 *   nothing is dropped for it.
 * - A new event without `scores` counts recency 1 and relevance 1 (salience
 *   0.5, the events' default) in the full rebuild it is compared with. */
#include "memory.h"

#include "base/alloc.h"
#include "assembly.h"
#include "json/doc.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int memory_held_out(const struct memory *m, const struct memory_item *it)
{
	if (it->arrival >= 0 && (size_t)it->arrival >= m->hold_from)
		return REASON_LATER;
	if (memory_stack_off_task(m, it))
		return REASON_OFF_PATH;
	return REASON_NONE;
}

int memory_new_event(struct memory *m, const struct json_doc *d, const struct cJSON *item, const struct jpath *at,
		     size_t i, struct cs_error *err)
{
	struct memory_item *it = &m->items[i];
	if (it->type != MEM_EVENT)
		return json_fail(d, err, CS_ETYPE, at, "type", "a new event must be of type event");
	if (!json_member(item, "scores")) {
		it->scores[MW_RECENCY] = 1.0;
		it->scores[MW_RELEVANCE] = 1.0;
		it->scores[MW_SALIENCE] = 0.5;
		it->given = (1u << MW_COUNT) - 1; /* not derived again from a timestamp */
	}
	it->arrival = (long)m->nnew++;
	m->step = (long)m->nnew;
	return CS_OK;
}

struct by_score {
	double score;
	size_t pos;
};

static int cmp_ascending(const void *x, const void *y)
{
	const struct by_score *a = x, *b = y;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* The stable ascending sort of as-written. The context is [unsorted
 * prefix, sorted suffix from ctx->sorted_from]: after one sort, only what
 * was prepended since is out of order, so the prefix is sorted alone (by
 * insertion when short) and merged with the suffix, the prefix first among
 * equals (it comes first in context order). false on out of memory. */
static bool sort_ascending(struct memory_context *ctx)
{
	size_t n = ctx->n, k = ctx->sorted_from < n ? ctx->sorted_from : n;
	struct memory_component *c = ctx->c;
	if (k > 32) { /* a long prefix (the builder's context, in descending order): qsort it */
		struct by_score *key = cs_malloc(k * sizeof *key);
		struct memory_component *tmp = cs_malloc(k * sizeof *tmp);
		if (!key || !tmp) {
			cs_free(key);
			cs_free(tmp);
			return false;
		}
		for (size_t i = 0; i < k; i++)
			key[i] = (struct by_score){ c[i].score, i };
		qsort(key, k, sizeof *key, cmp_ascending);
		for (size_t i = 0; i < k; i++)
			tmp[i] = c[key[i].pos];
		memcpy(c, tmp, k * sizeof *tmp);
		cs_free(key);
		cs_free(tmp);
	} else {
		for (size_t i = 1; i < k; i++) { /* insertion: stable */
			struct memory_component x = c[i];
			size_t j = i;
			for (; j > 0 && c[j - 1].score > x.score; j--)
				c[j] = c[j - 1];
			c[j] = x;
		}
	}
	if (k > 0 && k < n) {
		struct memory_component *out = cs_malloc(n * sizeof *out);
		if (!out)
			return false;
		size_t a = 0, b = k, o = 0;
		while (a < k && b < n)
			out[o++] = c[b].score < c[a].score ? c[b++] : c[a++];
		while (a < k)
			out[o++] = c[a++];
		while (b < n)
			out[o++] = c[b++];
		memcpy(c, out, n * sizeof *out);
		cs_free(out);
	}
	ctx->sorted_from = 0;
	return true;
}

static void prepend(struct memory_context *ctx, struct memory_component c)
{
	memmove(ctx->c + 1, ctx->c, ctx->n * sizeof *ctx->c);
	ctx->c[0] = c;
	ctx->n++;
	ctx->sorted_from++;
}

bool memory_update(struct memory_context *ctx, struct memory_component c, long budget, int mode,
		   struct memory_update *u, long *out_dropped)
{
	memset(u, 0, sizeof *u);
	u->added = -1;
	u->total = ctx->token_count + c.tokens;
	if (ctx->n + 1 > ctx->cap) {
		size_t cap = ctx->cap ? ctx->cap * 2 : 16;
		struct memory_component *grown = cs_realloc(ctx->c, cap * sizeof *grown);
		if (!grown)
			return false;
		ctx->c = grown;
		ctx->cap = cap;
	}
	if (u->total <= budget) {
		prepend(ctx, c);
		ctx->token_count = u->total;
		u->added = c.piece;
		return true;
	}
	u->overflow = true;
	if (mode == MEMORY_AS_WRITTEN) {
		if (!sort_ascending(ctx))
			return false;
		if (ctx->n) { /* pop(): the last of an ascending sort, the highest score */
			ctx->n--;
			out_dropped[u->ndropped++] = ctx->c[ctx->n].piece;
			u->dropped_score = ctx->c[ctx->n].score;
		}
		prepend(ctx, c);
		ctx->token_count = budget; /* claimed, not checked */
		u->added = c.piece;
		return true;
	}
	if (c.tokens > budget)
		return true; /* it cannot fit even alone: not added */
	long actual = ctx->token_count;
	while (actual + c.tokens > budget && ctx->n) {
		size_t low = 0;
		for (size_t i = 1; i < ctx->n; i++)
			if (ctx->c[i].score < ctx->c[low].score)
				low = i;
		if (u->ndropped == 0)
			u->dropped_score = ctx->c[low].score;
		out_dropped[u->ndropped++] = ctx->c[low].piece;
		actual -= ctx->c[low].tokens;
		memmove(ctx->c + low, ctx->c + low + 1, (ctx->n - low - 1) * sizeof *ctx->c);
		ctx->n--;
		if (low < ctx->sorted_from)
			ctx->sorted_from--;
	}
	prepend(ctx, c);
	ctx->token_count = actual + c.tokens;
	u->added = c.piece;
	return true;
}

/* What the replay left, per piece, for the results. */
struct replay {
	struct asm_run *run;       /* the assembler's */
	const struct source *src;
	struct memory *m;
	long budget;               /* the builder's */
	size_t step;
	struct memory_context ctx;
	long *pushed_at;           /* per piece: the update (1-based) that pushed it out, 0 none */
	long *pushed_by;           /* per piece: the new event's piece that did */
	long *dropped;             /* scratch for memory_update */
	struct memory_update last; /* the last update */
	long last_dropped[3];      /* its first dropped pieces */
	size_t refused;            /* as-intended: events too large to add */
};

/* The builder's context: its selection in score order (the rank cache). */
static bool seed_context(struct replay *rp, const struct assembly *base)
{
	size_t n = rp->src->npieces;
	rp->ctx.cap = n + 1;
	rp->ctx.c = cs_malloc(rp->ctx.cap * sizeof *rp->ctx.c);
	if (!rp->ctx.c || !rp->m->cache.rank_valid)
		return false;
	for (size_t k = 0; k < n; k++) {
		size_t i = rp->m->cache.rank_order[k];
		const struct piece_result *r = &base->results[i];
		if (r->outcome == OUTCOME_DROPPED)
			continue;
		rp->ctx.c[rp->ctx.n++] = (struct memory_component){ (long)i, r->score, r->tokens };
		rp->ctx.token_count += r->tokens;
	}
	rp->ctx.sorted_from = rp->ctx.n; /* score order is descending: no sorted suffix */
	return true;
}

static bool replay_all(struct replay *rp)
{
	size_t first_new = rp->m->nitems - rp->m->nnew;
	for (size_t j = 0; j < rp->step; j++) {
		const struct memory_item *it = &rp->m->items[first_new + j];
		struct memory_component c = { it->piece, 1.0, it->tokens };
		if (!memory_update(&rp->ctx, c, rp->budget, rp->m->incremental, &rp->last, rp->dropped))
			return false;
		for (size_t d = 0; d < rp->last.ndropped; d++) {
			rp->pushed_at[rp->dropped[d]] = (long)j + 1;
			rp->pushed_by[rp->dropped[d]] = it->piece;
			if (d < 3)
				rp->last_dropped[d] = rp->dropped[d];
		}
		if (rp->last.added < 0)
			rp->refused++;
		else
			rp->pushed_at[it->piece] = 0; /* in again (a pushed-out piece is never re-added) */
	}
	return true;
}

/* formatContext of the components: sections in the seed's order, each
 * holding its components in context order (memory_render_*, as the
 * builder renders them). */
static void render_components(const struct replay *rp, const struct assembly *base, struct assembly *a)
{
	const struct source *src = rp->src;
	bool first = a->nblocks == 0;
	for (int sec = 0; sec < MEM_TYPE_COUNT; sec++) {
		long last = -1;
		for (size_t k = 0; k < rp->ctx.n; k++) {
			long i = rp->ctx.c[k].piece;
			const struct piece *p = &src->pieces[i];
			if (rp->m->items[p->kind_index].type != sec)
				continue;
			if (last < 0)
				memory_render_heading(a, sec, &first);
			const struct piece_result *was = &base->results[i];
			long full = rp->m->items[p->kind_index].tokens;
			bool compressed = was->outcome == OUTCOME_TRUNCATED && was->reason == REASON_WOULD_COMPACT;
			struct strbuf sb = STRBUF_INIT;
			const char *said = compressed ? asm_sentence(base, i, &sb) : NULL;
			const char *why = compressed ? (said ? said : "") : NULL; /* as the builder showed it */
			last = memory_render_item(a, p, i, sec, last >= 0, rp->ctx.c[k].tokens, full, why);
			sb_fini(&sb);
			a->results[i].original_tokens = full;
			a->results[i].score = rp->ctx.c[k].score;
		}
		if (last >= 0 && !a->nomem)
			a->blocks[last].flags |= BLOCK_BREAKPOINT;
		if (a->nomem)
			return;
	}
	memory_render_additional(rp->m, a, &first);
}

/* A piece as the builder left it: its result and sentence (a copy). */
static void builder_said(const struct assembly *base, struct assembly *a, long i)
{
	struct strbuf sb = STRBUF_INIT;
	const char *said = asm_sentence(base, i, &sb);
	asm_drop_text(a, i, base->results[i].reason, said ? arena_strdup(&a->arena, said) : "dropped by the builder");
	sb_fini(&sb);
}

/* The results of the pieces not in the context: pushed out, not replayed
 * yet, refused, or as the builder left them. */
static void explain_out(const struct replay *rp, const struct assembly *base, struct assembly *a)
{
	const struct source *src = rp->src;
	bool written = rp->m->incremental == MEMORY_AS_WRITTEN;
	for (size_t i = 0; i < src->npieces; i++) {
		if (a->results[i].outcome != OUTCOME_DROPPED)
			continue;
		const struct memory_item *it = &rp->m->items[src->pieces[i].kind_index];
		a->results[i].score = base->results[i].score;
		a->results[i].original_tokens = it->tokens;
		if (rp->pushed_at[i])
			asm_drop(a, (long)i, REASON_OVER_BUDGET,
				 "pushed out by update %ld (%s): %s; relevanceScore %.3f%s", rp->pushed_at[i],
				 src->pieces[rp->pushed_by[i]].id,
				 written ? "as written, updateContext sorts ascending and pop() takes the HIGHEST score"
					 : "as intended, the lowest score goes until the new event fits",
				 it->arrival >= 0 ? 1.0 : base->results[i].score,
				 it->arrival >= 0 ? " (a new event's)" : " (its final score)");
		else if (it->arrival >= (long)rp->step)
			asm_drop(a, (long)i, REASON_LATER, "new event %ld of %zu: arrives after update %zu, the one shown",
				 it->arrival + 1, rp->m->nnew, rp->step);
		else if (it->arrival >= 0)
			asm_drop(a, (long)i, REASON_OVER_BUDGET, "new event %ld: %ld tokens, more than the whole budget of %ld: "
				 "not added (as intended)", it->arrival + 1, it->tokens, rp->budget);
		else
			builder_said(base, a, (long)i);
	}
}

/* "a, b, c and 3 more" of the pieces in one set and not the other, with their tokens. */
static void one_side(const struct replay *rp, const struct assembly *x, const struct assembly *y, struct strbuf *out,
		     size_t *count, long *tokens)
{
	*count = 0;
	*tokens = 0;
	for (size_t i = 0; i < rp->src->npieces; i++) {
		if (x->results[i].outcome == OUTCOME_DROPPED || y->results[i].outcome != OUTCOME_DROPPED)
			continue;
		*tokens += x->results[i].tokens;
		if (++*count <= 4)
			sb_printf(out, "%s%s", *count > 1 ? ", " : "", piece_name(&rp->src->pieces[i]));
	}
	if (*count > 4)
		sb_printf(out, " and %zu more", *count - 4);
}

static void explain_update(const struct replay *rp, struct assembly *a, const struct assembly *rebuilt)
{
	const struct source *src = rp->src;
	bool written = rp->m->incremental == MEMORY_AS_WRITTEN;
	char n1[32], n2[32], n3[32];
	const char *mode = written ? "as-written" : "as-intended";
	const struct memory_update *u = &rp->last;
	const char *id = src->pieces[src->npieces - rp->m->nnew + rp->step - 1].id;
	/* first among the facts: the header's line shows it */
	if (!u->overflow)
		asm_fact(a, "update", "%zu of %zu (%s): %s added, tokenCount %s ≤ budget %s, nothing dropped", rp->step,
			 rp->m->nnew, mode, id, fmt_thousands(n1, u->total), fmt_thousands(n2, rp->budget));
	else if (u->added < 0)
		asm_fact(a, "update", "%zu of %zu (%s): %s not added, larger than the whole budget", rp->step, rp->m->nnew,
			 mode, id);
	else if (u->ndropped == 0)
		asm_fact(a, "update", "%zu of %zu (%s): %s added, %s > budget %s, nothing left to drop", rp->step,
			 rp->m->nnew, mode, id, fmt_thousands(n1, u->total), fmt_thousands(n2, rp->budget));
	else
		asm_fact(a, "update", "%zu of %zu (%s): %s added, %s > budget %s: pushed out %s (score %.3f, the %s)%s",
			 rp->step, rp->m->nnew, mode, id, fmt_thousands(n1, u->total), fmt_thousands(n2, rp->budget),
			 src->pieces[rp->last_dropped[0]].id, u->dropped_score, written ? "highest" : "lowest",
			 u->ndropped > 1 ? arena_printf(&a->arena, " and %zu more", u->ndropped - 1) : "");
	long actual = 0;
	for (size_t k = 0; k < rp->ctx.n; k++)
		actual += rp->ctx.c[k].tokens;
	asm_fact(a, "tokenCount", "%s claimed, %s held", fmt_thousands(n1, rp->ctx.token_count), fmt_thousands(n2, actual));
	if (actual > rp->budget) {
		a->over_by = actual - rp->budget;
		asm_state(a, ASM_OVER_LIMIT, "the updated context holds %s tokens, %s over the budget it claims to fill",
			  fmt_thousands(n1, actual), fmt_thousands(n2, a->over_by));
	}
	if (actual > rp->budget)
		asm_warn(a, -1, "the updated context holds %s tokens, over the budget of %s, and claims %s: as written, "
			 "updateContext sets tokenCount to the budget without checking", fmt_thousands(n1, actual),
			 fmt_thousands(n2, rp->budget), fmt_thousands(n3, rp->ctx.token_count));
	long rebuilt_tokens = 0; /* its items' (the stack's layers are the same on both sides) */
	for (size_t i = 0; i < src->npieces; i++)
		if (rebuilt->results[i].outcome != OUTCOME_DROPPED)
			rebuilt_tokens += rebuilt->results[i].tokens;
	struct strbuf here = STRBUF_INIT, there = STRBUF_INIT;
	size_t nh, nt;
	long th, tt;
	one_side(rp, a, rebuilt, &here, &nh, &th);
	one_side(rp, rebuilt, a, &there, &nt, &tt);
	if (here.failed || there.failed)
		a->nomem = true;
	else if (nh == 0 && nt == 0)
		asm_fact(a, "full rebuild", "the same items as buildContext on the same items (%s tokens here, %s rebuilt)",
			 fmt_thousands(n1, actual), fmt_thousands(n2, rebuilt_tokens));
	else
		asm_fact(a, "full rebuild", "drifted: %zu only here (%s: %s tokens), %zu only in a rebuild (%s: %s tokens); "
			 "%s tokens here, %s rebuilt", nh, nh ? sb_str(&here) : "none", fmt_thousands(n1, th), nt,
			 nt ? sb_str(&there) : "none", fmt_thousands(n2, tt), fmt_thousands(n3, actual),
			 fmt_thousands((char[32]){ 0 }, rebuilt_tokens));
	sb_fini(&here);
	sb_fini(&there);
	asm_fact(a, "incremental", "%s", written ? "as-written: the seed's updateContext sorts ascending and pop() drops the "
						  "highest score; tokenCount = budget, unchecked"
						: "as-intended: the lowest scores go until the new event fits");
}

/* The builder's assembly's facts and its own warnings, carried over. */
static void carry(const struct assembly *base, struct assembly *a)
{
	for (size_t f = 0; f < base->nfacts; f++)
		asm_fact(a, base->facts[f].key, "%s", base->facts[f].value);
	for (size_t w = a->src->nwarnings; w < base->nwarnings; w++)
		asm_warn(a, base->warnings[w].piece, "%s", base->warnings[w].text);
	if (base->cutoff_text)
		asm_cutoff(a, base->cutoff);
	a->budget = base->budget;
	a->flags |= base->flags & ASM_TRUNCATED;
}

/* Renders the replayed context into a, beside the builder's (base) and a
 * full rebuild (rebuilt). */
static int render_replay(struct replay *rp, const struct assembly *base, const struct assembly *rebuilt,
			 struct assembly *a, struct cs_error *err)
{
	if (asm_init(a, rp->run, ASM_DOCUMENT) != CS_OK || memory_groupings(rp->m, a) != CS_OK) {
		asm_fini(a);
		return cs_error_nomem(err);
	}
	long full = base->budget.usable;
	struct memory_stack_take take;
	memory_stack_render(rp->src, a, full, &take);
	size_t first_block = a->nblocks;
	render_components(rp, base, a);
	explain_out(rp, base, a);
	if (rp->step)
		explain_update(rp, a, rebuilt);
	else
		asm_fact(a, "update", "0 of %zu (%s): the builder's context; ] replays the next new event", rp->m->nnew,
			 rp->m->incremental == MEMORY_AS_WRITTEN ? "as-written" : "as-intended");
	carry(base, a);
	if (memory_stack_on(rp->m))
		for (size_t b = first_block; b < a->nblocks; b++)
			if (a->blocks[b].layer[1] < 0)
				a->blocks[b].layer[1] = MSL_CURRENT;
	if (rp->step && rp->last.overflow)
		a->flags |= ASM_TRUNCATED; /* the seed's truncated: true */
	return asm_finish(a, err);
}

int memory_assemble_incremental(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	struct memory *m = src->model; /* hold_from: a build parameter, put back before returning */
	struct replay rp = { .run = run, .src = src, .m = m, .step = (size_t)m->step };
	memset(a, 0, sizeof *a); /* a failure before render_replay leaves it empty, safe to asm_fini */
	if (rp.step > m->nnew)
		rp.step = m->nnew;
	struct assembly base, rebuilt;
	m->hold_from = 0;
	int rc = memory_build(run, &base, err);
	if (rc != CS_OK) {
		asm_fini(&base); /* a build that fails late leaves its assembly to the caller */
		return rc;
	}
	m->hold_from = rp.step;
	m->quiet = true; /* the rebuild is compared by what went in: no sentences */
	rc = memory_build(run, &rebuilt, err);
	m->hold_from = 0;
	m->quiet = false;
	if (rc != CS_OK) {
		asm_fini(&base);
		asm_fini(&rebuilt);
		return rc;
	}
	rp.budget = base.budget.usable;
	if (memory_stack_on(m)) {
		struct memory_stack_take take;
		memory_stack_measure(m, rp.budget, src->settings.chars_per_token, &take);
		rp.budget = take.remaining;
	}
	size_t n = src->npieces ? src->npieces : 1;
	rp.pushed_at = cs_calloc(n, sizeof *rp.pushed_at);
	rp.pushed_by = cs_calloc(n, sizeof *rp.pushed_by);
	rp.dropped = cs_calloc(n + 1, sizeof *rp.dropped);
	if (!rp.pushed_at || !rp.pushed_by || !rp.dropped || !seed_context(&rp, &base) || !replay_all(&rp))
		rc = cs_error_nomem(err);
	else
		rc = render_replay(&rp, &base, &rebuilt, a, err);
	cs_free(rp.pushed_at);
	cs_free(rp.pushed_by);
	cs_free(rp.dropped);
	cs_free(rp.ctx.c);
	asm_fini(&base);
	asm_fini(&rebuilt);
	return rc;
}
