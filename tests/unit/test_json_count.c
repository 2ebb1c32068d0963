/* test_json_count.c: json_get_count, the one reader of token counts: whole
 * numbers from 0 are read; -5, 1.5, 1e999, 2^64 and "12" are refused with a
 * warning that names the line, column and path and quotes the value as
 * written; absent and null leave the default; a JSON Lines line's number
 * shifts the line; control bytes never reach the warning. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "json/doc.h"

#include <string.h>

/* Parses text and reads usage.<key> of its top object as a count. */
static int count_in(const char *text, long first_line, const char *key, long *out, char *warn, size_t n)
{
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse(&d, text, strlen(text), &err), CS_OK);
	const cJSON *u = json_member(d.root, "usage");
	struct jpath at = JPATH_KEY(JPATH_ROOT, "usage");
	int rc = json_get_count(&d, first_line, u, &at, key, out, warn, n);
	json_doc_free(&d);
	return rc;
}

static void counts_are_read(void **state)
{
	(void)state;
	char w[200];
	long v = -1;
	assert_int_equal(count_in("{\"usage\":{\"input_tokens\":1234}}", 1, "input_tokens", &v, w, sizeof w),
			 JSON_COUNT_OK);
	assert_int_equal(v, 1234);
	assert_string_equal(w, "");
	assert_int_equal(count_in("{\"usage\":{\"input_tokens\":0}}", 1, "input_tokens", &v, w, sizeof w), JSON_COUNT_OK);
	assert_int_equal(v, 0);
	assert_int_equal(count_in("{\"usage\":{\"a\":1e3}}", 1, "a", &v, w, sizeof w), JSON_COUNT_OK);
	assert_int_equal(v, 1000);
	assert_int_equal(count_in("{\"usage\":{\"a\":9000000000000000}}", 1, "a", &v, w, sizeof w), JSON_COUNT_OK);
	assert_int_equal(v, 9000000000000000L);
	v = 77;
	assert_int_equal(count_in("{\"usage\":{\"a\":null}}", 1, "a", &v, w, sizeof w), JSON_COUNT_ABSENT);
	assert_int_equal(count_in("{\"usage\":{}}", 1, "a", &v, w, sizeof w), JSON_COUNT_ABSENT);
	assert_int_equal(count_in("{\"usage\":5}", 1, "a", &v, w, sizeof w), JSON_COUNT_ABSENT);
	assert_int_equal(v, 77);
}

static void bad(const char *text, long first_line, const char *expected)
{
	char w[200];
	long v = 77;
	assert_int_equal(count_in(text, first_line, "input_tokens", &v, w, sizeof w), JSON_COUNT_BAD);
	assert_int_equal(v, 77);
	assert_string_equal(w, expected);
}

static void impossible_counts_are_warned(void **state)
{
	(void)state;
	bad("{\"usage\":{\"input_tokens\":-5}}", 1, "line 1, column 26: usage.input_tokens is -5, not a count (negative)");
	bad("{\"usage\":{\"input_tokens\":1.5}}", 1,
	    "line 1, column 26: usage.input_tokens is 1.5, not a count (not a whole number)");
	bad("{\"usage\":{\"input_tokens\":1e999}}", 1,
	    "line 1, column 26: usage.input_tokens is 1e999, not a count (too big)");
	bad("{\"usage\":{\"input_tokens\":18446744073709551616}}", 12,
	    "line 12, column 26: usage.input_tokens is 18446744073709551616, not a count (too big)");
	bad("{\"usage\":{\"input_tokens\":9000000000000001.0e1}}", 1,
	    "line 1, column 26: usage.input_tokens is 9000000000000001.0e1, not a count (too big)");
	bad("{\"usage\":\n {\"cache\":1,\n  \"input_tokens\":\"12\"}}", 40,
	    "line 42, column 18: usage.input_tokens is a string \"12\", not a count");
	bad("{\"usage\":{\"input_tokens\":true}}", 1, "line 1, column 26: usage.input_tokens is a boolean, not a count");
	bad("{\"usage\":{\"input_tokens\":[1]}}", 1, "line 1, column 26: usage.input_tokens is an array, not a count");
	/* a control byte (cJSON takes it raw) and a long string are quoted safely */
	bad("{\"usage\":{\"input_tokens\":\"a\x1b[2Jb\"}}", 1,
	    "line 1, column 26: usage.input_tokens is a string \"a?[2Jb\", not a count");
	bad("{\"usage\":{\"input_tokens\":\"0123456789012345678901234567890123456789\"}}", 1,
	    "line 1, column 26: usage.input_tokens is a string \"0123456789012345678901234567890123...\", not a count");
}

static void without_a_document(void **state)
{
	(void)state;
	cJSON *o = cJSON_Parse("{\"n\":-5,\"m\":7}");
	assert_non_null(o);
	char w[100];
	long v = 0;
	assert_int_equal(json_get_count(NULL, 1, o, JPATH_ROOT, "n", &v, w, sizeof w), JSON_COUNT_BAD);
	assert_string_equal(w, "n is -5, not a count (negative)");
	assert_int_equal(json_get_count(NULL, 1, o, JPATH_ROOT, "n", &v, NULL, 0), JSON_COUNT_BAD);
	assert_int_equal(json_get_count(NULL, 1, o, JPATH_ROOT, "m", &v, NULL, 0), JSON_COUNT_OK);
	assert_int_equal(v, 7);
	char tiny[10];
	assert_int_equal(json_get_count(NULL, 1, o, JPATH_ROOT, "n", &v, tiny, sizeof tiny), JSON_COUNT_BAD);
	assert_int_equal(strlen(tiny), 9);
	cJSON_Delete(o);
}

/* json_count_at: an object named by the caller is found in the tree for its
 * place; a text held in a string of the file names the line alone; the
 * place is handed back for the warning list. */
static void named_and_foreign(void **state)
{
	(void)state;
	const char *text = "{\"r\":[{\"x\":1},\n {\"usage\":{\"out\":-2}}]}";
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse(&d, text, strlen(text), &err), CS_OK);
	const cJSON *u = json_member(cJSON_GetArrayItem(d.root->child, 1), "usage");
	char w[200];
	long v = 9;
	struct json_count_place pl = { .d = &d, .first_line = 7, .name = "response.usage" };
	assert_int_equal(json_count_at(&pl, u, NULL, "out", &v, w, sizeof w), JSON_COUNT_BAD);
	assert_string_equal(w, "line 8, column 18: response.usage.out is -2, not a count (negative)");
	assert_int_equal(pl.line, 8);
	assert_int_equal(pl.column, 18);
	pl = (struct json_count_place){ .d = &d, .first_line = 7, .foreign = true, .name = "response.body_raw.usage" };
	assert_int_equal(json_count_at(&pl, u, NULL, "out", &v, w, sizeof w), JSON_COUNT_BAD);
	assert_string_equal(w, "line 7: response.body_raw.usage.out is -2, not a count (negative)");
	assert_int_equal(pl.column, 0);
	assert_int_equal(v, 9);
	/* the strict form: an error at the value's place */
	struct jpath rp = JPATH_KEY(JPATH_ROOT, "r"), ep = JPATH_INDEX(&rp, 1), up = JPATH_KEY(&ep, "usage");
	assert_int_equal(json_require_count(&d, u, &up, "out", &v, &err), CS_ETYPE);
	assert_string_equal(err.message, "-2 is not a count (negative)");
	assert_int_equal(err.line, 2);
	assert_int_equal(err.column, 18);
	json_doc_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_are_read),
		cmocka_unit_test(impossible_counts_are_warned),
		cmocka_unit_test(without_a_document),
		cmocka_unit_test(named_and_foreign),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
