/* test_reload.c: loading a file again as it was loaded (source_reload) and
 * telling that a file changed (load_stamp), which the inspector's reload
 * and --follow stand on. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kind.h"
#include "load.h"
#include "source.h"
#include "support.h"
#include "vm/viewmodel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char ledger_v1[] =
	"{\"turns\": [{\"id\": \"T1\", \"parent_turn_id\": null}],\n"
	" \"messages\": [{\"id\": \"M1\", \"turn_id\": \"T1\", \"role\": \"user\", \"content\": \"hello\"}],\n"
	" \"sessions\": [], \"threads\": [], \"tool_calls\": [], \"compactions\": []}\n";
static const char ledger_v2[] =
	"{\"turns\": [{\"id\": \"T1\", \"parent_turn_id\": null}, {\"id\": \"T2\", \"parent_turn_id\": \"T1\"}],\n"
	" \"messages\": [{\"id\": \"M1\", \"turn_id\": \"T1\", \"role\": \"user\", \"content\": \"hello\"},\n"
	"  {\"id\": \"M2\", \"turn_id\": \"T2\", \"role\": \"user\", \"content\": \"and again\"}],\n"
	" \"sessions\": [], \"threads\": [], \"tool_calls\": [], \"compactions\": []}\n";

static void test_reload_reads_the_file_as_it_is_now(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ledger.json", ledger_v1);
	char path[512];
	snprintf(path, sizeof path, "%s", support_path(dir, "ledger.json"));
	struct source *src = support_load(path, "ledger");
	assert_int_equal(src->npieces, 1);
	struct load_stamp before, after;
	load_stamp_take(path, &before);
	load_stamp_take(path, &after);
	assert_true(load_stamp_same(&before, &after));

	support_write(dir, "ledger.json", ledger_v2);
	load_stamp_take(path, &after);
	assert_false(load_stamp_same(&before, &after)); /* the size changed */

	struct source *again = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(source_reload(src, &again, &err), CS_OK);
	assert_int_equal(again->npieces, 2);
	assert_string_equal(again->kind->name, "ledger");
	assert_int_equal(src->npieces, 1); /* the old source is untouched */
	source_free(again);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_reload_keeps_the_kind_and_reports_a_broken_file(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ledger.json", ledger_v1);
	char path[512];
	snprintf(path, sizeof path, "%s", support_path(dir, "ledger.json"));
	struct source *src = support_load(path, NULL);
	support_write(dir, "ledger.json", "{\"turns\": [\n");
	struct source *again = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_not_equal(source_reload(src, &again, &err), CS_OK);
	assert_null(again);
	assert_true(err.line > 0);
	assert_non_null(strstr(err.file, "ledger.json"));
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static const char ledger_v3[] = /* M1's turn is gone */
	"{\"turns\": [{\"id\": \"T2\", \"parent_turn_id\": null}],\n"
	" \"messages\": [{\"id\": \"M2\", \"turn_id\": \"T2\", \"role\": \"user\", \"content\": \"and again\"}],\n"
	" \"sessions\": [], \"threads\": [], \"tool_calls\": [], \"compactions\": []}\n";

static long row_of_piece(const struct vm *vm, long piece)
{
	for (size_t r = 0; r < vm->nrows; r++)
		if (support_row(vm, r)->piece == piece)
			return (long)r;
	return -1;
}

/* Reads the file again into the view-model, as R does. */
static int reload_vm(struct vm *vm, struct cs_error *err)
{
	struct source *fresh = NULL;
	int rc = source_reload(vm->session.src, &fresh, err);
	return rc == CS_OK ? vm_reload(vm, fresh, err) : rc;
}

static const char ledger_v4[] = /* v2 and a third turn */
	"{\"turns\": [{\"id\": \"T1\", \"parent_turn_id\": null}, {\"id\": \"T2\", \"parent_turn_id\": \"T1\"},\n"
	"  {\"id\": \"T3\", \"parent_turn_id\": \"T2\"}],\n"
	" \"messages\": [{\"id\": \"M1\", \"turn_id\": \"T1\", \"role\": \"user\", \"content\": \"hello\"},\n"
	"  {\"id\": \"M2\", \"turn_id\": \"T2\", \"role\": \"user\", \"content\": \"and again\"},\n"
	"  {\"id\": \"M3\", \"turn_id\": \"T3\", \"role\": \"user\", \"content\": \"a third time\"}],\n"
	" \"sessions\": [], \"threads\": [], \"tool_calls\": [], \"compactions\": []}\n";

static void test_vm_reload_keeps_edits_selection_and_baseline(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ledger.json", ledger_v2);
	char path[512];
	snprintf(path, sizeof path, "%s", support_path(dir, "ledger.json"));
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load(path, NULL), &err), CS_OK);
	long m1 = source_find_piece(vm.session.src, "M1"), m2 = source_find_piece(vm.session.src, "M2");
	assert_true(m1 >= 0 && m2 >= 0);
	vm.cursor = (size_t)row_of_piece(&vm, m1);
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	vm.cursor = (size_t)row_of_piece(&vm, m2);
	assert_int_equal(vm_selected_piece(&vm), m2);
	struct source *loaded = vm.session.src;

	support_write(dir, "ledger.json", ledger_v4);
	assert_int_equal(reload_vm(&vm, &err), CS_OK);
	assert_ptr_not_equal(vm.session.src, loaded);
	assert_ptr_equal(vm.session.base_src, loaded); /* the baseline keeps its source */
	assert_ptr_equal(vm.session.base.src, loaded);
	assert_int_equal(vm.session.src->npieces, 3);
	m1 = source_find_piece(vm.session.src, "M1");
	m2 = source_find_piece(vm.session.src, "M2");
	long m3 = source_find_piece(vm.session.src, "M3");
	assert_true(piece_excluded(&vm.session.src->pieces[m1])); /* the edit, made again */
	assert_int_equal(vm_selected_piece(&vm), m2);      /* the selection, on its piece */
	assert_false(vm.status_error);
	assert_non_null(strstr(sb_str(&vm.status), "reloaded: 2 -> 3 pieces"));
	assert_non_null(strstr(sb_str(&vm.status), "1 edit made again"));
	assert_non_null(strstr(sb_str(&vm.status), "; cache 0 read")); /* M1 excluded: against the pinned baseline */
	long r3 = row_of_piece(&vm, m3);
	assert_true(r3 >= 0);
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, r3)), '*'); /* new since the baseline */
	long r2 = row_of_piece(&vm, m2);
	assert_int_equal(vm_row_flag(&vm, support_row(&vm, r2)), ' '); /* as in the baseline */

	/* The history is the fresh source's: undo includes M1 again. */
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_false(piece_excluded(&vm.session.src->pieces[m1]));

	/* Pinning the baseline frees the old source. */
	assert_int_equal(vm_redo(&vm, &err), CS_OK);
	assert_int_equal(vm_pin_baseline(&vm, &err), CS_OK);
	assert_null(vm.session.base_src);
	assert_null(vm.session.base_piece);

	/* A reload where the edited piece is gone drops that edit and says so. */
	support_write(dir, "ledger.json", ledger_v3);
	assert_int_equal(reload_vm(&vm, &err), CS_OK);
	assert_int_equal(vm.session.src->npieces, 1);
	assert_non_null(strstr(sb_str(&vm.status), "0 edits made again, 1 dropped (their pieces are gone)"));
	vm_fini(&vm);
	support_rmtree(dir);
	free(dir);
}

static void test_stamp_of_a_missing_file(void **state)
{
	(void)state;
	struct load_stamp s;
	load_stamp_take("/nonexistent/ctxscope/none.db", &s);
	assert_int_equal(s.size, 0);
	assert_int_equal(s.mtime_ns, 0);
	assert_int_equal(s.wal_size, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reload_reads_the_file_as_it_is_now),
		cmocka_unit_test(test_reload_keeps_the_kind_and_reports_a_broken_file),
		cmocka_unit_test(test_vm_reload_keeps_edits_selection_and_baseline),
		cmocka_unit_test(test_stamp_of_a_missing_file),
	};
	return cmocka_run_group_tests_name("reload", tests, NULL, NULL);
}
