/* test_memory_stack.c: the rest of seed 003 (ctxscope-formats(5) section 4b) on small
 * hand-computed cases: compression (lowest score first, ties in input
 * order, a third each, until the total fits), the task stack (the remaining
 * budget, the layers, the current frame's items, the targets, validation),
 * the switch between stack and linear assembly, and incremental updates
 * (as-written pops the highest score and claims the budget; as-intended
 * drops the lowest until the new event fits). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "kind.h"
#include "load.h"
#include "kinds/memory/memory.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct source *load_text(const char *text)
{
	struct source *src = support_load_text("snap.json", text);
	assert_string_equal(src->kind->name, "memory");
	return src;
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
	assert_string_equal(support_fact(&a, "compression"), "compressing 2 items frees 60 tokens: b now fits");
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
	assert_string_equal(support_fact(&a, "stack budget"),
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
	assert_string_equal(support_fact(&a, "stack layers"),
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
	assert_string_equal(support_fact(&a, "current items"), "all (no item carries a taskId)");
	assert_int_equal(result(src, &a, "x")->outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);
}

static void expect_error(const char *text, long line, const char *part)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_not_equal(support_load_text_error("snap.json", text, &err), CS_OK);
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

static struct memory_context context_of(const struct memory_component *c, size_t n)
{
	struct memory_context ctx = { .cap = n + 8 };
	ctx.c = cs_malloc(ctx.cap * sizeof *ctx.c);
	assert_non_null(ctx.c);
	for (size_t k = 0; k < n; k++) {
		ctx.c[ctx.n++] = c[k];
		ctx.token_count += c[k].tokens;
	}
	ctx.sorted_from = n; /* nothing known sorted */
	return ctx;
}

/* Components a 0.9/40, b 0.5/30, c 0.2/20 (90 of 100). n1 (10) fits: 100.
 * n2 (15): 115 > 100: as written, [n1 1.0, a 0.9, b 0.5, c 0.2] sorts
 * ascending to [c, b, a, n1] and pop() takes n1,
 * the HIGHEST; n2 goes in front: [n2, c, b, a], tokenCount claimed 100
 * while the components hold 105. */
static void test_update_as_written_pops_the_highest(void **state)
{
	(void)state;
	const struct memory_component c[] = { { 0, 0.9, 40 }, { 1, 0.5, 30 }, { 2, 0.2, 20 } };
	struct memory_context ctx = context_of(c, 3);
	struct memory_update u;
	long dropped[8];
	assert_true(memory_update(&ctx, (struct memory_component){ 3, 1.0, 10 }, 100, MEMORY_AS_WRITTEN, &u, dropped));
	assert_false(u.overflow);
	assert_int_equal(ctx.token_count, 100);
	assert_int_equal(ctx.c[0].piece, 3);
	assert_true(memory_update(&ctx, (struct memory_component){ 4, 1.0, 15 }, 100, MEMORY_AS_WRITTEN, &u, dropped));
	assert_true(u.overflow);
	assert_int_equal(u.total, 115);
	assert_int_equal(u.ndropped, 1);
	assert_int_equal(dropped[0], 3); /* n1, score 1.0: the highest */
	assert_true(u.dropped_score == 1.0);
	assert_int_equal(ctx.n, 4);
	long order[] = { 4, 2, 1, 0 }; /* n2, then ascending: c, b, a */
	long held = 0;
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(ctx.c[k].piece, order[k]);
		held += ctx.c[k].tokens;
	}
	assert_int_equal(ctx.token_count, 100); /* claimed */
	assert_int_equal(held, 105);
	/* from now on every event overflows (100 + 5 > 100) and the highest goes again: n2 */
	assert_true(memory_update(&ctx, (struct memory_component){ 5, 1.0, 5 }, 100, MEMORY_AS_WRITTEN, &u, dropped));
	assert_int_equal(dropped[0], 4);
	assert_int_equal(u.total, 105);
	long order2[] = { 5, 2, 1, 0 }; /* the prefix (n2) merged into the sorted rest, then popped */
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(ctx.c[k].piece, order2[k]);
	/* ties: the stable sort keeps context order, pop() takes the last of them */
	const struct memory_component t[] = { { 0, 0.5, 50 }, { 1, 0.5, 50 } };
	struct memory_context tie = context_of(t, 2);
	assert_true(memory_update(&tie, (struct memory_component){ 2, 1.0, 1 }, 100, MEMORY_AS_WRITTEN, &u, dropped));
	assert_int_equal(dropped[0], 1);
	cs_free(tie.c);
	cs_free(ctx.c);
}

/* The same start as intended: n2 (15): 115 > 100, c (0.2, 20) goes: 80 +
 * 15 = 95; order kept: [n2, n1, a, b]. n3 (45): 140, b goes (110), then a
 * (70). n4 (50): 120, the lowest are all 1.0: the first in context order
 * (n3, 45) goes: 75. An event larger than the budget: not added. */
static void test_update_as_intended_drops_the_lowest(void **state)
{
	(void)state;
	const struct memory_component c[] = { { 0, 0.9, 40 }, { 1, 0.5, 30 }, { 2, 0.2, 20 } };
	struct memory_context ctx = context_of(c, 3);
	struct memory_update u;
	long dropped[8];
	assert_true(memory_update(&ctx, (struct memory_component){ 3, 1.0, 10 }, 100, MEMORY_AS_INTENDED, &u, dropped));
	assert_true(memory_update(&ctx, (struct memory_component){ 4, 1.0, 15 }, 100, MEMORY_AS_INTENDED, &u, dropped));
	assert_int_equal(u.ndropped, 1);
	assert_int_equal(dropped[0], 2);
	assert_int_equal(ctx.token_count, 95);
	long order[] = { 4, 3, 0, 1 };
	for (size_t k = 0; k < 4; k++)
		assert_int_equal(ctx.c[k].piece, order[k]);
	assert_true(memory_update(&ctx, (struct memory_component){ 5, 1.0, 45 }, 100, MEMORY_AS_INTENDED, &u, dropped));
	assert_int_equal(u.ndropped, 2);
	assert_int_equal(dropped[0], 1);
	assert_int_equal(dropped[1], 0);
	assert_int_equal(ctx.token_count, 70);
	assert_true(memory_update(&ctx, (struct memory_component){ 6, 1.0, 50 }, 100, MEMORY_AS_INTENDED, &u, dropped));
	assert_int_equal(u.ndropped, 1);
	assert_int_equal(dropped[0], 5);
	assert_int_equal(ctx.token_count, 75);
	/* larger than the whole budget: not added, nothing dropped */
	size_t before = ctx.n;
	assert_true(memory_update(&ctx, (struct memory_component){ 7, 1.0, 101 }, 100, MEMORY_AS_INTENDED, &u, dropped));
	assert_int_equal(u.added, -1);
	assert_int_equal(u.ndropped, 0);
	assert_int_equal(ctx.n, before);
	cs_free(ctx.c);
}

static const char incremental_snapshot[] =
	"{ \"maxTokens\": 100, \"strategy\": { \"recencyWeight\": 0, \"relevanceWeight\": 1, \"salientWeight\": 0 },"
	"  \"items\": ["
	"  { \"id\": \"a\", \"type\": \"pattern\", \"content\": \"aaa\", \"tokens\": 40, \"scores\": { \"relevance\": 0.9 } },"
	"  { \"id\": \"b\", \"type\": \"pattern\", \"content\": \"bbb\", \"tokens\": 30, \"scores\": { \"relevance\": 0.5 } },"
	"  { \"id\": \"c\", \"type\": \"pattern\", \"content\": \"ccc\", \"tokens\": 20, \"scores\": { \"relevance\": 0.2 } } ],"
	"  \"newEvents\": ["
	"  { \"id\": \"n1\", \"type\": \"event\", \"content\": \"one\", \"tokens\": 10 },"
	"  { \"id\": \"n2\", \"type\": \"event\", \"content\": \"two\", \"tokens\": 15 } ] }";

/* In the assembly: update 2 as written holds n2, c, b, a (105 tokens,
 * claims 100: over the limit); a full rebuild of the same items takes n1,
 * n2, a, b by score (10 + 15 + 40 + 30 = 95; c does not fit). */
static void test_incremental_assembly_and_rebuild(void **state)
{
	(void)state;
	struct source *src = load_text(incremental_snapshot);
	support_set(src, "allocation-caps", "off");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "n1")->reason, REASON_OVER_BUDGET);
	assert_non_null(strstr(result(src, &a, "n1")->sentence, "pushed out by update 2 (n2)"));
	assert_int_equal(result(src, &a, "c")->outcome, OUTCOME_WHOLE);
	assert_string_equal(support_fact(&a, "tokenCount"), "100 claimed, 105 held");
	assert_true(a.flags & ASM_OVER_LIMIT);
	assert_string_equal(support_fact(&a, "full rebuild"),
			    "drifted: 1 only here (c: 20 tokens), 1 only in a rebuild (n1: 10 tokens); 105 tokens here, 95 rebuilt");
	assert_string_equal(support_prompt(&a), "## Recent Activity\n\ntwo\n\n## Applicable Patterns\n\nccc\n\nbbb\n\naaa");
	asm_fini(&a);

	support_set(src, "incremental", "as-intended");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "c")->reason, REASON_OVER_BUDGET);
	assert_int_equal(result(src, &a, "n1")->outcome, OUTCOME_WHOLE);
	assert_string_equal(support_fact(&a, "full rebuild"), "the same items as buildContext on the same items (95 tokens here, 95 rebuilt)");
	asm_fini(&a);

	support_set(src, "update", "1");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "n2")->reason, REASON_LATER);
	assert_string_equal(support_fact(&a, "update"), "1 of 2 (as-intended): n1 added, tokenCount 100 ≤ budget 100, nothing dropped");
	assert_string_equal(a.facts[0].key, "update"); /* first: the inspector's header shows it */
	asm_fini(&a);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(support_set_option(src, "update", "3", &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "2 new events"));
	source_free(src);
}

/* Out of memory at every allocation, with the settings the defaults leave
 * off: compression, linear assembly, as-intended updates. Ends in
 * CS_ENOMEM or the run without faults; ASan checks nothing leaks. */
static void sweep(const char *path, const char *const *settings)
{
	cs_alloc_install_cjson_hooks();
	bool finished = false;
	long n = 1;
	for (; n < 100000 && !finished; n++) {
		struct source *src = NULL;
		struct cs_error err;
		cs_error_clear(&err);
		int rc = source_load(path, NULL, &src, &err);
		assert_int_equal(rc, CS_OK);
		for (size_t k = 0; settings[k]; k += 2)
			support_set(src, settings[k], settings[k + 1]);
		cs_alloc_fail_from(n);
		struct assembly a;
		rc = assemble(src, &a, &err);
		if (rc == CS_OK) {
			finished = cs_alloc_count() < n;
			asm_fini(&a);
		}
		cs_alloc_fail_from(0);
		source_free(src);
		if (rc != CS_OK && rc != CS_ENOMEM)
			fail_msg("allocation %ld: %s (%s)", n, cs_status_name((enum cs_status)rc), err.message);
	}
	assert_true(finished);
	assert_true(n > 20); /* the assembly allocates: the sweep went through it */
}

static void test_out_of_memory_with_every_mode(void **state)
{
	(void)state;
	static const char *const compress_intended[] = { "compress", "on", "allocation-caps", "off", "budget", "300",
							 "incremental", "as-intended", NULL };
	static const char *const compress_linear[] = { "compress", "on", "assembly", "linear", NULL };
	static const char *const stack_compress[] = { "compress", "on", "budget", "200", NULL };
	sweep("samples/memory/long-session.json", compress_intended);
	sweep("samples/memory/task-stack.json", compress_linear);
	sweep("samples/memory/task-stack.json", stack_compress);
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
		cmocka_unit_test(test_update_as_written_pops_the_highest),
		cmocka_unit_test(test_update_as_intended_drops_the_lowest),
		cmocka_unit_test(test_incremental_assembly_and_rebuild),
		cmocka_unit_test(test_out_of_memory_with_every_mode),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
