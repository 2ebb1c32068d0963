/* test_counted.c: the pieces of a whole request's count (issue 35) that the
 * node comparison (tests/tokenizer/run) does not reach one by one: JSON as
 * JavaScript writes it (numbers above all), the models table's reading and
 * how a model's name finds its row (its own, or its family's nearest), and
 * the tool-use system prompt by tool_choice. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/strbuf.h"
#include "json/doc.h"
#include "kinds/request/counted.h"
#include "kinds/request/request.h"
#include "support.h"
#include "tokens/overhead.h"
#include "tokens/tokenizer.h"

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

/* Anthropic's list of the tool-use system prompt by model and tool_choice:
 * a model's own row (dated Sonnet 3.5 apart), a family's nearest, none for
 * a model that is not Claude. */
static void test_tool_prompt_rows(void **state)
{
	(void)state;
	bool nearest = true;
	assert_int_equal(overhead_tool_prompt("claude-sonnet-4-20250514", false, &nearest), 346);
	assert_false(nearest);
	assert_int_equal(overhead_tool_prompt("claude-sonnet-4-20250514", true, &nearest), 313);
	assert_int_equal(overhead_tool_prompt("claude-3-5-haiku-20241022", false, &nearest), 264);
	assert_int_equal(overhead_tool_prompt("claude-3-5-haiku-20241022", true, &nearest), 340);
	assert_int_equal(overhead_tool_prompt("claude-3-opus-20240229", true, &nearest), 281);
	assert_int_equal(overhead_tool_prompt("claude-3-sonnet-20240229", false, &nearest), 159);
	assert_int_equal(overhead_tool_prompt("claude-3-5-sonnet-20240620", false, &nearest), 294);
	assert_int_equal(overhead_tool_prompt("claude-3-5-sonnet-20241022", false, &nearest), 346);
	assert_int_equal(overhead_tool_prompt("anthropic.claude-3-haiku-20240307-v1:0", true, &nearest), 340);
	assert_false(nearest);
	assert_int_equal(overhead_tool_prompt("claude-opus-4-7", true, &nearest), 313); /* Opus 4.6's */
	assert_true(nearest);
	assert_int_equal(overhead_tool_prompt("claude-fable-5-1", false, &nearest), 346); /* the newest */
	assert_true(nearest);
	assert_int_equal(overhead_tool_prompt("gpt-4o", true, &nearest), -1);
	assert_false(nearest);
}

/* The whole count of body (a tool and one message) with model and
 * tool_choice (JSON, or NULL for none given). */
static long count_choice(struct tokenizer *t, const char *model, const char *choice, struct req_counted *c)
{
	static const struct overhead row = { .id = "test", .encoding = "claude", .content_multiplier = 1.0, .base = 6,
					     .per_message = 2, .tools_exist = 366, .per_tool = 53 };
	char json[512];
	snprintf(json, sizeof json,
		 "{\"model\": \"%s\", %s%s%s \"tools\": [{\"name\": \"t\", \"input_schema\": {\"type\": \"object\"}}],"
		 " \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}",
		 model, choice ? "\"tool_choice\": " : "", choice ? choice : "", choice ? "," : "");
	cJSON *body = cJSON_Parse(json);
	assert_non_null(body);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(request_count_body(t, &row, REQ_ANTHROPIC, body, 0, c, &err), CS_OK);
	cJSON_Delete(body);
	return c->tokens;
}

/* tool_choice any or tool moves the tool-use system prompt by the listed
 * difference from auto; none and no choice are auto; a model that is not
 * Claude keeps the table's one figure. */
static void test_tool_choice_count(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct tokenizer *t = support_bytes_tokenizer(dir);
	struct req_counted c;
	long base = count_choice(t, "claude-sonnet-4-20250514", NULL, &c);
	assert_int_equal(c.tool_prompt, 366);
	assert_string_equal(c.tool_choice, "auto");
	assert_int_equal(count_choice(t, "claude-sonnet-4-20250514", "{\"type\": \"auto\"}", &c), base);
	assert_int_equal(count_choice(t, "claude-sonnet-4-20250514", "{\"type\": \"none\"}", &c), base);
	assert_int_equal(count_choice(t, "claude-sonnet-4-20250514", "{\"type\": \"any\"}", &c), base - 33);
	assert_int_equal(c.tool_prompt, 333);
	assert_string_equal(c.tool_choice, "any");
	assert_int_equal(count_choice(t, "claude-sonnet-4-20250514", "{\"type\": \"tool\", \"name\": \"t\"}", &c),
			 base - 33);
	long haiku = count_choice(t, "claude-3-5-haiku-20241022", NULL, &c);
	assert_int_equal(count_choice(t, "claude-3-5-haiku-20241022", "{\"type\": \"any\"}", &c), haiku + 76);
	assert_false(c.tool_prompt_nearest);
	long opus3 = count_choice(t, "claude-3-opus-20240229", NULL, &c);
	assert_int_equal(count_choice(t, "claude-3-opus-20240229", "{\"type\": \"tool\"}", &c), opus3 - 249);
	/* OpenAI's words for a Claude model behind a proxy */
	assert_int_equal(count_choice(t, "claude-3-5-haiku-20241022", "\"required\"", &c), haiku + 76);
	/* the list lacks it: its family's nearest */
	long opus7 = count_choice(t, "claude-opus-4-7", NULL, &c);
	assert_int_equal(count_choice(t, "claude-opus-4-7", "{\"type\": \"any\"}", &c), opus7 - 33);
	assert_true(c.tool_prompt_nearest);
	long gpt = count_choice(t, "gpt-4o", NULL, &c);
	assert_int_equal(count_choice(t, "gpt-4o", "\"required\"", &c), gpt);
	assert_null(c.tool_choice);
	tokenizer_close(t);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_js_stringify),
		cmocka_unit_test(test_model_rows),
		cmocka_unit_test(test_tool_prompt_rows),
		cmocka_unit_test(test_tool_choice_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
