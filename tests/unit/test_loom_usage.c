/* test_loom_usage.c: a loom tree's recorded usage (every model node's
 * request replayed beside its raw response's promptTokens), the loom-aware
 * operational memory and system addendum, and the guarantee of at least one
 * message. Every figure is worked out by hand below (ceil(code points / 4)). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "kind.h"
#include "kinds/loom/loom_priv.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* system "Be brief" (8 code points: 2 tokens); n1 "Add two and two." (16: 4),
 * n2 "Four" (4: 1), n3 "Add three, three" (16: 4), n4 "Six." (4: 1), n5
 * "Thanks, bye." (12: 3). n2's request is system + n1 = 6; n4's is
 * system + n1 + n2 + n3 = 11. */
#define TREE_HEAD                                                                                                     \
	"{\"loomTree\":{\"rootNodeId\":\"n1\",\"systemContext\":\"Be brief\"},"                                       \
	"\"nodes\":["                                                                                                 \
	"{\"id\":\"n1\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"Add two and two.\"}},"      \
	"{\"id\":\"n2\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"Four\"}},"                  \
	"{\"id\":\"n3\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"Add three, three\"}},"      \
	"{\"id\":\"n4\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"Six.\"}},"                  \
	"{\"id\":\"n5\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"Thanks, bye.\"}}],"         \
	"\"edges\":["                                                                                                 \
	"{\"id\":\"e2\",\"edgeType\":\"continuation\",\"targetNodeId\":\"n2\",\"sources\":[{\"nodeId\":\"n1\",\"role\":\"primary\"}]}," \
	"{\"id\":\"e3\",\"edgeType\":\"continuation\",\"targetNodeId\":\"n3\",\"sources\":[{\"nodeId\":\"n2\",\"role\":\"primary\"}]}," \
	"{\"id\":\"e4\",\"edgeType\":\"continuation\",\"targetNodeId\":\"n4\",\"sources\":[{\"nodeId\":\"n3\",\"role\":\"primary\"}]}," \
	"{\"id\":\"e5\",\"edgeType\":\"continuation\",\"targetNodeId\":\"n5\",\"sources\":[{\"nodeId\":\"n4\",\"role\":\"primary\"}]}]," \
	"\"path\":{\"activeNodeId\":\"n5\"},\"model\":{\"contextLimit\":10000}"

static struct source *load(const char *tail)
{
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "%s%s}", TREE_HEAD, tail);
	support_write(support_dir, "t.json", sb_str(&sb));
	sb_fini(&sb);
	return support_load(support_path(support_dir, "t.json"), "loom");
}

static bool has_warning(const struct source *src, const char *needle)
{
	for (size_t w = 0; w < src->nwarnings; w++)
		if (strstr(src->warnings[w].text, needle))
			return true;
	return false;
}

static void test_replays_match_hand_figures(void **state)
{
	(void)state;
	struct source *src = load(",\"rawApiResponses\":["
				  "{\"id\":\"r1\",\"nodeId\":\"n2\",\"tokenUsage\":{\"promptTokens\":8}},"
				  "{\"id\":\"r2\",\"nodeId\":\"n4\",\"tokenUsage\":{\"promptTokens\":12}}]");
	const struct loom_usage *u;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(loom_usage_get(src, &u, &err), CS_OK);
	assert_int_equal(u->n, 2);
	assert_int_equal(u->rows[0].piece, support_piece(src, "n2"));
	assert_int_equal(u->rows[0].estimate, 6);
	assert_int_equal(u->rows[0].recorded, 8);
	assert_int_equal(u->rows[1].piece, support_piece(src, "n4"));
	assert_int_equal(u->rows[1].estimate, 11);
	assert_int_equal(u->rows[1].recorded, 12);
	assert_int_equal(u->estimate_sum, 17);
	assert_int_equal(u->recorded_sum, 20);
	assert_int_equal(u->exact_sum, -1); /* no model named: no public tokenizer */
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(loom_timeline_text(src, 0, &sb, NULL, &err), CS_OK);
	assert_non_null(strstr(sb_str(&sb), "the chars/4 estimate was 15.0% under what the provider counted over 2 requests"));
	sb_fini(&sb);
	source_free(src);
}

/* With the model's public tokenizer the exact count stands beside. A rank
 * file of the 256 single bytes (no merges) makes every byte a token, so the
 * exact count of each request is its bytes, each message on its own: n2's
 * 8 + 16 = 24, n4's 8 + 16 + 4 + 16 = 44. */
static void test_exact_count_beside(void **state)
{
	(void)state;
	struct strbuf file = STRBUF_INIT; /* "QQ== 65": a byte in base64, its rank */
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	for (int b = 0; b < 256; b++)
		sb_printf(&file, "%c%c== %d\n", b64[b >> 2], b64[(b & 3) << 4], b);
	support_write(support_dir, "ctxscope/tokenizers/o200k_base.tiktoken", sb_str(&file));
	sb_fini(&file);
	const char *old = getenv("XDG_DATA_HOME");
	char *saved = old ? strdup(old) : NULL;
	setenv("XDG_DATA_HOME", support_dir, 1);
	struct source *src = load(",\"agents\":[{\"id\":\"a\",\"type\":\"model\",\"modelRef\":\"gpt-4o\"}],"
				  "\"rawApiResponses\":["
				  "{\"nodeId\":\"n2\",\"tokenUsage\":{\"promptTokens\":8}},"
				  "{\"nodeId\":\"n4\",\"tokenUsage\":{\"promptTokens\":12}}]");
	const struct loom_usage *u;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(loom_usage_get(src, &u, &err), CS_OK);
	assert_string_equal(u->encoding, "o200k_base");
	assert_int_equal(u->rows[0].exact, 24);
	assert_int_equal(u->rows[1].exact, 44);
	assert_int_equal(u->exact_sum, 68);
	source_free(src);
	if (saved)
		setenv("XDG_DATA_HOME", saved, 1);
	else
		unsetenv("XDG_DATA_HOME");
	free(saved);
}

/* The person's edits do not change what the app sent; the estimate's
 * divisor does (it is what is judged). */
static void test_replay_ignores_edits(void **state)
{
	(void)state;
	struct source *src = load(",\"rawApiResponses\":[{\"nodeId\":\"n4\",\"tokenUsage\":{\"promptTokens\":12}}]");
	src->pieces[support_piece(src, "n1")].user_excluded = 1;
	support_set(src, "budget", "3");
	const struct loom_usage *u;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(loom_usage_get(src, &u, &err), CS_OK);
	assert_int_equal(u->rows[1].estimate, 11); /* rows[0]: n2, no record */
	assert_false(u->rows[1].refused);
	support_set(src, "chars-per-token", "2"); /* 4 + 8 + 2 + 8 */
	assert_int_equal(loom_usage_get(src, &u, &err), CS_OK);
	assert_int_equal(u->rows[1].estimate, 22);
	source_free(src);
}

static void test_bad_responses_warn(void **state)
{
	(void)state;
	/* r2 and r3 name n4: r3's responseTimestamp is later and wins even
	 * though r2 comes after it in the array; r5 the human n1; r6 no node. */
	struct source *src = load(",\"rawApiResponses\":["
				  "{\"id\":\"r3\",\"nodeId\":\"n4\",\"responseTimestamp\":\"2026-01-30T10:02:00Z\","
				  "\"tokenUsage\":{\"promptTokens\":12}},"
				  "{\"id\":\"r2\",\"nodeId\":\"n4\",\"responseTimestamp\":\"2026-01-30T10:01:00Z\","
				  "\"tokenUsage\":{\"promptTokens\":15}},"
				  "{\"id\":\"r5\",\"nodeId\":\"n1\",\"tokenUsage\":{\"promptTokens\":5}},"
				  "{\"id\":\"r6\",\"nodeId\":\"n99\",\"tokenUsage\":{\"promptTokens\":5}},"
				  "{\"id\":\"r7\",\"nodeId\":\"n2\"}]");
	const struct loom *m = src->model;
	assert_int_equal(m->items[src->pieces[support_piece(src, "n4")].kind_index].prompt_tokens, 12);
	assert_int_equal(m->nresponses, 1);
	assert_true(has_warning(src, "rawApiResponses[1].nodeId (line 1,"));
	assert_true(has_warning(src, "a second response for node n4 (also rawApiResponses[0]): the earlier one stays"));
	assert_true(has_warning(src, "rawApiResponses[2].nodeId (line 1,"));
	assert_true(has_warning(src, "node n1 is a human node"));
	assert_true(has_warning(src, "no node \"n99\""));
	assert_true(has_warning(src, "no tokenUsage.promptTokens"));
	source_free(src);
}

/* The replay setting shows one model node's request, replayed: request
 * 2 (n4's) holds system + n1 + n2 + n3 = 11; 3, past the last model node,
 * is the whole path again (+ n4 1 + n5 3 = 15). [ ] step through them. */
static void test_request_setting_steps(void **state)
{
	(void)state;
	struct source *src = load("");
	struct assembly a;
	support_set(src, "replay", "2");
	support_assemble(src, &a);
	assert_int_equal(a.total_tokens, 11);
	assert_int_equal(a.results[support_piece(src, "n4")].reason, REASON_LATER);
	assert_int_equal(a.results[support_piece(src, "n5")].reason, REASON_LATER);
	assert_true(a.results[support_piece(src, "n3")].outcome == OUTCOME_WHOLE);
	asm_fini(&a);
	assert_int_equal(src->kind->sequence->count(src), 3);
	assert_int_equal(src->kind->sequence->current(src), 1);
	support_set(src, "replay", "3");
	support_assemble(src, &a);
	assert_int_equal(a.total_tokens, 15);
	assert_int_equal(src->kind->sequence->current(src), 2);
	asm_fini(&a);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(support_set_option(src, "replay", "4", &err), CS_EUSAGE);
	source_free(src);
}

/* Seed 000: at least one message. Every node excluded, pruned or empty. */
static void test_every_node_filtered_is_an_error(void **state)
{
	(void)state;
	struct source *src = load("");
	const char *ids[] = { "n1", "n2", "n3", "n4", "n5" };
	for (size_t k = 0; k < 5; k++)
		src->pieces[support_piece(src, ids[k])].user_excluded = 1;
	struct assembly a;
	support_assemble(src, &a);
	assert_true(a.flags & ASM_ERROR);
	assert_non_null(strstr(a.state, "every node on the path is filtered out"));
	asm_fini(&a);
	src->pieces[support_piece(src, "n5")].user_excluded = -1;
	support_assemble(src, &a);
	assert_false(a.flags & ASM_ERROR);
	asm_fini(&a);
	source_free(src);
}

/* The addendum "\n\nYou can branch." (17: 5 tokens); the block's head
 * "\n\n=== Operational Memory ===\nPinned:\n" (37: 10), "- goal: ship v2\n"
 * (16: 4), "- style: short\n" (15: 4), the tail "Recent actions:\n- branched
 * at L2\nStashed:\n- draft-a\n===" (55: 14): 37 in the memory layer. */
#define MEMORY                                                                                                        \
	",\"loomAware\":{\"systemAddendum\":\"You can branch.\",\"operationalMemory\":{"                              \
	"\"pinned\":[{\"label\":\"goal\",\"text\":\"ship v2\"},{\"label\":\"style\",\"text\":\"short\"}],"            \
	"\"recentActions\":[\"branched at L2\"],\"stashes\":[\"draft-a\"]}}"

static long memory_layer(const struct assembly *a)
{
	assert_true(a->ngroupings > 0);
	assert_int_equal(a->groupings[0].nlayers, 4);
	return a->groupings[0].layers[3].budget_tokens;
}

static void test_operational_memory_order_and_tokens(void **state)
{
	(void)state;
	struct source *src = load(MEMORY);
	struct assembly a;
	support_assemble(src, &a); /* loom-aware off: nothing of it is sent */
	assert_int_equal(memory_layer(&a), 0);
	assert_int_equal(a.results[support_piece(src, "pinned:goal")].reason, REASON_LOOM_AWARE_OFF);
	assert_null(strstr(support_prompt(&a), "Operational Memory"));
	asm_fini(&a);

	support_set(src, "loom-aware", "true");
	support_assemble(src, &a);
	assert_int_equal(memory_layer(&a), 37);
	const char *p = support_prompt(&a);
	const char *sys = strstr(p, "Be brief"), *add = strstr(p, "You can branch."),
		   *head = strstr(p, "=== Operational Memory ===\nPinned:\n- goal: ship v2\n- style: short\n"
				      "Recent actions:\n- branched at L2\nStashed:\n- draft-a\n==="),
		   *ctx = strstr(p, "=== Loom Context ==="), *last = strstr(p, "Thanks, bye.");
	assert_true(sys && add && head && ctx && last);
	assert_true(sys < add && add < head && head < ctx && ctx < last);
	asm_fini(&a);

	/* a pinned entry is excluded like a node: its 4 tokens go */
	src->pieces[support_piece(src, "pinned:goal")].user_excluded = 1;
	support_assemble(src, &a);
	assert_int_equal(memory_layer(&a), 33);
	assert_null(strstr(support_prompt(&a), "ship v2"));
	asm_fini(&a);
	source_free(src);
}

/* Empty sections are left out: only stash names, no addendum. */
static void test_operational_memory_empty_sections(void **state)
{
	(void)state;
	struct source *src = load(",\"loomAware\":{\"operationalMemory\":{\"stashes\":[\"s1\"]}}");
	support_set(src, "loom-aware", "true");
	struct assembly a;
	support_assemble(src, &a);
	/* "\n\n=== Operational Memory ===\n" (29: 8) + "Stashed:\n- s1\n===" (17: 5) */
	assert_int_equal(memory_layer(&a), 13);
	assert_non_null(strstr(support_prompt(&a), "Be brief\n\n=== Operational Memory ===\nStashed:\n- s1\n==="));
	assert_null(strstr(support_prompt(&a), "Pinned:"));
	asm_fini(&a);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_replays_match_hand_figures),
		cmocka_unit_test(test_replay_ignores_edits),
		cmocka_unit_test(test_exact_count_beside),
		cmocka_unit_test(test_bad_responses_warn),
		cmocka_unit_test(test_request_setting_steps),
		cmocka_unit_test(test_every_node_filtered_is_an_error),
		cmocka_unit_test(test_operational_memory_order_and_tokens),
		cmocka_unit_test(test_operational_memory_empty_sections),
	};
	return cmocka_run_group_tests(tests, support_dir_setup, support_dir_teardown);
}
