/* test_memory.c: the memory-snapshot kind: scoring arithmetic, greedy
 * skipping, allocation caps (and the seed's uncapped mode), presets and
 * overrides, options and their undo, section formatting, loader faults,
 * the samples, and out-of-memory at every allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "edit.h"
#include "kind.h"
#include "load.h"
#include "kinds/memory/memory.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes text as snap.json in a fresh folder and loads it. */
static struct source *load_text(const char *text)
{
	struct source *src = support_load_text("snap.json", text);
	assert_string_equal(src->kind->name, "memory");
	return src;
}

static const struct piece_result *result(struct source *src, const struct assembly *a, const char *id)
{
	return &a->results[support_piece(src, id)];
}

static void get_option(const struct source *src, const char *name, char *out, size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(support_get(src, name, &sb), CS_OK);
	snprintf(out, n, "%s", sb_str(&sb));
	sb_fini(&sb);
}

/* Three items that cannot all fit 100 tokens: a (0.9, 60), b (0.8, 50), c (0.7, 30);
 * each fits its source's share (100%), so only pass 2 (the budget) decides. */
static const char *greedy_snapshot =
	"{ \"maxTokens\": 100, \"archetype\": \"coding\",\n"
	"  \"strategy\": { \"recencyWeight\": 0, \"relevanceWeight\": 1, \"salientWeight\": 0,\n"
	"    \"budgetAllocation\": { \"recent\": 100, \"semantic\": 100, \"entities\": 100, \"relations\": 100 } },\n"
	"  \"items\": [\n"
	"    { \"id\": \"c\", \"type\": \"chunk\", \"content\": \"ccc\", \"tokens\": 30, \"scores\": { \"relevance\": 0.7 } },\n"
	"    { \"id\": \"a\", \"type\": \"chunk\", \"content\": \"aaa\", \"tokens\": 60, \"scores\": { \"relevance\": 0.9 } },\n"
	"    { \"id\": \"b\", \"type\": \"event\", \"content\": \"bbb\", \"tokens\": 50, \"scores\": { \"relevance\": 0.8 } }\n"
	"  ] }\n";

static void test_final_score_arithmetic(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 1000, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"e1\", \"type\": \"event\", \"content\": \"[t] Read: a.c\",\n"
		"    \"scores\": { \"recency\": 0.9, \"relevance\": 0.4, \"salience\": 0.5 } },\n"
		"  { \"id\": \"k1\", \"type\": \"chunk\", \"content\": \"int x;\",\n"
		"    \"scores\": { \"recency\": 0.1, \"relevance\": 1.0 } } ] }\n");
	struct assembly a;
	support_assemble(src, &a);
	/* coding: 0.3 / 0.5 / 0.2 */
	assert_true(fabs(result(src, &a, "e1")->score - (0.9 * 0.3 + 0.4 * 0.5 + 0.5 * 0.2)) < 1e-12);
	assert_true(fabs(result(src, &a, "k1")->score - (0.1 * 0.3 + 1.0 * 0.5)) < 1e-12); /* salience absent: 0 */
	asm_fini(&a);

	support_set(src, "weight", "recency=1,relevance=0.5,salience=0");
	support_set(src, "weight", "relevance 0"); /* as typed after ':' */
	support_assemble(src, &a);
	assert_true(fabs(result(src, &a, "e1")->score - 0.9) < 1e-12);
	assert_true(fabs(result(src, &a, "k1")->score - 0.1) < 1e-12);
	asm_fini(&a);
	source_free(src);
}

static void test_greedy_skips_what_does_not_fit(void **state)
{
	(void)state;
	struct source *src = load_text(greedy_snapshot);
	struct assembly a;
	support_assemble(src, &a);
	/* a (60) in; b (50) does not fit the 40 left and is skipped; c (30) still fits */
	assert_int_equal(result(src, &a, "a")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "b")->outcome, OUTCOME_DROPPED);
	assert_int_equal(result(src, &a, "b")->reason, REASON_OVER_BUDGET);
	assert_int_equal(result(src, &a, "c")->outcome, OUTCOME_WHOLE);
	assert_int_equal(a.budget.used, 90);
	assert_string_equal(support_fact(&a, "cutoff score"), "0.8");
	/* the cutoff is a typed field too: the view-model reads it, not the fact */
	assert_true(a.cutoff == 0.8);
	assert_string_equal(a.cutoff_text, "0.8");
	assert_string_equal(support_fact(&a, "lowest included"), "0.7");
	const char *s = result(src, &a, "b")->sentence;
	assert_string_equal(s, "dropped in pass 2 (selectWithinBudget, by final score): over budget: needs 50 tokens, "
			       "40 left of 100; final score 0.800, which is the cutoff: every item scoring higher went in");
	assert_true(a.flags & ASM_TRUNCATED);
	/* sections list items in score order, not input order */
	assert_string_equal(support_prompt(&a), "## Relevant Content\n\naaa\n\nccc");
	asm_fini(&a);

	/* ties keep input order */
	support_set(src, "weight", "relevance=0,recency=0.5");
	support_assemble(src, &a);
	assert_string_equal(support_prompt(&a), "## Relevant Content\n\nccc\n\naaa");
	assert_int_equal(result(src, &a, "b")->reason, REASON_OVER_BUDGET);
	asm_fini(&a);

	/* --budget overrides maxTokens */
	support_set(src, "budget", "140");
	support_assemble(src, &a);
	assert_int_equal(a.nnot_whole, 0);
	assert_string_equal(support_fact(&a, "cutoff score"), "none");
	assert_true(isnan(a.cutoff));
	assert_null(a.cutoff_text);
	asm_fini(&a);
	source_free(src);
}

static void test_allocation_caps(void **state)
{
	(void)state;
	/* budget 100: semantic 40% = 40, recent 20% = 20; patterns take no share.
	 * coding weights 0.3/0.5/0.2: k1 0.45, k2 0.40, k3 0.35, p1 0.30, e1 0.25. */
	struct source *src = load_text(
		"{ \"maxTokens\": 100, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"k1\", \"type\": \"chunk\", \"content\": \"one\", \"tokens\": 30, \"scores\": { \"relevance\": 0.9 } },\n"
		"  { \"id\": \"k2\", \"type\": \"chunk\", \"content\": \"two\", \"tokens\": 20, \"scores\": { \"relevance\": 0.8 } },\n"
		"  { \"id\": \"k3\", \"type\": \"chunk\", \"content\": \"six\", \"tokens\": 10, \"scores\": { \"relevance\": 0.7 } },\n"
		"  { \"id\": \"p1\", \"type\": \"pattern\", \"content\": \"pat\", \"tokens\": 45, \"scores\": { \"relevance\": 0.6 } },\n"
		"  { \"id\": \"e1\", \"type\": \"event\", \"content\": \"evt\", \"tokens\": 21,\n"
		"    \"scores\": { \"relevance\": 0.5, \"salience\": 0 } } ] }\n");
	struct assembly a;
	support_assemble(src, &a);
	/* pass 1: the semantic query keeps k1 (30), drops k2 (30 + 20 > 40), keeps k3 (40);
	 * the recent query drops e1 (21 > 20). pass 2: k1, k3, p1 = 85 of 100. */
	assert_int_equal(result(src, &a, "k1")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "k2")->reason, REASON_OVER_ALLOCATION);
	assert_int_equal(result(src, &a, "k3")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "p1")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "e1")->reason, REASON_OVER_ALLOCATION);
	assert_int_equal(a.budget.used, 85);
	assert_string_equal(result(src, &a, "k2")->sentence,
			    "dropped in pass 1 (the semantic query, by relevance 0.800): over allocation: its share "
			    "(40% = 40 tokens) had 30 kept and needs 20 more; final score 0.400, which is the cutoff: "
			    "every item scoring higher went in");
	assert_string_equal(result(src, &a, "e1")->sentence,
			    "dropped in pass 1 (the recent query, by recency 0.000): over allocation: its share "
			    "(20% = 20 tokens) had 0 kept and needs 21 more; final score 0.250, below the cutoff 0.400");
	assert_string_equal(support_fact(&a, "cutoff score"), "0.4");
	/* pass 2 dropped nothing: the seed's truncated (scored.length > selected.length) is false */
	assert_false(a.flags & ASM_TRUNCATED);
	asm_fini(&a);

	/* --allocation-caps off skips pass 1 */
	support_set(src, "allocation-caps", "off");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "k2")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "k3")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "p1")->reason, REASON_OVER_BUDGET); /* 60 used, 45 > 40 left */
	assert_int_equal(result(src, &a, "e1")->outcome, OUTCOME_WHOLE);
	assert_int_equal(a.budget.used, 81);
	assert_true(a.flags & ASM_TRUNCATED);
	asm_fini(&a);

	/* raising the semantic share lets k2 in with caps back on */
	support_set(src, "allocation-caps", "on");
	support_set(src, "allocation", "semantic=50");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "k2")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "k3")->reason, REASON_OVER_ALLOCATION); /* 50 + 10 > 50 */
	asm_fini(&a);
	source_free(src);
}

/* Where the two pipelines part: two events compete for the recent share
 * (20% of 100 = 20 tokens). fresh: recency 0.9, relevance 0.1, 15 tokens;
 * apt: recency 0.5, relevance 0.9, 15 tokens. Final scores (coding
 * 0.3/0.5/0.2, salience 0.5 by default for events): fresh 0.27 + 0.05 + 0.1
 * = 0.42, apt 0.15 + 0.45 + 0.1 = 0.70. The seed's queryRecent ranks by
 * recency and keeps fresh (15 of 20), drops apt (30 > 20); a single pass by
 * final score would have kept apt instead. */
static void test_two_passes_keep_what_the_seed_keeps(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 100, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"apt\", \"type\": \"event\", \"content\": \"apt\", \"tokens\": 15,\n"
		"    \"scores\": { \"recency\": 0.5, \"relevance\": 0.9 } },\n"
		"  { \"id\": \"fresh\", \"type\": \"event\", \"content\": \"fresh\", \"tokens\": 15,\n"
		"    \"scores\": { \"recency\": 0.9, \"relevance\": 0.1 } },\n"
		"  { \"id\": \"k\", \"type\": \"chunk\", \"content\": \"chunk\", \"tokens\": 30,\n"
		"    \"scores\": { \"relevance\": 0.6 } } ] }\n");
	struct assembly a;
	support_assemble(src, &a);
	/* the expected selection, by hand: fresh and k; apt dropped in pass 1 */
	assert_int_equal(result(src, &a, "fresh")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "k")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "apt")->outcome, OUTCOME_DROPPED);
	assert_int_equal(result(src, &a, "apt")->reason, REASON_OVER_ALLOCATION);
	assert_true(fabs(result(src, &a, "apt")->score - 0.70) < 1e-12);
	assert_true(fabs(result(src, &a, "fresh")->score - 0.42) < 1e-12);
	assert_string_equal(result(src, &a, "apt")->sentence,
			    "dropped in pass 1 (the recent query, by recency 0.500): over allocation: its share "
			    "(20% = 20 tokens) had 15 kept and needs 15 more; final score 0.700, which is the cutoff: "
			    "every item scoring higher went in");
	assert_int_equal(a.budget.used, 45);
	assert_string_equal(support_prompt(&a), "## Recent Activity\n\nfresh\n\n## Relevant Content\n\nchunk");
	assert_false(a.flags & ASM_TRUNCATED);
	asm_fini(&a);

	/* without pass 1, the higher final score wins */
	support_set(src, "allocation-caps", "off");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "apt")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "fresh")->outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);
}

static void test_presets_and_overrides(void **state)
{
	(void)state;
	char v[256];
	/* research preset, relevanceWeight overridden by the snapshot */
	struct source *src = load_text(
		"{ \"maxTokens\": 1000, \"archetype\": \"research\",\n"
		"  \"strategy\": { \"relevanceWeight\": 0.7 }, \"items\": [] }\n");
	const struct memory *m = src->model;
	assert_true(m->cur.weights[MW_RECENCY] == 0.2 && m->cur.weights[MW_RELEVANCE] == 0.7 &&
		    m->cur.weights[MW_SALIENCE] == 0.2);
	assert_true(m->cur.allocation[MA_RECENT] == 10 && m->cur.allocation[MA_SEMANTIC] == 50);
	get_option(src, "weight", v, sizeof v);
	assert_string_equal(v, "recency=0.2,relevance=0.7,salience=0.2");
	get_option(src, "archetype", v, sizeof v);
	assert_string_equal(v, "research recency=0.2,relevance=0.7,salience=0.2,recent=10,semantic=50,entities=20,relations=20");
	struct assembly a;
	support_assemble(src, &a);
	assert_string_equal(support_fact(&a, "archetype"), "research (preset overridden by the snapshot's strategy)");
	asm_fini(&a);

	/* switching the preset replaces all seven numbers */
	support_set(src, "archetype", "support");
	get_option(src, "archetype", v, sizeof v);
	assert_string_equal(v, "support");
	get_option(src, "allocation", v, sizeof v);
	assert_string_equal(v, "recent=30,semantic=35,entities=20,relations=15");
	get_option(src, "weight", v, sizeof v);
	assert_string_equal(v, "recency=0.4,relevance=0.4,salience=0.2");
	support_assemble(src, &a);
	assert_string_equal(support_fact(&a, "archetype"), "support (the preset's numbers)");
	asm_fini(&a);
	source_free(src);

	/* no archetype: coding fills what the strategy leaves out, with a warning */
	src = load_text("{ \"maxTokens\": 10, \"strategy\": { \"salientWeight\": 0.4 }, \"items\": [] }\n");
	m = src->model;
	assert_int_equal(m->cur.archetype, -1);
	assert_true(m->cur.weights[MW_RECENCY] == 0.3 && m->cur.weights[MW_SALIENCE] == 0.4);
	assert_int_equal(src->nwarnings, 1);
	assert_non_null(strstr(src->warnings[0].text, "no archetype"));
	source_free(src);
}

/* Applies a setting as an edit, then reverts it: the option text must come back. */
static void apply_and_undo(struct source *src, const char *name, const char *value)
{
	char before[256], after[256], mid[256];
	get_option(src, name, before, sizeof before);
	struct edit e;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(edit_from_setting(src, name, value, &e, &err), CS_OK);
	assert_int_equal(edit_apply(src, &e, &err), CS_OK);
	get_option(src, name, mid, sizeof mid);
	assert_string_not_equal(mid, before);
	assert_int_equal(edit_revert(src, &e, &err), CS_OK);
	get_option(src, name, after, sizeof after);
	assert_string_equal(after, before);
}

static void test_options_undo_and_refusals(void **state)
{
	(void)state;
	struct source *src = load_text(greedy_snapshot);
	const struct memory *m = src->model;
	double w[MW_COUNT], al[MA_COUNT];
	memcpy(w, m->cur.weights, sizeof w);
	memcpy(al, m->cur.allocation, sizeof al);
	apply_and_undo(src, "weight", "relevance=0.25");
	apply_and_undo(src, "allocation", "recent=5,relations=35");
	apply_and_undo(src, "allocation-caps", "off");
	apply_and_undo(src, "archetype", "research"); /* the snapshot's overrides come back too */
	/* a value with many digits survives the round trip through text exactly */
	support_set(src, "weight", "salience=0.123456789012345678");
	memcpy(w, m->cur.weights, sizeof w);
	apply_and_undo(src, "weight", "salience=0.5");
	assert_memory_equal(w, m->cur.weights, sizeof w);
	assert_memory_equal(w, m->cur.weights, sizeof w);
	assert_memory_equal(al, m->cur.allocation, sizeof al);
	assert_int_equal(m->cur.archetype, 0);

	struct edit e;
	struct cs_error err;
	static const char *const bad[][2] = {
		{ "weight", "relevance=1.5" }, { "weight", "novelty=0.2" }, { "weight", "relevance" },
		{ "weight", "relevance=0.5x" }, { "allocation", "semantic=101" }, { "allocation", "patterns=10" },
		{ "archetype", "legal" }, { "allocation-caps", "maybe" }, { "weight", "recency=0.9,relevance=2" },
		{ "archetype", "coding recency=0.9,semantic=120" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cs_error_clear(&err);
		int rc = edit_from_setting(src, bad[i][0], bad[i][1], &e, &err);
		if (rc == CS_OK)
			rc = edit_apply(src, &e, &err);
		assert_int_equal(rc, CS_EUSAGE);
	}
	/* a refused list changes nothing, even the part before the fault */
	assert_memory_equal(w, m->cur.weights, sizeof w);
	assert_memory_equal(al, m->cur.allocation, sizeof al);
	cs_error_clear(&err);
	assert_int_equal(edit_from_setting(src, "weight", "novelty=0.2", &e, &err), CS_OK);
	assert_int_equal(edit_apply(src, &e, &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "expected recency, relevance, salience"));
	source_free(src);
}

static void test_sections_and_breakpoints(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 1000, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"r1\", \"type\": \"relation\", \"content\": \"a --[calls]--> b\", \"scores\": { \"relevance\": 0.5 } },\n"
		"  { \"id\": \"e1\", \"type\": \"event\", \"content\": \"[t1] Read: a.c\", \"scores\": { \"relevance\": 0.2 } },\n"
		"  { \"id\": \"p1\", \"type\": \"pattern\", \"content\": \"Bisect first.\", \"scores\": { \"relevance\": 0.1 } },\n"
		"  { \"id\": \"e2\", \"type\": \"event\", \"content\": \"[t2] Wrote: a.c\", \"scores\": { \"relevance\": 0.3 } },\n"
		"  { \"id\": \"n1\", \"type\": \"entity\", \"content\": \"**file**: a.c\", \"scores\": { \"relevance\": 0.4 } } ],\n"
		"  \"additionalContext\": \"Branch: main\" }\n");
	struct assembly a;
	support_assemble(src, &a);
	assert_string_equal(support_prompt(&a),
			    "## Recent Activity\n\n[t2] Wrote: a.c\n\n[t1] Read: a.c\n\n"
			    "## Known Entities\n\n**file**: a.c\n\n"
			    "## Relationships\n\na --[calls]--> b\n\n"
			    "## Applicable Patterns\n\nBisect first.\n\n"
			    "## Additional Context\n\nBranch: main");
	/* a header block, then items; a breakpoint after the last block of each section */
	size_t breakpoints = 0;
	for (size_t b = 0; b < a.nblocks; b++) {
		const struct block *blk = &a.blocks[b];
		bool last_of_section = b + 1 == a.nblocks || a.blocks[b + 1].layer[0] != blk->layer[0];
		assert_int_equal(!!(blk->flags & BLOCK_BREAKPOINT), last_of_section);
		breakpoints += last_of_section;
		if (blk->piece < 0)
			assert_true(blk->flags & BLOCK_MADE);
		else
			assert_int_equal(blk->layer[0], src->pieces[blk->piece].layer);
	}
	assert_int_equal(breakpoints, 5);
	assert_int_equal(a.ngroupings, 1);
	assert_string_equal(a.groupings[0].name, "section");
	assert_int_equal(a.groupings[0].nlayers, 6);
	assert_int_equal(a.groupings[0].layers[MEM_CHUNK].nblocks, 0);
	/* only items are charged (the seed budgets item tokens) */
	long items = 0;
	for (size_t i = 0; i < src->npieces; i++)
		items += src->pieces[i].tokens;
	assert_int_equal(a.budget.used, items);
	assert_true(a.total_tokens > items);
	asm_fini(&a);

	/* excluding the only entity removes its section and its header */
	support_set(src, "exclude", "n1");
	support_assemble(src, &a);
	assert_null(strstr(support_prompt(&a), "Known Entities"));
	assert_int_equal(result(src, &a, "n1")->reason, REASON_EXCLUDED_BY_USER);
	asm_fini(&a);
	source_free(src);
}

static void test_recorded_tokens_budget(void **state)
{
	(void)state;
	/* 40 code points estimate to 10 tokens; the snapshot says 3 */
	struct source *src = load_text(
		"{ \"maxTokens\": 5, \"archetype\": \"coding\",\n"
		"  \"strategy\": { \"budgetAllocation\": { \"recent\": 0, \"semantic\": 100, \"entities\": 0, \"relations\": 0 } },\n"
		"  \"items\": [\n"
		"  { \"id\": \"given\", \"type\": \"chunk\", \"content\": \"0123456789012345678901234567890123456789\",\n"
		"    \"tokens\": 3, \"scores\": { \"relevance\": 0.9 } },\n"
		"  { \"id\": \"guessed\", \"type\": \"chunk\", \"content\": \"0123456789\", \"scores\": { \"relevance\": 0.8 } } ] }\n");
	long g = support_piece(src, "given");
	assert_int_equal(src->pieces[g].tokens, 10);
	assert_int_equal(src->pieces[g].recorded_tokens, 3);
	assert_true(src->pieces[g].flags & PIECE_RECORDED);
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "given")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "given")->tokens, 3);
	/* 3 estimated > 2 left of the semantic query's share (100% of 5) */
	assert_int_equal(result(src, &a, "guessed")->reason, REASON_OVER_ALLOCATION);
	assert_int_equal(result(src, &a, "guessed")->original_tokens, 3);
	asm_fini(&a);
	source_free(src);
}

static void expect_error(const char *text, enum cs_status code, long line, const char *path, const char *words)
{
	struct cs_error err;
	assert_int_equal(support_load_text_error("snap.json", text, &err), code);
	assert_int_equal(err.line, line);
	assert_true(err.column > 0);
	assert_string_equal(err.path, path);
	if (!strstr(err.message, words))
		fail_msg("error \"%s\" lacks \"%s\"", err.message, words);
}

static void test_loader_faults(void **state)
{
	(void)state;
	expect_error("{ \"maxTokens\": 10, \"items\": [],\n  \"strategy\": { \"relevanceWeight\": -0.1 } }",
		     CS_ETYPE, 2, "strategy.relevanceWeight", "from 0 to 1");
	expect_error("{ \"maxTokens\": 10, \"items\": [],\n \"strategy\": { \"budgetAllocation\": { \"semantic\": 140 } } }",
		     CS_ETYPE, 2, "strategy.budgetAllocation.semantic", "from 0 to 100");
	expect_error("{ \"maxTokens\": 10, \"items\": [\n { \"id\": \"x\", \"type\": \"note\", \"content\": \"\" } ] }",
		     CS_ETYPE, 2, "items[0].type", "expected event, chunk, entity, relation or pattern");
	expect_error("{ \"maxTokens\": 10, \"archetype\": \"legal\", \"items\": [] }", CS_ETYPE, 1, "archetype",
		     "coding, support or research");
	expect_error("{ \"maxTokens\": 10, \"items\": [\n { \"id\": \"x\", \"type\": \"event\", \"content\": \"a\" },\n"
		     " { \"id\": \"x\", \"type\": \"chunk\", \"content\": \"b\" } ] }",
		     CS_ESTRUCT, 3, "items[1].id", "appears twice");
	expect_error("{ \"items\": [] }", CS_ESTRUCT, 1, "", "maxTokens");
	expect_error("{ \"maxTokens\": 10, \"items\": [\n { \"id\": \"x\", \"type\": \"event\" } ] }", CS_ESTRUCT, 2,
		     "items[0]", "content");
	expect_error("{ \"maxTokens\": 10, \"items\": [\n { \"id\": \"x\", \"type\": \"event\", \"content\": \"a\",\n"
		     "   \"scores\": { \"recency\": \"high\" } } ] }",
		     CS_ETYPE, 3, "items[0].scores.recency", "number");
	expect_error("{ \"maxTokens\": 10, \"items\": [\n { \"id\": \"x\", \"type\": \"event\", \"content\": \"a\", \"tokens\": -4 } ] }",
		     CS_ETYPE, 2, "items[0].tokens", "negative");

	/* allocations off 100 are a warning, with its position */
	struct source *src = load_text(
		"{ \"maxTokens\": 10, \"archetype\": \"coding\", \"items\": [],\n"
		"  \"strategy\": { \"budgetAllocation\": { \"recent\": 30, \"semantic\": 40, \"entities\": 20, \"relations\": 20 } } }\n");
	assert_int_equal(src->nwarnings, 1);
	assert_non_null(strstr(src->warnings[0].text, "sum to 110%, not 100%"));
	assert_int_equal(src->warnings[0].line, 2);
	source_free(src);
}

static void test_timestamps(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 10, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"ms\", \"type\": \"event\", \"content\": \"a\", \"timestamp\": 1741686067042 },\n"
		"  { \"id\": \"leap\", \"type\": \"event\", \"content\": \"b\", \"timestamp\": 951782400000 },\n"
		"  { \"id\": \"iso\", \"type\": \"event\", \"content\": \"c\", \"timestamp\": \"2026-01-30T10:00:00Z\" } ] }\n");
	const struct memory *m = src->model;
	assert_string_equal(m->items[0].timestamp, "2025-03-11T09:41:07.042Z");
	assert_string_equal(m->items[1].timestamp, "2000-02-29T00:00:00.000Z");
	assert_string_equal(m->items[2].timestamp, "2026-01-30T10:00:00Z");
	source_free(src);
}


static const char *piece_text(struct source *src, const char *id)
{
	return src->pieces[support_piece(src, id)].text;
}

static void test_raw_forms_use_the_seed_formatters(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 1000, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"r\", \"type\": \"event\", \"event\": { \"type\": \"file_read\", \"timestamp\": 1741686067000,\n"
		"      \"content\": { \"path\": \"src/lexer.c\" }, \"outcome\": \"success\" } },\n"
		"  { \"id\": \"w\", \"type\": \"event\", \"event\": { \"type\": \"file_write\", \"timestamp\": 0,\n"
		"      \"content\": { \"path\": \"a.c\" }, \"outcome\": \"success\" } },\n"
		"  { \"id\": \"x\", \"type\": \"event\", \"event\": { \"type\": \"shell_exec\", \"timestamp\": \"2026-03-11T09:41:07Z\",\n"
		"      \"content\": { \"command\": \"make test\", \"stdout\": \"\", \"stderr\": \"1 failed\" }, \"outcome\": \"failure\" } },\n"
		"  { \"id\": \"e\", \"type\": \"event\", \"event\": { \"type\": \"error\", \"timestamp\": 0,\n"
		"      \"content\": { \"message\": \"boom\" } } },\n"
		"  { \"id\": \"o\", \"type\": \"event\", \"event\": { \"type\": \"commit\", \"timestamp\": 0,\n"
		"      \"content\": { \"sha\": \"4e1c9a2\", \"files\": 2 } } },\n"
		"  { \"id\": \"s\", \"type\": \"event\", \"event\": { \"type\": \"note\", \"timestamp\": 0, \"content\": \"hi\" } },\n"
		"  { \"id\": \"n\", \"type\": \"entity\", \"entity\": { \"type\": \"function\", \"name\": \"lex_next\",\n"
		"      \"properties\": { \"file\": \"src/lexer.c\", \"line\": 142, \"static\": true } } },\n"
		"  { \"id\": \"m\", \"type\": \"entity\", \"entity\": { \"type\": \"file\", \"name\": \"a.c\", \"properties\": {} } },\n"
		"  { \"id\": \"l\", \"type\": \"relation\", \"relation\": { \"sourceId\": \"parse_array\", \"type\": \"calls\",\n"
		"      \"targetId\": \"lex_next\" } },\n"
		"  { \"id\": \"c\", \"type\": \"chunk\", \"chunk\": { \"text\": \"int x;\" } } ] }\n");
	assert_string_equal(piece_text(src, "r"), "[2025-03-11T09:41:07.000Z] Read: src/lexer.c"); /* no outcome on reads */
	assert_string_equal(piece_text(src, "w"), "[1970-01-01T00:00:00.000Z] Wrote: a.c [success]");
	assert_string_equal(piece_text(src, "x"), "[2026-03-11T09:41:07Z] Executed: `make test` [failure]\n1 failed");
	assert_string_equal(piece_text(src, "e"), "[1970-01-01T00:00:00.000Z] Error: boom\n");
	assert_string_equal(piece_text(src, "o"), "[1970-01-01T00:00:00.000Z] commit: {\"sha\":\"4e1c9a2\",\"files\":2}");
	assert_string_equal(piece_text(src, "s"), "[1970-01-01T00:00:00.000Z] note: \"hi\"");
	assert_string_equal(piece_text(src, "n"), "**function**: lex_next (file: src/lexer.c, line: 142, static: true)");
	assert_string_equal(piece_text(src, "m"), "**file**: a.c");
	assert_string_equal(piece_text(src, "l"), "parse_array --[calls]--> lex_next");
	assert_string_equal(piece_text(src, "c"), "int x;");
	/* the estimate is of the formatted text */
	assert_int_equal(src->pieces[support_piece(src, "l")].tokens, 9); /* 33 code points */
	source_free(src);

	struct cs_error err;
	assert_int_equal(support_load_text_error("snap.json", "{ \"maxTokens\": 1, \"items\": [\n { \"id\": \"a\", \"type\": \"relation\",\n"
					 "  \"content\": \"a --[x]--> b\", \"relation\": {} } ] }",
					 &err),
			 CS_ESTRUCT);
	assert_non_null(strstr(err.message, "not both"));
	assert_int_equal(support_load_text_error("snap.json", "{ \"maxTokens\": 1, \"items\": [\n { \"id\": \"a\", \"type\": \"pattern\" } ] }", &err),
			 CS_ESTRUCT);
	assert_non_null(strstr(err.message, "a pattern has no raw form"));
	assert_int_equal(support_load_text_error("snap.json", "{ \"maxTokens\": 1, \"items\": [\n { \"id\": \"a\", \"type\": \"event\",\n"
					 "  \"event\": { \"type\": \"file_read\", \"timestamp\": 0, \"content\": {} } } ] }",
					 &err),
			 CS_ESTRUCT);
	assert_string_equal(err.path, "items[0].event.content");
	assert_int_equal(err.line, 3);
}

/* The seed's defaults: an event's missing salience is 0.5; a missing
 * recency is exp(-ageHours / 24), the age from the latest time when the
 * snapshot gives no `now`. Given scores stay as given. */
static void test_derived_scores(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 1000, \"archetype\": \"coding\", \"items\": [\n"
		"  { \"id\": \"new\", \"type\": \"event\", \"content\": \"a\", \"timestamp\": \"2026-01-02T00:00:00Z\" },\n"
		"  { \"id\": \"day\", \"type\": \"event\", \"content\": \"b\", \"timestamp\": 1767225600000 },\n"
		"  { \"id\": \"half\", \"type\": \"chunk\", \"content\": \"c\", \"timestamp\": \"2026-01-01T12:00:00Z\" },\n"
		"  { \"id\": \"given\", \"type\": \"event\", \"content\": \"d\", \"timestamp\": \"2026-01-01T00:00:00Z\",\n"
		"    \"scores\": { \"recency\": 0.2, \"salience\": 0.9 } } ] }\n");
	const struct memory *m = src->model;
	/* now = 2026-01-02T00:00:00Z, the latest */
	assert_true(m->items[0].scores[MW_RECENCY] == 1.0);
	assert_true(m->items[0].scores[MW_SALIENCE] == 0.5);
	assert_int_equal(m->items[0].derived, MEMORY_DERIVED_RECENCY | MEMORY_DERIVED_SALIENCE);
	assert_true(fabs(m->items[1].scores[MW_RECENCY] - exp(-1.0)) < 1e-12);     /* 24 hours */
	assert_true(fabs(m->items[2].scores[MW_RECENCY] - exp(-0.5)) < 1e-12);     /* 12 hours */
	assert_true(m->items[2].scores[MW_SALIENCE] == 0);                         /* not an event */
	assert_int_equal(m->items[2].derived, MEMORY_DERIVED_RECENCY);
	assert_true(m->items[3].scores[MW_RECENCY] == 0.2 && m->items[3].scores[MW_SALIENCE] == 0.9);
	assert_int_equal(m->items[3].derived, 0);
	assert_string_equal(memory_kind.piece_note(src, support_piece(src, "day")),
			    "derived: recency 0.368 = exp(-24.00 h / 24), its age from the latest time in the snapshot; "
			    "salience 0.5 (the seed's default for events)");
	assert_null(memory_kind.piece_note(src, support_piece(src, "given")));
	struct assembly a;
	support_assemble(src, &a);
	/* coding: 1.0 * 0.3 + 0 + 0.5 * 0.2 */
	assert_true(fabs(result(src, &a, "new")->score - 0.4) < 1e-12);
	asm_fini(&a);
	source_free(src);

	/* `now` given: ages from it */
	src = load_text("{ \"maxTokens\": 10, \"now\": \"2026-01-03T00:00:00Z\", \"items\": [\n"
			"  { \"id\": \"x\", \"type\": \"chunk\", \"content\": \"a\", \"timestamp\": \"2026-01-02T00:00:00Z\" } ] }\n");
	m = src->model;
	assert_true(fabs(m->items[0].scores[MW_RECENCY] - exp(-1.0)) < 1e-12);
	source_free(src);
}

/* The request's filters, applied before the queries: each removed item says
 * which filter removed it; none of them counts as truncated. */
static void test_filters(void **state)
{
	(void)state;
	struct source *src = load_text(
		"{ \"maxTokens\": 1000, \"archetype\": \"coding\",\n"
		"  \"filters\": { \"since\": 1767225600000, \"eventTypes\": [\"file_read\"], \"entityTypes\": [\"file\"],\n"
		"                \"exclude\": [\"k\"] }, \"items\": [\n"
		"  { \"id\": \"old\", \"type\": \"event\", \"eventType\": \"file_read\", \"content\": \"a\",\n"
		"    \"timestamp\": \"2026-01-01T00:00:00Z\" },\n"
		"  { \"id\": \"read\", \"type\": \"event\", \"eventType\": \"file_read\", \"content\": \"b\",\n"
		"    \"timestamp\": \"2026-01-01T00:00:01Z\" },\n"
		"  { \"id\": \"untyped\", \"type\": \"event\", \"content\": \"c\" },\n"
		"  { \"id\": \"fn\", \"type\": \"entity\", \"entity\": { \"type\": \"function\", \"name\": \"f\" } },\n"
		"  { \"id\": \"file\", \"type\": \"entity\", \"entityType\": \"file\", \"content\": \"**file**: a.c\" },\n"
		"  { \"id\": \"k\", \"type\": \"chunk\", \"content\": \"k\" } ] }\n");
	struct assembly a;
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "old")->reason, REASON_FILTERED); /* at `since`, not after it */
	assert_non_null(strstr(result(src, &a, "old")->sentence, "filters.since"));
	assert_int_equal(result(src, &a, "read")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "untyped")->reason, REASON_FILTERED);
	assert_non_null(strstr(result(src, &a, "untyped")->sentence, "it has no event type"));
	assert_int_equal(result(src, &a, "fn")->reason, REASON_FILTERED);
	assert_non_null(strstr(result(src, &a, "fn")->sentence, "its type \"function\" is not one of file"));
	assert_int_equal(result(src, &a, "file")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "k")->reason, REASON_FILTERED);
	assert_non_null(strstr(result(src, &a, "k")->sentence, "filters.exclude"));
	assert_false(a.flags & ASM_TRUNCATED);
	assert_string_equal(support_fact(&a, "filters"), "4 items removed before the queries");
	asm_fini(&a);
	source_free(src);

	struct cs_error err;
	assert_int_equal(support_load_text_error("snap.json", "{ \"maxTokens\": 1, \"filters\": {\n \"since\": \"yesterday\" }, \"items\": [] }", &err),
			 CS_ETYPE);
	assert_string_equal(err.path, "filters.since");
	assert_int_equal(err.line, 2);
	assert_int_equal(support_load_text_error("snap.json", "{ \"maxTokens\": 1, \"filters\": { \"eventTypes\": [1] }, \"items\": [] }", &err),
			 CS_ETYPE);
	assert_string_equal(err.path, "filters.eventTypes[0]");
	assert_int_equal(support_load_text_error("snap.json", "{ \"maxTokens\": 1, \"now\": true, \"items\": [] }", &err), CS_ETYPE);
	assert_string_equal(err.path, "now");
}

static void test_samples_cross_the_cutoff(void **state)
{
	(void)state;
	struct source *src = support_load("samples/memory/coding-session.json", NULL);
	struct assembly a;
	support_assemble(src, &a);
	/* the recent query (112 tokens) keeps by recency ev-101, ev-099, ev-098 (64),
	 * drops ev-094 (0.7: 64 + 59 > 112), keeps ev-087 (0.35: 104); ev-094's final
	 * score 0.660 is the highest dropped: the cutoff */
	assert_int_equal(result(src, &a, "ev-098")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "ev-087")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "ev-094")->reason, REASON_OVER_ALLOCATION);
	assert_string_equal(support_fact(&a, "cutoff score"), "0.66");
	asm_fini(&a);
	/* weights move pass 2 only: the recent query still ranks by recency */
	support_set(src, "weight", "recency=0.5,relevance=0.3");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "ev-094")->reason, REASON_OVER_ALLOCATION);
	asm_fini(&a);
	/* a wider recent share (30% = 168) takes ev-094 in */
	support_set(src, "allocation", "recent=30");
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "ev-094")->outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);

	src = support_load("samples/memory/research-session.json", NULL);
	support_assemble(src, &a);
	/* the semantic query (250) keeps by relevance snapkv, h2o, streaming (241);
	 * ch-our-notes (relevance 0.88, final 0.818) is left out: the cutoff */
	assert_int_equal(result(src, &a, "ch-streaming")->outcome, OUTCOME_WHOLE);
	assert_int_equal(result(src, &a, "ch-our-notes")->reason, REASON_OVER_ALLOCATION);
	assert_string_equal(support_fact(&a, "cutoff score"), "0.818");
	asm_fini(&a);
	support_set(src, "allocation", "semantic=70,recent=0"); /* 308 of 350 */
	support_assemble(src, &a);
	assert_int_equal(result(src, &a, "ch-our-notes")->outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);
}

/* An item's content stays in the file's bytes, unescaped there (no copy);
 * text formatted from a raw record is the source's own; the pieces array
 * is as long as the items. */
static void test_content_in_input(void **state)
{
	(void)state;
	struct source *src = load_text("{\"maxTokens\": 100, \"items\": [\n"
				       " {\"id\": \"a\", \"type\": \"chunk\", \"content\": \"two\\nlines \\u00e9\"},\n"
				       " {\"id\": \"b\", \"type\": \"chunk\", \"content\": \"plain\"},\n"
				       " {\"id\": \"c\", \"type\": \"relation\", \"relation\": {\"sourceId\": \"x\", "
				       "\"type\": \"uses\", \"targetId\": \"y\"}}]}");
	const char *kept = src->input_kept;
	assert_non_null(kept);
	const struct piece *a = &src->pieces[support_piece(src, "a")], *b = &src->pieces[support_piece(src, "b")];
	const struct piece *c = &src->pieces[support_piece(src, "c")];
	assert_string_equal(a->text, "two\nlines \xC3\xA9");
	assert_int_equal(a->text_bytes, 12);
	assert_int_equal(a->code_points, 11);
	assert_int_equal(a->lines, 2);
	assert_string_equal(b->text, "plain");
	assert_string_equal(c->text, "x --[uses]--> y");
	assert_true(a->text > kept && a->text < kept + src->input_bytes);
	assert_true(b->text > kept && b->text < kept + src->input_bytes);
	assert_false(c->text > kept && c->text < kept + src->input_bytes);
	assert_int_equal(src->cap_pieces, 3); /* room for the items' pieces, exactly */
	source_free(src);
}

static void sweep_out_of_memory(const char *path)
{
	cs_alloc_install_cjson_hooks();
	bool finished = false;
	for (long n = 1; n < 100000 && !finished; n++) {
		struct source *src = NULL;
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(n);
		int rc = source_load(path, NULL, &src, &err);
		if (rc == CS_OK) {
			struct assembly a;
			rc = assemble(src, &a, &err);
			if (rc == CS_OK) {
				finished = cs_alloc_count() < n;
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
	sweep_out_of_memory("samples/memory/coding-session.json");
	sweep_out_of_memory("tests/golden/memory/raw-forms.json");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_final_score_arithmetic),
		cmocka_unit_test(test_greedy_skips_what_does_not_fit),
		cmocka_unit_test(test_allocation_caps),
		cmocka_unit_test(test_two_passes_keep_what_the_seed_keeps),
		cmocka_unit_test(test_presets_and_overrides),
		cmocka_unit_test(test_options_undo_and_refusals),
		cmocka_unit_test(test_sections_and_breakpoints),
		cmocka_unit_test(test_recorded_tokens_budget),
		cmocka_unit_test(test_loader_faults),
		cmocka_unit_test(test_timestamps),
		cmocka_unit_test(test_raw_forms_use_the_seed_formatters),
		cmocka_unit_test(test_derived_scores),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_samples_cross_the_cutoff),
		cmocka_unit_test(test_content_in_input),
		cmocka_unit_test(test_out_of_memory_everywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
