/* test_manifest.c: the working-set manifest kind: loader errors with
 * positions, every strategy at its boundaries, max_lines in each direction,
 * ties, the budget decisions of ctxscope-formats(5), and edits that re-run exactly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "edit.h"
#include "text/hidden.h"
#include "kind.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER "\n[... truncated ...]\n" /* 21 code points */

/* n copies of c, as a string (static, for one use at a time per slot). */
static const char *chars(int slot, char c, size_t n)
{
	static char buf[4][4096];
	memset(buf[slot], c, n);
	buf[slot][n] = '\0';
	return buf[slot];
}

static struct source *load_manifest(const char *yaml)
{
	support_write(support_dir, "ws.yml", yaml);
	return support_load(support_path(support_dir, "ws.yml"), NULL);
}

static int load_error(const char *yaml, struct cs_error *err)
{
	support_write(support_dir, "ws.yml", yaml);
	return support_load_error(support_path(support_dir, "ws.yml"), NULL, err);
}

static const struct piece_result *result(struct source *src, const struct assembly *a, const char *id)
{
	return &a->results[support_piece(src, id)];
}

/* The rendered text of the block of piece `id`. */
static const char *block_text(struct source *src, const struct assembly *a, const char *id)
{
	static struct strbuf buf = STRBUF_INIT;
	sb_reset(&buf);
	long b = result(src, a, id)->block;
	assert_true(b >= 0);
	assert_true(asm_block_text(a, (size_t)b, &buf));
	return sb_str(&buf);
}

/* The load counts a listed file's lines, code points and hidden characters
 * (and finds a NUL) in one pass of its own: each must agree with the
 * counting functions, at every length around a word and with every kind of
 * byte at every place. */
static void test_listed_file_counts_agree(void **state)
{
	(void)state;
	static const char *const bytes[] = { "a", "\n", "\r\n", "\xc3\xa9", "\xe2\x80\xae", "\xff", "\x7f", "\x80" };
	struct strbuf yaml = STRBUF_INIT, text = STRBUF_INIT;
	sb_puts(&yaml, "files:\n");
	char name[32];
	size_t nfiles = 0;
	for (size_t len = 0; len <= 40; len++)
		for (size_t k = 0; k < sizeof bytes / sizeof bytes[0]; k++)
			for (size_t at = 0; at <= len; at += len > 9 ? 5 : 1) {
				sb_reset(&text);
				for (size_t i = 0; i < len; i++)
					sb_puts(&text, i == at ? bytes[k] : (i % 7 == 6 ? "\n" : "x"));
				snprintf(name, sizeof name, "f%zu.txt", nfiles++);
				support_write_bytes(support_dir, name, text.data ? text.data : "", text.len);
				sb_printf(&yaml, "  - {path: %s, priority: 0.5}\n", name);
			}
	/* long runs of newlines: more than a lane of a 16-byte word counts */
	for (size_t k = 0; k < 3; k++) {
		sb_reset(&text);
		for (size_t i = 0; i < 9000 + k * 17; i++)
			sb_puts(&text, k == 1 && i % 3 ? "x" : "\n");
		if (k == 2)
			sb_puts(&text, "\xe2\x80\x8b no newline at the end");
		snprintf(name, sizeof name, "long%zu.txt", k);
		support_write_bytes(support_dir, name, text.data, text.len);
		sb_printf(&yaml, "  - {path: %s, priority: 0.5}\n", name);
		nfiles++;
	}
	struct source *src = load_manifest(sb_str(&yaml));
	assert_non_null(src);
	assert_int_equal(src->npieces, nfiles);
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece *p = &src->pieces[i];
		assert_int_equal(p->absent, 0);
		assert_int_equal(p->lines, utf8_count_lines(p->text, p->text_bytes));
		assert_int_equal(p->code_points, utf8_count_code_points(p->text, p->text_bytes));
		assert_int_equal(!!(p->flags & PIECE_HIDDEN), hidden_scan(p->text, p->text_bytes, NULL));
	}
	source_free(src);
	/* a NUL anywhere in a word or its tail: binary, excluded */
	sb_reset(&yaml);
	sb_puts(&yaml, "files:\n");
	for (size_t at = 0; at < 19; at++) {
		char data[19];
		memset(data, 'x', sizeof data);
		data[at] = '\0';
		snprintf(name, sizeof name, "nul%zu.txt", at);
		support_write_bytes(support_dir, name, data, sizeof data);
		sb_printf(&yaml, "  - {path: %s, priority: 0.5}\n", name);
	}
	src = load_manifest(sb_str(&yaml));
	assert_non_null(src);
	for (size_t i = 0; i < src->npieces; i++)
		assert_int_equal(src->pieces[i].absent, REASON_BINARY);
	source_free(src);
	sb_fini(&yaml);
	sb_fini(&text);
}

/* ---- loader errors ---------------------------------------------------------- */

static void test_seed_sample_line_is_a_positioned_error(void **state)
{
	(void)state;
	struct cs_error err;
	int rc = load_error("protocol: CONTEXT-ASSEMBLY/0.1\n"
			    "files:\n"
			    "  - path: \"a.md\"\n"
			    "    priority: 1.0\n"
			    "metadata:\n"
			    "  assembled_by: \"model\" | \"orchestrator\" | \"user\"\n",
			    &err);
	assert_int_equal(rc, CS_ESYNTAX);
	/* libyaml's problem mark: just past the '|' that started a block scalar */
	assert_int_equal(err.line, 6);
	assert_int_equal(err.column, 27);
	assert_non_null(strstr(err.file, "ws.yml"));
	char msg[2048];
	cs_error_format(&err, msg, sizeof msg);
	assert_non_null(strstr(msg, "ws.yml:6:27: "));
	assert_non_null(strstr(msg, "began at 6:25"));
}

static void test_structural_errors_name_path_and_position(void **state)
{
	(void)state;
	struct cs_error err;
	assert_int_equal(load_error("budget: {max_tokens: 100}\n", &err), CS_ESTRUCT);
	assert_string_equal(err.path, "files");

	assert_int_equal(load_error("files:\n  - path: a.md\n    priority: high\n", &err), CS_ETYPE);
	assert_string_equal(err.path, "files[0].priority");
	assert_int_equal(err.line, 3);
	assert_int_equal(err.column, 15);

	assert_int_equal(load_error("files:\n  - path: a.md\n    priority: 0.5\n  - priority: 0.4\n", &err), CS_ESTRUCT);
	assert_string_equal(err.path, "files[1]");
	assert_non_null(strstr(err.message, "path"));

	assert_int_equal(load_error("files:\n  - {path: a.md, priority: 0.5, role: boss}\n", &err), CS_ETYPE);
	assert_string_equal(err.path, "files[0].role");
	assert_non_null(strstr(err.message, "system, developer, user or context"));

	assert_int_equal(load_error("files:\n  - {path: a.md, priority: 0.5, truncate_strategy: sideways}\n", &err),
			 CS_ETYPE);
	assert_string_equal(err.path, "files[0].truncate_strategy");

	assert_int_equal(load_error("files:\n  - {path: a.md, priority: 0.5, max_lines: 0}\n", &err), CS_ETYPE);
	assert_string_equal(err.path, "files[0].max_lines");

	assert_int_equal(load_error("files:\n  - {path: a.md, priority: 0.5, priority: 0.7}\n", &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "twice"));

	assert_int_equal(load_error("files: {a: 1}\n", &err), CS_ETYPE);
	assert_int_equal(load_error("- just\n- a list\n", &err), CS_ETYPE);
	assert_int_equal(load_error("", &err), CS_ESTRUCT);
	assert_int_equal(load_error("budget: 12\nfiles: []\n", &err), CS_ETYPE);
	assert_string_equal(err.path, "budget");
	assert_int_equal(load_error("budget: {max_tokens: -5}\nfiles: []\n", &err), CS_ETYPE);
	assert_string_equal(err.path, "budget.max_tokens");
}

/* ---- budget decisions ----------------------------------------------------- */

static void test_no_budget_and_empty_files(void **state)
{
	(void)state;
	struct source *src = load_manifest("files: []\n");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(a.budget.limit, 28000);
	assert_int_equal(a.budget.reserve, 4000);
	assert_int_equal(a.budget.usable, 24000);
	assert_int_equal(a.budget.used, 0);
	assert_int_equal(a.nblocks, 0);
	assert_int_equal(src->nwarnings, 1);
	assert_non_null(strstr(src->warnings[0].text, "no budget"));
	asm_fini(&a);
	source_free(src);

	src = load_manifest("budget: {max_tokens: 100, reserved_for_response: 10}\nfiles:\n");
	support_assemble(src, &a);
	assert_int_equal(a.budget.usable, 90);
	assert_int_equal(src->nwarnings, 0);
	asm_fini(&a);
	source_free(src);
}

static void test_effective_disagreeing_is_kept_and_warned(void **state)
{
	(void)state;
	struct source *src =
		load_manifest("budget:\n  max_tokens: 100\n  reserved_for_response: 10\n  effective: 50\nfiles: []\n");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(a.budget.usable, 50);
	assert_int_equal(src->nwarnings, 1);
	assert_non_null(strstr(src->warnings[0].text, "disagrees"));
	assert_int_equal(src->warnings[0].line, 4);
	asm_fini(&a);
	source_free(src);
}

/* ---- strategies at their boundaries --------------------------------------- */

static struct source *one_file(long effective, const char *text, const char *strategy)
{
	char yaml[512];
	support_write(support_dir, "f.txt", text);
	snprintf(yaml, sizeof yaml,
		 "budget: {max_tokens: %ld, reserved_for_response: 0}\n"
		 "files:\n  - {path: f.txt, priority: 0.5, truncate_strategy: %s}\n",
		 effective, strategy);
	return load_manifest(yaml);
}

static void test_fits_exactly(void **state)
{
	(void)state;
	struct source *src = one_file(10, chars(0, 'a', 40), "end");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "f.txt")->outcome, OUTCOME_WHOLE);
	assert_int_equal(a.budget.used, 10);
	assert_int_equal(a.budget.remaining, 0);
	assert_false(a.flags & ASM_TRUNCATED);
	asm_fini(&a);
	source_free(src);
}

static void test_one_token_over_each_strategy(void **state)
{
	(void)state;
	/* 41 code points = 11 tokens into 10: room 40 cp, marker 21, keep 19. */
	char text[64];
	for (int i = 0; i < 41; i++)
		text[i] = (char)('A' + i % 26);
	text[41] = '\0';
	char expect[128];

	struct source *src = one_file(10, text, "end");
	struct assembly a;
	support_assemble(src, &a);
	const struct piece_result *r = result(src, &a, "f.txt");
	assert_int_equal(r->outcome, OUTCOME_TRUNCATED);
	assert_int_equal(r->reason, REASON_TRUNCATED);
	assert_int_equal(r->tokens, 10);
	assert_int_equal(r->original_tokens, 11);
	assert_int_equal(a.budget.used, 10);
	snprintf(expect, sizeof expect, "<context path=\"f.txt\">\n%.19s" MARKER "</context>\n", text);
	assert_string_equal(block_text(src, &a, "f.txt"), expect);
	assert_true(a.flags & ASM_TRUNCATED);
	asm_fini(&a);
	source_free(src);

	src = one_file(10, text, "start");
	support_assemble(src, &a);
	snprintf(expect, sizeof expect, "<context path=\"f.txt\">\n" MARKER "%s\n</context>\n", text + 22);
	assert_string_equal(block_text(src, &a, "f.txt"), expect);
	assert_int_equal(a.budget.used, 10);
	asm_fini(&a);
	source_free(src);

	src = one_file(10, text, "middle"); /* head ceil(19/2) = 10, tail 9 */
	support_assemble(src, &a);
	snprintf(expect, sizeof expect, "<context path=\"f.txt\">\n%.10s" MARKER "%s\n</context>\n", text, text + 32);
	assert_string_equal(block_text(src, &a, "f.txt"), expect);
	assert_int_equal(a.budget.used, 10);
	asm_fini(&a);
	source_free(src);

	src = one_file(10, text, "never");
	support_assemble(src, &a);
	r = result(src, &a, "f.txt");
	assert_int_equal(r->outcome, OUTCOME_DROPPED);
	assert_int_equal(r->reason, REASON_OVER_BUDGET);
	assert_non_null(strstr(r->sentence, "over budget by 1 tokens"));
	assert_non_null(strstr(r->sentence, "never"));
	assert_int_equal(a.budget.used, 0);
	asm_fini(&a);
	source_free(src);
}

static void test_marker_larger_than_room_and_zero_remaining(void **state)
{
	(void)state;
	/* 5 tokens = 20 code points of room: the 21-code-point marker alone is
	 * too big, so the file is excluded rather than cut to nothing. */
	struct source *src = one_file(5, chars(0, 'x', 100), "end");
	struct assembly a;
	support_assemble(src, &a);
	const struct piece_result *r = result(src, &a, "f.txt");
	assert_int_equal(r->outcome, OUTCOME_DROPPED);
	assert_int_equal(r->reason, REASON_OVER_BUDGET);
	assert_non_null(strstr(r->sentence, "marker"));
	asm_fini(&a);
	source_free(src);

	/* 6 tokens = 24 cp: marker 21 + 3 kept. */
	src = one_file(6, chars(0, 'x', 100), "end");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "f.txt")->outcome, OUTCOME_TRUNCATED);
	assert_int_equal(a.budget.used, 6);
	asm_fini(&a);
	source_free(src);

	support_write(support_dir, "a.txt", chars(0, 'a', 40));
	support_write(support_dir, "b.txt", chars(1, 'b', 8));
	src = load_manifest("budget: {max_tokens: 10, reserved_for_response: 0}\n"
			    "files:\n  - {path: a.txt, priority: 0.9}\n  - {path: b.txt, priority: 0.1}\n");
	support_assemble(src, &a);
	r = result(src, &a, "b.txt");
	assert_int_equal(r->outcome, OUTCOME_DROPPED);
	assert_non_null(strstr(r->sentence, "nothing is left"));
	assert_non_null(strstr(r->sentence, "1 file of higher priority took 10"));
	assert_int_equal(a.budget.used, 10);
	asm_fini(&a);
	source_free(src);
}

/* ---- max_lines ------------------------------------------------------------- */

static struct source *lines_file(const char *strategy, int max_lines)
{
	support_write(support_dir, "l.txt", "1\n2\n3\n4\n5\n6\n7\n");
	char yaml[512];
	snprintf(yaml, sizeof yaml,
		 "files:\n  - {path: l.txt, priority: 0.5, truncate_strategy: %s, max_lines: %d}\n", strategy,
		 max_lines);
	return load_manifest(yaml);
}

static void test_max_lines_each_direction(void **state)
{
	(void)state;
	struct assembly a;
	struct source *src = lines_file("end", 3);
	support_assemble(src, &a);
	assert_string_equal(block_text(src, &a, "l.txt"), "<context path=\"l.txt\">\n1\n2\n3\n" MARKER "</context>\n");
	assert_int_equal(result(src, &a, "l.txt")->reason, REASON_MAX_LINES);
	assert_int_equal(result(src, &a, "l.txt")->outcome, OUTCOME_TRUNCATED);
	asm_fini(&a);
	source_free(src);

	src = lines_file("start", 3);
	support_assemble(src, &a);
	assert_string_equal(block_text(src, &a, "l.txt"), "<context path=\"l.txt\">\n" MARKER "5\n6\n7\n</context>\n");
	asm_fini(&a);
	source_free(src);

	src = lines_file("middle", 3); /* first ceil(3/2) = 2, last floor(3/2) = 1 */
	support_assemble(src, &a);
	assert_string_equal(block_text(src, &a, "l.txt"), "<context path=\"l.txt\">\n1\n2\n" MARKER "7\n</context>\n");
	asm_fini(&a);
	source_free(src);

	src = lines_file("never", 3);
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "l.txt")->outcome, OUTCOME_DROPPED);
	assert_int_equal(result(src, &a, "l.txt")->reason, REASON_MAX_LINES);
	asm_fini(&a);
	source_free(src);

	src = lines_file("never", 7); /* not longer than the cap: whole */
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "l.txt")->outcome, OUTCOME_WHOLE);
	assert_string_equal(block_text(src, &a, "l.txt"), "<context path=\"l.txt\">\n1\n2\n3\n4\n5\n6\n7\n</context>\n");
	asm_fini(&a);
	source_free(src);
}

/* ---- order, roles, absent files ------------------------------------------ */

static void test_priority_order_and_ties(void **state)
{
	(void)state;
	support_write(support_dir, "a", "A");
	support_write(support_dir, "b", "B");
	support_write(support_dir, "c", "C");
	support_write(support_dir, "d", "D");
	struct source *src = load_manifest("files:\n"
					   "  - {path: a, priority: 0.5}\n"
					   "  - {path: b, priority: 0.9, role: user}\n"
					   "  - {path: c, priority: 0.5, role: system}\n"
					   "  - {path: d, priority: 0.5, role: developer}\n");
	struct assembly a;
	support_assemble(src, &a);
	assert_string_equal(support_prompt(&a), "<user>\nB\n</user>\n"
						"\n<context path=\"a\">\nA\n</context>\n"
						"\n<system>\nC\n</system>\n"
						"\n<developer>\nD\n</developer>\n");
	asm_fini(&a);
	source_free(src);
}

static void test_absent_files_are_excluded_with_reasons(void **state)
{
	(void)state;
	support_write_bytes(support_dir, "bin.dat", "PK\0\3", 4);
	support_write(support_dir, "sub/x.txt", "x");
	support_write(support_dir, "ok.txt", "fine");
	struct source *src = load_manifest("files:\n"
					   "  - {path: gone.txt, priority: 0.9}\n"
					   "  - {path: bin.dat, priority: 0.8}\n"
					   "  - {path: sub, priority: 0.7}\n"
					   "  - {path: ok.txt, priority: 0.6}\n");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "gone.txt")->reason, REASON_MISSING);
	assert_int_equal(result(src, &a, "bin.dat")->reason, REASON_BINARY);
	assert_int_equal(result(src, &a, "sub")->reason, REASON_DIRECTORY);
	assert_int_equal(result(src, &a, "ok.txt")->outcome, OUTCOME_WHOLE);
	assert_int_equal(a.nnot_whole, 3);
	asm_fini(&a);
	source_free(src);
}

static void test_path_listed_twice_is_warned(void **state)
{
	(void)state;
	support_write(support_dir, "a", "A");
	struct source *src = load_manifest("budget: {max_tokens: 100}\nfiles:\n"
					   "  - {path: a, priority: 0.5}\n  - {path: b, priority: 0.5}\n"
					   "  - {path: a, priority: 0.4}\n");
	assert_int_equal(src->nwarnings, 1);
	assert_string_equal(src->warnings[0].text, "a is listed twice (files[0] and files[2])");
	assert_int_equal(src->warnings[0].piece, 2);
	source_free(src);
	/* a third time: each repeat names the first entry */
	src = load_manifest("files:\n  - {path: a, priority: 0.5}\n  - {path: a, priority: 0.4}\n"
			    "  - {path: b, priority: 0.5}\n  - {path: a, priority: 0.3}\n");
	size_t twice = 0;
	for (size_t i = 0; i < src->nwarnings; i++) {
		const char *t = src->warnings[i].text;
		twice += strcmp(t, "a is listed twice (files[0] and files[1])") == 0 ||
			 strcmp(t, "a is listed twice (files[0] and files[3])") == 0;
	}
	assert_int_equal(twice, 2);
	source_free(src);
}

static void test_priority_one_left_out_is_flagged(void **state)
{
	(void)state;
	struct source *src = one_file(5, chars(0, 'p', 100), "never");
	src->pieces[0].priority = 1.0;
	struct assembly a;
	support_assemble(src, &a);
	assert_true(a.flags & ASM_MUST_MISSING);
	asm_fini(&a);
	/* Excluded by the user on purpose: not a missing must-have. */
	support_set(src, "exclude", "f.txt");
	support_assemble(src, &a);
	assert_false(a.flags & ASM_MUST_MISSING);
	assert_int_equal(a.results[0].reason, REASON_EXCLUDED_BY_USER);
	asm_fini(&a);
	source_free(src);
}

/* ---- properties and edits --------------------------------------------------- */

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static void test_used_never_exceeds_effective(void **state)
{
	(void)state;
	static const char *const strategies[] = { "never", "start", "middle", "end" };
	uint32_t seed = 42;
	for (int round = 0; round < 40; round++) {
		struct strbuf yaml = STRBUF_INIT;
		long effective = (long)(lcg(&seed) % 400);
		sb_printf(&yaml, "budget: {max_tokens: %ld, reserved_for_response: 0}\nfiles:\n", effective);
		int n = 1 + (int)(lcg(&seed) % 8);
		for (int i = 0; i < n; i++) {
			char name[32];
			snprintf(name, sizeof name, "f%d.txt", i);
			support_write(support_dir, name, chars(i % 4, (char)('a' + i), lcg(&seed) % 600));
			sb_printf(&yaml, "  - {path: %s, priority: 0.%u, truncate_strategy: %s, max_lines: %u}\n", name,
				  lcg(&seed) % 10, strategies[lcg(&seed) % 4], 1 + lcg(&seed) % 3);
		}
		struct source *src = load_manifest(sb_str(&yaml));
		struct assembly a;
		support_assemble(src, &a);
		assert_true(a.budget.used <= effective);
		long sum = 0;
		for (size_t b = 0; b < a.nblocks; b++)
			sum += a.blocks[b].budget_tokens;
		assert_int_equal(sum, a.budget.used);
		for (size_t i = 0; i < src->npieces; i++)
			assert_true(a.results[i].outcome == OUTCOME_WHOLE || a.results[i].sentence);
		asm_fini(&a);
		source_free(src);
		sb_fini(&yaml);
	}
}

static void test_edits_rerun_and_revert_exactly(void **state)
{
	(void)state;
	support_write(support_dir, "a", chars(0, 'a', 40));
	support_write(support_dir, "b", chars(1, 'b', 40));
	struct source *src = load_manifest("budget: {max_tokens: 16}\n"
					   "files:\n  - {path: a, priority: 0.9}\n  - {path: b, priority: 0.2}\n");
	struct assembly before, after;
	support_assemble(src, &before);
	char *text_before = strdup(support_prompt(&before));
	assert_int_equal(before.results[1].outcome, OUTCOME_TRUNCATED);

	struct edit e;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(edit_from_setting(src, "priority", "b=0.95", &e, &err), CS_OK);
	assert_int_equal(edit_apply(src, &e, &err), CS_OK);
	support_assemble(src, &after);
	assert_int_equal(after.results[1].outcome, OUTCOME_WHOLE);
	assert_int_equal(after.results[0].outcome, OUTCOME_TRUNCATED);
	struct strbuf said = STRBUF_INIT;
	edit_describe(src, &e, false, &said);
	assert_string_equal(sb_str(&said), "priority of b 0.20 -> 0.95");
	asm_fini(&after);

	assert_int_equal(edit_revert(src, &e, &err), CS_OK);
	support_assemble(src, &after);
	assert_string_equal(support_prompt(&after), text_before);
	assert_int_equal(after.budget.used, before.budget.used);
	sb_fini(&said);
	free(text_before);
	asm_fini(&after);
	asm_fini(&before);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_sample_line_is_a_positioned_error),
		cmocka_unit_test(test_structural_errors_name_path_and_position),
		cmocka_unit_test(test_no_budget_and_empty_files),
		cmocka_unit_test(test_effective_disagreeing_is_kept_and_warned),
		cmocka_unit_test(test_fits_exactly),
		cmocka_unit_test(test_one_token_over_each_strategy),
		cmocka_unit_test(test_marker_larger_than_room_and_zero_remaining),
		cmocka_unit_test(test_max_lines_each_direction),
		cmocka_unit_test(test_priority_order_and_ties),
		cmocka_unit_test(test_absent_files_are_excluded_with_reasons),
		cmocka_unit_test(test_path_listed_twice_is_warned),
		cmocka_unit_test(test_priority_one_left_out_is_flagged),
		cmocka_unit_test(test_used_never_exceeds_effective),
		cmocka_unit_test(test_edits_rerun_and_revert_exactly),
		cmocka_unit_test(test_listed_file_counts_agree),
	};
	return cmocka_run_group_tests_name("manifest", tests, support_dir_setup, support_dir_teardown);
}
