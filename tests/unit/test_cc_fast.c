/* test_cc_fast.c: the claude-code reader's two ways through a line give
 * the same session. Every line read straight from its bytes (fast.c) must
 * come out as the tree's way (load.c) makes it: the same lines, blocks,
 * texts, counts and hashes, the same warnings, and on bad input the same
 * error at the same line and column. Each input is loaded both ways and
 * compared field by field: the samples, the golden and hostile sessions
 * (fast-shapes.jsonl holds the shapes the quick way declines or treats
 * apart), and lines that must fail. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kinds/claude_code/claude_code.h"
#include "base/tune.h"
#include "load.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void same_line(const struct cc_line *a, const struct cc_line *b)
{
	support_same_str(a->uuid, b->uuid);
	support_same_str(a->parent, b->parent);
	support_same_str(a->logical_parent, b->logical_parent);
	support_same_str(a->msg_id, b->msg_id);
	support_same_str(a->model, b->model);
	support_same_str(a->trigger, b->trigger);
	assert_int_equal(a->pre_tokens, b->pre_tokens);
	assert_int_equal(a->line, b->line);
	assert_true(a->time == b->time);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->sidechain, b->sidechain);
	assert_int_equal(a->compact_summary, b->compact_summary);
	assert_int_equal(a->first_block, b->first_block);
	assert_int_equal(a->nblocks, b->nblocks);
	assert_int_equal(a->has_usage, b->has_usage);
	assert_int_equal(a->in, b->in);
	assert_int_equal(a->cache_write, b->cache_write);
	assert_int_equal(a->cache_read, b->cache_read);
	assert_int_equal(a->out, b->out);
	assert_int_equal(a->write_1h, b->write_1h);
	assert_int_equal(a->write_5m, b->write_5m);
	assert_int_equal(a->fast, b->fast);
	assert_int_equal(a->web_searches, b->web_searches);
	support_same_str(a->attach, b->attach);
}

static void same_block(const struct cc_block *a, const struct cc_block *b)
{
	support_same_str(a->type, b->type);
	assert_int_equal(a->text_len, b->text_len);
	assert_memory_equal(a->text, b->text, a->text_len + 1);
	assert_int_equal(a->code_points, b->code_points);
	assert_int_equal(a->lines, b->lines);
	assert_int_equal(a->hidden, b->hidden);
	assert_int_equal(a->tool, b->tool);
	assert_int_equal(a->hash, b->hash);
	assert_int_equal(a->tokens, b->tokens);
	support_same_str(a->tool_id, b->tool_id);
	support_same_str(a->tool_name, b->tool_name);
	support_same_str(a->summary, b->summary);
	assert_int_equal(a->images, b->images);
	support_same_str(a->file, b->file);
	assert_int_equal(a->line, b->line);
}

static void same_session(const struct source *sa, const struct source *sb)
{
	const struct cc_model *a = sa->model, *b = sb->model;
	assert_int_equal(a->nlines, b->nlines);
	assert_int_equal(a->nblocks, b->nblocks);
	assert_int_equal(a->total_lines, b->total_lines);
	assert_int_equal(a->skipped_summary, b->skipped_summary);
	assert_int_equal(a->skipped_snapshot, b->skipped_snapshot);
	assert_int_equal(a->skipped_unknown, b->skipped_unknown);
	assert_int_equal(a->outside_lines, b->outside_lines);
	assert_int_equal(a->sidechain_lines, b->sidechain_lines);
	assert_int_equal(a->truncated, b->truncated);
	for (size_t i = 0; i < a->nlines; i++)
		same_line(&a->lines[i], &b->lines[i]);
	for (size_t i = 0; i < a->nblocks; i++)
		same_block(&a->blocks[i], &b->blocks[i]);
	assert_int_equal(sa->nwarnings, sb->nwarnings);
	for (size_t i = 0; i < sa->nwarnings; i++)
		assert_string_equal(sa->warnings[i].text, sb->warnings[i].text);
	assert_int_equal(a->req.nreqs, b->req.nreqs);
	assert_int_equal(a->req.nunits, b->req.nunits);
	for (size_t i = 0; i < a->req.nunits; i++)
		assert_int_equal(a->req.units[i].hash, b->req.units[i].hash);
}

/* Loads path both ways; compares what came out. Returns the status. */
static int both_ways(const char *path)
{
	return support_both_ways(path, "claude-code", CS_TUNE_CC_FAST, same_session);
}

static void test_files_both_ways(void **state)
{
	(void)state;
	static const char *const files[] = {
		"samples/claude-code/session.jsonl",
		"samples/claude-code/agent-7c1e9b2d.jsonl",
		"tests/golden/claude-code/bad-middle-line.jsonl",
		"tests/golden/claude-code/broken-parent.jsonl",
		"tests/golden/claude-code/edited.jsonl",
		"tests/golden/claude-code/truncated.jsonl",
		"tests/golden/claude-code/wrong-type.jsonl",
		"tests/hostile/claude-code/agent-sub.jsonl",
		"tests/hostile/claude-code/dup-and-system.jsonl",
		"tests/hostile/claude-code/odd-shapes.jsonl",
		"tests/hostile/claude-code/only-user.jsonl",
		"tests/hostile/claude-code/parent-loop.jsonl",
		"tests/hostile/claude-code/sidechain-not-bool.jsonl",
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		both_ways(files[i]);
	assert_int_equal(both_ways("tests/hostile/claude-code/fast-shapes.jsonl"), CS_OK);
	static const char *const shapes[] = { "attachments", "parallel-tools", "one-hour", "image-result", "exit-ending",
					      "leading-hooks", "malformed-middle", "fast-web", "synthetic", "pdf-documents" };
	char path[128];
	for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
		snprintf(path, sizeof path, "tests/golden/claude-code/shapes/%s.jsonl", shapes[i]);
		assert_int_equal(both_ways(path), CS_OK);
	}
}

#define HEAD "{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"sessionId\":\"s\",\"message\":{\"role\":\"user\","
#define ANSWER "{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\",\"sessionId\":\"s\",\"message\":" \
	       "{\"id\":\"m\",\"content\":\"ok\"}}\n"

/* A first line that is odd or fails (a second follows, so it is not the last). */
static void test_odd_lines_both_ways(void **state)
{
	(void)state;
	static const char *const bad[] = {
		HEAD "\"content\":[{\"type\":\"text\",\"text\":\"a\",\"text\":\"b\"}]}}\n",   /* a key twice */
		HEAD "\"content\":\"nul \\u0000 here\"}}\n",                                /* \u0000 */
		HEAD "\"content\":\"bad \\x escape\"}}\n",
		HEAD "\"content\":\"lone \\ud800\"}}\n",
		HEAD "\"content\":\"low first \\ude00\\ud83d\"}}\n",
		HEAD "\"content\":\"high then not low \\ud83d\\u0041\"}}\n",
		HEAD "\"content\":5}}\n",
		HEAD "\"content\":[\"not a block\"]}}\n",
		HEAD "\"content\":[{\"text\":\"no type\"}]}}\n",
		HEAD "\"content\":\"x\"}} trailing\n",
		HEAD "\"content\":\"x\",}}\n",
		HEAD "\"content\":[{\"type\":\"tool_use\",\"input\":{\"n\":1.}}]}}\n",
		HEAD "\"content\":[{\"type\":\"tool_use\",\"input\":{\"n\":-}}]}}\n",
		HEAD "\"content\":\"x\"},\"uuid\":\"again\"}\n",
		"{\"type\":\"user\",\"uuid\":5,\"message\":{\"content\":\"x\"}}\n",
		"{\"type\":\"assistant\",\"uuid\":\"a\",\"message\":{\"id\":[],\"content\":\"x\"}}\n",
		"{\"type\":\"user\",\"uuid\":\"u\",\"isSidechain\":\"yes\",\"message\":{\"content\":\"x\"}}\n",
		"{\"type\":\"user\",\"uuid\":\"u\",\"message\":\"not an object\"}\n",
		"{\"type\":\"user\",\"uuid\":\"u\",\"message\":{\"content\":\"x\"}\n",
	};
	char *dir = support_tempdir();
	char text[1024];
	int failed = 0;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		snprintf(text, sizeof text, "%s%s", bad[i], ANSWER);
		support_write(dir, "bad.jsonl", text);
		failed += both_ways(support_path(dir, "bad.jsonl")) != CS_OK;
	}
	/* a malformed line that is not the last is skipped, with a warning,
	 * and the same either way (ctxscope-formats(5) section 7b); nothing fails */
	assert_int_equal(failed, 0);
	support_rmtree(dir);
	free(dir);
}

/* An escape (a surrogate pair too) at every place of a string, across
 * the sixteen-byte steps of the copy, and a string that ends on a step's last byte. */
static void test_escapes_everywhere(void **state)
{
	(void)state;
	static const char *const escapes[] = { "\\n", "\\\"", "\\u00e9", "\\u20ac", "\\\\", "\\ud83d\\ude00", "" };
	char *dir = support_tempdir();
	char text[1024], body[128];
	for (size_t e = 0; e < sizeof escapes / sizeof *escapes; e++)
		for (int at = 0; at < 36; at++) {
			snprintf(body, sizeof body, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwxyz0123456789", escapes[e],
				 35 - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
			snprintf(text, sizeof text, HEAD "\"content\":[{\"type\":\"text\",\"text\":\"%s\"}]}}\n%s", body,
				 ANSWER);
			support_write(dir, "esc.jsonl", text);
			assert_int_equal(both_ways(support_path(dir, "esc.jsonl")), CS_OK);
		}
	support_rmtree(dir);
	free(dir);
}

/* One line of many blocks, a tool_use whose input prints longer than it
 * reads (1e15 is written out) before each text: the text kept is about the
 * line's size. Each string once reserved the rest of the line, which the
 * tool_use's longer print left no room for: a new chunk the size of the
 * rest of the line for every text. */
static void test_many_blocks_one_line(void **state)
{
	(void)state;
	struct strbuf line;
	sb_init(&line);
	sb_puts(&line, HEAD "\"content\":\"hi\"}}\n{\"type\":\"assistant\",\"uuid\":\"a1\",\"parentUuid\":\"u1\","
		       "\"sessionId\":\"s\",\"message\":{\"id\":\"m\",\"content\":[");
	for (int i = 0; i < 300; i++) {
		sb_printf(&line, "%s{\"type\":\"tool_use\",\"id\":\"tu%d\",\"name\":\"E\",\"input\":{\"a\":[", i ? "," : "", i);
		for (int k = 0; k < 200; k++)
			sb_puts(&line, k ? ",1e15" : "1e15");
		sb_printf(&line, "]}},{\"type\":\"text\",\"text\":\"t%d %0100d\"}", i, 0);
	}
	sb_puts(&line, "]}}\n");
	assert_false(line.failed);
	char *dir = support_tempdir();
	support_write(dir, "wide.jsonl", sb_str(&line));
	assert_int_equal(both_ways(support_path(dir, "wide.jsonl")), CS_OK);
	struct source *src = support_load(support_path(dir, "wide.jsonl"), "claude-code");
	const struct cc_model *m = src->model;
	assert_true(bulk_size(&m->text) < 4 * line.len);
	source_free(src);
	sb_fini(&line);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_both_ways),
		cmocka_unit_test(test_odd_lines_both_ways),
		cmocka_unit_test(test_escapes_everywhere),
		cmocka_unit_test(test_many_blocks_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
