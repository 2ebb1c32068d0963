/* test_claude_code.c: the claude-code kind: detection, the recorded usage
 * read back equal to the file's (each message once, however many lines it
 * spans), sidechain and pre-compaction text never in a main-chain prompt,
 * the causes of cache breaks, and the warnings and errors on bad input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "assembly.h"
#include "base/tune.h"
#include "kinds/claude_code/claude_code.h"
#include "load.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE "samples/claude-code/session.jsonl"

static const struct cc_model *model(const struct source *src)
{
	return src->model;
}

static void test_detection(void **state)
{
	(void)state;
	struct source *src = support_load(SAMPLE, NULL);
	assert_string_equal(src->kind->name, "claude-code");
	source_free(src);
	src = support_load("samples/requests/log-timestamp-broken.jsonl", NULL);
	assert_string_equal(src->kind->name, "capture"); /* an HTTP capture of Anthropic requests */
	source_free(src);
	src = support_load(SAMPLE, "claude-code");
	assert_string_equal(src->kind->name, "claude-code");
	source_free(src);
}

struct usage {
	char id[64];
	long in, write, read, out;
};

/* The usage of each assistant message not on a sidechain, read from the
 * file with cJSON alone: one entry per message.id, its last line's. */
static size_t file_usage(const char *path, struct usage *out, size_t cap, struct usage *side)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[65536];
	size_t n = 0;
	memset(side, 0, sizeof *side);
	while (fgets(line, sizeof line, f)) {
		cJSON *o = cJSON_Parse(line);
		assert_non_null(o);
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(o, "message");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(msg, "usage");
		if (cJSON_IsString(t) && !strcmp(t->valuestring, "assistant") && u) {
			const char *id = cJSON_GetObjectItemCaseSensitive(msg, "id")->valuestring;
			struct usage x = { .in = (long)cJSON_GetObjectItem(u, "input_tokens")->valuedouble,
					   .write = (long)cJSON_GetObjectItem(u, "cache_creation_input_tokens")->valuedouble,
					   .read = (long)cJSON_GetObjectItem(u, "cache_read_input_tokens")->valuedouble,
					   .out = (long)cJSON_GetObjectItem(u, "output_tokens")->valuedouble };
			snprintf(x.id, sizeof x.id, "%s", id);
			if (cJSON_IsTrue(cJSON_GetObjectItem(o, "isSidechain"))) {
				side->in += x.in;
				side->out += x.out;
			} else if (n && !strcmp(out[n - 1].id, id)) {
				out[n - 1] = x; /* the same message again: counted once */
			} else {
				assert_true(n < cap);
				out[n++] = x;
			}
		}
		cJSON_Delete(o);
	}
	fclose(f);
	return n;
}

static void test_recorded_equals_file(void **state)
{
	(void)state;
	struct usage want[64], side;
	size_t n = file_usage(SAMPLE, want, 64, &side);
	struct source *src = support_load(SAMPLE, NULL);
	const struct cc_model *m = model(src);
	assert_int_equal(m->req.nreqs, n);
	assert_true(n >= 8);
	for (size_t k = 0; k < n; k++) {
		const struct req_request *r = &m->req.reqs[k];
		assert_true(r->recorded);
		assert_int_equal(r->rec_uncached, want[k].in);
		assert_int_equal(r->rec_write, want[k].write);
		assert_int_equal(r->rec_read, want[k].read);
		assert_int_equal(m->lines[m->creqs[k].last_line].out, want[k].out);
		/* the gap is recorded input less the estimate, never hidden */
		assert_int_equal(m->creqs[k].gap, want[k].in + want[k].write + want[k].read - m->creqs[k].estimate);
	}
	/* the first message spans two lines; its usage counts once */
	assert_int_equal(m->creqs[0].first_line + 1, m->creqs[0].last_line);
	assert_true(side.in > 0);
	source_free(src);
}

static bool prompt_has(const struct cc_model *m, size_t k, const char *needle)
{
	const struct req_request *r = &m->req.reqs[k];
	for (size_t u = r->first_unit; u < r->first_unit + r->nunits; u++)
		if (strstr(m->req.units[u].text, needle))
			return true;
	return false;
}

static void test_sidechain_and_compaction_kept_out(void **state)
{
	(void)state;
	struct source *src = support_load(SAMPLE, NULL);
	const struct cc_model *m = model(src);
	size_t after = 0;
	for (size_t k = 0; k < m->req.nreqs; k++) {
		assert_false(prompt_has(m, k, "SIDECHAIN-ONLY"));
		if (m->creqs[k].boundary >= 0) {
			after++;
			assert_false(prompt_has(m, k, "I'll read the parser first"));
			assert_false(prompt_has(m, k, "Fixed: parse_record()"));
			assert_true(prompt_has(m, k, "continued from a previous conversation"));
		} else {
			assert_true(prompt_has(m, k, "parse_all() in src/parser.c drops"));
		}
	}
	assert_true(after >= 2);
	assert_int_equal(m->compactions, 1);
	assert_int_equal(m->sidechain_lines, 2);
	struct assembly a;
	support_assemble(src, &a);
	const char *p = support_prompt(&a);
	assert_null(strstr(p, "SIDECHAIN-ONLY"));
	assert_null(strstr(p, "I'll read the parser first"));
	assert_non_null(strstr(p, "Add a test for a line that is only spaces."));
	asm_fini(&a);
	source_free(src);
}

static void test_causes(void **state)
{
	(void)state;
	struct source *src = support_load(SAMPLE, NULL);
	const struct cc_model *m = model(src);
	int ttl = 0, compaction = 0;
	for (size_t k = 0; k < m->req.nreqs; k++) {
		const char *c = m->req.reqs[k].cause;
		ttl += c && strstr(c, "the TTL expired") && m->req.reqs[k].rec_read == 0;
		compaction += c && strstr(c, "a compaction (line 18, manual");
	}
	assert_int_equal(ttl, 1);
	assert_int_equal(compaction, 1);
	assert_int_equal(m->skipped_summary, 1);
	assert_int_equal(m->skipped_snapshot, 1);
	assert_int_equal(m->skipped_unknown, 0); /* its last line, a queue-operation, is outside the chain */
	assert_int_equal(m->outside_lines, 1);
	source_free(src);
	src = support_load("tests/golden/claude-code/edited.jsonl", NULL);
	assert_non_null(strstr(model(src)->req.reqs[1].cause, "an earlier message was edited"));
	source_free(src);
}

static bool has_warning(const struct source *src, const char *needle)
{
	for (size_t i = 0; i < src->nwarnings; i++)
		if (strstr(src->warnings[i].text, needle))
			return true;
	return false;
}

static void test_bad_input(void **state)
{
	(void)state;
	struct source *src = support_load("tests/golden/claude-code/truncated.jsonl", NULL);
	assert_true(model(src)->truncated);
	assert_true(has_warning(src, "line 3: malformed last line ignored"));
	source_free(src);
	src = support_load("tests/golden/claude-code/broken-parent.jsonl", NULL);
	assert_true(has_warning(src, "line 3: parentUuid \"gone-0001\" names no line"));
	assert_int_equal(model(src)->req.reqs[1].nunits, 2); /* the hidden part and its own question */
	source_free(src);
	src = support_load("tests/hostile/claude-code/parent-loop.jsonl", NULL);
	assert_true(has_warning(src, "loops back"));
	source_free(src);
	struct cs_error err;
	/* a malformed line in the middle is skipped, named and counted; here it was the only answer */
	assert_int_equal(support_load_error("tests/golden/claude-code/bad-middle-line.jsonl", NULL, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "1 malformed line skipped, the first at line 2, column 300"));
	src = support_load("tests/golden/claude-code/wrong-type.jsonl", NULL);
	assert_int_equal(model(src)->bad_lines, 1);
	assert_true(has_warning(src, "line 3, column 23: uuid: expected a string, got a number; the line is skipped"));
	source_free(src);
	/* --strict: the error it is */
	struct load_args strict = { .path = "tests/golden/claude-code/bad-middle-line.jsonl", .strict = true };
	cs_error_clear(&err);
	assert_int_equal(source_load_args(&strict, &src, &err), CS_ESYNTAX);
	assert_int_equal(err.line, 2);
	assert_true(err.column > 1);
	strict.path = "tests/golden/claude-code/wrong-type.jsonl";
	cs_error_clear(&err);
	assert_int_equal(source_load_args(&strict, &src, &err), CS_ETYPE);
	assert_int_equal(err.line, 3);
	assert_int_equal(support_load_error("tests/hostile/claude-code/only-user.jsonl", NULL, &err), CS_ESTRUCT);
}

static void test_subagent_file(void **state)
{
	(void)state;
	struct source *src = support_load("tests/hostile/claude-code/agent-sub.jsonl", NULL);
	assert_true(model(src)->subagent);
	assert_int_equal(model(src)->req.nreqs, 1);
	assert_int_equal(src->npieces, 3); /* the part not in the transcript, the question and the answer (later than
					    * its request) */
	source_free(src);
}

/* A long session replays only its last requests (memory would grow with
 * the square of its length); the earlier ones keep their recorded usage. */
static void test_replay_window(void **state)
{
	(void)state;
	struct usage want[64], side;
	size_t n = file_usage(SAMPLE, want, 64, &side);
	cs_tune(CS_TUNE_CC_MAX_UNITS, (size_t)20);
	struct source *src = support_load(SAMPLE, NULL);
	cs_tune(CS_TUNE_CC_MAX_UNITS, (size_t)0);
	const struct cc_model *m = model(src);
	assert_int_equal(m->req.nreqs, n);
	assert_true(m->first_replayed > 0 && m->first_replayed < n);
	size_t units = 0;
	for (size_t k = 0; k < n; k++) {
		const struct req_request *r = &m->req.reqs[k];
		assert_int_equal(m->creqs[k].replayed, k >= m->first_replayed);
		assert_int_equal(r->rec_read, want[k].read);
		assert_int_equal(r->rec_write, want[k].write);
		units += r->nunits;
		if (k <= m->first_replayed)
			assert_null(r->cause);
	}
	assert_true(units <= 20 + n);
	assert_true(m->creqs[n - 1].replayed);
	struct cs_error err;
	char first[16];
	snprintf(first, sizeof first, "%zu", m->first_replayed);
	assert_int_equal(support_set_option(src, "request", first, &err), CS_EUSAGE); /* before the window */
	source_free(src);
}

/* `request N` opens another request: the piece list stays, the assembly
 * holds that request's prompt and drops what came later; "last" goes back. */
static void test_request_setting(void **state)
{
	(void)state;
	struct source *src = support_load(SAMPLE, NULL);
	size_t npieces = src->npieces;
	support_set(src, "request", "3");
	const struct cc_model *m = model(src);
	assert_int_equal(m->req.current, 2);
	assert_int_equal(src->npieces, npieces);
	struct assembly a;
	support_assemble(src, &a);
	const char *p = support_prompt(&a);
	assert_non_null(strstr(p, "I'll read the parser first"));
	assert_non_null(strstr(p, "Two tests: test_empty_input"));
	assert_null(strstr(p, "continued from a previous conversation"));
	assert_null(strstr(p, "SIDECHAIN-ONLY"));
	long later = 0;
	for (size_t i = 0; i < src->npieces; i++)
		later += a.results[i].reason == REASON_LATER;
	assert_true(later > 0);
	asm_fini(&a);
	struct cs_error err;
	assert_int_equal(support_set_option(src, "request", "9", &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "8 requests"));
	support_set(src, "request", "last");
	assert_int_equal(model(src)->req.current, 7);
	support_assemble(src, &a);
	assert_non_null(strstr(support_prompt(&a), "continued from a previous conversation"));
	asm_fini(&a);
	source_free(src);
}

/* What the predictions and lints say, to compare two ways of reaching them. */
static void describe(const struct cc_model *m, struct strbuf *out)
{
	sb_reset(out);
	sb_printf(out, "current %zu\n", m->req.current);
	for (size_t k = 0; k < m->req.nreqs; k++) {
		const struct req_request *r = &m->req.reqs[k];
		sb_printf(out, "%zu: read %ld write %ld uncached %ld cause %s\n", k, r->pred_read, r->pred_write,
			  r->pred_uncached, r->cause ? r->cause : "-");
	}
	for (size_t l = 0; l < m->req.nlints; l++)
		sb_printf(out, "lint %s %ld %s\n", m->req.lints[l].code, m->req.lints[l].unit, m->req.lints[l].sentence);
}

/* A step to another request ([ ]) takes only its lints, the predictions
 * standing: the same as predicting the whole session again for it. */
static void test_step_same_as_full_prediction(void **state)
{
	(void)state;
	/* Short prompts under the model's cache minimum: every request has
	 * lints of its own (the breakpoint at its last block). */
	char *dir = support_tempdir();
	struct strbuf text = STRBUF_INIT;
	for (int i = 1; i <= 4; i++) {
		const char *head = "\"sessionId\":\"0000-test\",\"timestamp\":\"2026-11-20T09:00:00.000Z\"";
		if (i == 1)
			sb_printf(&text, "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,%s,", head);
		else
			sb_printf(&text, "{\"type\":\"user\",\"uuid\":\"u%d\",\"parentUuid\":\"a%d\",%s,", i, i - 1, head);
		sb_printf(&text, "\"message\":{\"role\":\"user\",\"content\":\"question %d\"}}\n", i);
		sb_printf(&text, "{\"type\":\"assistant\",\"uuid\":\"a%d\",\"parentUuid\":\"u%d\",%s,\"message\":{\"id\":"
			  "\"msg_%d\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[{\"type\":\"text\","
			  "\"text\":\"answer %d\"}],\"usage\":{\"input_tokens\":%d,\"cache_creation_input_tokens\":0,"
			  "\"cache_read_input_tokens\":0,\"output_tokens\":5}}}\n", i, i, head, i, i, 200 + 10 * i);
	}
	support_write(dir, "short.jsonl", sb_str(&text));
	sb_fini(&text);
	struct source *src = support_load(support_path(dir, "short.jsonl"), NULL);
	struct cc_model *m = src->model;
	struct strbuf stepped = STRBUF_INIT, full = STRBUF_INIT;
	size_t lints = 0;
	for (size_t k = m->req.nreqs; k-- > 0;) {
		char want[24];
		snprintf(want, sizeof want, "%zu", k + 1);
		support_set(src, "request", want);
		describe(m, &stepped);
		lints += m->req.nlints;
		m->req.predicted_for = 0; /* as after an edit: everything predicted again */
		struct cs_error err;
		assert_int_equal(cc_select(src, k, &err), CS_OK);
		describe(m, &full);
		assert_string_equal(sb_str(&stepped), sb_str(&full));
	}
	assert_true(lints > 0);
	sb_fini(&stepped);
	sb_fini(&full);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* A block's lines, code points and hidden characters, counted as it is
 * read, are its piece's. */
static void test_piece_counts(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "hidden.jsonl",
		      "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"0000-test\",\"message\":"
		      "{\"role\":\"user\",\"content\":\"one\\ntwo \\u202e three\\n\"}}\n"
		      "{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"0000-test\",\"message\":"
		      "{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"plain\"}]}}\n");
	struct source *src = support_load(support_path(dir, "hidden.jsonl"), NULL);
	assert_int_equal(src->npieces, 3); /* piece 0: the part not in the transcript */
	assert_int_equal(src->pieces[1].lines, 2);
	assert_int_equal(src->pieces[1].code_points, 16); /* "one\ntwo \u202e three\n" */
	assert_true(src->pieces[1].flags & PIECE_HIDDEN);
	assert_int_equal(src->pieces[2].lines, 1);
	assert_int_equal(src->pieces[2].code_points, 5);
	assert_false(src->pieces[2].flags & PIECE_HIDDEN);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* A profile named as the session's model in the user's cache.yml replaces
 * the table's figures, as for a request log: under a minimum no prefix
 * reaches, no request reads or writes the cache; without it, some do. */
static void test_user_facts(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char *saved = support_config_home(dir,
					  "profiles:\n  claude-sonnet-4-5:\n    based_on: anthropic\n    min_prefix: 999999\n"
					  "    source: measured\n    as_of: 2026-11\n");
	struct source *src = support_load("samples/claude-code/session.jsonl", "claude-code");
	const struct cc_model *m = model(src);
	bool known = false;
	const struct req_model_facts *f = request_facts(&m->req, m->req.reqs[0].model, &known);
	assert_true(known);
	assert_int_equal(f->min_prefix, 999999);
	for (size_t k = 0; k < m->req.nreqs; k++)
		assert_true(m->req.reqs[k].pred_read == 0 && m->req.reqs[k].pred_write == 0);
	source_free(src);
	support_config_restore(saved);
	src = support_load("samples/claude-code/session.jsonl", "claude-code");
	m = model(src);
	long read = 0;
	for (size_t k = 0; k < m->req.nreqs; k++)
		read += m->req.reqs[k].pred_read;
	assert_true(read > 0);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* ---- the shapes of ctxscope-formats(5) section 7b (tests/golden/claude-code/shapes) ---- */

#define SHAPES "tests/golden/claude-code/shapes/"

/* The file lines request k's prompt holds, in its order (a line of several
 * blocks once), the part not in the transcript left out; 0-ended. */
static void prompt_lines(const struct cc_model *m, size_t k, long *out, size_t cap)
{
	const struct req_request *r = &m->req.reqs[k];
	size_t n = 0;
	for (size_t u = r->first_unit + 1; u < r->first_unit + r->nunits && n + 1 < cap; u++) {
		long line = m->lines[m->blocks[m->unit_block[u]].line].line;
		if (!n || out[n - 1] != line)
			out[n++] = line;
	}
	out[n] = 0;
}

/* Request k (1-based) replays exactly the lines `want` (0-ended), written out by hand. */
static void assert_replay(const struct source *src, size_t k, const long *want)
{
	long got[64];
	prompt_lines(model(src), k - 1, got, 64);
	size_t i = 0;
	for (; want[i] && got[i]; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(got[i], 0);
	assert_int_equal(want[i], 0);
}

static void assert_all_main(const struct source *src)
{
	for (size_t k = 0; k < model(src)->req.nreqs; k++)
		assert_true(model(src)->creqs[k].main);
}

/* Attachments are links of the chain and, when they carry text for the
 * model, pieces of the next request; a progress line between a call and
 * its result does not break the chain; a hook_success is a link only. */
static void test_shape_attachments(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "attachments.jsonl", NULL);
	assert_int_equal(model(src)->req.nreqs, 2);
	assert_replay(src, 1, (const long[]){ 1, 2, 3, 0 });
	assert_replay(src, 2, (const long[]){ 1, 2, 3, 5, 7, 8, 9, 0 });
	assert_int_equal(model(src)->broken_chains, 0);
	assert_int_equal(model(src)->attachments, 4);
	assert_int_equal(model(src)->link_lines, 2); /* the hook_success and the progress line */
	assert_all_main(src);
	bool skills = false, reminder = false, result = false;
	for (size_t i = 0; i < src->npieces; i++) {
		skills |= !strcmp(src->pieces[i].label, "attachment: skill listing");
		reminder |= !strcmp(src->pieces[i].label, "attachment: task reminder");
		result |= !strcmp(src->pieces[i].label, "result of Grep src");
		assert_null(strstr(src->pieces[i].label, ".content[")); /* never a place in the file as a row */
	}
	assert_true(skills && reminder && result);
	source_free(src);
}

/* A three-way parallel call: one message over four lines, its results
 * written as the calls finished (r2, r1, r3), each a child of its own
 * call; every later request holds them all, in the order of the calls. */
static void test_shape_parallel(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "parallel-tools.jsonl", NULL);
	assert_int_equal(model(src)->req.nreqs, 4);
	assert_replay(src, 1, (const long[]){ 1, 0 });
	assert_replay(src, 2, (const long[]){ 1, 2, 3, 4, 5, 7, 6, 8, 0 });
	assert_replay(src, 3, (const long[]){ 1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 0 });
	assert_replay(src, 4, (const long[]){ 1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11, 12, 0 });
	assert_all_main(src);
	for (size_t k = 1; k < 4; k++) /* each extends the one before: nothing broke */
		assert_null(model(src)->req.reqs[k].cause);
	source_free(src);
}

/* 1-hour writes recorded: a 20-minute pause is no expiry; the reads are
 * predicted in recorded units; the first request's read is the global one. */
static void test_shape_one_hour(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "one-hour.jsonl", NULL);
	const struct cc_model *m = model(src);
	assert_int_equal(m->req.nreqs, 3);
	assert_replay(src, 3, (const long[]){ 1, 2, 3, 4, 5, 0 });
	assert_true(m->ttl_recorded);
	assert_int_equal(m->session_ttl, 3600);
	for (size_t k = 0; k < 3; k++) {
		assert_int_equal(m->creqs[k].ttl, 3600);
		assert_int_equal(m->req.reqs[k].pred_read, m->req.reqs[k].rec_read);
		assert_null(m->req.reqs[k].cause);
	}
	assert_int_equal(m->creqs[0].global_read, 9000);
	assert_true(m->creqs[1].recorded_units);
	source_free(src);
}

/* An image inside a tool result counts by the provider's rule (2000x1008:
 * 1,599 tokens: scaled to 1543x777, under 1,600), never as its 43,000 characters of base64. */
static void test_shape_image(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "image-result.jsonl", NULL);
	const struct cc_model *m = model(src);
	assert_replay(src, 2, (const long[]){ 1, 2, 3, 0 });
	const struct cc_block *b = &m->blocks[m->lines[2].first_block];
	assert_int_equal(b->images, 1);
	assert_true(b->tokens >= 1599 && b->tokens < 1599 + 40);
	assert_true(m->creqs[1].gap >= 0);
	source_free(src);
}

/* A session ending on /exit (and a system line on a side branch): the
 * main chain is the last request's, every request on it, three lines apart. */
static void test_shape_exit(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "exit-ending.jsonl", NULL);
	assert_int_equal(model(src)->req.nreqs, 3);
	assert_all_main(src);
	assert_int_equal(model(src)->after_last, 3);
	assert_int_equal(model(src)->req.current, 2);
	assert_replay(src, 3, (const long[]){ 1, 2, 3, 4, 5, 0 });
	source_free(src);
}

/* Nine leading hook, queue and permission lines: detected without --kind. */
static void test_shape_leading_hooks(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "leading-hooks.jsonl", NULL);
	assert_string_equal(src->kind->name, "claude-code");
	assert_int_equal(model(src)->req.nreqs, 1);
	assert_replay(src, 1, (const long[]){ 10, 0 });
	assert_int_equal(model(src)->broken_chains, 0);
	source_free(src);
}

/* The seven types of line outside the chain are known: counted apart, no
 * warning; a line of a type nobody knows is warned of, alone. */
static void test_shape_outside_chain(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "outside-chain.jsonl", NULL);
	const struct cc_model *m = model(src);
	assert_string_equal(src->kind->name, "claude-code");
	assert_int_equal(m->outside_lines, 8);
	assert_int_equal(m->skipped_unknown, 1);
	assert_true(has_warning(src, "1 line of unknown types skipped"));
	assert_false(has_warning(src, "lines of unknown types"));
	assert_int_equal(m->req.nreqs, 2);
	assert_replay(src, 2, (const long[]){ 5, 7, 11, 0 });
	assert_int_equal(m->broken_chains, 0);
	source_free(src);
}

/* Thinking of an earlier turn on a Haiku model (claude-haiku-5): stripped
 * by the API, so not in the next requests' prompts (and said to be, not
 * called off the path); the thinking of the turn in progress (followed
 * only by a tool result) is sent. */
static void test_shape_thinking_earlier(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "thinking-earlier.jsonl", NULL);
	assert_int_equal(model(src)->req.nreqs, 3);
	assert_replay(src, 2, (const long[]){ 1, 3, 4, 0 });
	assert_replay(src, 3, (const long[]){ 1, 3, 4, 5, 6, 7, 0 });
	struct assembly a; /* the request shown (the last) says why the earlier thinking is out */
	support_assemble(src, &a);
	assert_int_equal(a.results[support_piece(src, "line2.content[0]")].reason, REASON_STRIPPED);
	assert_int_equal(a.results[support_piece(src, "line8.content[0]")].reason, REASON_LATER);
	asm_fini(&a);
	source_free(src);
}

/* A malformed line in the middle (two) skipped, named and counted; usage
 * values that are not counts warned with line and column. */
static void test_shape_malformed(void **state)
{
	(void)state;
	struct source *src = support_load(SHAPES "malformed-middle.jsonl", NULL);
	const struct cc_model *m = model(src);
	assert_int_equal(m->bad_lines, 2);
	assert_int_equal(m->bad_usage, 4);
	assert_true(has_warning(src, "line 4, column 250: message: expected an object, got a string"));
	assert_true(has_warning(src, "line 8, column 443: message.usage.input_tokens is -5, not a count (negative)"));
	assert_true(has_warning(src, "message.usage.cache_read_input_tokens is 1e999, not a count (too big)"));
	assert_true(has_warning(src, "message.usage.output_tokens is 1.5, not a count (not a whole number)"));
	assert_true(has_warning(src, "message.usage.cache_creation.ephemeral_5m_input_tokens is a string \"12\""));
	assert_int_equal(m->req.nreqs, 3);
	assert_replay(src, 2, (const long[]){ 1, 2, 3, 0 });
	assert_replay(src, 3, (const long[]){ 1, 2, 3, 5, 7, 0 });
	source_free(src);
}

/* Thinking of an earlier turn: stripped by the API for older Sonnet and
 * Opus and every Haiku (not sent: not in the replay), kept by Opus 4.5 and
 * later (caching.md section 1). */
static void test_thinking_by_model(void **state)
{
	(void)state;
	static const char *const models[] = { "claude-sonnet-4-20250514", "claude-opus-4-6" };
	char *dir = support_tempdir();
	for (int i = 0; i < 2; i++) {
		char text[2048];
		snprintf(text, sizeof text,
			 "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":"
			 "{\"role\":\"user\",\"content\":\"one\"}}\n"
			 "{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s\",\"message\":"
			 "{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"%s\",\"content\":[{\"type\":\"thinking\","
			 "\"thinking\":\"let me think\"},{\"type\":\"text\",\"text\":\"1\"}],\"usage\":{\"input_tokens\":9}}}\n"
			 "{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":\"a1\",\"sessionId\":\"s\",\"message\":"
			 "{\"role\":\"user\",\"content\":\"two\"}}\n"
			 "{\"type\":\"assistant\",\"uuid\":\"a2\",\"parentUuid\":\"u2\",\"sessionId\":\"s\",\"message\":"
			 "{\"id\":\"m2\",\"role\":\"assistant\",\"model\":\"%s\",\"content\":[{\"type\":\"text\","
			 "\"text\":\"2\"}],\"usage\":{\"input_tokens\":9}}}\n", models[i], models[i]);
		support_write(dir, "t.jsonl", text);
		struct source *src = support_load(support_path(dir, "t.jsonl"), NULL);
		const struct req_request *r = &model(src)->req.reqs[1];
		/* the hidden part, "one", [thinking,] "1", "two" */
		assert_int_equal(r->nunits, i == 0 ? 4 : 5);
		source_free(src);
	}
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detection),
		cmocka_unit_test(test_recorded_equals_file),
		cmocka_unit_test(test_sidechain_and_compaction_kept_out),
		cmocka_unit_test(test_causes),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_subagent_file),
		cmocka_unit_test(test_replay_window),
		cmocka_unit_test(test_request_setting),
		cmocka_unit_test(test_step_same_as_full_prediction),
		cmocka_unit_test(test_piece_counts),
		cmocka_unit_test(test_user_facts),
		cmocka_unit_test(test_shape_attachments),
		cmocka_unit_test(test_shape_parallel),
		cmocka_unit_test(test_shape_one_hour),
		cmocka_unit_test(test_shape_image),
		cmocka_unit_test(test_shape_exit),
		cmocka_unit_test(test_shape_leading_hooks),
		cmocka_unit_test(test_shape_malformed),
		cmocka_unit_test(test_shape_outside_chain),
		cmocka_unit_test(test_shape_thinking_earlier),
		cmocka_unit_test(test_thinking_by_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
