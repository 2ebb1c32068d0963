/* test_thinking.c: the thinking blocks of earlier turns in a provider
 * request, by the one rule both kinds ask (model_keeps_prior_thinking,
 * caching.md section 1; its cases are test_models' test_prior_thinking,
 * the Claude Code replay test_claude_code's test_shape_thinking_earlier):
 * for a model that strips them the request kind leaves them out of the
 * units and of the whole count, and says so among the facts; the thinking
 * of the turn in progress (before a tool result) is sent; for a model that
 * keeps them, every block is there. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "assembly.h"
#include "json/doc.h"
#include "kinds/request/counted.h"
#include "kinds/request/request.h"
#include "source.h"
#include "support.h"
#include "tokens/overhead.h"
#include "tokens/tokenizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EARLIER "Seventeen plus twenty-five." /* the earlier turn's thinking: 27 bytes */

/* A body: a question, an answer with its thinking, a new question, a tool
 * call with its thinking, the tool's result (the turn in progress). */
static void body(char *out, size_t size, const char *model, const char *last_user)
{
	snprintf(out, size,
		 "{\"model\": \"%s\", \"max_tokens\": 64, \"messages\": ["
		 "{\"role\": \"user\", \"content\": \"What is 17 + 25?\"},"
		 "{\"role\": \"assistant\", \"content\": [{\"type\": \"thinking\", \"thinking\": \"" EARLIER "\","
		 " \"signature\": \"s1\"}, {\"type\": \"text\", \"text\": \"42.\"}]},"
		 "%s,"
		 "{\"role\": \"assistant\", \"content\": [{\"type\": \"thinking\", \"thinking\": \"Call calc.\","
		 " \"signature\": \"s2\"}, {\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"calc\", \"input\": {}}]},"
		 "{\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"t1\", \"content\": \"42\"}]}"
		 "]}",
		 model, last_user);
}

#define ASKED "{\"role\": \"user\", \"content\": \"Check it.\"}"
#define ONLY_RESULT                                                                                          \
	"{\"role\": \"user\", \"content\": [{\"type\": \"tool_result\", \"tool_use_id\": \"t0\", \"content\": \"ok\"}]}"

static bool has_unit(const struct request_model *m, const char *path)
{
	const struct req_request *r = &m->reqs[m->current];
	for (size_t u = r->first_unit; u < r->first_unit + r->nunits; u++)
		if (!strcmp(m->units[u].path, path))
			return true;
	return false;
}

/* The units: the earlier thinking left out for Haiku and older Sonnet,
 * kept for Opus 4.6; the thinking of the turn in progress always there;
 * a tool result alone is no new turn of the user's, so nothing is earlier. */
static void test_units(void **state)
{
	(void)state;
	static const struct {
		const char *model, *user;
		long stripped;
	} cases[] = {
		{ "claude-haiku-4-5", ASKED, 1 },
		{ "claude-sonnet-4-5-20250929", ASKED, 1 },
		{ "claude-opus-4-6", ASKED, 0 },
		{ "claude-haiku-4-5", ONLY_RESULT, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[2048];
		body(text, sizeof text, cases[i].model, cases[i].user);
		struct source *src = support_load_text("body.json", text);
		const struct request_model *m = src->model;
		assert_int_equal(m->reqs[0].stripped_thinking, cases[i].stripped);
		assert_int_equal(has_unit(m, "messages[1].content[0]"), cases[i].stripped == 0);
		assert_true(has_unit(m, "messages[1].content[1]"));
		assert_true(has_unit(m, "messages[3].content[0]"));
		struct assembly a;
		support_assemble(src, &a);
		if (cases[i].stripped)
			assert_non_null(strstr(support_fact(&a, "thinking"), "1 block of earlier turns not counted"));
		asm_fini(&a);
		source_free(src);
	}
}

/* The whole count (counted.c) leaves out the same block: with one token a
 * byte, the two models' counts differ by the earlier thinking's bytes. */
static void test_count(void **state)
{
	(void)state;
	static const struct overhead row = { .id = "test", .encoding = "claude", .content_multiplier = 1.0, .base = 6,
					     .per_message = 2 };
	char *dir = support_tempdir();
	struct tokenizer *t = support_bytes_tokenizer(dir);
	struct cs_error err;
	cs_error_clear(&err);
	long n[3];
	const char *const models[] = { "claude-opus-4-6", "claude-haiku-4-5", "claude-haiku-4-5" };
	for (int i = 0; i < 3; i++) {
		char text[2048];
		body(text, sizeof text, models[i], i < 2 ? ASKED : ONLY_RESULT);
		cJSON *b = cJSON_Parse(text);
		assert_non_null(b);
		struct req_counted c;
		assert_int_equal(request_count_body(t, &row, REQ_ANTHROPIC, b, 0, &c, &err), CS_OK);
		n[i] = c.messages;
		cJSON_Delete(b);
	}
	assert_int_equal(n[0] - n[1], (long)strlen(EARLIER));
	assert_true(n[2] > n[1]); /* only a tool result after it: the thinking is sent */
	tokenizer_close(t);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_count),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
