/* test_request_shapes.c: the log shapes of ctxscope-formats(5) section 6b on the fixtures
 * tests/golden/request/shapes/make.py writes: per-model caches (a request
 * compared with the request of its own model it read from, a model switch
 * no break), usage from Anthropic and OpenAI streams (message_start, the
 * last message_delta; the final chunk), batch results joined by custom_id,
 * HAR entries, times in every form, figures that are not counts, images
 * inside tool results (ctxscope-formats(5) section 7b) and a system prompt
 * cached with scope "global". */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "assembly.h"
#include "base/strbuf.h"
#include "kinds/request/request.h"
#include "source.h"
#include "tokens/estimate.h"
#include "support.h"

#include <math.h>
#include <string.h>

#define SHAPES "tests/golden/request/shapes/"

static const struct request_model *model(const struct source *src)
{
	return src->model;
}

static void test_per_model_caches(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "capture-claude.jsonl", NULL);
	assert_string_equal(src->kind->name, "capture");
	const struct request_model *m = model(src);
	assert_int_equal(m->nreqs, 9); /* the count_tokens lines are skipped */
	assert_int_equal(m->ngroups, 2);
	/* request 3 (Sonnet) reads what request 1 (Sonnet) wrote, across the Haiku request 2 */
	assert_int_equal(m->reqs[2].compared, 0);
	assert_int_equal(m->reqs[2].pred_read, m->reqs[2].rec_read);
	assert_true(m->reqs[2].pred_read > 1000);
	assert_false(m->reqs[2].broke);
	/* a Haiku request compares with the Haiku request before it, never a Sonnet one */
	assert_int_equal(m->reqs[3].compared, 1);
	for (size_t k = 0; k < m->nreqs; k++)
		assert_false(m->reqs[k].broke); /* no model switch is a break */
	assert_int_equal(m->reqs[0].group, m->reqs[2].group);
	assert_int_not_equal(m->reqs[0].group, m->reqs[1].group);
	source_free(src);
}

static void test_anthropic_stream_usage(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "capture-claude.jsonl", NULL);
	const struct request_model *m = model(src);
	const struct req_request *r = &m->reqs[4]; /* the third Sonnet request: streamed (body_raw) */
	assert_true(r->recorded);
	assert_int_equal(r->rec_read, 1562);
	assert_int_equal(r->rec_write, 28);
	assert_int_equal(r->rec_uncached, 0);
	assert_int_equal(r->rec_write_1h, 0);
	assert_int_equal(r->rec_output, 122); /* the last message_delta, not message_start's 1 */
	assert_string_equal(r->rec_miss, "none");
	/* the provider's diagnosis on request 7 */
	assert_string_equal(m->reqs[6].rec_miss, "system_changed");
	assert_int_equal(m->reqs[6].rec_missed, 795);
	assert_true(fabs(m->reqs[0].time - 1764324000.125) < 1e-6); /* request.timestamp, epoch seconds */
	source_free(src);
}

static void test_openai_stream_usage(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "capture-openai-stream.jsonl", NULL);
	const struct request_model *m = model(src);
	assert_int_equal(m->nreqs, 4);
	for (size_t k = 0; k < m->nreqs; k++) {
		assert_true(m->reqs[k].recorded);
		assert_int_equal(m->reqs[k].rec_output, 30);
	}
	assert_int_equal(m->reqs[1].rec_read, 1024); /* prompt_tokens_details.cached_tokens of the final chunk */
	assert_int_equal(m->reqs[1].rec_read, m->reqs[1].pred_read);
	source_free(src);
}

static void test_batches_joined(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "openai_batch.jsonl", NULL);
	const struct request_model *m = model(src);
	assert_string_equal(src->kind->name, "openai-batch");
	assert_int_equal(m->nreqs, 3); /* the embeddings line is skipped */
	assert_non_null(m->results_from);
	for (size_t k = 0; k < m->nreqs; k++)
		assert_true(m->reqs[k].recorded); /* output lines in another order, joined by custom_id */
	source_free(src);
	src = support_load(SHAPES "msgbatch.json", NULL);
	m = model(src);
	assert_string_equal(src->kind->name, "anthropic-batch");
	assert_int_equal(m->nreqs, 3);
	assert_true(m->reqs[0].recorded && m->reqs[1].recorded);
	assert_false(m->reqs[2].recorded); /* its result errored */
	source_free(src);
	struct cs_error err;
	assert_int_equal(support_load_error(SHAPES "openai_batch_output.jsonl", NULL, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "no request: missing the requests"));
}

static void test_litellm_and_har(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "litellm.jsonl", NULL);
	const struct request_model *m = model(src);
	assert_string_equal(src->kind->name, "litellm");
	assert_int_equal(m->nreqs, 8);
	assert_int_equal(m->ngroups, 2);
	assert_int_equal(m->reqs[2].compared, 0); /* gpt-4o after gpt-4o, across the Haiku title request */
	assert_true(m->reqs[0].time > 1764320000); /* "2026-11-28 10:00:00.000000" */
	source_free(src);
	src = support_load(SHAPES "session.har", NULL);
	m = model(src);
	assert_string_equal(src->kind->name, "har");
	assert_int_equal(m->nreqs, 3); /* the GET to claude.ai is skipped */
	assert_true(m->reqs[1].recorded); /* an event stream in content.text */
	assert_int_equal(m->reqs[1].rec_output, 77);
	source_free(src);
}

static void test_times_and_endpoints(void **state)
{
	(void)state;
	cJSON *v = cJSON_CreateString("2026-11-28 10:00:00.500000");
	assert_true(fabs(request_time_of(v) - 1795860000.5) < 1e-6);
	cJSON_Delete(v);
	v = cJSON_CreateString("2026-11-28T10:00:00Z");
	assert_true(fabs(request_time_of(v) - 1795860000) < 1e-6);
	cJSON_Delete(v);
	v = cJSON_CreateNumber(1764324000123.0); /* milliseconds */
	assert_true(fabs(request_time_of(v) - 1764324000.123) < 1e-6);
	cJSON_Delete(v);
	v = cJSON_CreateString("not a time");
	assert_true(request_time_of(v) < 0);
	cJSON_Delete(v);
	assert_int_equal(request_endpoint_provider("https://api.anthropic.com/v1/messages?beta=true"), REQ_ANTHROPIC);
	assert_int_equal(request_endpoint_provider("https://api.anthropic.com/v1/messages/count_tokens"), -1);
	assert_int_equal(request_endpoint_provider("/v1/chat/completions"), REQ_OPENAI_CHAT);
	assert_int_equal(request_endpoint_provider("https://api.openai.com/v1/responses/"), REQ_OPENAI_RESPONSES);
	assert_int_equal(request_endpoint_provider("/v1/embeddings"), -1);
}

static void test_figures_not_counts(void **state)
{
	(void)state;
	struct source *src = support_load("tests/hostile/request/capture-hostile.jsonl", NULL);
	const struct request_model *m = model(src);
	assert_false(m->reqs[0].recorded); /* -5, 1.5, "12": never a silent 0 */
	size_t about_usage = 0;
	for (size_t i = 0; i < src->nwarnings; i++)
		about_usage += strstr(src->warnings[i].text, "the recorded figure is left unknown") != NULL;
	assert_true(about_usage >= 5);
	source_free(src);
}

/* The unit at path in the request shown. */
static const struct req_unit *unit_at(struct source *src, const char *path)
{
	return &model(src)->units[src->pieces[support_piece(src, path)].kind_index];
}

/* The estimate of a unit's text alone (its placeholders included). */
static long text_tokens(const struct req_unit *u)
{
	return tokens_of_text(u->text, u->text_len, 4);
}

/* An image inside a tool_result counts as the same image given directly
 * (2000 x 1008: 1,599 tokens), never as its 32,000 characters of base64
 * (8,054 tokens before); the assembly's total and the prediction follow. */
static void test_images_in_tool_results(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "images-anthropic.json", NULL);
	const struct req_unit *direct = unit_at(src, "messages[0].content[1]");
	const struct req_unit *result = unit_at(src, "messages[2].content[0]");
	assert_true(direct->image);
	assert_int_equal(direct->tokens, 1599);
	assert_false(result->image);
	assert_int_equal(result->nested_images, 1599);
	assert_non_null(strstr(result->text, "[image image/png 2000x1008]"));
	assert_null(strstr(result->text, "iVBOR"));
	assert_int_equal(result->tokens, text_tokens(result) + 1599);
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(a.total_tokens, model(src)->reqs[0].total);
	assert_true(a.total_tokens < 3400);
	asm_fini(&a);
	source_free(src);
	/* OpenAI Responses: input_image parts of a function_call_output's output,
	 * by OpenAI's rule: 1024 x 768 is 765, detail "low" 85 */
	src = support_load(SHAPES "images-responses.json", NULL);
	result = unit_at(src, "input[2]");
	assert_int_equal(result->nested_images, 765 + 85);
	assert_int_equal(result->tokens, text_tokens(result) + 765 + 85);
	assert_non_null(strstr(result->text, "[image inline 1024x768]"));
	source_free(src);
}

/* A first request whose system prompt is cached with scope "global" reads
 * what another session wrote: the record's read is taken as predicted and
 * told as a read of the shared cache, not flagged "OFF BY 100%"; a first
 * request without the scope (the Haiku check) is left as it was. */
static void test_global_scope(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "capture-global.jsonl", NULL);
	const struct request_model *m = model(src);
	assert_int_equal(m->nreqs, 4);
	const struct req_request *first = &m->reqs[0], *haiku = &m->reqs[1];
	assert_true(first->rec_read > 2000);
	assert_int_equal(first->global_read, first->rec_read);
	assert_int_equal(first->pred_read, first->rec_read);
	assert_string_equal(first->global_path, "system[1]");
	assert_true(first->global_extent > 2000);
	struct req_figures f;
	request_figures(m, 0, &f);
	assert_false(f.off);
	struct strbuf sb = STRBUF_INIT;
	request_figures_text(m, 0, &sb);
	assert_non_null(strstr(sb_str(&sb), "a cache shared across sessions"));
	assert_null(strstr(sb_str(&sb), "OFF BY"));
	sb_fini(&sb);
	assert_int_equal(haiku->global_read, 0);
	assert_int_equal(haiku->pred_read, 0);
	/* the later requests read what the one before wrote, by the log */
	assert_int_equal(m->reqs[2].global_read, 0);
	assert_int_equal(m->reqs[2].pred_read, m->reqs[2].rec_read);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_model_caches),   cmocka_unit_test(test_anthropic_stream_usage),
		cmocka_unit_test(test_openai_stream_usage), cmocka_unit_test(test_batches_joined),
		cmocka_unit_test(test_litellm_and_har),    cmocka_unit_test(test_times_and_endpoints),
		cmocka_unit_test(test_figures_not_counts), cmocka_unit_test(test_images_in_tool_results),
		cmocka_unit_test(test_global_scope),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
