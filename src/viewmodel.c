/* viewmodel.c: the inspector's state (see viewmodel.h). */
#include "viewmodel.h"

#include "alloc.h"
#include "hidden.h"
#include "kind.h"
#include "strbuf.h"
#include "theme.h"
#include "tokens.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the cache, as cache.h sees it ----------------------------------------- */

/* A deep copy of the user's breakpoints (the baseline keeps the ones it was
 * pinned with). false on out of memory (dst is then empty). */
static bool copy_overrides(struct cache_overrides *dst, const struct cache_overrides *src)
{
	cache_overrides_fini(dst);
	cache_overrides_init(dst);
	if (src->n == 0)
		return true;
	dst->items = cs_calloc(src->n, sizeof *dst->items);
	if (!dst->items)
		return false;
	dst->cap = src->n;
	for (size_t i = 0; i < src->n; i++) {
		dst->items[i] = src->items[i];
		dst->items[i].piece_id = NULL;
		if (src->items[i].piece_id) {
			size_t n = strlen(src->items[i].piece_id) + 1;
			dst->items[i].piece_id = cs_malloc(n);
			if (!dst->items[i].piece_id) {
				dst->n = i;
				cache_overrides_fini(dst);
				cache_overrides_init(dst);
				return false;
			}
			memcpy(dst->items[i].piece_id, src->items[i].piece_id, n);
		}
		dst->n = i + 1;
	}
	return true;
}

/* Runs cache_analyze on the current assembly against the baseline under the
 * active profile and derives what the screen shows. false on out of memory. */
static bool compute_cache(struct vm *vm)
{
	const struct assembly *a = &vm->cur;
	cache_analysis_fini(&vm->an);
	struct cs_error err;
	if (cache_analyze(&vm->base, &vm->bp_base, a, &vm->bp_now, vm->profile, &vm->an, &err) != CS_OK) {
		memset(&vm->cache, 0, sizeof vm->cache);
		vm->cache.cached_block = -1;
		return false;
	}
	const struct cache_analysis *an = &vm->an;
	struct vm_cache c = { .cached_block = -1, .identical = an->div.identical };
	c.same_blocks = an->div.identical || an->div.block < 0 ? a->nblocks : (size_t)an->div.block;
	c.cached_tokens = an->now.read;
	c.rewrite_tokens = a->total_tokens - an->now.read;
	for (size_t i = 0; i < a->nblocks; i++)
		if (an->now.read > 0 && a->blocks[i].offset_tokens + a->blocks[i].tokens <= an->now.read)
			c.cached_block = (long)i;
	vm->cache = c;
	return true;
}

/* Block b's share of the prefix read from the cache, in the budgeted tokens
 * the bars show (the cache counts rendered tokens: a partly read block
 * counts in proportion). */
static long block_cached_tokens(const struct vm *vm, size_t b)
{
	const struct block *bl = &vm->cur.blocks[b];
	long in = vm->an.now.read - bl->offset_tokens;
	if (in <= 0 || bl->tokens <= 0)
		return 0;
	if (in >= bl->tokens)
		return bl->budget_tokens;
	return (long)((double)bl->budget_tokens * (double)in / (double)bl->tokens);
}

/* Per-frame figures, worked out once per re-assembly or baseline so that a
 * redraw costs O(visible rows): counts of dropped and truncated pieces, and
 * each layer's cache state. false on out of memory. */
static bool summarize(struct vm *vm)
{
	const struct assembly *a = &vm->cur;
	vm->ndropped = vm->ntruncated = 0;
	vm->max_block_tokens = 0;
	for (size_t b = 0; b < a->nblocks; b++)
		if (a->blocks[b].budget_tokens > vm->max_block_tokens)
			vm->max_block_tokens = a->blocks[b].budget_tokens;
	for (size_t i = 0; i < vm->src->npieces; i++) {
		if (a->results[i].outcome == OUTCOME_DROPPED)
			vm->ndropped++;
		else if (a->results[i].outcome == OUTCOME_TRUNCATED)
			vm->ntruncated++;
	}
	for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++) {
		cs_free(vm->layers[g]);
		vm->layers[g] = NULL;
	}
	for (size_t g = 0; g < a->ngroupings; g++) {
		size_t nl = a->groupings[g].nlayers;
		vm->layers[g] = cs_calloc(nl ? nl : 1, sizeof *vm->layers[g]);
		if (!vm->layers[g])
			return false;
		for (size_t b = 0; b < a->nblocks; b++) {
			int l = a->blocks[b].layer[g];
			if (l < 0 || (size_t)l >= nl)
				continue;
			struct vm_layer_info *li = &vm->layers[g][l];
			li->blocks++;
			li->cached_tokens += block_cached_tokens(vm, b);
			if (vm_block_cached(vm, (long)b))
				li->cached_blocks++;
		}
	}
	return true;
}

bool vm_block_cached(const struct vm *vm, long block)
{
	return block >= 0 && block <= vm->cache.cached_block;
}

const char *vm_cutoff(const struct vm *vm)
{
	for (size_t i = 0; i < vm->cur.nfacts; i++)
		if (strcmp(vm->cur.facts[i].key, "cutoff score") == 0)
			return strcmp(vm->cur.facts[i].value, "none") == 0 ? NULL : vm->cur.facts[i].value;
	return NULL;
}

const struct cache_breakpoint *vm_breakpoint(const struct vm *vm, long block)
{
	size_t lo = 0, hi = vm->an.nbps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((long)vm->an.bps[mid].block < block)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < vm->an.nbps && (long)vm->an.bps[lo].block == block ? &vm->an.bps[lo] : NULL;
}

const char *vm_breakpoint_state(const struct vm *vm, const struct cache_breakpoint *bp)
{
	if (!bp->in_limit)
		return "over the limit";
	if (!bp->over_min)
		return "under minimum";
	if (bp->end_tokens <= vm->an.now.read)
		return "cached";
	/* a prefix cache stores whole units: the tail of the last one is not kept */
	return bp->end_tokens <= vm->an.now.read + vm->an.now.written ? "written" : "not cached";
}

/* ---- rows ------------------------------------------------------------------ */

/* Whether the filters (`\`, `!`, a clicked layer) hide a row. */
static bool row_hidden(const struct vm *vm, enum vm_row_type type, long block, long piece)
{
	if (type == VM_ROW_MARKER)
		return vm->keep != NULL || vm->layer_filter >= 0;
	if (vm->keep && (piece < 0 || !vm->keep[piece]))
		return true;
	if (vm->layer_filter >= 0) {
		size_t g = vm->grouping < vm->cur.ngroupings ? vm->grouping : 0;
		if (block < 0 || g >= vm->cur.ngroupings || vm->cur.blocks[block].layer[g] != vm->layer_filter)
			return true;
	}
	return false;
}

static bool push_row(struct vm *vm, enum vm_row_type type, long block, long piece)
{
	if (row_hidden(vm, type, block, piece))
		return true;
	if (vm->nrows == vm->cap_rows) {
		size_t cap = vm->cap_rows ? vm->cap_rows * 2 : 64;
		struct vm_row *r = cs_reallocarray(vm->rows, cap, sizeof *r);
		if (!r)
			return false;
		vm->rows = r;
		vm->cap_rows = cap;
	}
	vm->rows[vm->nrows++] = (struct vm_row){ .type = type, .block = block, .piece = piece };
	return true;
}

static bool marker_after(const struct vm *vm, size_t b)
{
	if (cache_is_breakpoint(&vm->bp_now, &vm->cur, b))
		return true;
	return !vm->cache.identical && b + 1 == vm->cache.same_blocks;
}

static bool build_order_rows(struct vm *vm)
{
	const struct assembly *a = &vm->cur;
	size_t np = vm->src->npieces, nb = a->nblocks;
	/* Bucket the dropped pieces by the block they follow (counting sort). */
	size_t *start = cs_calloc(nb + 2, sizeof *start);
	long *order = cs_calloc(np ? np : 1, sizeof *order);
	if (!start || !order) {
		cs_free(start);
		cs_free(order);
		return false;
	}
	long last = -1;
	for (size_t i = 0; i < np; i++) {
		if (a->results[i].block >= 0)
			last = a->results[i].block;
		else
			start[(size_t)(last + 1) + 1]++;
	}
	for (size_t k = 1; k < nb + 2; k++)
		start[k] += start[k - 1];
	last = -1;
	for (size_t i = 0; i < np; i++) {
		if (a->results[i].block >= 0)
			last = a->results[i].block;
		else
			order[start[(size_t)(last + 1)]++] = (long)i;
	}
	/* start[k] is now the end of bucket k; bucket k begins at the end of k-1. */
	bool ok = true;
	size_t from = 0;
	if (nb > 0 && !vm->cache.identical && vm->cache.same_blocks == 0)
		ok &= push_row(vm, VM_ROW_MARKER, -1, -1);
	for (size_t k = 0; k < nb + 1 && ok; k++) {
		if (k > 0) {
			size_t b = k - 1;
			ok &= push_row(vm, VM_ROW_BLOCK, (long)b, a->blocks[b].piece);
		}
		if (k > 0 && ok && marker_after(vm, k - 1))
			ok &= push_row(vm, VM_ROW_MARKER, (long)(k - 1), -1);
		for (; from < start[k] && ok; from++)
			if (!vm->hide_dropped)
				ok &= push_row(vm, VM_ROW_DROPPED, -1, order[from]);
	}
	cs_free(start);
	cs_free(order);
	return ok;
}

struct sort_item {
	double key;
	size_t order;
	struct vm_row row;
};

static int sort_cmp(const void *pa, const void *pb)
{
	const struct sort_item *x = pa, *y = pb;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static double sort_key(const struct vm *vm, const struct vm_row *r)
{
	const struct piece *p = r->piece >= 0 ? &vm->src->pieces[r->piece] : NULL;
	switch (vm->sort) {
	case VM_SORT_TOKENS:
		return (double)vm_row_tokens(vm, r);
	case VM_SORT_PRIORITY:
		return p ? p->priority : -HUGE_VAL;
	case VM_SORT_SCORE: {
		double s = p ? vm->cur.results[r->piece].score : (double)NAN;
		return isnan(s) ? -HUGE_VAL : s;
	}
	case VM_SORT_ORDER:
	case VM_SORT_COUNT:
		break;
	}
	return 0;
}

static bool build_sorted_rows(struct vm *vm)
{
	const struct assembly *a = &vm->cur;
	size_t n = a->nblocks + vm->src->npieces;
	struct sort_item *items = cs_calloc(n ? n : 1, sizeof *items);
	if (!items)
		return false;
	size_t k = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		if (a->blocks[b].flags & BLOCK_MARKER)
			continue; /* a truncation marker belongs to its piece's cut, not a row of its own */
		items[k].row = (struct vm_row){ .type = VM_ROW_BLOCK, .block = (long)b, .piece = a->blocks[b].piece };
		items[k].order = k;
		k++;
	}
	for (size_t i = 0; i < vm->src->npieces; i++)
		if (a->results[i].block < 0 && !vm->hide_dropped) {
			items[k].row = (struct vm_row){ .type = VM_ROW_DROPPED, .block = -1, .piece = (long)i };
			items[k].order = k;
			k++;
		}
	for (size_t i = 0; i < k; i++)
		items[i].key = sort_key(vm, &items[i].row);
	qsort(items, k, sizeof *items, sort_cmp);
	/* By score, with a cutoff fact: the line sits above the first piece the
	 * algorithm left out (every piece scoring higher went in). */
	bool cutoff = vm->sort == VM_SORT_SCORE && vm_cutoff(vm) != NULL;
	bool ok = true;
	for (size_t i = 0; i < k && ok; i++) {
		const struct vm_row *r = &items[i].row;
		if (cutoff && r->type == VM_ROW_DROPPED && !isnan(a->results[r->piece].score) &&
		    a->results[r->piece].reason != REASON_EXCLUDED_BY_USER && a->results[r->piece].reason != REASON_EXCLUDED) {
			ok = push_row(vm, VM_ROW_MARKER, VM_MARKER_CUTOFF, -1);
			cutoff = false;
		}
		if (ok)
			ok = push_row(vm, r->type, r->block, r->piece);
	}
	cs_free(items);
	return ok;
}

static bool rebuild_rows(struct vm *vm, long keep_piece, long keep_block)
{
	vm->nrows = 0;
	bool ok = vm->sort == VM_SORT_ORDER ? build_order_rows(vm) : build_sorted_rows(vm);
	if (!ok)
		return false;
	/* Keep the cursor on the same piece (or block) where it can be. */
	size_t at = vm->cursor < vm->nrows ? vm->cursor : (vm->nrows ? vm->nrows - 1 : 0);
	for (size_t i = 0; i < vm->nrows; i++) {
		const struct vm_row *r = &vm->rows[i];
		if (r->type == VM_ROW_MARKER)
			continue;
		if ((keep_piece >= 0 && r->piece == keep_piece) ||
		    (keep_piece < 0 && keep_block >= 0 && r->block == keep_block)) {
			at = i;
			break;
		}
	}
	vm->cursor = at;
	if (vm->nrows && vm->rows[vm->cursor].type == VM_ROW_MARKER)
		vm_move(vm, vm->cursor + 1 < vm->nrows ? 1 : -1);
	vm->detail.piece = -2;
	return true;
}

/* After the assembly, baseline or cache settings changed: every derived
 * figure, each step run even when an earlier one ran out of memory, so the
 * rows never point into an assembly that is gone. false on out of memory. */
static bool refresh_all(struct vm *vm, long keep_piece, long keep_block)
{
	vm->prompt.built = false; /* the prompt view's markers follow the cache */
	bool ok = compute_cache(vm);
	ok = summarize(vm) && ok;
	ok = rebuild_rows(vm, keep_piece, keep_block) && ok;
	return ok;
}

/* ---- life ------------------------------------------------------------------- */

int vm_init(struct vm *vm, struct source *src, struct cs_error *err)
{
	memset(vm, 0, sizeof *vm);
	vm->src = src;
	vm->detail.piece = -2;
	vm->found_at = -1;
	vm->layer_filter = -1;
	history_init(&vm->hist);
	cache_config_init(&vm->cache_cfg);
	cache_overrides_init(&vm->bp_now);
	cache_overrides_init(&vm->bp_base);
	vm->profile = cache_config_profile(&vm->cache_cfg, vm->cache_cfg.default_profile);
	int rc = assemble(src, &vm->cur, err);
	if (rc != CS_OK)
		return rc;
	rc = assemble(src, &vm->base, err);
	if (rc != CS_OK) {
		asm_fini(&vm->cur);
		memset(&vm->cur, 0, sizeof vm->cur);
		return rc;
	}
	if (!refresh_all(vm, -1, -1))
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	vm->cursor = 0;
	if (vm->nrows && vm->rows[0].type == VM_ROW_MARKER)
		vm_move(vm, 1);
	return CS_OK;
}

void vm_fini(struct vm *vm)
{
	if (!vm)
		return;
	if (vm->src) {
		asm_fini(&vm->cur);
		asm_fini(&vm->base);
	}
	source_free(vm->src);
	cache_analysis_fini(&vm->an);
	cache_overrides_fini(&vm->bp_now);
	cache_overrides_fini(&vm->bp_base);
	cache_config_fini(&vm->cache_cfg);
	cs_free(vm->rows);
	history_fini(&vm->hist);
	search_pattern_free(vm->find);
	search_result_fini(&vm->found);
	search_pattern_free(vm->filter);
	cs_free(vm->keep);
	sb_fini(&vm->prompt.text);
	cs_free(vm->prompt.lines);
	for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++)
		cs_free(vm->layers[g]);
	cs_free(vm->detail.lines);
	sb_fini(&vm->detail.text);
	sb_fini(&vm->status);
	memset(vm, 0, sizeof *vm);
}

/* ---- cursor ------------------------------------------------------------------ */

const struct vm_row *vm_selected(const struct vm *vm)
{
	return vm->cursor < vm->nrows ? &vm->rows[vm->cursor] : NULL;
}

long vm_selected_piece(const struct vm *vm)
{
	const struct vm_row *r = vm_selected(vm);
	return r ? r->piece : -1;
}

void vm_move(struct vm *vm, long delta)
{
	if (vm->nrows == 0)
		return;
	long at = (long)vm->cursor + delta;
	if (at < 0)
		at = 0;
	if (at >= (long)vm->nrows)
		at = (long)vm->nrows - 1;
	long step = delta < 0 ? -1 : 1;
	/* Markers are not selectable: step past them, else back. */
	long probe = at;
	while (probe >= 0 && probe < (long)vm->nrows && vm->rows[probe].type == VM_ROW_MARKER)
		probe += step;
	if (probe < 0 || probe >= (long)vm->nrows) {
		probe = at;
		while (probe >= 0 && probe < (long)vm->nrows && vm->rows[probe].type == VM_ROW_MARKER)
			probe -= step;
	}
	if (probe >= 0 && probe < (long)vm->nrows)
		vm->cursor = (size_t)probe;
	vm->detail_scroll = 0;
}

void vm_first(struct vm *vm)
{
	vm_move(vm, -(long)vm->nrows);
}

void vm_last(struct vm *vm)
{
	vm_move(vm, (long)vm->nrows);
}

void vm_scroll_into_view(struct vm *vm, size_t visible)
{
	if (visible == 0)
		return;
	if (vm->cursor < vm->scroll)
		vm->scroll = vm->cursor;
	else if (vm->cursor >= vm->scroll + visible)
		vm->scroll = vm->cursor - visible + 1;
	if (vm->nrows <= visible)
		vm->scroll = 0;
	else if (vm->scroll > vm->nrows - visible)
		vm->scroll = vm->nrows - visible;
}

/* ---- status ------------------------------------------------------------------- */

void vm_status(struct vm *vm, bool error, const char *fmt, ...)
{
	sb_reset(&vm->status);
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&vm->status, fmt, ap);
	va_end(ap);
	vm->status_error = error;
}

static void signed_thousands(struct strbuf *sb, long v)
{
	if (v > 0)
		sb_putc(sb, '+');
	sb_thousands(sb, v);
}

/* "excluded n42: -1,204 tokens; used 98,412 -> 97,208; cache now breaks at
 * 4,210, 90,102 tokens to rewrite" */
static void describe_change(struct vm *vm, const struct edit *e, long used_before, const struct vm_cache *was)
{
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	edit_describe(vm->src, e, false, s);
	long delta = vm->cur.budget.used - used_before;
	sb_puts(s, ": ");
	if (delta == 0)
		sb_puts(s, "no change in tokens");
	else {
		signed_thousands(s, delta);
		sb_puts(s, " tokens");
	}
	if (delta != 0) {
		sb_puts(s, "; used ");
		sb_thousands(s, used_before);
		sb_puts(s, " -> ");
		sb_thousands(s, vm->cur.budget.used);
	}
	if (vm->cache.identical)
		sb_puts(s, "; prompt same as the baseline");
	else if (was->cached_tokens != vm->cache.cached_tokens || was->identical) {
		sb_puts(s, "; cache now breaks at ");
		sb_thousands(s, vm->cache.cached_tokens);
		sb_puts(s, ", ");
		sb_thousands(s, vm->cache.rewrite_tokens);
		sb_puts(s, " tokens to rewrite");
	} else {
		sb_puts(s, "; cache still breaks at ");
		sb_thousands(s, vm->cache.cached_tokens);
	}
	if (vm->cur.flags & ASM_OVER_LIMIT)
		sb_puts(s, "; OVER the limit");
}

/* Re-runs the search over a new assembly (hits point into blocks). */
static void research(struct vm *vm)
{
	if (!vm->find)
		return;
	struct cs_error err;
	cs_error_clear(&err);
	search_result_fini(&vm->found);
	vm->found_at = -1;
	if (search_run(vm->find, &vm->cur, &vm->found, &err) != CS_OK)
		search_result_fini(&vm->found);
}

/* Makes next the current assembly (taking it), keeping the selection. */
static int adopt(struct vm *vm, struct assembly *next, struct cs_error *err)
{
	const struct vm_row *sel = vm_selected(vm);
	long keep_piece = sel ? sel->piece : -1, keep_block = sel ? sel->block : -1;
	asm_fini(&vm->cur);
	vm->cur = *next;
	memset(next, 0, sizeof *next);
	vm->generation++;
	research(vm);
	/* every step runs even when one fails: rows never point into a freed assembly */
	if (!refresh_all(vm, keep_piece, keep_block)) {
		vm->detail.piece = -2;
		vm_status(vm, true, "out of memory");
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	}
	return CS_OK;
}

int vm_apply(struct vm *vm, struct edit *e, struct cs_error *err)
{
	int rc = edit_apply(vm->src, e, err);
	if (rc != CS_OK) {
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	struct assembly next;
	memset(&next, 0, sizeof next); /* safe to fini whatever the assembler did */
	rc = assemble(vm->src, &next, err);
	struct cs_error ignored;
	edit_revert(vm->src, e, &ignored);
	if (rc != CS_OK) {
		vm_status(vm, true, "%s (not applied)", err->message);
		return rc;
	}
	/* Recorded through the history, which applies it again (the same values). */
	rc = history_apply(&vm->hist, vm->src, e, NULL, err);
	if (rc != CS_OK) {
		asm_fini(&next);
		vm_status(vm, true, "%s (not applied)", err->message);
		return rc;
	}
	long used_before = vm->cur.budget.used;
	struct vm_cache was = vm->cache;
	rc = adopt(vm, &next, err);
	if (rc != CS_OK)
		return rc;
	describe_change(vm, e, used_before, &was);
	return CS_OK;
}

static int need_piece(struct vm *vm, long *piece, struct cs_error *err)
{
	*piece = vm_selected_piece(vm);
	if (*piece < 0) {
		vm_status(vm, true, "select a piece first (this row is text the assembler made)");
		return cs_error_set(err, CS_EUSAGE, "no piece selected");
	}
	return CS_OK;
}

int vm_toggle_exclude(struct vm *vm, struct cs_error *err)
{
	long piece;
	if (need_piece(vm, &piece, err) != CS_OK)
		return CS_EUSAGE;
	struct edit e = { .type = EDIT_EXCLUDE, .piece = piece };
	e.value = piece_excluded(&vm->src->pieces[piece]) ? 0 : 1;
	return vm_apply(vm, &e, err);
}

int vm_nudge_priority(struct vm *vm, double delta, struct cs_error *err)
{
	long piece;
	if (need_piece(vm, &piece, err) != CS_OK)
		return CS_EUSAGE;
	double p = vm->src->pieces[piece].priority + delta;
	p = round(p * 100.0) / 100.0; /* keep 0.05 steps exact in the display */
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	struct edit e = { .type = EDIT_PRIORITY, .piece = piece, .value = p };
	return vm_apply(vm, &e, err);
}

static int next_in(const int *list, int current)
{
	size_t n = 0, at = 0;
	bool found = false;
	for (; list[n] != STRAT_NONE; n++)
		if (list[n] == current)
			at = n, found = true;
	if (n == 0)
		return STRAT_NONE;
	return found ? list[(at + 1) % n] : list[0];
}

int vm_cycle_strategy(struct vm *vm, bool whole, struct cs_error *err)
{
	const struct kind_ops *k = vm->src->kind;
	long piece = vm_selected_piece(vm);
	if (!whole && k->piece_strategies && k->piece_strategies[0] != STRAT_NONE && piece >= 0) {
		int cur = vm->src->pieces[piece].strategy;
		struct edit e = { .type = EDIT_PIECE_STRATEGY, .piece = piece,
				  .value = next_in(k->piece_strategies, cur) };
		return vm_apply(vm, &e, err);
	}
	if (k->global_strategies && k->global_strategies[0] != STRAT_NONE) {
		int cur = vm->src->settings.strategy;
		struct edit e = { .type = EDIT_STRATEGY, .piece = -1, .value = next_in(k->global_strategies, cur) };
		return vm_apply(vm, &e, err);
	}
	vm_status(vm, true, "a %s has no %s to change", k->title,
		  k->piece_strategies ? "whole-assembly strategy" : "truncation strategy");
	return cs_error_set(err, CS_EUSAGE, "no strategy");
}

int vm_set_budget(struct vm *vm, const char *typed, struct cs_error *err)
{
	long v = -1;
	if (typed[0] && !parse_token_count(typed, &v)) {
		vm_status(vm, true, "\"%.40s\" is not a token count (try 100k or 128,000)", typed);
		return cs_error_set(err, CS_EUSAGE, "not a token count");
	}
	struct edit e = { .type = EDIT_BUDGET, .piece = -1, .value = (double)v };
	return vm_apply(vm, &e, err);
}

int vm_pin_baseline(struct vm *vm, struct cs_error *err)
{
	struct assembly next;
	memset(&next, 0, sizeof next);
	int rc = assemble(vm->src, &next, err);
	if (rc != CS_OK) {
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	asm_fini(&vm->base);
	vm->base = next;
	vm->prompt.built = false;
	const struct vm_row *sel = vm_selected(vm);
	bool copied = copy_overrides(&vm->bp_base, &vm->bp_now);
	if (!refresh_all(vm, sel ? sel->piece : -1, sel ? sel->block : -1) || !copied)
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	sb_puts(s, "baseline pinned: ");
	sb_thousands(s, vm->cache.cached_tokens);
	sb_puts(s, " tokens now count as cached");
	return CS_OK;
}

/* ---- cache profile and breakpoints ------------------------------------------- */

/* Redoes the analysis after a cache-only change (profile, breakpoints). */
static int cache_refresh(struct vm *vm, struct cs_error *err)
{
	const struct vm_row *sel = vm_selected(vm);
	long keep_piece = sel ? sel->piece : -1, keep_block = sel ? sel->block : -1;
	if (!refresh_all(vm, keep_piece, keep_block)) {
		vm_status(vm, true, "out of memory");
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	}
	return CS_OK;
}

/* "1,077 of 1,126 tokens read from the cache, 0 written, 49 uncached" */
static void cache_clause(struct vm *vm, struct strbuf *s)
{
	const struct cache_cost *c = &vm->an.now;
	sb_thousands(s, c->read);
	sb_puts(s, " of ");
	sb_thousands(s, c->total);
	sb_puts(s, " tokens read from the cache, ");
	sb_thousands(s, c->written);
	sb_puts(s, " written, ");
	sb_thousands(s, c->uncached);
	sb_puts(s, " uncached");
}

int vm_cache_setup(struct vm *vm, const char *path, const char *profile, struct cs_error *err)
{
	int rc = CS_OK;
	struct cs_error file_err;
	cs_error_clear(&file_err);
	if (path && cache_config_load(&vm->cache_cfg, path, &file_err) != CS_OK)
		rc = file_err.code; /* the built-ins stay */
	const char *want = profile ? profile : vm->cache_cfg.default_profile;
	const struct cache_profile *p = cache_config_profile(&vm->cache_cfg, want);
	if (!p) {
		p = vm->profile; /* the active one stays */
		if (rc == CS_OK)
			rc = cs_error_set(&file_err, CS_EUSAGE, "no cache profile \"%.40s\"", want);
	}
	vm->profile = p;
	int rc2 = cache_refresh(vm, err);
	if (rc2 != CS_OK)
		return rc2;
	if (rc != CS_OK)
		*err = file_err;
	return rc;
}

/* Makes p (in cache_cfg) the active profile; the status says what it reads. */
static int use_profile(struct vm *vm, const struct cache_profile *p, struct cs_error *err)
{
	vm->profile = p;
	int rc = cache_refresh(vm, err);
	if (rc != CS_OK)
		return rc;
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	sb_printf(s, "cache profile %s (%s, min ", p->name, cache_mode_name(p->mode));
	sb_thousands(s, p->min_prefix);
	if (p->unit > 1)
		sb_printf(s, ", %ld-token units", p->unit);
	sb_puts(s, "): ");
	cache_clause(vm, s);
	return CS_OK;
}

int vm_cycle_profile(struct vm *vm, struct cs_error *err)
{
	const struct cache_config *cfg = &vm->cache_cfg;
	size_t at = 0;
	for (size_t i = 0; i < cfg->nprofiles; i++)
		if (&cfg->profiles[i] == vm->profile)
			at = i;
	return use_profile(vm, &cfg->profiles[cfg->nprofiles ? (at + 1) % cfg->nprofiles : 0], err);
}

int vm_set_profile(struct vm *vm, const char *name, struct cs_error *err)
{
	const struct cache_profile *p = cache_config_profile(&vm->cache_cfg, name);
	if (!p) {
		vm_status(vm, true, "no cache profile \"%.40s\" (Tab lists them)", name);
		return cs_error_set(err, CS_EUSAGE, "no such profile");
	}
	return use_profile(vm, p, err);
}

int vm_toggle_breakpoint(struct vm *vm, struct cs_error *err)
{
	const struct vm_row *r = vm_selected(vm);
	if (!r || r->type != VM_ROW_BLOCK) {
		vm_status(vm, true, "a breakpoint goes after a block of the prompt; this row is not in it");
		return cs_error_set(err, CS_EUSAGE, "not a block");
	}
	long block = r->block;
	int rc = cache_overrides_toggle(&vm->bp_now, &vm->cur, (size_t)block, err);
	if (rc != CS_OK) {
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	rc = cache_refresh(vm, err);
	if (rc != CS_OK)
		return rc;
	const struct block *b = &vm->cur.blocks[block];
	const char *what = b->piece >= 0 ? vm->src->pieces[b->piece].id : b->label ? b->label : "made text";
	const struct cache_breakpoint *bp = vm_breakpoint(vm, block);
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	sb_printf(s, "breakpoint %s after %.60s", bp ? "set" : "removed", what);
	if (bp) {
		sb_puts(s, " (");
		sb_thousands(s, bp->end_tokens);
		sb_printf(s, " tokens, %s)", vm_breakpoint_state(vm, bp));
	}
	sb_puts(s, ": ");
	cache_clause(vm, s);
	return CS_OK;
}

/* ---- a kind's own settings ------------------------------------------------------ */

static bool is_list_option(const struct kind_option *o)
{
	return o->arg && (strcmp(o->arg, "NAME=V") == 0 || strcmp(o->arg, "NAME=P") == 0);
}

size_t vm_panel_entries(const struct vm *vm, struct vm_panel_entry *out, size_t cap)
{
	const struct kind_ops *k = vm->src->kind;
	size_t n = 0;
	if (!k->options || !k->get_option)
		return 0;
	struct strbuf text = STRBUF_INIT;
	for (const struct kind_option *o = k->options; o->name && n < cap; o++) {
		if (!is_list_option(o))
			continue;
		sb_reset(&text);
		if (k->get_option(vm->src, o->name, &text) != CS_OK || text.failed)
			continue;
		/* "recency=0.3,relevance=0.5,salience=0.2" */
		const char *p = sb_str(&text);
		while (*p && n < cap) {
			size_t len = strcspn(p, ",");
			const char *eq = memchr(p, '=', len);
			if (eq && (size_t)(eq - p) < VM_PANEL_NAME_MAX) {
				struct vm_panel_entry *e = &out[n++];
				e->option = o->name;
				memcpy(e->name, p, (size_t)(eq - p));
				e->name[eq - p] = '\0';
				e->value = strtod(eq + 1, NULL);
				e->percent = o->arg[5] == 'P';
			}
			p += len + (p[len] == ',');
		}
	}
	sb_fini(&text);
	return n;
}

/* Replaces the edit's own sentence at the head of the status ("weight
 * recency=0.3,relevance=... -> recency=0.35: +12 tokens; ...") with a
 * shorter one, keeping what follows the first ": ". */
static void status_head(struct vm *vm, const char *head)
{
	const char *s = sb_str(&vm->status);
	const char *rest = strstr(s, ": ");
	struct strbuf next = STRBUF_INIT;
	sb_puts(&next, head);
	if (rest)
		sb_puts(&next, rest);
	if (!next.failed) {
		sb_reset(&vm->status);
		sb_append(&vm->status, sb_str(&next), next.len);
	}
	sb_fini(&next);
}

#define VM_CROSSINGS_NAMED 3 /* pieces named per direction; the rest are counted */

/* " (in: ev-098; out: ev-094, ev-087)": the pieces that entered or left the
 * prompt since was_in; nothing when none did. */
static void crossings(const struct vm *vm, const bool *was_in, struct strbuf *out)
{
	bool open = false;
	for (int dir = 1; dir >= 0; dir--) {
		size_t named = 0, more = 0;
		for (size_t i = 0; i < vm->src->npieces; i++) {
			bool in = vm->cur.results[i].outcome != OUTCOME_DROPPED;
			if (in == was_in[i] || in != (dir == 1))
				continue;
			if (named == VM_CROSSINGS_NAMED) {
				more++;
				continue;
			}
			if (named)
				sb_puts(out, ", ");
			else
				sb_printf(out, "%s%s: ", open ? "; " : " (", dir == 1 ? "in" : "out");
			open = true;
			sb_puts(out, vm->src->pieces[i].id);
			named++;
		}
		if (more)
			sb_printf(out, " and %zu more", more);
	}
	if (open)
		sb_putc(out, ')');
}

int vm_panel_nudge(struct vm *vm, size_t index, int direction, struct cs_error *err)
{
	struct vm_panel_entry entries[VM_PANEL_MAX];
	size_t n = vm_panel_entries(vm, entries, VM_PANEL_MAX);
	if (index >= n) {
		vm_status(vm, true, "a %s has no weights or shares to change", vm->src->kind->title);
		return cs_error_set(err, CS_EUSAGE, "no such entry");
	}
	const struct vm_panel_entry *e = &entries[index];
	double step = e->percent ? VM_PANEL_PERCENT_STEP : VM_PANEL_STEP;
	double v = e->value + (direction > 0 ? step : -step);
	v = round(v * 100.0) / 100.0; /* keep 0.05 steps exact */
	if (v == 0)
		v = 0; /* never "-0" */
	struct edit ed = { .type = EDIT_OPTION, .piece = -1 };
	snprintf(ed.option, sizeof ed.option, "%s", e->option);
	snprintf(ed.text, sizeof ed.text, "%s=%.10g", e->name, v);
	/* which pieces were in the prompt, to name the ones that cross */
	size_t np = vm->src->npieces;
	bool *was_in = cs_calloc(np ? np : 1, sizeof *was_in);
	if (!was_in) {
		vm_status(vm, true, "out of memory (not applied)");
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < np; i++)
		was_in[i] = vm->cur.results[i].outcome != OUTCOME_DROPPED;
	int rc = vm_apply(vm, &ed, err);
	if (rc != CS_OK) {
		cs_free(was_in);
		return rc;
	}
	struct strbuf head = STRBUF_INIT;
	sb_printf(&head, "%s %s %.10g%s -> %.10g%s", e->option, e->name, e->value, e->percent ? "%" : "", v,
		  e->percent ? "%" : "");
	crossings(vm, was_in, &head);
	if (!head.failed)
		status_head(vm, sb_str(&head));
	sb_fini(&head);
	cs_free(was_in);
	return CS_OK;
}

/* The choices listed at the end of an option's help, after its last colon:
 * "a, b or c". Fills names (pointers into buf); returns the count. */
static size_t option_choices(const char *help, char *buf, size_t cap, const char **names, size_t max)
{
	const char *colon = strrchr(help, ':');
	if (!colon)
		return 0;
	snprintf(buf, cap, "%s", colon + 1);
	size_t n = 0;
	char *p = buf;
	while (*p && n < max) {
		while (*p == ' ' || *p == ',')
			p++;
		if (strncmp(p, "or ", 3) == 0)
			p += 3;
		if (!*p)
			break;
		char *end = p + strcspn(p, ", ");
		names[n++] = p;
		if (*end)
			*end++ = '\0';
		p = end;
	}
	return n;
}

#define VM_CHOICES_MAX 16 /* choices listed in one option's help */

int vm_cycle_option(struct vm *vm, const char *name, struct cs_error *err)
{
	const struct kind_ops *k = vm->src->kind;
	const struct kind_option *o = kind_option(k, name);
	char buf[256];
	const char *choices[VM_CHOICES_MAX];
	size_t n = o && o->arg && k->get_option ? option_choices(o->help, buf, sizeof buf, choices, VM_CHOICES_MAX) : 0;
	if (n == 0) {
		vm_status(vm, true, "a %s has no %s to switch", k->title, name);
		return cs_error_set(err, CS_EUSAGE, "no such option");
	}
	struct strbuf cur = STRBUF_INIT;
	k->get_option(vm->src, name, &cur);
	size_t word = strcspn(sb_str(&cur), " ");
	size_t at = n - 1; /* an unlisted value: start from the first */
	for (size_t i = 0; i < n; i++)
		if (strlen(choices[i]) == word && strncmp(choices[i], sb_str(&cur), word) == 0)
			at = i;
	struct edit e = { .type = EDIT_OPTION, .piece = -1 };
	snprintf(e.option, sizeof e.option, "%s", name);
	snprintf(e.text, sizeof e.text, "%s", choices[(at + 1) % n]);
	size_t np = vm->src->npieces;
	bool *was_in = cs_calloc(np ? np : 1, sizeof *was_in);
	if (!was_in) {
		sb_fini(&cur);
		vm_status(vm, true, "out of memory (not applied)");
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < np; i++)
		was_in[i] = vm->cur.results[i].outcome != OUTCOME_DROPPED;
	int rc = vm_apply(vm, &e, err);
	if (rc == CS_OK) {
		/* "archetype coding -> support (in: ...)", without the full lists */
		struct strbuf head = STRBUF_INIT;
		sb_printf(&head, "%s %.*s -> %s", name, (int)word, sb_str(&cur), e.text);
		crossings(vm, was_in, &head);
		if (!head.failed)
			status_head(vm, sb_str(&head));
		sb_fini(&head);
	}
	sb_fini(&cur);
	cs_free(was_in);
	return rc;
}

int vm_toggle_option(struct vm *vm, const char *name, struct cs_error *err)
{
	const struct kind_ops *k = vm->src->kind;
	const struct kind_option *o = kind_option(k, name);
	if (!o || o->arg || !k->get_option) {
		vm_status(vm, true, "a %s has no %s setting", k->title, name);
		return cs_error_set(err, CS_EUSAGE, "no such switch");
	}
	struct strbuf cur = STRBUF_INIT;
	k->get_option(vm->src, name, &cur);
	bool on = strcmp(sb_str(&cur), "true") == 0 || strcmp(sb_str(&cur), "on") == 0;
	sb_fini(&cur);
	struct edit e = { .type = EDIT_OPTION, .piece = -1 };
	snprintf(e.option, sizeof e.option, "%s", name);
	snprintf(e.text, sizeof e.text, "%s", on ? "false" : "true");
	return vm_apply(vm, &e, err);
}

const char *vm_sort_name(enum vm_sort sort)
{
	static const char *const names[] = { "order", "tokens", "priority", "score" };
	return sort < VM_SORT_COUNT ? names[sort] : "";
}

static void refresh_rows(struct vm *vm)
{
	const struct vm_row *sel = vm_selected(vm);
	if (!rebuild_rows(vm, sel ? sel->piece : -1, sel ? sel->block : -1))
		vm_status(vm, true, "out of memory");
}

void vm_cycle_sort(struct vm *vm)
{
	vm->sort = (vm->sort + 1) % VM_SORT_COUNT;
	refresh_rows(vm);
	vm_status(vm, false, "sorted by %s%s", vm_sort_name(vm->sort),
		  vm->sort == VM_SORT_ORDER ? " (assembly order, cache markers shown)" : " (highest first)");
}

void vm_toggle_dropped(struct vm *vm)
{
	vm->hide_dropped = !vm->hide_dropped;
	refresh_rows(vm);
	vm_status(vm, false, "%s dropped pieces", vm->hide_dropped ? "hiding" : "showing");
}

void vm_cycle_grouping(struct vm *vm)
{
	if (vm->cur.ngroupings < 2) {
		vm_status(vm, false, "a %s has one layer grouping (%s)", vm->src->kind->title,
			  vm->cur.ngroupings ? vm->cur.groupings[0].name : "none");
		return;
	}
	vm->grouping = (vm->grouping + 1) % vm->cur.ngroupings;
	vm->prompt.built = false;
	if (vm->layer_filter >= 0) {
		vm->layer_filter = -1;
		refresh_rows(vm);
	}
	vm_status(vm, false, "layers: %s", vm->cur.groupings[vm->grouping].name);
}

/* ---- what rows say ------------------------------------------------------------- */

char vm_row_flag(const struct vm *vm, const struct vm_row *row)
{
	if (row->type == VM_ROW_MARKER || row->piece < 0)
		return ' ';
	const struct piece *p = &vm->src->pieces[row->piece];
	const struct piece_result *r = &vm->cur.results[row->piece];
	switch (p->absent) {
	case REASON_MISSING:
	case REASON_UNREADABLE:
	case REASON_BINARY:
	case REASON_DIRECTORY:
		return '!';
	default:
		break;
	}
	if (r->outcome != OUTCOME_DROPPED && (p->flags & PIECE_HIDDEN))
		return '?'; /* the model reads text a person does not see */
	if (r->outcome == OUTCOME_DROPPED)
		return r->reason == REASON_EXCLUDED_BY_USER || r->reason == REASON_EXCLUDED ? 'x' : '-';
	if (r->outcome == OUTCOME_TRUNCATED)
		return '~';
	const struct piece_result *b = &vm->base.results[row->piece];
	if (b->outcome != r->outcome || b->tokens != r->tokens)
		return '*';
	return ' ';
}

long vm_row_tokens(const struct vm *vm, const struct vm_row *row)
{
	switch (row->type) {
	case VM_ROW_BLOCK:
		return vm->cur.blocks[row->block].budget_tokens;
	case VM_ROW_DROPPED:
		return vm->src->pieces[row->piece].tokens;
	case VM_ROW_MARKER:
		return row->block < 0 ? 0 : vm->cur.blocks[row->block].offset_tokens + vm->cur.blocks[row->block].tokens;
	}
	return 0;
}

const struct grouping *vm_grouping(const struct vm *vm)
{
	if (vm->cur.ngroupings == 0)
		return NULL;
	size_t g = vm->grouping < vm->cur.ngroupings ? vm->grouping : 0;
	return &vm->cur.groupings[g];
}

enum vm_layer_state vm_layer_state(const struct vm *vm, size_t layer, long *cached_tokens)
{
	*cached_tokens = 0;
	size_t g = vm->grouping < vm->cur.ngroupings ? vm->grouping : 0;
	if (g >= vm->cur.ngroupings || !vm->layers[g] || layer >= vm->cur.groupings[g].nlayers)
		return VM_LAYER_EMPTY;
	const struct vm_layer_info *li = &vm->layers[g][layer];
	*cached_tokens = li->cached_tokens;
	if (li->blocks == 0)
		return VM_LAYER_EMPTY;
	return li->cached_blocks == li->blocks ? VM_LAYER_CACHED : li->cached_blocks ? VM_LAYER_PARTIAL : VM_LAYER_NEW;
}

void vm_counts(const struct vm *vm, size_t *dropped, size_t *truncated)
{
	*dropped = vm->ndropped;
	*truncated = vm->ntruncated;
}

size_t vm_bar_eighths(long value, long max, size_t cells)
{
	if (value <= 0 || max <= 0 || cells == 0)
		return 0;
	double frac = (double)value / (double)max;
	if (frac > 1)
		frac = 1;
	size_t e = (size_t)llround(frac * (double)cells * 8.0);
	return e == 0 ? 1 : e;
}

/* ---- detail ----------------------------------------------------------------------- */

static bool detail_line(struct vm *vm, size_t off, int role)
{
	if (vm->detail.nlines == vm->detail.cap_lines) {
		size_t cap = vm->detail.cap_lines ? vm->detail.cap_lines * 2 : 64;
		struct vm_line *l = cs_reallocarray(vm->detail.lines, cap, sizeof *l);
		if (!l)
			return false;
		vm->detail.lines = l;
		vm->detail.cap_lines = cap;
	}
	vm->detail.lines[vm->detail.nlines++] = (struct vm_line){ .off = off, .len = vm->detail.text.len - off,
								   .role = role, .block = -1 };
	return true;
}

/* Appends text as lines of the given role; base1 is 1 + the byte of the
 * piece's text s starts at (for search highlights), 0 for other text. */
static bool detail_text_at(struct vm *vm, const char *s, size_t n, int role, size_t base1)
{
	size_t i = 0;
	bool ok = true;
	while (i < n && ok) {
		const char *nl = memchr(s + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
		size_t off = vm->detail.text.len;
		sb_append(&vm->detail.text, s + i, len);
		ok = detail_line(vm, off, role);
		if (ok && base1)
			vm->detail.lines[vm->detail.nlines - 1].src_off1 = base1 + i;
		i += len + (nl ? 1 : 0);
	}
	return ok;
}

static bool detail_text(struct vm *vm, const char *s, size_t n, int role)
{
	return detail_text_at(vm, s, n, role, 0);
}

static bool detail_printf(struct vm *vm, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool detail_printf(struct vm *vm, int role, const char *fmt, ...)
{
	size_t off = vm->detail.text.len;
	va_list ap;
	va_start(ap, fmt);
	sb_vprintf(&vm->detail.text, fmt, ap);
	va_end(ap);
	return detail_line(vm, off, role);
}

#define VM_HIDDEN_LINES 20 /* revealed lines listed in the detail; the report has the same cap */

/* What a person cannot see in the piece, revealed: counts by class, the
 * text tag characters spell, and each line that holds any with named
 * markers («RLO», «ZWSP», «TAG: ...»). The body below keeps ◊ stand-ins. */
static void detail_hidden(struct vm *vm, const struct piece *p)
{
	struct hidden_summary sum;
	hidden_scan(p->text, p->text_bytes, &sum);
	struct strbuf line = STRBUF_INIT;
	for (int c = 0; c < HIDDEN_COUNT; c++)
		if (sum.count[c])
			sb_printf(&line, "%s%s %zu", line.len ? ", " : "", hidden_class_name(c), sum.count[c]);
	detail_printf(vm, ROLE_ERROR, "hidden text: %zu character%s a person cannot see (%s) on %zu line%s, revealed:",
		      sum.total, sum.total == 1 ? "" : "s", sb_str(&line), sum.lines, sum.lines == 1 ? "" : "s");
	if (sum.count[HIDDEN_TAG]) {
		sb_reset(&line);
		hidden_decode_tags(&line, p->text, p->text_bytes);
		detail_printf(vm, ROLE_ERROR, "  tag characters spell: %s", sb_str(&line));
	}
	size_t shown = 0, number = 1;
	for (const char *at = p->text, *end = p->text + p->text_bytes; at < end && shown < VM_HIDDEN_LINES; number++) {
		const char *nl = memchr(at, '\n', (size_t)(end - at));
		size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);
		if (hidden_scan(at, len, NULL)) {
			sb_reset(&line);
			hidden_reveal(&line, at, len, vm->ascii);
			detail_printf(vm, ROLE_ERROR, "  line %zu: %s", number, sb_str(&line));
			shown++;
		}
		at += len + (nl ? 1 : 0);
	}
	if (shown < sum.lines)
		detail_printf(vm, ROLE_ERROR, "  (%zu more lines: see the report's hidden_text section)", sum.lines - shown);
	if (line.failed)
		vm->detail.text.failed = true;
	sb_fini(&line);
}

static void piece_numbers(struct vm *vm, long piece)
{
	const struct piece *p = &vm->src->pieces[piece];
	const struct piece_result *r = &vm->cur.results[piece];
	char t1[32], t2[32], t3[32];
	detail_printf(vm, ROLE_HEADING, "%s", p->label ? p->label : p->id);
	detail_printf(vm, ROLE_DETAIL, "%s %s · role %s · %s lines", vm->src->kind->id_key, p->id,
		      p->role ? p->role : "-", fmt_thousands(t1, (long long)p->lines));
	if (r->outcome == OUTCOME_WHOLE)
		detail_printf(vm, ROLE_DETAIL, "in the prompt, whole: %s tokens (estimated)", fmt_thousands(t1, r->tokens));
	else if (r->outcome == OUTCOME_TRUNCATED)
		detail_printf(vm, ROLE_TRUNCATED, "in the prompt, truncated: %s -> %s tokens (estimated, before -> after)",
			      fmt_thousands(t1, r->original_tokens), fmt_thousands(t2, r->tokens));
	else
		detail_printf(vm, ROLE_DROPPED, "not in the prompt: %s tokens (estimated) left out",
			      fmt_thousands(t1, p->tokens));
	if (p->flags & PIECE_RECORDED)
		detail_printf(vm, ROLE_DETAIL, "recorded by the input: %s tokens; estimate %s",
			      fmt_thousands(t2, p->recorded_tokens), fmt_thousands(t3, p->tokens));
	if (vm->src->kind->piece_strategies) {
		detail_printf(vm, ROLE_DETAIL, "priority %.2f%s · strategy %s", p->priority,
			      p->priority != p->input_priority ? " (changed by you)" : "",
			      p->strategy == STRAT_NONE ? "(none)" : strategy_name(p->strategy));
	}
	if (!isnan(r->score))
		detail_printf(vm, ROLE_DETAIL, "score %.4f", r->score);
	if (r->outcome != OUTCOME_WHOLE) {
		const char *why = r->sentence ? r->sentence : reason_sentence(r->reason);
		detail_printf(vm, r->outcome == OUTCOME_DROPPED ? ROLE_DROPPED : ROLE_TRUNCATED, "why: %s", why);
	} else {
		detail_printf(vm, ROLE_DETAIL, "why: it fit the budget whole");
	}
	if (p->flags & PIECE_HIDDEN)
		detail_hidden(vm, p);
	for (size_t w = 0; w < vm->cur.nwarnings; w++)
		if (vm->cur.warnings[w].piece == piece)
			detail_printf(vm, ROLE_ERROR, "warning: %s", vm->cur.warnings[w].text);
}

static void cut_marker(struct vm *vm, size_t bytes, const char *text)
{
	char t[32];
	long toks = tokens_of_text(text, bytes, vm->src->settings.chars_per_token);
	char t2[32];
	detail_printf(vm, ROLE_CUT, "[... cut here: %s bytes, ~%s tokens not in the prompt ...]",
		      fmt_thousands(t, (long long)bytes), fmt_thousands(t2, toks));
}

bool vm_detail(struct vm *vm)
{
	const struct vm_row *row = vm_selected(vm);
	long piece = row ? row->piece : -1, block = row ? row->block : -1;
	if (vm->detail.piece == piece && vm->detail.block == block && vm->detail.piece != -2)
		return !vm->detail.text.failed;
	sb_reset(&vm->detail.text);
	vm->detail.nlines = 0;
	vm->detail.piece = piece;
	vm->detail.block = block;
	if (!row) {
		detail_printf(vm, ROLE_DETAIL, "nothing selected");
	} else if (piece < 0) {
		const struct block *b = &vm->cur.blocks[block];
		char t[32];
		detail_printf(vm, ROLE_HEADING, "%s", b->label ? b->label : "text the assembler made");
		detail_printf(vm, ROLE_DETAIL, "made by the %s assembler: %s tokens (estimated)", vm->src->kind->name,
			      fmt_thousands(t, b->tokens));
		detail_printf(vm, ROLE_DETAIL, "%s", "");
		struct strbuf body = STRBUF_INIT;
		asm_block_text(&vm->cur, (size_t)block, &body);
		detail_text(vm, sb_str(&body), body.len, ROLE_DETAIL);
		sb_fini(&body);
	} else {
		piece_numbers(vm, piece);
		detail_printf(vm, ROLE_DETAIL, "%s", "");
		const struct piece *p = &vm->src->pieces[piece];
		const struct piece_result *r = &vm->cur.results[piece];
		const struct block *b = r->block >= 0 ? &vm->cur.blocks[r->block] : NULL;
		if (b && (b->flags & BLOCK_TRUNCATED) && b->keep_head + b->keep_tail < p->text_bytes) {
			size_t head = b->keep_head, tail = b->keep_tail;
			size_t cut = p->text_bytes - head - tail;
			detail_text_at(vm, p->text, head, ROLE_DETAIL, 1);
			cut_marker(vm, cut, p->text + head);
			detail_text_at(vm, p->text + p->text_bytes - tail, tail, ROLE_DETAIL, 1 + p->text_bytes - tail);
		} else {
			detail_text_at(vm, p->text, p->text_bytes, r->outcome == OUTCOME_DROPPED ? ROLE_DROPPED : ROLE_DETAIL,
				       1);
		}
	}
	return !vm->detail.text.failed;
}

/* ---- issue 7: search, filter, undo, the prompt view ------------------------------ */

/* pcre2's sentence, with where in the pattern it stopped. */
static void pattern_error(struct vm *vm, const char *what, const struct cs_error *err)
{
	if (err->code == CS_ELIMIT)
		vm_status(vm, true, "%s: pattern too costly (stopped at the match limits)", what);
	else
		vm_status(vm, true, "%s: %s", what, err->message);
}

static bool select_row(struct vm *vm, bool (*want)(const struct vm_row *, long), long index)
{
	for (size_t i = 0; i < vm->nrows; i++)
		if (vm->rows[i].type != VM_ROW_MARKER && want(&vm->rows[i], index)) {
			vm->cursor = i;
			vm->detail_scroll = 0;
			return true;
		}
	return false;
}

static bool row_is_block(const struct vm_row *r, long b) { return r->block == b; }
static bool row_is_piece(const struct vm_row *r, long p) { return r->piece == p; }

void vm_select_block(struct vm *vm, long block)
{
	select_row(vm, row_is_block, block);
}

/* Moves the cursor to hit h and writes the count on the status line. */
static void show_hit(struct vm *vm, long h)
{
	vm->found_at = h;
	bool shown = true;
	if (h >= 0 && (size_t)h < vm->found.nhits) {
		const struct search_hit *hit = &vm->found.hits[h];
		shown = hit->target == SEARCH_BLOCK ? select_row(vm, row_is_block, hit->index)
						    : select_row(vm, row_is_piece, hit->index);
	}
	sb_reset(&vm->status);
	vm->status_error = false;
	sb_printf(&vm->status, "/%s: ", search_pattern_text(vm->find));
	search_describe(&vm->found, h, &vm->status);
	if (!shown)
		sb_puts(&vm->status, " (its row is hidden: a filter, or dropped pieces hidden)");
}

int vm_search(struct vm *vm, const char *pattern, struct cs_error *err)
{
	if (!pattern[0]) {
		search_pattern_free(vm->find);
		search_result_fini(&vm->found);
		vm->find = NULL;
		vm->found_at = -1;
		vm_status(vm, false, "search cleared");
		return CS_OK;
	}
	struct search_pattern *p = NULL;
	int rc = search_pattern_compile(pattern, &p, NULL, err);
	if (rc != CS_OK) {
		pattern_error(vm, "search", err);
		return rc;
	}
	struct search_result r;
	rc = search_run(p, &vm->cur, &r, err);
	if (rc != CS_OK) {
		search_result_fini(&r);
		search_pattern_free(p);
		pattern_error(vm, "search", err);
		return rc;
	}
	search_pattern_free(vm->find);
	search_result_fini(&vm->found);
	vm->find = p;
	vm->found = r;
	const struct vm_row *sel = vm_selected(vm);
	long h = -1;
	if (sel && sel->block >= 0 && r.nprompt_hits)
		h = search_from(&vm->found, SEARCH_SCOPE_PROMPT, sel->block, 0, false);
	else if (sel && sel->piece >= 0 && r.nhits > r.nprompt_hits)
		h = search_from(&vm->found, SEARCH_SCOPE_PIECES, sel->piece, 0, false);
	if (h < 0)
		h = search_from(&vm->found, r.nprompt_hits ? SEARCH_SCOPE_PROMPT : SEARCH_SCOPE_PIECES, 0, 0, false);
	show_hit(vm, h);
	return CS_OK;
}

void vm_search_step(struct vm *vm, bool backward)
{
	if (!vm->find) {
		vm_status(vm, true, "no search yet: / starts one");
		return;
	}
	if (vm->found.nhits == 0) {
		show_hit(vm, -1);
		return;
	}
	long h = vm->found_at >= 0 ? search_step(&vm->found, vm->found_at, backward)
				   : search_from(&vm->found, SEARCH_SCOPE_PROMPT, 0, 0, backward);
	if (h < 0)
		h = search_from(&vm->found, SEARCH_SCOPE_PIECES, 0, 0, backward);
	show_hit(vm, h);
}

bool vm_row_matches(const struct vm *vm, const struct vm_row *row)
{
	if (!vm->find || row->type == VM_ROW_MARKER)
		return false;
	const struct search_result *r = &vm->found;
	if (row->block >= 0 && (size_t)row->block < r->nblocks && r->block_hits[row->block] > 0)
		return true;
	return row->piece >= 0 && (size_t)row->piece < r->npieces && r->piece_hits[row->piece] > 0;
}

void vm_hits_of(const struct vm *vm, enum search_target target, long index, size_t *first, size_t *n)
{
	*first = 0;
	*n = 0;
	if (!vm->find)
		return;
	const struct search_result *r = &vm->found;
	/* each scope is sorted by block (piece), labels before texts: a binary
	 * search finds the first hit of `index`, so a frame costs O(log hits) */
	size_t lo = target == SEARCH_BLOCK ? 0 : r->nprompt_hits;
	size_t hi = target == SEARCH_BLOCK ? r->nprompt_hits : r->nhits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct search_hit *h = &r->hits[mid];
		bool before = h->index < index || (h->index == index && target == SEARCH_TEXT && h->target == SEARCH_LABEL);
		if (before)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t to = target == SEARCH_BLOCK ? r->nprompt_hits : r->nhits;
	*first = lo;
	while (lo < to && r->hits[lo].index == index && r->hits[lo].target == target)
		lo++;
	*n = lo - *first;
}

static void filter_status(struct vm *vm)
{
	vm_status(vm, false, "filter %s/%s/: %zu of %zu pieces%s", vm->filter_invert ? "NOT " : "",
		  search_pattern_text(vm->filter), vm->nkept, vm->src->npieces,
		  vm->filter_invert ? " (! again: matching ones)" : " (! inverts, \\ then Enter on empty clears)");
}

static int run_filter(struct vm *vm, struct search_pattern *p, bool invert, struct cs_error *err)
{
	bool *keep = cs_calloc(vm->src->npieces ? vm->src->npieces : 1, sizeof *keep);
	if (!keep)
		return cs_error_set(err, CS_ENOMEM, "out of memory");
	size_t kept = 0;
	int rc = search_filter(p, vm->src, invert, keep, &kept, err);
	if (rc != CS_OK) {
		cs_free(keep);
		return rc;
	}
	cs_free(vm->keep);
	vm->keep = keep;
	vm->nkept = kept;
	vm->filter_invert = invert;
	return CS_OK;
}

int vm_set_filter(struct vm *vm, const char *pattern, struct cs_error *err)
{
	if (!pattern[0]) {
		search_pattern_free(vm->filter);
		vm->filter = NULL;
		cs_free(vm->keep);
		vm->keep = NULL;
		refresh_rows(vm);
		vm_status(vm, false, "filter cleared: every piece shown");
		return CS_OK;
	}
	struct search_pattern *p = NULL;
	int rc = search_pattern_compile(pattern, &p, NULL, err);
	if (rc == CS_OK)
		rc = run_filter(vm, p, false, err);
	if (rc != CS_OK) {
		search_pattern_free(p);
		pattern_error(vm, "filter", err);
		return rc;
	}
	search_pattern_free(vm->filter);
	vm->filter = p;
	refresh_rows(vm);
	filter_status(vm);
	return CS_OK;
}

void vm_invert_filter(struct vm *vm)
{
	if (!vm->filter) {
		vm_status(vm, true, "no filter to invert: \\ sets one");
		return;
	}
	struct cs_error err;
	cs_error_clear(&err);
	if (run_filter(vm, vm->filter, !vm->filter_invert, &err) != CS_OK) {
		pattern_error(vm, "filter", &err);
		return;
	}
	refresh_rows(vm);
	filter_status(vm);
}

void vm_set_layer_filter(struct vm *vm, long layer)
{
	const struct grouping *g = vm_grouping(vm);
	if (layer < 0 || layer == vm->layer_filter || !g || (size_t)layer >= g->nlayers) {
		vm->layer_filter = -1;
		refresh_rows(vm);
		vm_status(vm, false, "layer filter cleared");
		return;
	}
	vm->layer_filter = layer;
	refresh_rows(vm);
	vm_status(vm, false, "showing layer %s only (click its bar again to show all)", g->layers[layer].name);
}

/* Re-assembles after history moved; on failure puts the edit back. */
static int history_step(struct vm *vm, bool redo, struct cs_error *err)
{
	struct strbuf said = STRBUF_INIT;
	int rc = redo ? history_redo(&vm->hist, vm->src, &said, err) : history_undo(&vm->hist, vm->src, &said, err);
	if (rc != CS_OK) {
		sb_fini(&said);
		vm_status(vm, rc != CS_EUSAGE, "%s", err->message);
		return rc;
	}
	struct assembly next;
	memset(&next, 0, sizeof next);
	long used_before = vm->cur.budget.used;
	rc = assemble(vm->src, &next, err);
	if (rc == CS_OK)
		rc = adopt(vm, &next, err);
	else {
		struct cs_error ignored;
		if (redo)
			history_undo(&vm->hist, vm->src, NULL, &ignored);
		else
			history_redo(&vm->hist, vm->src, NULL, &ignored);
	}
	if (rc != CS_OK) {
		sb_fini(&said);
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	sb_reset(&vm->status);
	vm->status_error = false;
	sb_append(&vm->status, sb_str(&said), said.len);
	sb_puts(&vm->status, "; used ");
	sb_thousands(&vm->status, used_before);
	sb_puts(&vm->status, " -> ");
	sb_thousands(&vm->status, vm->cur.budget.used);
	if (vm->cache.identical)
		sb_puts(&vm->status, "; prompt same as the baseline");
	sb_fini(&said);
	return CS_OK;
}

int vm_undo(struct vm *vm, struct cs_error *err)
{
	return history_step(vm, false, err);
}

int vm_redo(struct vm *vm, struct cs_error *err)
{
	return history_step(vm, true, err);
}

static bool prompt_line(struct vm *vm, size_t off, int role, size_t src_off1, long block)
{
	if (vm->prompt.nlines == vm->prompt.cap_lines) {
		size_t cap = vm->prompt.cap_lines ? vm->prompt.cap_lines * 2 : 256;
		struct vm_line *l = cs_reallocarray(vm->prompt.lines, cap, sizeof *l);
		if (!l)
			return false;
		vm->prompt.lines = l;
		vm->prompt.cap_lines = cap;
	}
	vm->prompt.lines[vm->prompt.nlines++] = (struct vm_line){
		.off = off, .len = vm->prompt.text.len - off, .role = role, .src_off1 = src_off1, .block = block
	};
	return true;
}

bool vm_prompt_lines(struct vm *vm)
{
	if (vm->prompt.built && vm->prompt.generation == vm->generation && !vm->prompt.text.failed)
		return true;
	const struct assembly *a = &vm->cur;
	struct strbuf *t = &vm->prompt.text;
	sb_reset(t);
	vm->prompt.nlines = 0;
	struct strbuf body = STRBUF_INIT;
	size_t g = vm->grouping < a->ngroupings ? vm->grouping : 0;
	bool ok = true;
	for (size_t b = 0; b < a->nblocks && ok; b++) {
		const struct block *bl = &a->blocks[b];
		bool before_messages = a->nmessages && b == 0 && a->messages[0].first_block > 0;
		if (before_messages || (a->nmessages && a->messages[bl->message].first_block == b)) {
			size_t off = t->len;
			/* blocks before the first message are the system prompt, sent apart */
			const char *role = before_messages ? "system" : a->messages[bl->message].role;
			sb_printf(t, "== %s ==", role ? role : "(no role)");
			ok = prompt_line(vm, off, ROLE_HEADING, 0, -1);
		}
		sb_reset(&body);
		asm_block_text(a, b, &body);
		int role = (bl->flags & BLOCK_MARKER) ? ROLE_CUT
			   : (g < a->ngroupings && bl->layer[g] >= 0) ? ROLE_BAR0 + bl->layer[g] % THEME_BAR_ROLES
								       : ROLE_MADE;
		const char *s = sb_str(&body);
		size_t n = body.len, i = 0;
		do {
			const char *nl = memchr(s + i, '\n', n - i);
			size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
			size_t off = t->len;
			sb_append(t, s + i, len);
			ok = ok && prompt_line(vm, off, role, 1 + i, (long)b);
			i += len + (nl ? 1 : 0);
		} while (i < n && ok);
		if (ok && (marker_after(vm, b))) {
			size_t off = t->len;
			char n1[32], n2[32];
			bool brk = !vm->cache.identical && b + 1 == vm->cache.same_blocks;
			const struct cache_breakpoint *bp = vm_breakpoint(vm, (long)b);
			if (brk)
				sb_printf(t, "-- cache breaks here: %s tokens cached, %s to rewrite --",
					  fmt_thousands(n1, vm->cache.cached_tokens), fmt_thousands(n2, vm->cache.rewrite_tokens));
			else
				sb_printf(t, "-- cache breakpoint: %s tokens, %s --",
					  fmt_thousands(n1, bl->offset_tokens + bl->tokens),
					  bp ? vm_breakpoint_state(vm, bp) : "none");
			ok = prompt_line(vm, off, brk ? ROLE_BREAK : ROLE_MARKER, 0, (long)b);
		}
	}
	sb_fini(&body);
	vm->prompt.built = ok && !t->failed;
	vm->prompt.generation = vm->generation;
	return vm->prompt.built;
}

size_t vm_prompt_line_of_block(const struct vm *vm, long block)
{
	for (size_t i = 0; i < vm->prompt.nlines; i++)
		if (vm->prompt.lines[i].block == block && vm->prompt.lines[i].src_off1)
			return i;
	return 0;
}
