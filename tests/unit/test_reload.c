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
		cmocka_unit_test(test_stamp_of_a_missing_file),
	};
	return cmocka_run_group_tests_name("reload", tests, NULL, NULL);
}
