/* vm_search.c: issue 7 in the view-model: search, filter, undo and redo, the prompt view. */
#include "viewmodel_priv.h"

#include "alloc.h"
#include "strbuf.h"
#include "theme.h"

#include <string.h>

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
		return cs_error_nomem(err);
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

int vm_refilter(struct vm *vm, struct cs_error *err)
{
	return vm->filter ? run_filter(vm, vm->filter, vm->filter_invert, err) : CS_OK;
}

int vm_set_filter(struct vm *vm, const char *pattern, struct cs_error *err)
{
	if (!pattern[0]) {
		search_pattern_free(vm->filter);
		vm->filter = NULL;
		cs_free(vm->keep);
		vm->keep = NULL;
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
	search_pattern_free(vm->filter);
	vm->filter = p;
	vm_refresh_rows(vm);
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
		rc = vm_adopt(vm, &next, err);
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
		if (ok && (vm_marker_after(vm, b))) {
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
