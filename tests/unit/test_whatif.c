/* test_whatif.c: edits rendered to a what-if file and re-applied give the
 * same assembly; a file for another kind, or with a bad edit, is refused
 * with its position. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "edit.h"
#include "base/strbuf.h"
#include "whatif.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SAMPLE "samples/manifest/bugfix/working-set.yml"

static void make_edit(struct source *src, const char *name, const char *value, struct edit *e)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(edit_from_setting(src, name, value, e, &err), CS_OK);
	assert_int_equal(edit_apply(src, e, &err), CS_OK);
}

static void test_round_trip(void **state)
{
	(void)state;
	struct source *src = support_load(SAMPLE, NULL);
	struct edit edits[4];
	make_edit(src, "exclude", "logs/pytest-latest.log", &edits[0]);
	make_edit(src, "priority", "tests/test_bucket.py=0.85", &edits[1]);
	make_edit(src, "strategy", "src/throttle/bucket.py=end", &edits[2]);
	make_edit(src, "budget", "2500", &edits[3]);
	struct strbuf json = STRBUF_INIT;
	assert_int_equal(whatif_render(src, edits, 4, &json), CS_OK);
	assert_non_null(strstr(sb_str(&json), "\"setting\": \"priority\""));
	assert_non_null(strstr(sb_str(&json), "\"value\": \"tests/test_bucket.py=0.85\""));

	char *dir = support_tempdir();
	support_write(dir, "edits.json", sb_str(&json));
	struct source *again = support_load(SAMPLE, NULL);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(whatif_apply(again, support_path(dir, "edits.json"), &err), CS_OK);

	struct assembly a, b;
	support_assemble(src, &a);
	char *first = strdup(support_prompt(&a));
	support_assemble(again, &b);
	assert_string_equal(support_prompt(&b), first);
	assert_int_equal(a.budget.used, b.budget.used);
	assert_int_equal(b.budget.usable, 2500);
	free(first);
	asm_fini(&a);
	asm_fini(&b);
	source_free(again);
	source_free(src);
	sb_fini(&json);
	support_rmtree(dir);
	free(dir);
}

static void test_refusals_are_positioned(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct source *src = support_load(SAMPLE, NULL);
	struct cs_error err;
	support_write(dir, "loom.json", "{\"ctxscope_edits\": 1, \"kind\": \"loom\", \"edits\": []}");
	cs_error_clear(&err);
	assert_int_equal(whatif_apply(src, support_path(dir, "loom.json"), &err), CS_ESTRUCT);
	assert_string_equal(err.path, "kind");
	assert_int_equal(err.line, 1);

	support_write(dir, "bad.json", "{\"ctxscope_edits\": 1, \"kind\": \"manifest\",\n"
				       " \"edits\": [{\"setting\": \"budget\", \"value\": \"10k\"},\n"
				       "           {\"setting\": \"priority\", \"value\": \"nope=0.5\"}]}");
	cs_error_clear(&err);
	assert_int_equal(whatif_apply(src, support_path(dir, "bad.json"), &err), CS_EUSAGE);
	assert_string_equal(err.path, "edits[1]");
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 12);
	assert_non_null(strstr(err.file, "bad.json"));

	support_write(dir, "v2.json", "{\"ctxscope_edits\": 2, \"kind\": \"manifest\", \"edits\": []}");
	cs_error_clear(&err);
	assert_int_equal(whatif_apply(src, support_path(dir, "v2.json"), &err), CS_ETYPE);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* An edits file's tokenizer is read as the command line's --tokenizer is:
 * /dev/zero and a malformed rank file (an over-padded token) are refused
 * at the edit's place, a good rank file is taken. */
static void test_tokenizer_edit_checked(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct source *src = support_load(SAMPLE, NULL);
	struct cs_error err;
	char text[1024];
	support_write(dir, "over-padded.tiktoken", "IQ== 0\nYWJj== 1\n");
	support_write_byte_ranks(dir, "good.tiktoken");
	static const char *const values[] = { "/dev/zero", "over-padded.tiktoken", "good.tiktoken" };
	for (int i = 0; i < 3; i++) {
		char value[600];
		snprintf(value, sizeof value, "%s", i ? support_path(dir, values[i]) : values[i]);
		snprintf(text, sizeof text, "{\"ctxscope_edits\": 1, \"kind\": \"manifest\",\n"
					    " \"edits\": [{\"setting\": \"tokenizer\", \"value\": \"%s\"}]}", value);
		support_write(dir, "edits.json", text);
		cs_error_clear(&err);
		int rc = whatif_apply(src, support_path(dir, "edits.json"), &err);
		if (i == 2) {
			assert_int_equal(rc, CS_OK);
			continue;
		}
		assert_int_equal(rc, CS_EUSAGE);
		assert_string_equal(err.path, "edits[0]");
		assert_int_equal(err.line, 2);
		assert_non_null(strstr(err.message, i == 0 ? "not a regular file" : "line 2: not a .tiktoken rank file"));
	}
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals_are_positioned),
		cmocka_unit_test(test_tokenizer_edit_checked),
	};
	return cmocka_run_group_tests_name("whatif", tests, NULL, NULL);
}
