/* viewmodel.c: the inspector's state (see viewmodel.h): life, the moved check, cursor, status and edits
 * (the rows are vm/rows.c's). */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "diff.h"
#include "kind.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"
#include "tokens/estimate.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- what moved --------------------------------------------------------------- */

/* Whether every piece of the source has an id of its own (worked out once
 * per source). */
static bool ids_unique(struct vm *vm)
{
	struct vm_session *s = &vm->session;
	if (s->ids_unique)
		return s->ids_unique > 0;
	size_t n = s->src->npieces;
	long *map = cs_malloc((n ? n : 1) * sizeof *map);
	if (!map || !source_match_ids(s->src, s->src, map, NULL)) {
		cs_free(map);
		return false; /* out of memory: asked again next time */
	}
	s->ids_unique = 1;
	for (size_t i = 0; i < n && s->ids_unique > 0; i++)
		if (map[i] != (long)i)
			s->ids_unique = -1;
	cs_free(map);
	return s->ids_unique > 0;
}

/* Per piece of the source, its place among the baseline's pieces in prompt
 * order (at their first blocks; UINT32_MAX: not in it), made once per
 * baseline, with the stamps order_kept meets pieces by. false on out of memory. */
static bool rank_base(struct vm_session *s)
{
	size_t n = s->src->npieces;
	if (s->base_rank && s->nrank == n)
		return true;
	cs_free(s->base_rank);
	cs_free(s->seen);
	s->base_rank = cs_malloc((n ? n : 1) * sizeof *s->base_rank);
	s->seen = cs_calloc(n ? n : 1, sizeof *s->seen);
	s->seen_check = 0;
	if (!s->base_rank || !s->seen) {
		cs_free(s->base_rank);
		cs_free(s->seen);
		s->base_rank = s->seen = NULL;
		return false;
	}
	s->nrank = n;
	memset(s->base_rank, 0xff, n * sizeof *s->base_rank);
	uint32_t k = 0;
	for (size_t b = 0; b < s->base.nblocks; b++) {
		long p = s->base.blocks[b].piece;
		if (p >= 0 && (size_t)p < n && s->base_rank[p] == UINT32_MAX)
			s->base_rank[p] = k++;
	}
	return true;
}

/* Whether the pieces both prompts hold come in the same order in both
 * (then none moved: diff_moved would mark none), for assemblies of the
 * same source: the current prompt's pieces (each at its first block) that
 * the baseline holds must come in the baseline's order, one pass over the
 * current prompt's blocks, instead of the diff's matching by id and
 * longest run. false when it cannot tell (another source, ids shared, out
 * of memory) or some piece moved. */
static bool order_kept(struct vm *vm)
{
	struct vm_session *s = &vm->session;
	const struct assembly *base = &s->base, *cur = &s->cur;
	if (base->src != cur->src || !ids_unique(vm) || !rank_base(s))
		return false; /* the diff matches pieces by id */
	if (++s->seen_check == 0) { /* wrapped: the stamps start again */
		memset(s->seen, 0, s->nrank * sizeof *s->seen);
		s->seen_check = 1;
	}
	uint32_t check = s->seen_check, last = 0;
	bool any = false;
	for (size_t b = 0; b < cur->nblocks; b++) {
		long p = cur->blocks[b].piece;
		if (p < 0 || (size_t)p >= s->nrank || s->seen[p] == check)
			continue;
		s->seen[p] = check;
		uint32_t r = s->base_rank[p];
		if (r == UINT32_MAX)
			continue; /* not in the baseline */
		if (any && r < last)
			return false;
		last = r;
		any = true;
	}
	return true;
}

/* After the assembly, baseline or cache settings changed: every derived
 * figure, each step run even when an earlier one ran out of memory, so the
 * rows never point into an assembly that is gone. false on out of memory. */
bool vm_refresh_all(struct vm *vm, long keep_piece, long keep_block)
{
	vm->prompt.built = false; /* the prompt view's markers follow the cache */
	vm->session.changes++;
	bool ok = vm_count_exact(vm); /* first: a profile may price in exact counts */
	ok = vm_compute_cache(vm) && ok;
	ok = vm_summarize(vm) && ok;
	cs_free(vm->moved);
	vm->moved = NULL; /* NULL: no `*` for moves */
	if (!order_kept(vm))
		vm->moved = diff_moved(&vm->session.base, &vm->session.cur);
	ok = vm_rebuild_rows(vm, keep_piece, keep_block) && ok;
	return ok;
}

/* ---- life ------------------------------------------------------------------- */

int vm_init(struct vm *vm, struct source *src, struct cs_error *err)
{
	memset(vm, 0, sizeof *vm);
	vm->session.src = src;
	vm->detail.piece = -2;
	vm->search.found_at = -1;
	vm->layer_filter = -1;
	vm->exact.total = -1;
	history_init(&vm->session.hist);
	cache_config_init(&vm->cache.cfg);
	cache_overrides_init(&vm->cache.bp_now);
	cache_overrides_init(&vm->cache.bp_base);
	vm->cache.profile = cache_config_profile(&vm->cache.cfg, source_cache_profile(src, NULL, vm->cache.cfg.default_profile));
	vm->vr = cs_calloc(1, sizeof *vm->vr);
	if (!vm->vr)
		return cs_error_nomem(err);
	int rc = assemble_lazy(src, &vm->session.cur, err);
	if (rc != CS_OK)
		return rc;
	rc = assemble_lazy(src, &vm->session.base, err);
	if (rc != CS_OK) {
		asm_fini(&vm->session.cur);
		memset(&vm->session.cur, 0, sizeof vm->session.cur);
		return rc;
	}
	if (!vm_refresh_all(vm, -1, -1))
		return cs_error_nomem(err);
	const struct budget *bu = &vm->session.cur.budget;
	vm->bar_scale = bu->used > 0 && bu->used * 4 < bu->usable ? VM_SCALE_USED : VM_SCALE_BUDGET;
	vm->cursor = 0;
	if (vm->nrows && vm_row_at(vm, 0).type == VM_ROW_MARKER)
		vm_move(vm, 1);
	return CS_OK;
}

void vm_fini(struct vm *vm)
{
	if (!vm)
		return;
	if (vm->session.src) {
		asm_fini(&vm->session.cur);
		asm_fini(&vm->session.base);
	}
	source_free(vm->session.src);
	source_free(vm->session.base_src);
	exact_live_fini(&vm->exact.base_live);
	exact_live_fini(&vm->exact.live);
	tokenizer_close(vm->exact.tok);
	cs_free(vm->session.base_piece);
	cs_free(vm->session.base_rank);
	cs_free(vm->session.seen);
	cache_analysis_fini(&vm->cache.an);
	cs_free(vm->cache.exact_off);
	cache_overrides_fini(&vm->cache.bp_now);
	cache_overrides_fini(&vm->cache.bp_base);
	vm_bp_steps_fini(&vm->cache.bp_done);
	vm_bp_steps_fini(&vm->cache.bp_undone);
	cache_config_fini(&vm->cache.cfg);
	cs_free(vm->rows);
	vm_rows_fini(vm);
	cs_free(vm->moved);
	history_fini(&vm->session.hist);
	search_pattern_free(vm->search.find);
	search_result_fini(&vm->search.found);
	search_pattern_free(vm->search.filter);
	cs_free(vm->search.keep);
	sb_fini(&vm->prompt.text);
	sb_fini(&vm->head.text);
	cs_free(vm->prompt.lines);
	for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++)
		cs_free(vm->cache.layers[g]);
	cs_free(vm->detail.lines);
	sb_fini(&vm->detail.text);
	sb_fini(&vm->status);
	sb_fini(&vm->log);
	memset(vm, 0, sizeof *vm);
}

/* ---- cursor ------------------------------------------------------------------ */

const struct vm_row *vm_selected(const struct vm *vm)
{
	if (vm->cursor >= vm->nrows || vm->on_header)
		return NULL;
	if (!vm->vr || !vm->vr->on)
		return &vm->rows[vm->cursor];
	vm->vr->sel = vm_row_at(vm, vm->cursor);
	return &vm->vr->sel;
}

static bool is_marker(const struct vm *vm, size_t i)
{
	return vm_row_at(vm, i).type == VM_ROW_MARKER;
}

long vm_selected_piece(const struct vm *vm)
{
	const struct vm_row *r = vm_selected(vm);
	return r ? r->piece : -1;
}

/* The first row the cursor can stand on (markers are not). */
static size_t first_selectable(const struct vm *vm)
{
	size_t i = 0;
	while (i < vm->nrows && is_marker(vm, i))
		i++;
	return i;
}

void vm_move(struct vm *vm, long delta)
{
	if (vm->on_header) { /* down from the header: back to the list, on the row it left */
		vm->on_header = delta <= 0;
		vm->detail_scroll = 0;
		return;
	}
	if (delta == -1 && (vm->nrows == 0 || vm->cursor <= first_selectable(vm))) {
		vm->on_header = true; /* one row up from the top: the header */
		vm->detail_scroll = 0;
		return;
	}
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
	while (probe >= 0 && probe < (long)vm->nrows && is_marker(vm, (size_t)probe))
		probe += step;
	if (probe < 0 || probe >= (long)vm->nrows) {
		probe = at;
		while (probe >= 0 && probe < (long)vm->nrows && is_marker(vm, (size_t)probe))
			probe -= step;
	}
	if (probe >= 0 && probe < (long)vm->nrows)
		vm->cursor = (size_t)probe;
	vm->detail_scroll = 0;
}

void vm_select_row(struct vm *vm, size_t row)
{
	if (row >= vm->nrows || is_marker(vm, row))
		return;
	vm->cursor = row;
	vm->on_header = false;
	vm->detail_scroll = 0;
	vm->focus = VM_FOCUS_LIST;
}

void vm_select_header(struct vm *vm)
{
	vm->on_header = true;
	vm->detail_scroll = 0;
}

void vm_open_detail(struct vm *vm)
{
	vm->detail_open = true;
	vm->detail_closed = false;
	vm->focus = VM_FOCUS_DETAIL;
}

void vm_next_pane(struct vm *vm, bool shown)
{
	if (!shown)
		vm_open_detail(vm);
	else
		vm->focus = vm->focus == VM_FOCUS_DETAIL ? VM_FOCUS_LIST : VM_FOCUS_DETAIL;
}

void vm_set_focus(struct vm *vm, enum vm_focus focus)
{
	vm->focus = focus;
}

bool vm_close_detail(struct vm *vm, bool wide)
{
	if (vm->focus == VM_FOCUS_DETAIL) {
		vm->focus = VM_FOCUS_LIST;
		vm->detail_open = false;
	} else if (vm->detail_open) {
		vm->detail_open = false;
	} else if (wide && !vm->detail_closed) {
		vm->detail_closed = true;
	} else {
		return false;
	}
	return true;
}

void vm_detail_scroll_to(struct vm *vm, size_t line)
{
	vm->detail_scroll = line;
}

void vm_scroll_to(struct vm *vm, size_t top)
{
	vm->scroll = top;
}

void vm_set_ascii(struct vm *vm, bool ascii)
{
	vm->ascii = ascii;
}

void vm_first(struct vm *vm)
{
	vm->on_header = false;
	vm_move(vm, -(long)vm->nrows);
}

void vm_last(struct vm *vm)
{
	vm->on_header = false;
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

void vm_log_status(struct vm *vm)
{
	if (!vm->status.len || vm->status.failed)
		return;
	size_t n = vm->status.len; /* the same as the last line logged: once */
	if (vm->log.len >= n + 1) {
		size_t at = vm->log.len - n - 1;
		if ((at == 0 || vm->log.data[at - 1] == '\n') && memcmp(vm->log.data + at, vm->status.data, n) == 0)
			return;
	}
	if (vm->nlog == VM_LOG_MAX && vm->log.len) { /* the oldest goes */
		const char *nl = strchr(sb_str(&vm->log), '\n');
		size_t cut = nl ? (size_t)(nl - vm->log.data) + 1 : vm->log.len;
		memmove(vm->log.data, vm->log.data + cut, vm->log.len - cut + 1);
		vm->log.len -= cut;
		vm->nlog--;
	}
	for (const char *p = sb_str(&vm->status); *p; p++) /* one line each */
		sb_putc(&vm->log, *p == '\n' ? ' ' : *p);
	sb_putc(&vm->log, '\n');
	vm->nlog++;
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
	e.value = piece_excluded(&vm->session.src->pieces[piece]) ? 0 : 1;
	return vm_apply(vm, &e, err);
}

int vm_nudge_priority(struct vm *vm, double delta, struct cs_error *err)
{
	long piece;
	if (need_piece(vm, &piece, err) != CS_OK)
		return CS_EUSAGE;
	double p = vm->session.src->pieces[piece].priority + delta;
	p = round(p * 100.0) / 100.0; /* keep 0.05 steps exact in the display */
	if (p < 0)
		p = 0;
	if (p > 1)
		p = 1;
	const struct piece *pc = &vm->session.src->pieces[piece];
	if (p == pc->priority) { /* at the end of the range: no edit, nothing to undo */
		vm_status(vm, false, "priority of %s is already %.2f, the %s", pc->label ? pc->label : pc->id, p,
			  p >= 1 ? "highest" : "lowest");
		return CS_OK;
	}
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

/* The strategy the assembly runs under as its "strategy" fact says
 * ("truncateMiddle", "rollingWindow (--strategy; ...)"); STRAT_NONE if none. */
static int input_strategy(const struct assembly *a)
{
	for (size_t i = 0; i < a->nfacts; i++)
		if (!strcmp(a->facts[i].key, "strategy")) {
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)strcspn(a->facts[i].value, " "), a->facts[i].value);
			return strategy_from_name(name);
		}
	return STRAT_NONE;
}

int vm_cycle_strategy(struct vm *vm, bool whole, struct cs_error *err)
{
	const struct kind_ops *k = vm->session.src->kind;
	long piece = vm_selected_piece(vm);
	if (!whole && k->piece_strategies && k->piece_strategies[0] != STRAT_NONE && piece >= 0) {
		int cur = vm->session.src->pieces[piece].strategy;
		struct edit e = { .type = EDIT_PIECE_STRATEGY, .piece = piece,
				  .value = next_in(k->piece_strategies, cur) };
		return vm_apply(vm, &e, err);
	}
	if (k->global_strategies && k->global_strategies[0] != STRAT_NONE) {
		int cur = vm->session.src->settings.strategy;
		if (cur == STRAT_NONE) /* the input's own: the first t moves on from it, never to it */
			cur = input_strategy(&vm->session.cur);
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
	int rc = assemble_lazy(vm->session.src, &next, err);
	if (rc != CS_OK) {
		vm_status(vm, true, "%s", err->message);
		return rc;
	}
	asm_fini(&vm->session.base);
	vm->session.base = next;
	cs_free(vm->session.base_rank);
	vm->session.base_rank = NULL; /* ranked again from the new baseline */
	vm_forget_old_base(vm);
	vm->prompt.built = false;
	const struct vm_row *sel = vm_selected(vm);
	bool copied = vm_copy_overrides(&vm->cache.bp_base, &vm->cache.bp_now);
	if (!vm_refresh_all(vm, sel ? sel->piece : -1, sel ? sel->block : -1) || !copied)
		return cs_error_nomem(err);
	struct strbuf *s = &vm->status;
	sb_reset(s);
	vm->status_error = false;
	vm->session.base_from = VM_BASE_PINNED;
	sb_puts(s, "baseline pinned: ");
	sb_thousands(s, vm->cache.cached_tokens);
	sb_puts(s, " tokens would be read from the cache if sent again");
	return CS_OK;
}

/* ---- what rows say ------------------------------------------------------------- */

const struct vm_flag_meaning vm_flag_legend[] = {
	{ 'x', "excluded" },
	{ '-', "dropped" },
	{ '~', "truncated" },
	{ '*', "changed since the baseline (or moved)" },
	{ '!', "unreadable" },
	{ '?', "holds hidden text" },
	{ '^', "read from outside the input's folder" },
	{ 0, NULL },
};

char vm_row_flag(const struct vm *vm, const struct vm_row *row)
{
	if (row->type == VM_ROW_MARKER || row->piece < 0)
		return ' ';
	const struct piece *p = &vm->session.src->pieces[row->piece];
	const struct piece_result *r = &vm->session.cur.results[row->piece];
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
	if (p->flags & PIECE_OUTSIDE)
		return '^'; /* read from outside the input's folder */
	if (r->outcome == OUTCOME_DROPPED)
		return r->reason == REASON_EXCLUDED_BY_USER || r->reason == REASON_EXCLUDED ? 'x' : '-';
	if (r->outcome == OUTCOME_TRUNCATED)
		return '~';
	long bp = vm->session.base_piece ? vm->session.base_piece[row->piece] : row->piece;
	if (bp < 0)
		return '*'; /* new since the baseline's load */
	const struct piece_result *b = &vm->session.base.results[bp];
	if (b->outcome != r->outcome || b->tokens != r->tokens)
		return '*';
	if (vm->moved && vm->moved[row->piece])
		return '*'; /* only its place among the others changed (d says "moved") */
	return ' ';
}

long vm_row_tokens(const struct vm *vm, const struct vm_row *row)
{
	switch (row->type) {
	case VM_ROW_BLOCK:
		return vm->session.cur.blocks[row->block].budget_tokens;
	case VM_ROW_DROPPED: /* its real size (an image's by its formula), as the report and the status say */
		return vm->session.cur.results[row->piece].original_tokens;
	case VM_ROW_MARKER:
		return row->block < 0 ? 0 : vm->session.cur.blocks[row->block].offset_tokens + vm->session.cur.blocks[row->block].tokens;
	}
	return 0;
}

const struct grouping *vm_grouping(const struct vm *vm)
{
	if (vm->session.cur.ngroupings == 0)
		return NULL;
	size_t g = vm->grouping < vm->session.cur.ngroupings ? vm->grouping : 0;
	return &vm->session.cur.groupings[g];
}

enum vm_layer_state vm_layer_state(const struct vm *vm, size_t layer, long *cached_tokens)
{
	*cached_tokens = 0;
	size_t g = vm->grouping < vm->session.cur.ngroupings ? vm->grouping : 0;
	if (g >= vm->session.cur.ngroupings || !vm->cache.layers[g] || layer >= vm->session.cur.groupings[g].nlayers)
		return VM_LAYER_EMPTY;
	const struct vm_layer_info *li = &vm->cache.layers[g][layer];
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

long vm_bar_whole(const struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	switch (vm->bar_scale) {
	case VM_SCALE_USED: return a->budget.used;
	case VM_SCALE_LARGEST: {
		const struct grouping *g = vm_grouping(vm);
		long max = 0;
		for (size_t i = 0; g && i < g->nlayers; i++)
			if (g->layers[i].budget_tokens > max)
				max = g->layers[i].budget_tokens;
		return max;
	}
	case VM_SCALE_BUDGET:
	case VM_SCALE_COUNT:
		break;
	}
	return a->budget.usable;
}

const char *vm_bar_scale_name(enum vm_bar_scale s)
{
	static const char *const names[] = { "of the budget", "of what is used", "of the largest layer" };
	return s < VM_SCALE_COUNT ? names[s] : "";
}

void vm_cycle_bar_scale(struct vm *vm)
{
	vm->bar_scale = (enum vm_bar_scale)((vm->bar_scale + 1) % VM_SCALE_COUNT);
	vm_status(vm, false, "bars and percents: %s (%% switches)", vm_bar_scale_name(vm->bar_scale));
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
