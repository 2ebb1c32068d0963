/* viewmodel.c: the view-model's face (see viewmodel.h): its life, the
 * edits a key makes, and what the rows and bars say. It calls the other
 * files of src/vm/ and none of them calls it: from the top, settings.c and
 * reload.c, session.c, breakpoints.c, adopt.c and search.c, then header.c,
 * detail.c, prompt.c, cache.c and exact.c, then rows.c (the rows and the
 * cursor over them) and status.c (tests/call_cycles.sh checks it). */
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
		vm_status(vm, false, "priority of %s is already %.2f, the %s", piece_name(pc), p,
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
