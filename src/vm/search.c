/* vm/search.c: the view-model's search (/, n, N) and filters (backslash, !, a layer's bar). */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "base/strbuf.h"
#include "theme.h"

#include <string.h>

/* pcre2's sentence, with where in the pattern it stopped. */
static void pattern_error(struct vm *vm, const char *what, const struct cs_error *err)
{
	if (err->code == CS_ELIMIT)
		vm_status(vm, true, "%s: pattern too costly (stopped at the match limits)", what);
	else
		vm_status(vm, true, "%s: %s", what, err->message);
}

/* The cursor on the first row showing piece (piece >= 0), else block, and
 * the header no longer selected; false when no row shows it. */
static bool select_row(struct vm *vm, long piece, long block)
{
	long i = vm_row_find(vm, piece, block);
	if (i < 0)
		return false;
	vm->cursor = (size_t)i;
	vm->on_header = false; /* a row chosen (a search hit, the prompt view's line) is what is selected */
	vm->detail_scroll = 0;
	return true;
}

void vm_select_block(struct vm *vm, long block)
{
	if (block >= 0)
		select_row(vm, -1, block);
}

/* Moves the cursor to hit h and writes the count on the status line. */
static void show_hit(struct vm *vm, long h)
{
	vm->search.found_at = h;
	vm->search.gen++;
	bool shown = true;
	if (h >= 0 && (size_t)h < vm->search.found.nhits) {
		const struct search_hit *hit = &vm->search.found.hits[h];
		shown = hit->target == SEARCH_BLOCK ? hit->index >= 0 && select_row(vm, -1, hit->index)
						    : hit->index >= 0 && select_row(vm, hit->index, -1);
	}
	sb_reset(&vm->status);
	vm->status_error = false;
	sb_printf(&vm->status, "/%s: ", search_pattern_text(vm->search.find));
	search_describe(&vm->search.found, h, &vm->status);
	if (!shown)
		sb_puts(&vm->status, " (its row is hidden: a filter, or dropped pieces hidden)");
}

int vm_search(struct vm *vm, const char *pattern, struct cs_error *err)
{
	if (!pattern[0]) {
		search_pattern_free(vm->search.find);
		search_result_fini(&vm->search.found);
		vm->search.find = NULL;
		vm->search.found_at = -1;
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
	rc = search_run(p, &vm->session.cur, &r, err);
	if (rc != CS_OK) {
		search_result_fini(&r);
		search_pattern_free(p);
		pattern_error(vm, "search", err);
		return rc;
	}
	search_pattern_free(vm->search.find);
	search_result_fini(&vm->search.found);
	vm->search.find = p;
	vm->search.found = r;
	const struct vm_row *sel = vm_selected(vm);
	long h = -1;
	if (sel && sel->block >= 0 && r.nprompt_hits)
		h = search_from(&vm->search.found, SEARCH_SCOPE_PROMPT, sel->block, 0, false);
	else if (sel && sel->piece >= 0 && r.nhits > r.nprompt_hits)
		h = search_from(&vm->search.found, SEARCH_SCOPE_PIECES, sel->piece, 0, false);
	if (h < 0)
		h = search_from(&vm->search.found, r.nprompt_hits ? SEARCH_SCOPE_PROMPT : SEARCH_SCOPE_PIECES, 0, 0, false);
	show_hit(vm, h);
	return CS_OK;
}

void vm_search_step(struct vm *vm, bool backward)
{
	if (!vm->search.find) {
		vm_status(vm, true, "no search yet: / starts one");
		return;
	}
	if (vm->search.found.nhits == 0) {
		show_hit(vm, -1);
		return;
	}
	long h = vm->search.found_at >= 0 ? search_step(&vm->search.found, vm->search.found_at, backward)
				   : search_from(&vm->search.found, SEARCH_SCOPE_PROMPT, 0, 0, backward);
	if (h < 0)
		h = search_from(&vm->search.found, SEARCH_SCOPE_PIECES, 0, 0, backward);
	show_hit(vm, h);
}

bool vm_row_matches(const struct vm *vm, const struct vm_row *row)
{
	if (!vm->search.find || row->type == VM_ROW_MARKER)
		return false;
	const struct search_result *r = &vm->search.found;
	if (row->block >= 0 && (size_t)row->block < r->nblocks && r->block_hits[row->block] > 0)
		return true;
	return row->piece >= 0 && (size_t)row->piece < r->npieces && r->piece_hits[row->piece] > 0;
}

void vm_hits_of(const struct vm *vm, enum search_target target, long index, size_t *first, size_t *n)
{
	*first = 0;
	*n = 0;
	if (!vm->search.find)
		return;
	const struct search_result *r = &vm->search.found;
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
	vm_status(vm, false, "filter %s/%s/: %zu of %zu pieces%s", vm->search.filter_invert ? "NOT " : "",
		  search_pattern_text(vm->search.filter), vm->search.nkept, vm->session.src->npieces,
		  vm->search.filter_invert ? " (! again: matching ones)" : " (! inverts, \\ then Enter on empty clears)");
}

static int run_filter(struct vm *vm, struct search_pattern *p, bool invert, struct cs_error *err)
{
	bool *keep = cs_calloc(vm->session.src->npieces ? vm->session.src->npieces : 1, sizeof *keep);
	if (!keep)
		return cs_error_nomem(err);
	size_t kept = 0;
	int rc = search_filter(p, vm->session.src, invert, keep, &kept, err);
	if (rc != CS_OK) {
		cs_free(keep);
		return rc;
	}
	cs_free(vm->search.keep);
	vm->search.keep = keep;
	vm->search.nkept = kept;
	vm->search.filter_invert = invert;
	return CS_OK;
}

int vm_refilter(struct vm *vm, struct cs_error *err)
{
	return vm->search.filter ? run_filter(vm, vm->search.filter, vm->search.filter_invert, err) : CS_OK;
}

int vm_set_filter(struct vm *vm, const char *pattern, struct cs_error *err)
{
	if (!pattern[0]) {
		search_pattern_free(vm->search.filter);
		vm->search.filter = NULL;
		cs_free(vm->search.keep);
		vm->search.keep = NULL;
		vm_refresh_rows(vm);
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
	search_pattern_free(vm->search.filter);
	vm->search.filter = p;
	vm_refresh_rows(vm);
	filter_status(vm);
	return CS_OK;
}

void vm_invert_filter(struct vm *vm)
{
	if (!vm->search.filter) {
		vm_status(vm, true, "no filter to invert: \\ sets one");
		return;
	}
	struct cs_error err;
	cs_error_clear(&err);
	if (run_filter(vm, vm->search.filter, !vm->search.filter_invert, &err) != CS_OK) {
		pattern_error(vm, "filter", &err);
		return;
	}
	vm_refresh_rows(vm);
	filter_status(vm);
}

void vm_set_layer_filter(struct vm *vm, long layer)
{
	const struct grouping *g = vm_grouping(vm);
	if (layer < 0 || layer == vm->layer_filter || !g || (size_t)layer >= g->nlayers) {
		vm->layer_filter = -1;
		vm_refresh_rows(vm);
		vm_status(vm, false, "layer filter cleared");
		return;
	}
	vm->layer_filter = layer;
	vm_refresh_rows(vm);
	vm_status(vm, false, "showing layer %s only (click its bar again to show all)", g->layers[layer].name);
}
