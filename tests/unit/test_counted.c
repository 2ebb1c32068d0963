/* test_counted.c: the pieces of a whole request's count (issue 35) that the
 * node comparison (tests/tokenizer/run) does not reach one by one: JSON as
 * JavaScript writes it (numbers above all), the models table's reading and
 * how a model's name finds its row (its own, or its family's nearest). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "json/doc.h"
#include "kinds/request/counted.h"
#include "support.h"
#include "tokens/overhead.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_js(const char *json, const char *want)
{
	cJSON *v = cJSON_Parse(json);
	assert_non_null(v);
	struct strbuf sb = STRBUF_INIT;
	request_js_stringify(&sb, v);
	if (strcmp(sb_str(&sb), want))
		fprintf(stderr, "%s: got %s, want %s\n", json, sb_str(&sb), want);
	assert_string_equal(sb_str(&sb), want);
	sb_fini(&sb);
	cJSON_Delete(v);
}

/* What node prints for JSON.stringify of the same values. */
static void test_js_stringify(void **state)
{
	(void)state;
	assert_js("[0.1, 1e-7, 1e21, 1e20, 123456789012, -0.25, 3.0, 100, 0.000001, 1.5e-6]",
		  "[0.1,1e-7,1e+21,100000000000000000000,123456789012,-0.25,3,100,0.000001,0.0000015]");
	assert_js("[1.7976931348623157e308, 5e-324, 0.30000000000000004, 2.5e-5, -1e-7, 12.5, 0]",
		  "[1.7976931348623157e+308,5e-324,0.30000000000000004,0.000025,-1e-7,12.5,0]");
	assert_js("{\"a\": \"tab\\there \\\"q\\\" back\\\\ \\u0001 é ✅\", \"b\": [true, false, null], \"c\": {}}",
		  "{\"a\":\"tab\\there \\\"q\\\" back\\\\ \\u0001 é ✅\",\"b\":[true,false,null],\"c\":{}}");
}

static const char table[] =
	"# id encoding ...\n"
	"anthropic/claude-3.5-haiku claude 1.1 6 2 317 53 5 13 12 5 9 12 13\n"
	"anthropic/claude-3.5-sonnet claude 1.1 6 2 366 53 5 13 12 5 9 12 13\n"
	"anthropic/claude-3.5-sonnet-20240620 claude 1.1 6 2 347 53 5 13 12 5 9 12 13\n"
	"anthropic/claude-opus-4.1 claude 1.1 6 2 366 53 5 13 12 5 9 12 13\n"
	"anthropic/claude-opus-4.5 claude 1.1 6 2 549 53 5 13 12 5 9 12 13\n"
	"anthropic/claude-sonnet-4.5 claude 1.1 6 2 549 53 5 13 12 5 9 12 13\n"
	"openai/gpt-4o o200k_base 1 3 3 14 9 2 4 3 2 3 0 0\n";

static void assert_row(const struct overheads *t, const char *model, const char *want, bool want_nearest)
{
	bool nearest = !want_nearest;
	const struct overhead *o = overheads_for(t, model, &nearest);
	if (!want) {
		assert_null(o);
		return;
	}
	assert_non_null(o);
	if (strcmp(o->id, want))
		fprintf(stderr, "%s: got %s, want %s\n", model, o->id, want);
	assert_string_equal(o->id, want);
	assert_int_equal(nearest, want_nearest);
}

static void test_model_rows(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "t.models", table);
	struct overheads t;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(overheads_load(&t, support_path(dir, "t.models"), &err), CS_OK);
	assert_int_equal(t.n, 7);
	assert_int_equal(t.rows[1].tools_exist, 366);
	assert_true(t.rows[0].content_multiplier > 1.09 && t.rows[0].content_multiplier < 1.11);
	assert_row(&t, "claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5", false);
	assert_row(&t, "us.anthropic.claude-opus-4-1-20250805-v1:0", "anthropic/claude-opus-4.1", false);
	assert_row(&t, "claude-3-5-sonnet-20240620", "anthropic/claude-3.5-sonnet-20240620", false);
	assert_row(&t, "claude-3-5-sonnet-20241022", "anthropic/claude-3.5-sonnet", false);
	assert_row(&t, "anthropic/claude-3.5-haiku", "anthropic/claude-3.5-haiku", false);
	assert_row(&t, "claude-opus-4-6", "anthropic/claude-opus-4.5", true);     /* its family, nearest below */
	assert_row(&t, "claude-haiku-4-5", "anthropic/claude-3.5-haiku", true);  /* the family's only row */
	assert_row(&t, "claude-fable-5-1", "anthropic/claude-opus-4.5", true);   /* no family: the newest */
	assert_row(&t, "gpt-4o-2024-08-06", "openai/gpt-4o", false);
	assert_row(&t, "gemini-2.5-pro", NULL, false);
	overheads_fini(&t);
	/* a broken table names its line */
	support_write(dir, "bad.models", "# x\nanthropic/claude-x claude 1.1 6 2\n");
	assert_int_equal(overheads_load(&t, support_path(dir, "bad.models"), &err), CS_ESYNTAX);
	assert_int_equal(err.line, 2);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_js_stringify),
		cmocka_unit_test(test_model_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
