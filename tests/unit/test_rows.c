/* test_rows.c: the list's rows in assembly order, worked out on demand
 * (vm_row_at), against the rows built one by one (the reference builder,
 * cs_tune(CS_TUNE_VM_VIRTUAL_ROWS, 0)): every row, its item number, the counts, the
 * cursor kept on its piece or block, and the row a search jumps to, over
 * the samples and fixtures after random edits, breakpoints, a pinned
 * baseline and dropped pieces hidden; and the moved flags against the diff. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"
#include "base/tune.h"

#include "base/alloc.h"
#include "diff.h"
#include "edit.h"
#include "kind.h"
#include "vm/viewmodel_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* What the list shows, one build of it. */
struct shown {
	size_t nrows, nitems, ndropped, ntruncated, cursor;
	struct vm_row *rows;
};

static void capture(const struct vm *vm, struct shown *out)
{
	out->nrows = vm->nrows;
	out->nitems = vm->nitems;
	out->ndropped = vm->ndropped;
	out->ntruncated = vm->ntruncated;
	out->cursor = vm->cursor;
	out->rows = calloc(vm->nrows ? vm->nrows : 1, sizeof *out->rows);
	assert_non_null(out->rows);
	for (size_t i = 0; i < vm->nrows; i++)
		out->rows[i] = vm_row_at(vm, i);
}

static void same_shown(const char *what, const struct shown *fast, const struct shown *ref)
{
	if (fast->nrows != ref->nrows || fast->nitems != ref->nitems || fast->ndropped != ref->ndropped ||
	    fast->ntruncated != ref->ntruncated || fast->cursor != ref->cursor)
		fail_msg("%s: rows %zu/%zu items %zu/%zu dropped %zu/%zu truncated %zu/%zu cursor %zu/%zu", what,
			 fast->nrows, ref->nrows, fast->nitems, ref->nitems, fast->ndropped, ref->ndropped,
			 fast->ntruncated, ref->ntruncated, fast->cursor, ref->cursor);
	for (size_t i = 0; i < ref->nrows; i++) {
		const struct vm_row *a = &fast->rows[i], *b = &ref->rows[i];
		if (a->type != b->type || a->block != b->block || a->piece != b->piece || a->item != b->item)
			fail_msg("%s: row %zu: type %d/%d block %ld/%ld piece %ld/%ld item %zu/%zu", what, i, a->type,
				 b->type, a->block, b->block, a->piece, b->piece, a->item, b->item);
	}
}

/* The rows rebuilt both ways from the same cursor, keeping (piece, block),
 * compared; then the rows a jump to pieces and blocks lands on. The vm is
 * left with the fast rows. */
static void check_both_ways(struct vm *vm, const char *what, long keep_piece, long keep_block, uint64_t *rng)
{
	size_t cursor = vm->cursor;
	struct shown fast, ref;
	cs_tune(CS_TUNE_VM_VIRTUAL_ROWS, 0);
	assert_true(vm_rebuild_rows(vm, keep_piece, keep_block));
	assert_true(vm->vr == NULL || !vm->vr->on);
	capture(vm, &ref);
	size_t np = vm->session.src->npieces, nb = vm->session.cur.nblocks;
	long probes[16];
	for (size_t k = 0; k < 16; k++) /* pieces, then blocks (and one past the end) */
		probes[k] = k < 8 ? (np ? (long)(next_rand(rng) % np) : -1) : (long)(next_rand(rng) % (nb + 1));
	long ref_at[16];
	for (size_t k = 0; k < 16; k++)
		ref_at[k] = k < 8 ? vm_row_find(vm, probes[k], -1) : vm_row_find(vm, -1, probes[k]);
	vm->cursor = cursor;
	cs_tune(CS_TUNE_VM_VIRTUAL_ROWS, 1);
	assert_true(vm_rebuild_rows(vm, keep_piece, keep_block));
	capture(vm, &fast);
	same_shown(what, &fast, &ref);
	if (vm->sort == VM_SORT_ORDER && !vm->search.keep && vm->layer_filter < 0)
		assert_true(vm->vr->on); /* the fast rows were the ones compared */
	for (size_t k = 0; k < 16; k++) {
		long at = k < 8 ? vm_row_find(vm, probes[k], -1) : vm_row_find(vm, -1, probes[k]);
		if (at != ref_at[k])
			fail_msg("%s: a jump to %s %ld: row %ld, built one by one %ld", what, k < 8 ? "piece" : "block",
				 probes[k], at, ref_at[k]);
	}
	const struct vm_row *sel = vm_selected(vm);
	if (sel && ref.nrows)
		assert_int_equal(sel->piece, ref.rows[vm->cursor].piece);
	free(fast.rows);
	free(ref.rows);
}

/* One random change of the session or the view. */
static void random_step(struct vm *vm, uint64_t *rng)
{
	struct cs_error err;
	cs_error_clear(&err);
	size_t np = vm->session.src->npieces;
	unsigned what = (unsigned)(next_rand(rng) % 10);
	if (vm->nrows)
		vm->cursor = (size_t)(next_rand(rng) % vm->nrows);
	vm->on_header = false;
	if (what <= 4 && np) { /* the bench's edits: exclusion, priority */
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next_rand(rng) % np) };
		e.value = piece_excluded(&vm->session.src->pieces[e.piece]) ? 0 : 1;
		if (what >= 3) {
			e.type = EDIT_PRIORITY;
			e.value = (double)(next_rand(rng) % 101) / 100.0;
		}
		(void)vm_apply(vm, &e, &err); /* a kind may refuse a priority */
	} else if (what == 5) {
		(void)vm_toggle_breakpoint(vm, &err); /* a marker row more or less */
	} else if (what == 6) {
		(void)vm_pin_baseline(vm, &err); /* identical: no break marker */
	} else if (what == 7) {
		vm_toggle_dropped(vm);
	} else if (what == 8) {
		if (next_rand(rng) % 2)
			(void)vm_undo(vm, &err);
		else /* another request of a sequence: its pieces' text and layers change */
			(void)vm_step_sequence(vm, next_rand(rng) % 2 ? 1 : -1, &err);
	} else {
		vm_move(vm, (long)(next_rand(rng) % 7) - 3);
	}
}

/* The moved flags (the view-model skips the diff when the pieces both
 * prompts hold kept their order) agree with the diff's. */
static void check_moved(const struct vm *vm, const char *what)
{
	bool *d = diff_moved(&vm->session.base, &vm->session.cur);
	assert_non_null(d);
	for (size_t i = 0; i < vm->session.src->npieces; i++)
		if ((vm->moved && vm->moved[i]) != d[i])
			fail_msg("%s: piece %zu moved %d, the diff says %d", what, i, vm->moved && vm->moved[i], d[i]);
	cs_free(d);
}

static void check_input(const char *path, unsigned steps)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct vm vm;
	assert_int_equal(vm_init(&vm, support_load(path, NULL), &err), CS_OK);
	uint64_t rng = 17;
	char what[300];
	snprintf(what, sizeof what, "%s, as loaded", path);
	check_both_ways(&vm, what, -1, -1, &rng);
	for (unsigned s = 0; s < steps; s++) {
		random_step(&vm, &rng);
		size_t np = vm.session.src->npieces, nb = vm.session.cur.nblocks;
		long keep_piece = np ? (long)(next_rand(&rng) % np) : -1;
		long keep_block = (long)(next_rand(&rng) % (nb + 1));
		const struct vm_row *sel = vm_selected(&vm);
		snprintf(what, sizeof what, "%s, step %u (%s)", path, s, vm.hide_dropped ? "dropped hidden" : "dropped listed");
		check_moved(&vm, what);
		switch (next_rand(&rng) % 4) {
		case 0: /* keep the selection, as every change does */
			check_both_ways(&vm, what, sel ? sel->piece : -1, sel ? sel->block : -1, &rng);
			break;
		case 1:
			check_both_ways(&vm, what, keep_piece, -1, &rng);
			break;
		case 2:
			check_both_ways(&vm, what, -1, keep_block, &rng);
			break;
		default:
			check_both_ways(&vm, what, -1, -1, &rng);
		}
	}
	vm_fini(&vm);
}

static void test_samples_both_ways(void **state)
{
	(void)state;
	static const char *const inputs[] = {
		"samples/memory/coding-session.json", "samples/memory/long-session.json",
		"samples/memory/research-session.json", "samples/memory/task-stack.json",
		"samples/ledger/backup-incident.json", "samples/ledger/release-notes-worker.json",
		"samples/ledger/sqla-fork.json", "samples/loom/long-session.json", "samples/loom/parser-debug.json",
		"samples/loom/postmortem-buffer.json", "samples/manifest/bugfix/working-set.yml",
		"samples/manifest/cache-demo/working-set.yml", "samples/manifest/hidden-text/working-set.yml",
		"samples/manifest/over-budget/working-set.yml", "samples/manifest/research/working-set.yml",
		"samples/manifest/tuning/working-set.yml", "samples/claude-code/session.jsonl",
		"samples/requests/anthropic-tools.json", "samples/requests/openai-chat.json",
		"samples/requests/log-timestamp-fixed.jsonl", "samples/claude-code/agent-7c1e9b2d.jsonl",
		"tests/fixtures/ui/parser-fix/working-set.yml",
	};
	for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++)
		check_input(inputs[i], 60);
}

/* A memory snapshot squeezed so that most items drop: the dropped pieces
 * land under their sections' headings, many per bucket, out of input order. */
static void test_tight_budget_both_ways(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	static const char *const inputs[] = { "samples/memory/long-session.json", "samples/loom/long-session.json",
					      "samples/manifest/over-budget/working-set.yml" };
	for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
		struct vm vm;
		assert_int_equal(vm_init(&vm, support_load(inputs[i], NULL), &err), CS_OK);
		uint64_t rng = 5;
		if (vm_set_budget(&vm, "2k", &err) == CS_OK)
			check_both_ways(&vm, inputs[i], -1, -1, &rng);
		for (unsigned s = 0; s < 30; s++) {
			random_step(&vm, &rng);
			const struct vm_row *sel = vm_selected(&vm);
			check_both_ways(&vm, inputs[i], sel ? sel->piece : -1, sel ? sel->block : -1, &rng);
		}
		vm_fini(&vm);
	}
}

/* Sorted or filtered, the rows stay built one by one. */
static void test_sorted_and_filtered_materialized(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct vm vm;
	assert_int_equal(vm_init(&vm, support_load("samples/memory/long-session.json", NULL), &err), CS_OK);
	assert_true(vm.vr->on);
	vm_cycle_sort(&vm);
	assert_int_not_equal(vm.sort, VM_SORT_ORDER);
	assert_false(vm.vr->on);
	uint64_t rng = 3;
	check_both_ways(&vm, "sorted", -1, -1, &rng);
	while (vm.sort != VM_SORT_ORDER)
		vm_cycle_sort(&vm);
	assert_true(vm.vr->on);
	assert_int_equal(vm_set_filter(&vm, "a", &err), CS_OK);
	assert_false(vm.vr->on);
	check_both_ways(&vm, "filtered", -1, -1, &rng);
	vm_fini(&vm);
}

/* Out of memory at every allocation of an edit in turn: whatever rows
 * there are point into the assembly as it stands, and the next rebuild
 * gives the reference's rows. */
static void test_out_of_memory(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct vm vm;
	assert_int_equal(vm_init(&vm, support_load("samples/memory/long-session.json", NULL), &err), CS_OK);
	uint64_t rng = 11;
	size_t np = vm.session.src->npieces;
	for (long nth = 1; nth < 400; nth++) {
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next_rand(&rng) % np) };
		e.value = piece_excluded(&vm.session.src->pieces[e.piece]) ? 0 : 1;
		cs_alloc_fail_from(nth);
		(void)vm_apply(&vm, &e, &err);
		cs_alloc_fail_from(0);
		for (size_t i = 0; i < vm.nrows; i++) {
			struct vm_row r = vm_row_at(&vm, i);
			assert_true(r.piece < (long)np && r.block < (long)vm.session.cur.nblocks);
		}
		const struct vm_row *sel = vm_selected(&vm);
		check_both_ways(&vm, "after running out of memory", sel ? sel->piece : -1, sel ? sel->block : -1, &rng);
	}
	vm_fini(&vm);
	/* and at every allocation of opening, where the rows' arrays are first made */
	bool opened = false;
	for (long nth = 1; !opened && nth < 100000; nth++) {
		struct source *src = support_load("samples/memory/long-session.json", NULL);
		cs_alloc_fail_from(nth);
		int rc = vm_init(&vm, src, &err);
		cs_alloc_fail_from(0);
		opened = rc == CS_OK;
		if (opened)
			check_both_ways(&vm, "opened after running out of memory", -1, -1, &rng);
		vm_fini(&vm);
	}
	assert_true(opened);
}

/* A kind that takes the last assembly's results over and writes each one
 * again (those written back as they were drop out of its list of changes):
 * a heading per layer of the sample, then that layer's pieces in input
 * order, each excluded one dropped. */
static const char *const fake_layers[] = { "l0", "l1", "l2", "l3", "l4", "l5", "l6", "l7" };
static struct kind_ops reusing;

static int reusing_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	if (asm_init_reuse(a, run, ASM_DOCUMENT) != CS_OK || asm_grouping(a, "layer", fake_layers, 8) < 0)
		return cs_error_nomem(err);
	a->budget.limit = a->budget.usable = 1000000;
	for (int l = 0; l < 8; l++) {
		struct block *h = asm_block(a, -1, l, -1);
		h->flags |= BLOCK_MADE | BLOCK_HEADING;
		h->label = fake_layers[l];
		asm_span(a, "## section\n", 11, 11);
		for (size_t i = 0; i < src->npieces; i++) {
			const struct piece *p = &src->pieces[i];
			if (((p->layer % 8) + 8) % 8 != l)
				continue;
			if (piece_excluded(p)) {
				asm_drop(a, (long)i, REASON_EXCLUDED_BY_USER, NULL);
				continue;
			}
			asm_block(a, (long)i, l, -1);
			asm_span(a, p->text, p->text_bytes, (size_t)-1);
			asm_whole(a, (long)i, (long)a->nblocks - 1, p->tokens);
		}
	}
	return asm_finish(a, err);
}

/* Rows patched from the assembly's list of changes (the bits of what went
 * in and the counts kept from the last pass) against the reference. */
static void test_patched_from_changes(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct source *src = support_load("samples/memory/long-session.json", NULL);
	reusing = *src->kind;
	reusing.assemble = reusing_assemble;
	src->kind = &reusing;
	struct vm vm;
	assert_int_equal(vm_init(&vm, src, &err), CS_OK);
	uint64_t rng = 23;
	size_t np = vm.session.src->npieces;
	unsigned long patched = vm.vr->patched;
	for (unsigned s = 0; s < 80; s++) {
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next_rand(&rng) % np) };
		e.value = piece_excluded(&vm.session.src->pieces[e.piece]) ? 0 : 1;
		if (s % 9 == 8)
			vm_toggle_dropped(&vm);
		else
			assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
		if (s % 9 != 8)
			assert_true(vm.session.cur.reused && vm.session.cur.changes_valid);
		const struct vm_row *sel = vm_selected(&vm);
		long keep = sel ? sel->piece : -1, keep_block = sel ? sel->block : -1;
		struct shown fast;
		capture(&vm, &fast); /* as the edit left them: patched */
		check_both_ways(&vm, "patched from the changes", keep, keep_block, &rng);
		struct shown again;
		capture(&vm, &again);
		same_shown("patched, then read whole", &fast, &again);
		free(fast.rows);
		free(again.rows);
	}
	assert_true(vm.vr->patched > patched + 40); /* the edits were patched, not read whole */
	vm_fini(&vm);
}

/* The header selected (k above the first row) when an edit brings a
 * marker row to where the cursor was: the header stays selected and the
 * cursor leaves the marker (it stayed on it, the header let go, and the
 * detail read block -1 of the prompt). */
static void test_edit_from_the_header(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct vm vm;
	assert_int_equal(vm_init(&vm, support_load("samples/memory/task-stack.json", NULL), &err), CS_OK);
	assert_int_equal(vm.cursor, 0);
	assert_int_not_equal(vm_row_at(&vm, 0).type, VM_ROW_MARKER); /* the prompt is the baseline's */
	vm_move(&vm, -1);
	assert_true(vm.on_header);
	assert_int_equal(vm_cycle_option(&vm, "assembly", &err), CS_OK); /* S: linear, not the stack */
	assert_int_equal(vm_row_at(&vm, 0).type, VM_ROW_MARKER); /* the cache breaks before the first block */
	assert_true(vm.on_header);
	assert_int_not_equal(vm_row_at(&vm, vm.cursor).type, VM_ROW_MARKER);
	assert_true(vm_detail(&vm)); /* the header's detail */
	vm_move(&vm, 1); /* back to the list, on a row that is not a marker */
	assert_false(vm.on_header);
	assert_int_not_equal(vm_selected(&vm)->type, VM_ROW_MARKER);
	assert_true(vm_detail(&vm));
	vm_fini(&vm);
}

/* A row chosen from elsewhere (the prompt view's line, a search hit) is
 * the selection, even when the header was selected before: Space then acts
 * on its piece (it answered "select a piece first"). */
static void test_row_chosen_leaves_the_header(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct vm vm;
	assert_int_equal(vm_init(&vm, support_load("samples/loom/parser-debug.json", NULL), &err), CS_OK);
	vm_move(&vm, -1);
	assert_true(vm.on_header);
	assert_null(vm_selected(&vm));
	size_t b = vm.session.cur.nblocks - 1;
	vm_select_block(&vm, (long)b);
	assert_false(vm.on_header);
	assert_non_null(vm_selected(&vm));
	assert_int_equal(vm_selected(&vm)->block, (long)b);
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	vm_fini(&vm);
}

/* The pieces' layers kept beside the rows (a run under a heading is split
 * by them) stay across exclusions and are read again after any other edit,
 * which may relabel pieces (a step through a sequence does). */
static void test_layers_kept_across_exclusions(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct vm vm;
	assert_int_equal(vm_init(&vm, support_load("samples/memory/coding-session.json", NULL), &err), CS_OK);
	uint64_t rng = 31;
	struct source *src = vm.session.src;
	size_t np = src->npieces;
	for (unsigned s = 0; s < 12; s++) {
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next_rand(&rng) % np) };
		e.value = piece_excluded(&src->pieces[e.piece]) ? 0 : 1;
		assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
		check_both_ways(&vm, "exclusions", -1, -1, &rng);
	}
	assert_true(vm.vr->layers_read >= 1);
	unsigned long read = vm.vr->layers_read;
	for (unsigned s = 0; s < 12; s++) {
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next_rand(&rng) % np) };
		e.value = piece_excluded(&src->pieces[e.piece]) ? 0 : 1;
		assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
	}
	assert_int_equal(vm.vr->layers_read, read); /* kept */
	/* relabelled (as a step might), then an edit that is not an exclusion */
	int first = -1;
	for (size_t b = 0; b < vm.session.cur.nblocks && first < 0; b++)
		if (vm.session.cur.blocks[b].piece < 0)
			first = vm.session.cur.blocks[b].layer[0];
	for (size_t i = 0; i < np; i++)
		src->pieces[i].layer = src->pieces[i].layer == first ? first + 1 : first;
	assert_int_equal(vm_set_budget(&vm, "1k", &err), CS_OK);
	check_both_ways(&vm, "relabelled", -1, -1, &rng);
	assert_true(vm.vr->layers_read > read);
	vm_fini(&vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_both_ways),
		cmocka_unit_test(test_tight_budget_both_ways),
		cmocka_unit_test(test_sorted_and_filtered_materialized),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_patched_from_changes),
		cmocka_unit_test(test_edit_from_the_header),
		cmocka_unit_test(test_row_chosen_leaves_the_header),
		cmocka_unit_test(test_layers_kept_across_exclusions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
