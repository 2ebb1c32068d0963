/* test_request.c: the anthropic and openai kinds: detection, blocks and
 * layers, image tokens, model facts, volatile text, breakpoint lints, the
 * sequence's predictions and causes against constructed logs, dump with
 * exclusions, malformed log lines, and out-of-memory at every allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "cache/cache.h"
#include "dump.h"
#include "edit.h"
#include "kind.h"
#include "load.h"
#include "json/doc.h"
#include "kinds/request/request.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct request_model *model(const struct source *src)
{
	return src->model;
}

static void test_detection(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "samples/requests/anthropic-tools.json", "anthropic" },
		{ "samples/requests/openai-chat.json", "openai" },
		{ "samples/requests/openai-responses.json", "openai" },
		{ "samples/requests/log-timestamp-broken.jsonl", "capture" }, /* an HTTP capture of Anthropic requests */
		{ "tests/golden/request/openai-log.jsonl", "openai" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct source *src = support_load(cases[i][0], NULL);
		assert_string_equal(src->kind->name, cases[i][1]);
		source_free(src);
	}
	struct cs_error err;
	assert_int_equal(support_load_error("tests/golden/request/ambiguous.json", NULL, &err), CS_EKIND);
	assert_non_null(strstr(err.message, "\"messages\" with \"system\""));
}

static void test_units_and_layers(void **state)
{
	(void)state;
	struct source *src = support_load("samples/requests/anthropic-tools.json", NULL);
	const struct request_model *m = model(src);
	assert_int_equal(m->nreqs, 1);
	long tool = support_piece(src, "tools[0]"), sys = support_piece(src, "system[0]");
	long hist = support_piece(src, "messages[3].content[0]"), cur = support_piece(src, "messages[4].content[1]");
	assert_int_equal(src->pieces[tool].layer, RL_TOOLS);
	assert_int_equal(src->pieces[sys].layer, RL_SYSTEM);
	assert_int_equal(src->pieces[hist].layer, RL_HISTORY);
	assert_int_equal(src->pieces[cur].layer, RL_CURRENT);
	assert_string_equal(m->units[src->pieces[hist].kind_index].type, "tool_use");
	/* a 640x480 PNG: ceil(640*480/750) = 410 tokens, not its placeholder's */
	const struct req_unit *img = &m->units[src->pieces[support_piece(src, "messages[0].content[1]")].kind_index];
	assert_true(img->image);
	assert_int_equal(img->tokens, 410);
	struct assembly a;
	support_assemble(src, &a);
	long sum = 0;
	for (size_t b = 0; b < a.nblocks; b++)
		sum += a.blocks[b].tokens;
	assert_int_equal(a.total_tokens, sum);
	assert_true(a.blocks[src->pieces[sys].kind_index].flags & BLOCK_BREAKPOINT);
	asm_fini(&a);
	source_free(src);
}

static void test_openai_image_tiles(void **state)
{
	(void)state;
	/* the same 640x480 PNG as an OpenAI data URL: 85 + 170 * 2 tiles */
	struct source *any = support_load("samples/requests/anthropic-tools.json", NULL);
	const struct req_unit *img =
		&model(any)->units[any->pieces[support_piece(any, "messages[0].content[1]")].kind_index];
	const char *data = cJSON_GetObjectItem(cJSON_GetObjectItem(img->node, "source"), "data")->valuestring;
	struct strbuf body = STRBUF_INIT;
	sb_printf(&body, "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image_url\","
			 "\"image_url\":{\"url\":\"data:image/png;base64,%s\"}},{\"type\":\"image_url\",\"image_url\":"
			 "{\"url\":\"https://example.org/a.png\",\"detail\":\"low\"}},{\"type\":\"image_url\",\"image_url\":"
			 "{\"url\":\"https://example.org/b.png\"}}]}]}", data);
	char *dir = support_tempdir();
	support_write(dir, "chat.json", sb_str(&body));
	struct source *src = support_load(support_path(dir, "chat.json"), NULL);
	assert_string_equal(src->kind->name, "openai");
	const struct request_model *m = model(src);
	assert_int_equal(m->units[0].tokens, 425);
	assert_int_equal(m->units[1].tokens, 85);
	assert_true(m->units[2].uncounted);
	assert_int_equal(m->units[2].tokens, 0);
	source_free(src);
	source_free(any);
	sb_fini(&body);
	support_rmtree(dir);
	free(dir);
}

static void test_model_facts(void **state)
{
	(void)state;
	bool known;
	assert_int_equal(request_model_facts(REQ_ANTHROPIC, "claude-sonnet-4-5-20250929", &known)->min_prefix, 1024);
	assert_true(known);
	assert_int_equal(request_model_facts(REQ_ANTHROPIC, "claude-opus-4-5", NULL)->min_prefix, 4096);
	assert_int_equal(request_model_facts(REQ_ANTHROPIC, "claude-opus-4-20250514", NULL)->min_prefix, 1024);
	assert_int_equal(request_model_facts(REQ_ANTHROPIC, "claude-haiku-4-5", NULL)->min_prefix, 4096);
	assert_int_equal(request_model_facts(REQ_ANTHROPIC, "claude-3-5-haiku-20241022", NULL)->min_prefix, 2048);
	const struct req_model_facts *f = request_model_facts(REQ_ANTHROPIC, "claude-opus-5.5", NULL);
	assert_int_equal(f->min_prefix, 512);
	assert_true(fabs(f->read - 0.05) < 1e-9);
	assert_int_equal(request_model_facts(REQ_ANTHROPIC, "claude-opus-5", NULL)->min_prefix, 512);
	request_model_facts(REQ_ANTHROPIC, "claude-unheard-of", &known);
	assert_false(known);
	assert_true(fabs(request_model_facts(REQ_OPENAI_CHAT, "gpt-4.1-mini", NULL)->read - 0.25) < 1e-9);
	assert_true(fabs(request_model_facts(REQ_OPENAI_CHAT, "gpt-5-codex", NULL)->read - 0.1) < 1e-9);
}

static void test_volatile(void **state)
{
	(void)state;
	size_t at, len;
	static const char *const yes[] = {
		"Current time: 2026-11-24T10:00:40Z\n", "today is 2026-11-24.", "request 123e4567-e89b-12d3-a456-426614174000",
		"trace deadbeefcafe0123456789ab", "id req_011CUa9bXyZ12345", "at 10:04:59 local",
	};
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
		assert_true(request_volatile(yes[i], strlen(yes[i]), &at, &len));
	assert_true(request_volatile(yes[0], strlen(yes[0]), &at, &len));
	assert_int_equal(at, 14);
	assert_int_equal(len, 20);
	static const char *const no[] = { "version 4.5.1 of the API", "call 555-1234", "deadbeef", "the year 2026" };
	for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
		assert_false(request_volatile(no[i], strlen(no[i]), &at, &len));
}

static const struct req_lint *lint(const struct request_model *m, const char *code)
{
	for (size_t i = 0; i < m->nlints; i++)
		if (!strcmp(m->lints[i].code, code))
			return &m->lints[i];
	return NULL;
}

static void test_breakpoint_lints(void **state)
{
	(void)state;
	struct source *src = support_load("tests/golden/request/five-breakpoints.json", NULL);
	const struct req_lint *l = lint(model(src), "over-limit");
	assert_non_null(l);
	assert_true(l->error);
	struct assembly a;
	support_assemble(src, &a);
	assert_true(a.flags & ASM_ERROR);
	asm_fini(&a);
	source_free(src);
	src = support_load("tests/golden/request/ttl-order.json", NULL);
	assert_non_null(lint(model(src), "ttl-order"));
	assert_null(lint(model(src), "over-limit"));
	source_free(src);
	src = support_load("samples/requests/log-timestamp-broken.jsonl", NULL);
	l = lint(model(src), "volatile");
	assert_non_null(l);
	assert_string_equal(model(src)->units[l->unit].path, "system[0]");
	source_free(src);
	src = support_load("samples/requests/log-timestamp-fixed.jsonl", NULL);
	assert_null(lint(model(src), "volatile")); /* a time kept in the user turn it was sent with */
	source_free(src);
}

/* Each request of causes.jsonl breaks the cache one way. */
static void test_sequence_causes(void **state)
{
	(void)state;
	struct source *src = support_load("tests/golden/request/causes.jsonl", NULL);
	const struct request_model *m = model(src);
	assert_int_equal(m->nreqs, 6);
	static const char *const causes[] = {
		NULL, NULL, "the tool definitions changed order", "an earlier message was edited (messages[0].content[0])",
		"the TTL expired", "past the 20-block lookback",
	};
	for (size_t k = 0; k < 6; k++) {
		const struct req_request *r = &m->reqs[k];
		if (!causes[k]) {
			assert_null(r->cause);
			assert_false(r->broke);
			continue;
		}
		assert_non_null(r->cause);
		assert_non_null(strstr(r->cause, causes[k]));
		assert_true(r->broke);
	}
	assert_string_equal(m->reqs[2].diff_path, "tools[0]");
	assert_string_equal(m->reqs[3].diff_path, "messages[0].content[0]");
	assert_non_null(strstr(m->reqs[3].diff_now, "413"));
	assert_non_null(strstr(m->reqs[3].diff_before, "412"));
	assert_int_equal(m->reqs[1].pred_read, m->reqs[0].cached_extent); /* an appended turn reads it all */
	assert_int_equal(m->reqs[4].pred_read, 0);
	assert_non_null(lint(m, "tool-order"));
	source_free(src);
}

static void test_recorded_vs_predicted(void **state)
{
	(void)state;
	struct source *src = support_load("samples/requests/log-timestamp-fixed.jsonl", NULL);
	const struct request_model *m = model(src);
	for (size_t k = 0; k < m->nreqs; k++) {
		assert_true(m->reqs[k].recorded);
		assert_int_equal(m->reqs[k].pred_read, m->reqs[k].rec_read);
		assert_int_equal(m->reqs[k].pred_write, m->reqs[k].rec_write);
		assert_false(m->reqs[k].broke);
	}
	/* the history a log repeats is held once: the same block shares its text */
	assert_ptr_equal(m->units[m->reqs[1].first_unit + 4].text, m->units[m->reqs[0].first_unit + 4].text);
	assert_string_equal(m->units[m->reqs[1].first_unit + 4].path, "system[0]");
	source_free(src);
	src = support_load("samples/requests/log-timestamp-broken.jsonl", NULL);
	m = model(src);
	for (size_t k = 1; k < m->nreqs; k++) {
		assert_true(m->reqs[k].broke);
		assert_int_equal(m->reqs[k].pred_read, 0);
		assert_non_null(strstr(m->reqs[k].cause, "timestamp"));
	}
	source_free(src);
	/* OpenAI: 128-token steps from 1,024 */
	src = support_load("tests/golden/request/openai-log.jsonl", NULL);
	m = model(src);
	for (size_t k = 1; k < m->nreqs; k++) {
		assert_int_equal(m->reqs[k].pred_read % 128, 0);
		assert_true(m->reqs[k].pred_read >= 1024);
	}
	source_free(src);
}

/* What-if beyond exclusions: another model (its minimum prefix) and a
 * breakpoint moved (the inspector's M) re-predict every request. */
static void test_model_and_breakpoint_whatif(void **state)
{
	(void)state;
	struct source *src = support_load("samples/requests/log-timestamp-fixed.jsonl", NULL);
	const struct request_model *m = model(src);
	/* claude-haiku-4-5 caches from 4,096 tokens: none of these prefixes (at most 1,460) */
	support_set(src, "model", "claude-haiku-4-5");
	assert_true(m->edited);
	for (size_t k = 0; k < m->nreqs; k++) {
		assert_int_equal(m->reqs[k].pred_read, 0);
		assert_int_equal(m->reqs[k].pred_write, 0);
		assert_int_equal(m->reqs[k].pred_uncached, m->reqs[k].total);
		assert_true(m->reqs[k].loaded_read == m->reqs[k].rec_read); /* as loaded: what the log recorded */
	}
	support_set(src, "model", "recorded");
	assert_false(m->edited);
	assert_int_equal(m->reqs[5].pred_read, 1406);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(request_breakpoints_edited(src, NULL, &err), CS_OK); /* none moved: nothing changes */
	assert_false(m->edited);

	/* no breakpoint after request 6's last block: it reads the system prefix
	 * (tools 365 + system 682) and writes nothing; the rest is uncached */
	struct cache_overrides o;
	cache_overrides_init(&o);
	struct assembly a;
	assert_int_equal(assemble(src, &a, &err), CS_OK);
	size_t last = a.nblocks - 1;
	assert_string_equal(src->pieces[a.blocks[last].piece].id, "messages[10].content[1]");
	assert_int_equal(cache_overrides_set(&o, &a, last, false, &err), CS_OK);
	assert_int_equal(request_breakpoints_edited(src, &o, &err), CS_OK);
	assert_true(m->edited);
	assert_int_equal(m->reqs[5].pred_read, 1047);
	assert_int_equal(m->reqs[5].pred_write, 0);
	assert_int_equal(m->reqs[5].pred_uncached, 413);
	for (size_t k = 0; k < 5; k++) /* the path is only request 6's */
		assert_int_equal(m->reqs[k].pred_read, m->reqs[k].loaded_read);
	/* one more, after tools[3]: its prefix (365 tokens) is under the
	 * minimum, and a lint names it */
	long tools3 = source_find_piece(src, "tools[3]");
	size_t b3 = 0;
	while (b3 < a.nblocks && a.blocks[b3].piece != tools3)
		b3++;
	assert_int_equal(cache_overrides_set(&o, &a, b3, true, &err), CS_OK);
	assert_int_equal(request_breakpoints_edited(src, &o, &err), CS_OK);
	bool under = false;
	for (size_t i = 0; i < m->nlints; i++)
		under |= !strcmp(m->lints[i].code, "under-minimum") && strstr(m->lints[i].sentence, "tools[3]");
	assert_true(under);
	asm_fini(&a);
	cache_overrides_fini(&o);
	source_free(src);
}

/* Another request shown, the predictions unchanged: only its lints are made
 * again, and coming back gives the lints and figures the load gave. */
static void test_select_keeps_predictions(void **state)
{
	(void)state;
	struct source *src = support_load("samples/requests/log-timestamp-broken.jsonl", NULL);
	const struct request_model *m = model(src);
	size_t nlints = m->nlints;
	char first[512];
	snprintf(first, sizeof first, "%s", nlints ? m->lints[0].sentence : "");
	long read6 = m->reqs[5].pred_read, write6 = m->reqs[5].pred_write;
	const char *cause6 = m->reqs[5].cause;
	support_set(src, "request", "2");
	assert_int_equal(m->current, 1);
	assert_ptr_equal(m->reqs[5].cause, cause6); /* not predicted again */
	support_set(src, "request", "last");
	assert_int_equal(m->current, 5);
	assert_int_equal(m->nlints, nlints);
	assert_string_equal(nlints ? m->lints[0].sentence : "", first);
	assert_int_equal(m->reqs[5].pred_read, read6);
	assert_int_equal(m->reqs[5].pred_write, write6);
	/* an edit predicts again: the causes are new text (the old is freed) */
	support_set(src, "exclude", "tools[0]");
	assert_non_null(m->reqs[5].cause);
	assert_non_null(strstr(m->reqs[5].cause, "timestamp"));
	source_free(src);
}

static void test_dump_excluded(void **state)
{
	(void)state;
	struct source *src = support_load("samples/requests/anthropic-tools.json", NULL);
	support_set(src, "exclude", "messages[4].content[0]");
	support_set(src, "exclude", "messages[4].content[1]");
	support_set(src, "exclude", "messages[0].content[1]");
	struct assembly a;
	support_assemble(src, &a);
	struct strbuf out = STRBUF_INIT;
	assert_int_equal(dump_write(&a, false, false, &out), CS_OK);
	cJSON *doc = cJSON_Parse(sb_str(&out));
	assert_non_null(doc);
	const cJSON *msgs = cJSON_GetObjectItem(doc, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 4); /* the last message lost every block: gone */
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "content")), 1);
	assert_non_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "system"), 0), "cache_control"));
	cJSON_Delete(doc);
	sb_fini(&out);
	asm_fini(&a);
	source_free(src);
}

static void test_malformed_lines(void **state)
{
	(void)state;
	struct cs_error err;
	assert_int_equal(support_load_error("tests/golden/request/bad-line.jsonl", NULL, &err), CS_ESYNTAX);
	assert_int_equal(err.line, 2);
	assert_non_null(strstr(err.message, "line 2"));
	struct source *src = support_load("tests/golden/request/bad-last-line.jsonl", NULL);
	assert_int_equal(model(src)->nreqs, 2);
	assert_int_equal(src->nwarnings, 1);
	assert_int_equal(src->warnings[0].line, 3);
	source_free(src);
	assert_int_equal(support_load_error("tests/golden/request/wrong-type.json", NULL, &err), CS_ETYPE);
	assert_string_equal(err.path, "messages[1].content");
	assert_true(err.line > 1);
	src = support_load("tests/golden/request/unknown-block.json", NULL);
	assert_true(model(src)->units[src->pieces[support_piece(src, "messages[0].content[0]")].kind_index].unknown);
	assert_true(src->nwarnings >= 1);
	source_free(src);
}

/* A profile named as the model in the user's cache.yml replaces the table's
 * figures for it (a minimum measured higher than the page says). */
static void test_user_facts(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char *saved = support_config_home(dir,
					  "profiles:\n  claude-sonnet-4-5:\n    based_on: anthropic\n    min_prefix: 2048\n"
					  "    read: 0.1\n    source: measured\n    as_of: 2026-11\n");
	struct source *src = support_load("samples/requests/anthropic-tools.json", NULL);
	const struct request_model *m = model(src);
	bool known = false;
	const struct req_model_facts *f = request_facts(m, m->reqs[0].model, &known);
	assert_true(known);
	assert_int_equal(f->min_prefix, 2048);
	assert_non_null(strstr(f->source, "measured"));
	assert_non_null(lint(m, "under-minimum"));
	assert_int_equal(m->reqs[0].pred_write, 0); /* no breakpoint reaches 2,048 */
	source_free(src);
	support_config_restore(saved);
	src = support_load("samples/requests/anthropic-tools.json", NULL);
	assert_int_equal(request_facts(model(src), model(src)->reqs[0].model, NULL)->min_prefix, 1024);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void sweep_out_of_memory(const char *path, const char *kind)
{
	cs_alloc_install_cjson_hooks();
	bool finished = false;
	for (long n = 1; n < 200000 && !finished; n++) {
		struct source *src = NULL;
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(n);
		int rc = source_load(path, kind, &src, &err);
		if (rc == CS_OK) {
			struct assembly a;
			rc = assemble(src, &a, &err);
			if (rc == CS_OK) {
				struct strbuf out = STRBUF_INIT;
				rc = dump_write(&a, false, false, &out);
				sb_fini(&out);
				finished = rc == CS_OK && cs_alloc_count() < n;
				asm_fini(&a);
			}
			source_free(src);
		}
		cs_alloc_fail_from(0);
		if (rc != CS_OK && rc != CS_ENOMEM)
			fail_msg("allocation %ld: %s (%s)", n, cs_status_name((enum cs_status)rc), err.message);
	}
	assert_true(finished);
}

static void test_out_of_memory_everywhere(void **state)
{
	(void)state;
	sweep_out_of_memory("samples/requests/anthropic-tools.json", "anthropic");
	sweep_out_of_memory("tests/golden/request/causes.jsonl", "anthropic");
	sweep_out_of_memory("samples/requests/openai-responses.json", "openai");
}

/* What a record's price modifiers do to its rates: fast mode by model
 * (a family's own version only), a batch's half price, both together. */
static void test_price_multiplier(void **state)
{
	(void)state;
	const char *said;
	assert_true(request_fast_rate("claude-opus-4-6", &said) == 6.0);
	assert_true(request_fast_rate("claude-opus-5-5-20261001", &said) == 2.0);
	assert_true(request_fast_rate("claude-opus-5", &said) == 2.0);
	assert_true(request_fast_rate("claude-opus-4-8", &said) == 2.0);
	assert_true(request_fast_rate("claude-opus-4-5", &said) < 0); /* no fast mode: not taken for 4-6's */
	assert_string_equal(said, "fast mode: its rate for this model is not in the table");
	assert_true(request_fast_rate("claude-sonnet-4-6", &said) < 0);
	struct req_request r = { .model = "claude-opus-4-6" };
	bool known;
	assert_true(request_price_multiplier(&r, &known, &said) == 1.0 && known && !said);
	r.rec_fast = true;
	assert_true(request_price_multiplier(&r, &known, &said) == 6.0 && known);
	assert_string_equal(said, "fast mode: 6x the standard rates");
	r.batch = true;
	assert_true(request_price_multiplier(&r, &known, &said) == 3.0 && known);
	r.rec_fast = false;
	assert_true(request_price_multiplier(&r, &known, &said) == 0.5 && known);
	assert_string_equal(said, "batch: half price");
	r.model = "claude-haiku-4-5";
	r.rec_fast = true;
	request_price_multiplier(&r, &known, &said);
	assert_false(known);
}

/* A base64 PDF counts its page objects (white space between /Type and
 * /Page allowed, /Pages not one), 2,300 tokens each; bytes that are not
 * base64 assume one page a 50 KB; a text document is not one. */
static void test_pdf_documents(void **state)
{
	(void)state;
	static const char three[] = "JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5cGUgL1BhZ2VzIC9LaWRzIFszIDAgUiA0IDAgUiA1IDAgUl0gL0NvdW50IDMgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUKL1BhZ2UgL1BhcmVudCAyIDAgUiA+PgplbmRvYmoKNCAwIG9iago8PCAvVHlwZQovUGFnZSAvUGFyZW50IDIgMCBSID4+CmVuZG9iago1IDAgb2JqCjw8IC9UeXBlCi9QYWdlIC9QYXJlbnQgMiAwIFIgPj4KZW5kb2JqCg==";
	struct strbuf out = STRBUF_INIT;
	char json[1024];
	snprintf(json, sizeof json, "{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"media_type\":"
		 "\"application/pdf\",\"data\":\"%s\"}}", three);
	cJSON *b = json_tree_parse_str(json);
	assert_non_null(b);
	assert_int_equal(request_document(&out, b), 3 * REQUEST_PDF_PAGE_TOKENS);
	assert_string_equal(sb_str(&out), "[document application/pdf, 3 pages, estimated]");
	json_tree_free(b);
	sb_reset(&out);
	b = json_tree_parse_str("{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"media_type\":"
				"\"application/pdf\",\"data\":\"not base64!\"}}");
	assert_int_equal(request_document(&out, b), REQUEST_PDF_PAGE_TOKENS);
	assert_string_equal(sb_str(&out), "[document application/pdf, 1 page assumed (one a 50 KB), estimated]");
	json_tree_free(b);
	b = json_tree_parse_str("{\"type\":\"document\",\"source\":{\"type\":\"text\",\"media_type\":"
				"\"text/plain\",\"data\":\"plain words\"}}");
	assert_int_equal(request_document(&out, b), -1);
	assert_int_equal(request_pdf_tokens(&out, b), 0);
	json_tree_free(b);
	sb_fini(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_units_and_layers),
		cmocka_unit_test(test_openai_image_tiles),
		cmocka_unit_test(test_model_facts),
		cmocka_unit_test(test_volatile),
		cmocka_unit_test(test_breakpoint_lints),
		cmocka_unit_test(test_sequence_causes),
		cmocka_unit_test(test_recorded_vs_predicted),
		cmocka_unit_test(test_model_and_breakpoint_whatif),
		cmocka_unit_test(test_select_keeps_predictions),
		cmocka_unit_test(test_dump_excluded),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_user_facts),
		cmocka_unit_test(test_price_multiplier),
		cmocka_unit_test(test_pdf_documents),
		cmocka_unit_test(test_out_of_memory_everywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
