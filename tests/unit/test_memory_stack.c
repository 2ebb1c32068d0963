/* test_memory_stack.c: the rest of seed 003 (formats.md section 4b) on small
 * hand-computed cases: compression (lowest score first, ties in input
 * order, a third each, until the total fits), the task stack (the remaining
 * budget, the layers, the current frame's items, the targets, validation)
 * and the switch between stack and linear assembly. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "alloc.h"
#include "assembly.h"
#include "kind.h"
#include "load.h"
#include "kinds/memory/memory.h"
#include "source.h"
#include "strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct source *load_text(const char *text)
{
	char *dir = support_tempdir();
	support_write(dir, "snap.json", text);
	struct source *src = support_load(support_path(dir, "snap.json"), NULL);
	support_rmtree(dir);
	free(dir);
	assert_string_equal(src->kind->name, "memory");
	return src;
}

static int load_text_error(const char *text, struct cs_error *err)
{
	char *dir = support_tempdir();
	support_write(dir, "snap.json", text);
	int rc = support_load_error(support_path(dir, "snap.json"), NULL, err);
	support_rmtree(dir);
	free(dir);
	return rc;
}

static const char *fact(const struct assembly *a, const char *key)
{
	for (size_t i = 0; i < a->nfacts; i++)
		if (strcmp(a->facts[i].key, key) == 0)
			return a->facts[i].value;
	fail_msg("no fact %s", key);
	return NULL;
}

static bool has_fact(const struct assembly *a, const char *key)
{
	for (size_t i = 0; i < a->nfacts; i++)
		if (strcmp(a->facts[i].key, key) == 0)
			return true;
	return false;
}

static bool warned(const struct assembly *a, const char *part)
{
	for (size_t i = 0; i < a->nwarnings; i++)
		if (strstr(a->warnings[i].text, part))
			return true;
	return false;
}

static const struct piece_result *result(struct source *src, const struct assembly *a, const char *id)
{
	return &a->results[support_piece(src, id)];
}

/* Scores in rank order 0.9, 0.5, 0.5, 0.1, 30 tokens each, target 80: the
 * total 120 is over; 0.1 goes first (30 -> 10, total 100), then the first
 * of the two 0.5s in input order (30 -> 10, total 80): it fits, stop. */
static void test_compress_plan_lowest_first(void **state)
{
	(void)state;
	double score[] = { 0.9, 0.5, 0.5, 0.1 };
	long tokens[] = { 30, 30, 30, 30 }, out[4];
	bool all[] = { true, true, true, true };
	assert_int_equal(memory_compress_plan(score, tokens, all, 4, 80, out), 2);
	assert_int_equal(out[0], 30);
	assert_int_equal(out[1], 10);
	assert_int_equal(out[2], 30);
	assert_int_equal(out[3], 10);
	/* a total that fits: nothing */
	assert_int_equal(memory_compress_plan(score, tokens, all, 4, 120, out), 0);
	assert_int_equal(out[3], 30);
	/* ineligible items neither count nor shrink: 0.9 and 0.1 only, 60 > 40 */
	bool some[] = { true, false, false, true };
	assert_int_equal(memory_compress_plan(score, tokens, some, 4, 40, out), 1);
	assert_int_equal(out[3], 10);
	assert_int_equal(out[1], 30);
	/* a third, rounded down: 31 -> 10; every item when even that is not enough */
	long odd[] = { 31, 31, 31, 31 };
	assert_int_equal(memory_compress_plan(score, odd, all, 4, 1, out), 4);
	for (int k = 0; k < 4; k++)
		assert_int_equal(out[k], 10);
}

static const char compress_snapshot[] =
	"{ \"maxTokens\": 100, \"strategy\": { \"recencyWeight\": 0, \"relevanceWeight\": 1, \"salientWeight\": 0,"
	"  \"budgetAllocation\": { \"recent\": 25, \"semantic\": 25, \"entities\": 25, \"relations\": 25 } },"
	"  \"items\": ["
	"  { \"id\": \"a\", \"type\": \"chunk\", \"content\": \"aaa\", \"tokens\": 60, \"scores\": { \"relevance\": 0.9 } },"
	"  { \"id\": \"b\", \"type\": \"chunk\", \"content\": \"bbb\", \"tokens\": 60, \"scores\": { \"relevance\": 0.5 } },"
	"  { \"id\": \"c\", \"type\": \"chunk\", \"content\": \"ccc\", \"tokens\": 30, \"scores\": { \"relevance\": 0.1 } } ] }";

/* Off by default; on: 150 > 100, c (0.1) 30 -> 10 (130), b (0.5) 60 -> 20
 * (90): fits. Without: a in, b skipped (60 > 40 left), c in. With: a, b
 * (20) and c (10) all in: b now fits. */
static void test_compress_in_the_assembly(void **state)
{
	(void)state;
	struct source *src = load_text(compress_snapshot);
	support_set(src, "allocation-caps", "off");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "b")->reason, REASON_OVER_BUDGET);
	assert_false(has_fact(&a, "compression"));
	asm_fini(&a);

	support_set(src, "compress", "on");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "a")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "b")->outcome, OUTCOME_TRUNCATED);
	assert_int_equal(result(src, &a, "b")->reason, REASON_WOULD_COMPACT);
	assert_int_equal(result(src, &a, "b")->tokens, 20);
	assert_int_equal(result(src, &a, "b")->original_tokens, 60);
	assert_int_equal(result(src, &a, "c")->tokens, 10);
	assert_int_equal(a.budget.used, 90);
	assert_string_equal(fact(&a, "compression"), "compressing 2 items frees 60 tokens: b now fits");
	assert_string_equal(support_prompt(&a), "## Relevant Content\n\naaa\n\n"
						"[would be summarized: 60 → 20 tokens] bbb\n\n"
						"[would be summarized: 30 → 10 tokens] ccc");
	asm_fini(&a);
	source_free(src);
}

/* Root "abcdefgh" (8); mid complete with result "1234" (4); current cur
 * under mid; siblings s1 (complete, "xy"), s2 (complete, no result: the
 * seed's undefined, joined as nothing) and s3 (active: not a sibling
 * result). join("\n") = "abcdefgh\n1234\nxy\n" = 17 characters: ceil(17/4)
 * = 5 tokens; the builder gets 100 - 5 = 95. */
static const char stack_snapshot[] =
	"{ \"maxTokens\": 100, \"strategy\": { \"recencyWeight\": 0, \"relevanceWeight\": 1, \"salientWeight\": 0 },"
	"  \"taskStack\": { \"current\": \"cur\", \"frames\": ["
	"    { \"id\": \"root\", \"goal\": \"abcdefgh\", \"status\": \"active\" },"
	"    { \"id\": \"mid\", \"goal\": \"the middle\", \"parent\": \"root\", \"status\": \"complete\", \"result\": \"1234\" },"
	"    { \"id\": \"s1\", \"goal\": \"one\", \"parent\": \"mid\", \"status\": \"complete\", \"result\": \"xy\" },"
	"    { \"id\": \"s2\", \"goal\": \"two\", \"parent\": \"mid\", \"status\": \"complete\" },"
	"    { \"id\": \"s3\", \"goal\": \"three\", \"parent\": \"mid\", \"status\": \"blocked\", \"result\": \"no\" },"
	"    { \"id\": \"cur\", \"goal\": \"the current goal\", \"parent\": \"mid\", \"status\": \"active\" } ] },"
	"  \"items\": ["
	"  { \"id\": \"a\", \"type\": \"pattern\", \"taskId\": \"cur\", \"content\": \"aaa\", \"tokens\": 60, \"scores\": { \"relevance\": 0.9 } },"
	"  { \"id\": \"b\", \"type\": \"pattern\", \"taskId\": \"cur\", \"content\": \"bbb\", \"tokens\": 36, \"scores\": { \"relevance\": 0.5 } },"
	"  { \"id\": \"c\", \"type\": \"pattern\", \"taskId\": \"s1\", \"content\": \"ccc\", \"tokens\": 1, \"scores\": { \"relevance\": 0.7 } } ] }";

static void test_stack_remaining_budget(void **state)
{
	(void)state;
	struct source *src = load_text(stack_snapshot);
	const struct memory *m = src->model;
	assert_int_equal(m->assembly, MEMORY_ASSEMBLY_STACK);
	struct memory_stack_take take;
	memory_stack_measure(m, 100, 4.0, &take);
	assert_int_equal(take.seed_tokens, 5);
	assert_int_equal(take.remaining, 95);
	assert_int_equal(take.layer_tokens[MSL_ROOT], 2);     /* "abcdefgh" */
	assert_int_equal(take.layer_tokens[MSL_PATH], 1);     /* "1234" */
	assert_int_equal(take.layer_tokens[MSL_SIBLINGS], 1); /* "xy\n" */
	assert_int_equal(take.nframes[MSL_SIBLINGS], 2);

	/* the builder with 95: a (60) in; b (36) needs 96, out; c is another frame's */
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "a")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "b")->reason, REASON_OVER_BUDGET);
	assert_int_equal(result(src, &a, "c")->reason, REASON_OFF_PATH);
	assert_string_equal(fact(&a, "stack budget"),
			    "100 - 5 (estimateTokens of the three joined) = 95 for the current frame");
	assert_int_equal(a.budget.used, 65); /* 60 + the stack's 5 */
	assert_string_equal(support_prompt(&a), "## Root Goal\n\nabcdefgh\n\n## Task Path\n\n1234\n\n"
						"## Completed Siblings\n\nxy\n\n## Applicable Patterns\n\naaa");
	assert_int_equal(a.ngroupings, 2);
	assert_string_equal(a.groupings[1].name, "stack");
	assert_int_equal(a.groupings[1].layers[MSL_ROOT].budget_tokens, 2);
	assert_int_equal(a.groupings[1].layers[MSL_CURRENT].budget_tokens, 60);
	assert_int_equal(a.groupings[1].layers[MSL_PATH].budget_tokens + a.groupings[1].layers[MSL_SIBLINGS].budget_tokens,
			 3);
	asm_fini(&a);

	/* linear: the whole 100 and every item: a and b (96), c (97) */
	support_set(src, "assembly", "linear");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "b")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "c")->outcome, OUTCOME_WHOLE);
	assert_int_equal(a.ngroupings, 1);
	assert_string_equal(support_prompt(&a), "## Applicable Patterns\n\naaa\n\nccc\n\nbbb");
	asm_fini(&a);
	source_free(src);
}

/* The targets are shown, not enforced: budget 20, root target floor(1) =
 * 1, the root's 2 tokens warn; the builder gets 15. A current frame that
 * is the root: no path, its completed fellow roots are its siblings. */
static void test_stack_targets_and_a_root_current(void **state)
{
	(void)state;
	struct source *src = load_text(stack_snapshot);
	support_set(src, "budget", "20");
	struct assembly a;
	support_assemble(src, &a);
	assert_true(warned(&a, "the stack's root layer is 2 tokens, over its target of ~5% of the budget (1)"));
	assert_false(warned(&a, "path layer"));
	assert_string_equal(fact(&a, "stack layers"),
			    "root 2 (target ~5% = 1) · path 1 (target ~15% = 3) · siblings 1 (target ~10% = 2)");
	asm_fini(&a);
	source_free(src);

	src = load_text("{ \"maxTokens\": 10, \"taskStack\": { \"frames\": ["
			"  { \"id\": \"r\", \"goal\": \"go\", \"status\": \"active\", \"current\": true },"
			"  { \"id\": \"q\", \"goal\": \"other\", \"status\": \"complete\", \"result\": \"done\" } ] },"
			"  \"items\": [ { \"id\": \"x\", \"type\": \"pattern\", \"content\": \"x\", \"tokens\": 7 } ] }");
	support_assemble(src, &a);
	/* "go\ndone" = 7 characters: 2 tokens; 8 left; no taskId anywhere: every item */
	assert_string_equal(support_prompt(&a), "## Root Goal\n\ngo\n\n## Completed Siblings\n\ndone\n\n"
						"## Applicable Patterns\n\nx");
	assert_string_equal(fact(&a, "current items"), "all (no item carries a taskId)");
	assert_int_equal(result(src, &a, "x")->outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);
}

static void expect_error(const char *text, long line, const char *part)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_not_equal(load_text_error(text, &err), CS_OK);
	if (!strstr(err.message, part) && !strstr(err.path, part))
		fail_msg("expected \"%s\" in \"%s: %s\"", part, err.path, err.message);
	assert_int_equal(err.line, line);
}

static void test_stack_validation(void **state)
{
	(void)state;
	expect_error("{ \"maxTokens\": 1, \"items\": [], \"taskStack\": { \"current\": \"b\", \"frames\": [\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"active\" },\n"
		     "{ \"id\": \"b\", \"goal\": \"g\", \"status\": \"active\", \"parent\": \"zz\" } ] } }",
		     3, "the parent \"zz\" is not a frame");
	expect_error("{ \"maxTokens\": 1, \"items\": [], \"taskStack\": { \"current\": \"a\", \"frames\": [\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"active\", \"parent\": \"b\" },\n"
		     "{ \"id\": \"b\", \"goal\": \"g\", \"status\": \"active\", \"parent\": \"a\" } ] } }",
		     2, "a cycle of parents");
	expect_error("{ \"maxTokens\": 1, \"items\": [], \"taskStack\": { \"frames\": [\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"active\", \"current\": true },\n"
		     "{ \"id\": \"b\", \"goal\": \"g\", \"status\": \"active\", \"current\": true } ] } }",
		     3, "two current frames");
	expect_error("{ \"maxTokens\": 1, \"items\": [], \"taskStack\": { \"current\": \"a\", \"frames\": [\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"active\" },\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"active\" } ] } }",
		     3, "appears twice");
	expect_error("{ \"maxTokens\": 1, \"items\": [], \"taskStack\": { \"frames\": [\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"done\" } ] } }",
		     2, "unknown status");
	expect_error("{ \"maxTokens\": 1, \"items\": [], \"taskStack\": { \"frames\": [\n"
		     "{ \"id\": \"a\", \"goal\": \"g\", \"status\": \"active\" } ] } }",
		     1, "no current frame");
}

/* Without a taskStack: linear, and stack is refused (nothing changes). */
static void test_no_stack_refuses_stack(void **state)
{
	(void)state;
	struct source *src = load_text(compress_snapshot);
	struct strbuf v = STRBUF_INIT;
	support_get(src, "assembly", &v);
	assert_string_equal(sb_str(&v), "linear");
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(support_set_option(src, "assembly", "stack", &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "no taskStack"));
	sb_reset(&v);
	support_get(src, "assembly", &v);
	assert_string_equal(sb_str(&v), "linear");
	sb_fini(&v);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compress_plan_lowest_first),
		cmocka_unit_test(test_compress_in_the_assembly),
		cmocka_unit_test(test_stack_remaining_budget),
		cmocka_unit_test(test_stack_targets_and_a_root_current),
		cmocka_unit_test(test_stack_validation),
		cmocka_unit_test(test_no_stack_refuses_stack),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
