/* vm/adopt.c: a new assembly (or baseline, or cache setting) taken in:
 * every derived figure worked out again in one place (the exact counts, the
 * cache analysis, what moved, the rows), below the files that make changes
 * (session.c, breakpoints.c, reload.c, settings.c, viewmodel.c) and above
 * those it reads (exact.c, cache.c, rows.c). */
#include "vm/viewmodel_priv.h"

#include "base/alloc.h"
#include "diff.h"
#include "kind.h"

#include <stdint.h>
#include <string.h>

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

/* Re-runs the search over a new assembly (hits point into blocks). */
void vm_research(struct vm *vm)
{
	if (!vm->search.find)
		return;
	struct cs_error err;
	cs_error_clear(&err);
	search_result_fini(&vm->search.found);
	vm->search.found_at = -1;
	if (search_run(vm->search.find, &vm->session.cur, &vm->search.found, &err) != CS_OK)
		search_result_fini(&vm->search.found);
}

/* Makes next the current assembly (taking it), keeping the selection. */
int vm_adopt(struct vm *vm, struct assembly *next, struct cs_error *err)
{
	const struct vm_row *sel = vm_selected(vm);
	long keep_piece = sel ? sel->piece : -1, keep_block = sel ? sel->block : -1;
	asm_fini(&vm->session.cur);
	vm->session.cur = *next;
	memset(next, 0, sizeof *next);
	vm->session.generation++;
	vm_research(vm);
	/* every step runs even when one fails: rows never point into a freed assembly */
	if (!vm_refresh_all(vm, keep_piece, keep_block)) {
		vm->detail.piece = -2;
		vm_status(vm, true, "out of memory");
		return cs_error_nomem(err);
	}
	return CS_OK;
}
