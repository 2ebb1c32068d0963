/* test_session.c: the one way to change the session (vm_change): edit, undo
 * and redo say what moved the same way, the cache part included, and a
 * change that cannot be assembled is rolled back (source, history and the
 * redo stack as before). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "base/alloc.h"
#include "diff.h"
#include "report.h"
#include "base/strbuf.h"
#include "vm/viewmodel.h"

#include <string.h>

#define FIXTURE "tests/fixtures/ui/parser-fix/working-set.yml"

static void open_vm(struct vm *vm)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(vm, support_load(FIXTURE, NULL), &err), CS_OK);
}

/* The first row of the prompt that is a piece: excluding it breaks the cache. */
static void select_first_piece(struct vm *vm)
{
	for (size_t i = 0; i < vm->nrows; i++)
		if (support_row(vm, i)->type == VM_ROW_BLOCK && support_row(vm, i)->piece >= 0) {
			vm->cursor = i;
			return;
		}
	fail();
}

static char *report_of(const struct vm *vm)
{
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_TEXT };
	assert_int_equal(report_write(&vm->session.cur, &opt, &out), CS_OK);
	return out.data;
}

static void test_undo_and_redo_say_the_cache(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	select_first_piece(&vm);
	struct edit e = { .type = EDIT_EXCLUDE, .piece = vm_selected_piece(&vm), .value = 1 };
	struct vm_change c;
	assert_int_equal(vm_change(&vm, VM_STEP_EDIT, &e, &c, &err), CS_OK);
	assert_true(c.identical_before);
	assert_false(c.identical_after);
	assert_true(c.used_after < c.used_before);
	assert_int_equal(c.cached_after, vm.cache.cached_tokens);
	assert_non_null(strstr(sb_str(&vm.status), " out (-")); /* what moved */
	assert_non_null(strstr(sb_str(&vm.status), "; cache "));
	char *edited = cs_strdup(sb_str(&vm.status));

	assert_int_equal(vm_change(&vm, VM_STEP_UNDO, NULL, &c, &err), CS_OK);
	assert_true(c.identical_after);
	assert_int_equal(c.used_after, vm.session.cur.budget.used);
	assert_non_null(strstr(sb_str(&vm.status), "undone: excluded"));
	assert_non_null(strstr(sb_str(&vm.status), "; prompt same as the baseline"));

	/* the redo says what the edit said, the cache part included */
	assert_int_equal(vm_redo(&vm, &err), CS_OK);
	const char *s = sb_str(&vm.status);
	assert_non_null(strstr(s, "redone: "));
	assert_string_equal(s + strlen("redone: "), edited);
	assert_non_null(strstr(s, "; cache "));
	cs_free(edited);
	vm_fini(&vm);
}

/* Out of memory at every allocation of a change: either it is made, or the
 * source, the history and its redo stack are as before it. */
static void test_failed_change_rolls_back(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	select_first_piece(&vm);
	long piece = vm_selected_piece(&vm);
	/* something to redo, which a failed edit must not lose */
	assert_int_equal(vm_set_budget(&vm, "1k", &err), CS_OK);
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	char *before = report_of(&vm);
	bool made = false;
	size_t failed = 0;
	for (long n = 1; !made && n < 100000; n++) {
		struct edit e = { .type = EDIT_EXCLUDE, .piece = piece, .value = 1 };
		cs_alloc_fail_from(n);
		int rc = vm_change(&vm, VM_STEP_EDIT, &e, NULL, &err);
		cs_alloc_fail_from(0);
		if (rc == CS_OK) {
			made = true;
			break;
		}
		if (vm.session.hist.ndone != 0) /* recorded and assembled: only the screen's figures ran out */
			break;
		failed++;
		assert_int_equal(vm.session.hist.nundone, 1);
		assert_int_equal(vm.session.src->pieces[piece].user_excluded, -1);
		char *now = report_of(&vm);
		assert_string_equal(now, before);
		cs_free(now);
	}
	assert_true(failed > 0);
	cs_free(before);
	vm_fini(&vm);
}

/* The view-model's moved flags (it skips the diff when no piece changed
 * its order) agree with the diff's, piece by piece. */
static void assert_moved_as_diff(const struct vm *vm, bool want_some)
{
	bool *d = diff_moved(&vm->session.base, &vm->session.cur);
	assert_non_null(d);
	size_t some = 0;
	for (size_t i = 0; i < vm->session.src->npieces; i++) {
		bool mine = vm->moved && vm->moved[i];
		assert_int_equal(mine, d[i]);
		some += d[i];
	}
	assert_int_equal(some > 0, want_some);
	cs_free(d);
}

static void test_moved_flags_match_the_diff(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	assert_moved_as_diff(&vm, false);
	select_first_piece(&vm);
	struct edit e = { .type = EDIT_EXCLUDE, .piece = vm_selected_piece(&vm), .value = 1 };
	assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
	assert_moved_as_diff(&vm, false); /* one piece out: the others keep their order */
	long piece = source_find_piece(vm.session.src, "src/http_parser.c");
	assert_true(piece >= 0);
	struct edit up = { .type = EDIT_PRIORITY, .piece = piece, .value = 0.95 };
	assert_int_equal(vm_apply(&vm, &up, &err), CS_OK);
	assert_moved_as_diff(&vm, true); /* pulled to the front: moved */
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_moved_as_diff(&vm, false);
	/* B pins the prompt as it is: the order compared with is the new
	 * baseline's, not the one the session opened with. */
	assert_int_equal(vm_apply(&vm, &up, &err), CS_OK);
	assert_int_equal(vm_pin_baseline(&vm, &err), CS_OK);
	assert_moved_as_diff(&vm, false);
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_moved_as_diff(&vm, true); /* back in its old place: moved from the pinned one */
	vm_fini(&vm);
}

/* The dropped and truncated counts (made with the rows) are the
 * assembly's, in prompt order and sorted, after an edit. */
static void assert_counts(const struct vm *vm)
{
	size_t dropped = 0, truncated = 0, d, t;
	for (size_t i = 0; i < vm->session.src->npieces; i++) {
		dropped += vm->session.cur.results[i].outcome == OUTCOME_DROPPED;
		truncated += vm->session.cur.results[i].outcome == OUTCOME_TRUNCATED;
	}
	vm_counts(vm, &d, &t);
	assert_int_equal(d, dropped);
	assert_int_equal(t, truncated);
}

static void test_counts_follow_the_edits(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm);
	struct cs_error err;
	cs_error_clear(&err);
	assert_counts(&vm);
	select_first_piece(&vm);
	struct edit e = { .type = EDIT_EXCLUDE, .piece = vm_selected_piece(&vm), .value = 1 };
	assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
	assert_counts(&vm);
	size_t before, t;
	vm_counts(&vm, &before, &t);
	assert_true(vm_set_sort(&vm, "tokens"));
	struct edit back = { .type = EDIT_EXCLUDE, .piece = e.piece, .value = 0 };
	assert_int_equal(vm_apply(&vm, &back, &err), CS_OK); /* rows built sorted */
	assert_counts(&vm);
	size_t after;
	vm_counts(&vm, &after, &t);
	assert_int_equal(after + 1, before);
	vm_fini(&vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_undo_and_redo_say_the_cache),
		cmocka_unit_test(test_failed_change_rolls_back),
		cmocka_unit_test(test_moved_flags_match_the_diff),
		cmocka_unit_test(test_counts_follow_the_edits),
	};
	return cmocka_run_group_tests_name("session", tests, NULL, NULL);
}
