/* test_ledger.c: the ledger-export kind: ancestry (given and rebuilt),
 * compaction rules, recursive compactions, empty and tool messages, replay
 * vs next, the budget and the simulated compaction, forks, options, and the
 * loader's positioned errors. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "assembly.h"
#include "kinds/ledger/ledger.h"
#include "base/alloc.h"
#include "kind.h"
#include "load.h"
#include "report.h"
#include "base/strbuf.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A chain T1..T6 for session main (T3 and T5 compactions) and a fork T7 off
 * T4 for session alt. %s: the threads array; %s: T5's first_kept_turn_id;
 * %s: extra top-level members (the assembly block), with a leading comma. */
static const char FIXTURE[] =
	"{\n"
	"\"sessions\": [\n"
	" {\"label\": \"main\", \"thread_id\": \"T6\", \"is_subagent\": 0, \"status\": \"active\"},\n"
	" {\"label\": \"alt\", \"thread_id\": \"T7\", \"is_subagent\": 1, \"task_description\": \"Try the other fix.\", \"status\": \"idle\"}\n"
	"],\n"
	"\"threads\": %s,\n"
	"\"turns\": [\n"
	" {\"id\": \"T1\", \"parent_turn_id\": null, \"turn_type\": \"normal\", \"role\": \"manager\", \"model\": \"claude-sonnet-4-20250514\","
	" \"input_tokens\": 900, \"output_tokens\": 30, \"cached_input_tokens\": 0, \"cache_write_tokens\": 900, \"query_message_ids\": \"[\\\"M1\\\"]\", \"response_message_id\": \"M3\"},\n"
	" {\"id\": \"T2\", \"parent_turn_id\": \"T1\", \"turn_type\": \"normal\", \"role\": \"manager\", \"model\": \"claude-sonnet-4-20250514\","
	" \"input_tokens\": 1000, \"output_tokens\": 20, \"cached_input_tokens\": 880, \"cache_write_tokens\": 120, \"response_message_id\": \"M6\"},\n"
	" {\"id\": \"T3\", \"parent_turn_id\": \"T2\", \"turn_type\": \"compaction\", \"role\": \"manager\"},\n"
	" {\"id\": \"T4\", \"parent_turn_id\": \"T3\", \"turn_type\": \"normal\", \"role\": \"manager\", \"model\": \"claude-sonnet-4-20250514\","
	" \"input_tokens\": 700, \"output_tokens\": 10, \"cached_input_tokens\": 0, \"cache_write_tokens\": 700, \"query_message_ids\": [\"M7\"], \"response_message_id\": \"M8\"},\n"
	" {\"id\": \"T5\", \"parent_turn_id\": \"T4\", \"turn_type\": \"compaction\", \"role\": \"manager\"},\n"
	" {\"id\": \"T6\", \"parent_turn_id\": \"T5\", \"turn_type\": \"normal\", \"role\": \"manager\", \"model\": \"claude-sonnet-4-20250514\","
	" \"input_tokens\": 650, \"output_tokens\": 12, \"cached_input_tokens\": 600, \"cache_write_tokens\": 50, \"response_message_id\": \"M10\"},\n"
	" {\"id\": \"T7\", \"parent_turn_id\": \"T4\", \"turn_type\": \"normal\", \"role\": \"worker\", \"model\": \"gpt-4o\","
	" \"input_tokens\": 800, \"output_tokens\": 9, \"response_message_id\": \"M12\"}\n"
	"],\n"
	"\"messages\": [\n"
	" {\"id\": \"M0\", \"turn_id\": \"T1\", \"role\": \"system\", \"content\": \"You are the on-call helper.\", \"sequence\": 0},\n"
	" {\"id\": \"M2\", \"turn_id\": \"T1\", \"role\": \"tool\", \"content\": \"disk 99%% full\", \"sequence\": 2},\n"
	" {\"id\": \"M1\", \"turn_id\": \"T1\", \"role\": \"user\", \"content\": \"Why did the backup fail?\", \"sequence\": 1},\n"
	" {\"id\": \"M3\", \"turn_id\": \"T1\", \"role\": \"assistant\", \"content\": \"The disk is full.\", \"sequence\": 3},\n"
	" {\"id\": \"M4\", \"turn_id\": \"T2\", \"role\": \"user\", \"content\": \"Clean it up.\", \"sequence\": 1},\n"
	" {\"id\": \"M5\", \"turn_id\": \"T2\", \"role\": \"assistant\", \"content\": \"  \\n\", \"sequence\": 2},\n"
	" {\"id\": \"M6\", \"turn_id\": \"T2\", \"role\": \"assistant\", \"content\": \"Removed 23 old dumps.\", \"sequence\": 3},\n"
	" {\"id\": \"M7\", \"turn_id\": \"T4\", \"role\": \"user\", \"content\": \"Run it now.\", \"sequence\": 1},\n"
	" {\"id\": \"M8\", \"turn_id\": \"T4\", \"role\": \"assistant\", \"content\": \"Backup uploaded.\", \"sequence\": 2},\n"
	" {\"id\": \"M9\", \"turn_id\": \"T6\", \"role\": \"user\", \"content\": \"Write the incident note.\", \"sequence\": 1},\n"
	" {\"id\": \"M10\", \"turn_id\": \"T6\", \"role\": \"assistant\", \"content\": \"Here it is.\", \"sequence\": 2},\n"
	" {\"id\": \"M11\", \"turn_id\": \"T7\", \"role\": \"user\", \"content\": \"Try the other fix.\", \"sequence\": 1},\n"
	" {\"id\": \"M12\", \"turn_id\": \"T7\", \"role\": \"assistant\", \"content\": \"Tried it.\", \"sequence\": 2}\n"
	"],\n"
	"\"tool_calls\": [],\n"
	"\"compactions\": [\n"
	" {\"turn_id\": \"T3\", \"summary\": \"SUMMARY-ONE\", \"summarized_through_turn_id\": \"T2\", \"first_kept_turn_id\": null},\n"
	" {\"turn_id\": \"T5\", \"summary\": \"SUMMARY-TWO\", \"summarized_through_turn_id\": \"T4\", \"first_kept_turn_id\": %s}\n"
	"]%s\n"
	"}\n";

struct fx {
	char *dir;
	struct source *src;
	struct assembly a;
	bool assembled;
};

static char *fixture_text(const char *threads, const char *first_kept, const char *extra)
{
	size_t n = sizeof FIXTURE + strlen(threads) + strlen(first_kept) + strlen(extra);
	char *s = malloc(n);
	assert_non_null(s);
	snprintf(s, n, FIXTURE, threads, first_kept, extra);
	return s;
}

static struct source *load_text(struct fx *f, const char *text)
{
	f->dir = support_tempdir();
	support_write(f->dir, "ledger.json", text);
	f->src = support_load(support_path(f->dir, "ledger.json"), NULL);
	assert_string_equal(f->src->kind->name, "ledger");
	return f->src;
}

static struct source *load_fixture(struct fx *f, const char *threads, const char *first_kept, const char *extra)
{
	char *t = fixture_text(threads, first_kept, extra);
	load_text(f, t);
	free(t);
	return f->src;
}

static void run(struct fx *f)
{
	if (f->assembled)
		asm_fini(&f->a);
	support_assemble(f->src, &f->a);
	f->assembled = true;
}

static void fx_done(struct fx *f)
{
	if (f->assembled)
		asm_fini(&f->a);
	source_free(f->src);
	if (f->dir) {
		support_rmtree(f->dir);
		free(f->dir);
	}
}

static const struct piece_result *result(struct fx *f, const char *id)
{
	return &f->a.results[support_piece(f->src, id)];
}

static const char *fact(const struct assembly *a, const char *key)
{
	for (size_t i = 0; i < a->nfacts; i++)
		if (!strcmp(a->facts[i].key, key))
			return a->facts[i].value;
	return "";
}

/* The roles of the messages, joined by spaces ("system user tool ..."). */
static const char *roles(const struct assembly *a)
{
	static char buf[512];
	buf[0] = '\0';
	for (size_t m = 0; m < a->nmessages; m++) {
		strcat(buf, m ? " " : "");
		strcat(buf, a->messages[m].role);
	}
	return buf;
}

/* The pieces of the blocks, by id, joined by spaces; "-" for made text. */
static const char *order(const struct assembly *a)
{
	static char buf[1024];
	buf[0] = '\0';
	for (size_t b = 0; b < a->nblocks; b++) {
		strcat(buf, b ? " " : "");
		strcat(buf, a->blocks[b].piece >= 0 ? a->src->pieces[a->blocks[b].piece].id : "-");
	}
	return buf;
}

static void test_first_kept_rule(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "\"T4\"", "");
	run(&f);
	/* Latest compaction T5 applies; T4 is kept (first_kept), T1/T2 summarized. */
	assert_string_equal(order(&f.a), "M0 compaction:T5 M7 M8 M9");
	assert_string_equal(roles(&f.a), "system user user assistant user");
	assert_int_equal(result(&f, "M4")->reason, REASON_COMPACTED);
	assert_non_null(strstr(result(&f, "M4")->sentence, "compaction at turn T5"));
	assert_int_equal(result(&f, "M10")->reason, REASON_LATER);
	assert_non_null(strstr(support_prompt(&f.a), "[Previous conversation summary]\nSUMMARY-TWO"));
	assert_non_null(strstr(fact(&f.a, "compaction rule"), "first-kept"));
	/* Cache breakpoints: end of system, end of history; not on the event. */
	assert_true(f.a.blocks[0].flags & BLOCK_BREAKPOINT);
	assert_true(f.a.blocks[3].flags & BLOCK_BREAKPOINT);
	assert_false(f.a.blocks[1].flags & BLOCK_BREAKPOINT);
	assert_false(f.a.blocks[4].flags & BLOCK_BREAKPOINT);
	/* Layers: physical system/history/event, conceptual workspace/session/event. */
	assert_int_equal(f.a.blocks[0].layer[0], 0);
	assert_int_equal(f.a.blocks[2].layer[0], 1);
	assert_int_equal(f.a.blocks[2].layer[1], 2);
	assert_int_equal(f.a.blocks[4].layer[0], 2);
	assert_int_equal(f.a.blocks[4].layer[1], 4);
	fx_done(&f);
}

static void test_after_only_rule(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "\"T4\"", "");
	support_set(f.src, "compaction-rule", "after-only");
	run(&f);
	assert_string_equal(order(&f.a), "M0 compaction:T5 M9");
	assert_int_equal(result(&f, "M7")->reason, REASON_COMPACTED);
	assert_non_null(strstr(result(&f, "M7")->sentence, "first_kept_turn_id would keep it"));
	/* Back to the default. */
	support_set(f.src, "compaction-rule", "first-kept");
	run(&f);
	assert_string_equal(order(&f.a), "M0 compaction:T5 M7 M8 M9");
	fx_done(&f);
}

static void test_recursive_compactions(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	run(&f);
	/* Without first_kept, only turns after T5; the earlier summary is superseded. */
	assert_string_equal(order(&f.a), "M0 compaction:T5 M9");
	assert_int_equal(result(&f, "compaction:T3")->outcome, OUTCOME_DROPPED);
	assert_int_equal(result(&f, "compaction:T3")->reason, REASON_SUPERSEDED);
	assert_null(strstr(support_prompt(&f.a), "SUMMARY-ONE"));
	/* Replaying T4 makes T3 the latest compaction before it. */
	support_set(f.src, "turn", "T4");
	run(&f);
	assert_string_equal(order(&f.a), "M0 compaction:T3 M7");
	assert_int_equal(result(&f, "compaction:T5")->reason, REASON_LATER);
	assert_int_equal(result(&f, "M1")->reason, REASON_COMPACTED);
	assert_non_null(strstr(result(&f, "M1")->sentence, "turn T3"));
	fx_done(&f);
}

static void test_empty_and_tool_messages(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	support_set(f.src, "turn", "T3"); /* history T1, T2 without compaction */
	run(&f);
	/* Sequence order wins over input order (M2 is listed before M1). */
	assert_string_equal(order(&f.a), "M0 M1 M2 M3 M4 M6");
	assert_string_equal(roles(&f.a), "system user tool assistant user assistant");
	assert_int_equal(result(&f, "M5")->reason, REASON_EMPTY);
	assert_int_equal(result(&f, "M2")->outcome, OUTCOME_WHOLE);
	fx_done(&f);
}

/* Message text stays in the file's bytes, unescaped there (no copy); a
 * compaction's summary is the source's own. */
static void test_text_in_input(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	const char *kept = f.src->input_kept, *end = kept + f.src->input_bytes;
	assert_non_null(kept);
	const struct piece *m5 = &f.src->pieces[support_piece(f.src, "M5")];
	const struct piece *m0 = &f.src->pieces[support_piece(f.src, "M0")];
	assert_string_equal(m5->text, "  \n");
	assert_int_equal(m5->text_bytes, 3);
	assert_string_equal(m0->text, "You are the on-call helper.");
	assert_true(m5->text > kept && m5->text < end && m0->text > kept && m0->text < end);
	for (size_t i = 0; i < f.src->npieces; i++)
		if (strstr(f.src->pieces[i].text, "SUMMARY-ONE"))
			assert_false(f.src->pieces[i].text > kept && f.src->pieces[i].text < end);
	fx_done(&f);
}

static void test_ancestry_given_and_rebuilt(void **state)
{
	(void)state;
	struct fx g = { 0 }, r = { 0 };
	load_fixture(&g, "[{\"turn_id\": \"T6\", \"ancestry\": \"[\\\"T1\\\",\\\"T2\\\",\\\"T3\\\",\\\"T4\\\",\\\"T5\\\",\\\"T6\\\"]\"}]",
		     "\"T4\"", "");
	load_fixture(&r, "[]", "\"T4\"", "");
	run(&g);
	run(&r);
	assert_string_equal(fact(&g.a, "thread"), "6 turns, ancestry from the threads table");
	assert_string_equal(fact(&r.a, "thread"), "6 turns, ancestry rebuilt from parent_turn_id");
	char a[1024];
	snprintf(a, sizeof a, "%s", support_prompt(&g.a));
	assert_string_equal(a, support_prompt(&r.a));
	fx_done(&g);
	fx_done(&r);

	/* An ancestry that skips T3 does not match parent_turn_id. */
	struct fx b = { 0 };
	char *t = fixture_text("[{\"turn_id\": \"T6\", \"ancestry\": [\"T1\", \"T2\", \"T4\", \"T5\", \"T6\"]}]", "null", "");
	b.dir = support_tempdir();
	support_write(b.dir, "bad.json", t);
	free(t);
	struct cs_error err;
	assert_int_equal(support_load_error(support_path(b.dir, "bad.json"), NULL, &err), CS_ESTRUCT);
	assert_string_equal(err.path, "threads[0].ancestry");
	assert_non_null(strstr(err.message, "turn T4 follows T2, but its parent is T3"));
	assert_int_equal(err.line, 6);
	fx_done(&b);
}

static void test_replay_vs_next(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "\"T4\"",
		     ",\n\"assembly\": {\"memory\": [\"MEM-A\"], \"event\": {\"content\": \"NEXT-MSG\", \"time\": 1763802000000,"
		     " \"platform\": \"slack\", \"platformActions\": [\"reply\", \"react\"], \"hookData\": \"HOOK\"}}");
	run(&f);
	/* Replay of the head: T6's query; its response is later; recorded usage shown. */
	assert_string_equal(fact(&f.a, "recorded input"), "650 tokens (600 read, 50 written), turn T6");
	assert_int_equal(result(&f, "event")->reason, REASON_OFF_PATH);
	assert_null(strstr(support_prompt(&f.a), "NEXT-MSG"));
	support_set(f.src, "next", "true");
	run(&f);
	assert_string_equal(order(&f.a), "M0 compaction:T5 M7 M8 M9 M10 - memory[0] event");
	const char *p = support_prompt(&f.a);
	assert_non_null(strstr(p, "Current time: 2025-11-22T09:00:00.000Z\nTimezone: UTC\nPlatform: slack\n"
				  "Available actions: reply, react\nHOOK\nMEM-A\n\nNEXT-MSG"));
	assert_string_equal(fact(&f.a, "recorded input"), "");
	/* A worker gets no platform lines (seed 001: manager only). */
	support_set(f.src, "session", "alt");
	run(&f);
	assert_null(strstr(support_prompt(&f.a), "Platform:"));
	assert_non_null(strstr(fact(&f.a, "session"), "worker sub-agent"));
	assert_string_equal(fact(&f.a, "task"), "Try the other fix.");
	/* Options read back for undo. */
	struct strbuf v = STRBUF_INIT;
	assert_int_equal(support_get(f.src, "next", &v), CS_OK);
	assert_string_equal(sb_str(&v), "true");
	sb_reset(&v);
	assert_int_equal(support_get(f.src, "session", &v), CS_OK);
	assert_string_equal(sb_str(&v), "alt");
	sb_fini(&v);
	fx_done(&f);
}

static void test_next_needs_event(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(support_set_option(f.src, "next", "true", &err), CS_EUSAGE);
	assert_int_equal(support_set_option(f.src, "turn", "T99", &err), CS_EUSAGE);
	assert_int_equal(support_set_option(f.src, "compaction-rule", "latest", &err), CS_EUSAGE);
	assert_int_equal(support_set_option(f.src, "session", "nope", &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "sessions: main, alt"));
	/* A turn off the session's thread cannot be replayed. */
	support_set(f.src, "turn", "T7");
	assert_int_not_equal(assemble(f.src, &f.a, &err), CS_OK);
	assert_non_null(strstr(err.message, "not on the thread of session main"));
	fx_done(&f);
}

static void test_summary_role_system(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	support_set(f.src, "summary-role", "system");
	run(&f);
	assert_string_equal(roles(&f.a), "system system user");
	assert_null(strstr(support_prompt(&f.a), "[Previous conversation summary]"));
	fx_done(&f);
}

static void test_forks(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	run(&f); /* main: the only active session */
	assert_int_equal(result(&f, "M11")->reason, REASON_OFF_PATH);
	support_set(f.src, "session", "alt");
	run(&f);
	/* alt shares T1..T4 with main; latest compaction on its thread is T3. */
	assert_string_equal(order(&f.a), "M0 compaction:T3 M7 M8 M11");
	assert_int_equal(result(&f, "M9")->reason, REASON_OFF_PATH);
	assert_int_equal(result(&f, "compaction:T5")->reason, REASON_OFF_PATH);
	/* Its model is gpt-4o: 128,000 limit. */
	assert_int_equal(f.a.budget.limit, 128000);
	assert_int_equal(f.a.budget.usable, 128000 - 8000 - 16000);
	assert_string_equal(fact(&f.a, "role"), "worker");
	fx_done(&f);
}

static void test_budget_overflow(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	support_set(f.src, "turn", "T3"); /* no compaction: T1, T2 in history */
	run(&f);
	assert_int_equal(f.a.budget.usable, 200000 - 24000);
	assert_false(f.a.flags & ASM_OVER_LIMIT);
	assert_false(f.a.flags & ASM_COMPACTS);
	/* Three history turns at most here, so nothing may be summarized. */
	support_set(f.src, "budget", "20");
	run(&f);
	assert_true(f.a.flags & ASM_OVER_LIMIT);
	assert_int_equal(f.a.over_by, f.a.budget.used - 20);
	assert_non_null(strstr(f.a.state, "but has no turn to summarize (it keeps the 3 most recent)"));
	assert_true(f.a.flags & ASM_COMPACTS);
	fx_done(&f);

	/* A longer history: a chain of 6 normal turns, 100 tokens each. */
	struct strbuf j = STRBUF_INIT;
	sb_puts(&j, "{\"turns\": [");
	for (int i = 1; i <= 7; i++)
		sb_printf(&j, "%s{\"id\": \"U%d\", \"parent_turn_id\": %s%s%s}", i > 1 ? "," : "", i, i > 1 ? "\"U" : "null",
			  i > 1 ? (char[]){ (char)('0' + i - 1), 0 } : "", i > 1 ? "\"" : "");
	sb_puts(&j, "], \"messages\": [");
	for (int i = 1; i <= 7; i++)
		sb_printf(&j, "%s{\"id\": \"Q%d\", \"turn_id\": \"U%d\", \"role\": \"user\", \"content\": \"%0400d\"}",
			  i > 1 ? "," : "", i, i, 0);
	sb_puts(&j, "], \"assembly\": {\"budget\": {\"modelLimit\": 1000, \"reserveResponse\": 200, \"reserveTools\": 300}}}");
	struct fx g = { 0 };
	load_text(&g, sb_str(&j));
	sb_fini(&j);
	run(&g);
	/* 7 x 100 tokens against 500 available: over by 200. Target 300:
	 * summarizing U1..U3 leaves 400 (not enough), U4 is protected with
	 * U5, U6 (the last three history turns); U7 is the event. */
	assert_int_equal(g.a.budget.usable, 500);
	assert_int_equal(g.a.budget.used, 700);
	assert_true(g.a.flags & ASM_OVER_LIMIT);
	assert_non_null(strstr(g.a.state, "summarizing turns U1..U3 (3 turns, 300 tokens) toward 300"));
	bool warned = false;
	for (size_t w = 0; w < g.a.nwarnings; w++)
		warned |= strstr(g.a.warnings[w].text, "would summarize turns U1..U3") != NULL;
	assert_true(warned);
	/* They stay in the prompt: this is the prompt as built. */
	assert_int_equal(g.a.results[support_piece(g.src, "Q1")].outcome, OUTCOME_WHOLE);
	/* The report's would_compact section lists them. */
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_JSON };
	assert_int_equal(report_write(&g.a, &opt, &out), CS_OK);
	cJSON *doc = cJSON_Parse(sb_str(&out));
	assert_non_null(doc);
	const cJSON *rep = cJSON_GetObjectItemCaseSensitive(doc, "assembly_report");
	const cJSON *wc = cJSON_GetObjectItemCaseSensitive(rep, "would_compact");
	assert_non_null(wc);
	const cJSON *turns = cJSON_GetObjectItemCaseSensitive(wc, "turns");
	assert_int_equal(cJSON_GetArraySize(turns), 3);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(turns, 2), "turn")->valuestring, "U3");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(wc, "reaches_target")));
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(wc, "target_tokens")->valueint, 300);
	cJSON_Delete(doc);
	sb_fini(&out);
	fx_done(&g);
}

static void test_user_exclusion(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "\"T4\"", "");
	support_set(f.src, "exclude", "M8");
	support_set(f.src, "exclude", "M0");
	run(&f);
	assert_string_equal(order(&f.a), "compaction:T5 M7 M9");
	assert_int_equal(result(&f, "M8")->reason, REASON_EXCLUDED_BY_USER);
	assert_int_equal(result(&f, "M0")->reason, REASON_EXCLUDED_BY_USER);
	support_set(f.src, "include", "M8");
	run(&f);
	assert_string_equal(order(&f.a), "compaction:T5 M7 M8 M9");
	fx_done(&f);
}

static void test_recorded_usage(void **state)
{
	(void)state;
	struct fx f = { 0 };
	load_fixture(&f, "[]", "null", "");
	const struct piece *p = &f.src->pieces[support_piece(f.src, "M3")];
	assert_true(p->flags & PIECE_RECORDED);
	assert_int_equal(p->recorded_tokens, 30);
	assert_false(f.src->pieces[support_piece(f.src, "M1")].flags & PIECE_RECORDED);
	fx_done(&f);
}

/* Each broken export gives a positioned error naming its path. */
static void expect_error(const char *text, int code, const char *path, const char *words)
{
	char *dir = support_tempdir();
	support_write(dir, "bad.json", text);
	struct cs_error err;
	int rc = support_load_error(support_path(dir, "bad.json"), "ledger", &err);
	if (rc != code || strcmp(err.path, path) || !strstr(err.message, words))
		fail_msg("got %d at \"%s\": %s; wanted %d at \"%s\" with \"%s\"", rc, err.path, err.message, code, path, words);
	assert_true(err.line >= 1);
	support_rmtree(dir);
	free(dir);
}

static void test_load_errors(void **state)
{
	(void)state;
	expect_error("{\"turns\": [{\"id\": \"A\", \"parent_turn_id\": \"Z\"}]}", CS_ESTRUCT, "turns[0].parent_turn_id",
		     "dangling id: no turn \"Z\"");
	expect_error("{\"turns\": [{\"id\": \"A\"}], \"messages\": [{\"id\": \"m\", \"turn_id\": \"B\", \"role\": \"user\"}]}",
		     CS_ESTRUCT, "messages[0].turn_id", "no turn \"B\"");
	expect_error("{\"turns\": [{\"id\": \"A\"}], \"sessions\": [{\"label\": \"main\", \"thread_id\": \"Q\"}]}",
		     CS_ESTRUCT, "sessions[0].thread_id", "head turn \"Q\" is missing");
	expect_error("{\"turns\": [{\"id\": \"A\", \"turn_type\": \"compaction\"}], \"compactions\": ["
		     "{\"turn_id\": \"A\", \"summary\": \"x\"}, {\"turn_id\": \"A\", \"summary\": \"y\"}]}",
		     CS_ESTRUCT, "compactions[1].turn_id", "two compaction rows");
	expect_error("{\"turns\": [{\"id\": \"A\", \"input_tokens\": \"many\"}]}", CS_ETYPE, "turns[0].input_tokens",
		     "a string \"many\" is not a count");
	expect_error("{\"turns\": [{\"id\": \"A\", \"output_tokens\": 2.5}]}", CS_ETYPE, "turns[0].output_tokens",
		     "2.5 is not a count (not a whole number)");
	expect_error("{\"turns\": [{\"id\": \"A\", \"query_message_ids\": \"[oops\"}]}", CS_ESYNTAX,
		     "turns[0].query_message_ids", "not valid JSON");
	expect_error("{\"turns\": [{\"id\": \"A\", \"parent_turn_id\": \"B\"}, {\"id\": \"B\", \"parent_turn_id\": \"A\"}]}",
		     CS_ESTRUCT, "turns[0].parent_turn_id", "cycle");
	expect_error("{\"turns\": [{\"id\": \"A\"}, {\"id\": \"A\"}]}", CS_ESTRUCT, "turns[1].id", "also turns[0]");
	expect_error("{\"turns\": [{\"id\": \"A\", \"turn_type\": \"compaction\"}]}", CS_ESTRUCT, "turns[0].turn_type",
		     "no row in compactions");
	expect_error("{\"turns\": [{\"id\": 7}], \"threads\": [{\"turn_id\": 7, \"ancestry\": [3, 7]}]}", CS_ESTRUCT,
		     "threads[0].ancestry", "dangling id: no turn \"3\"");
	expect_error("{\"turns\": [], \"assembly\": {\"next\": true}}", CS_ESTRUCT, "assembly.next", "no assembly.event");
}

/* Every allocation of load, assemble and report failing in turn gives a
 * clean CS_ENOMEM (and ASan sees no leak), never a crash or another error. */
static void sweep(const char *path, const char *option, const char *value)
{
	bool done = false;
	for (long n = 1; n < 100000 && !done; n++) {
		struct source *src = NULL;
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(n);
		int rc = source_load(path, NULL, &src, &err);
		if (rc == CS_OK && option && !strcmp(option, "budget"))
			src->settings.budget = atol(value);
		else if (rc == CS_OK && option)
			rc = support_set_option(src, option, value, &err);
		if (rc == CS_OK) {
			struct assembly a;
			rc = assemble(src, &a, &err);
			if (rc == CS_OK) {
				struct strbuf out = STRBUF_INIT;
				struct report_options opt = { .format = REPORT_YAML };
				rc = report_write(&a, &opt, &out);
				done = rc == CS_OK && out.len > 0 && !out.failed;
				sb_fini(&out);
				asm_fini(&a);
			}
		}
		source_free(src);
		cs_alloc_fail_from(0);
		if (rc != CS_OK && rc != CS_ENOMEM)
			fail_msg("%s: allocation %ld failing gave %d: %s", path, n, rc, err.message);
	}
	assert_true(done);
}

static void test_out_of_memory_sweep(void **state)
{
	(void)state;
	sweep("samples/ledger/release-notes-worker.json", NULL, NULL);
	sweep("samples/ledger/release-notes-worker.json", "next", "true");
	sweep("samples/ledger/backup-incident.json", "session", "main");
	sweep("samples/ledger/sqla-fork.json", "budget", "400");
}

/* The timeline: every normal turn on the thread replayed, the cache
 * predicted from the previous turn's prompt, the recorded usage beside it. */
static void test_timeline(void **state)
{
	(void)state;
	struct strbuf j = STRBUF_INIT;
	sb_puts(&j, "{\"sessions\": [{\"label\": \"main\", \"thread_id\": \"T4\", \"status\": \"active\"}],\n"
		    "\"threads\": [], \"tool_calls\": [], \"compactions\": [{\"turn_id\": \"T3\", \"summary\": \"S\"}],\n"
		    "\"turns\": [\n"
		    " {\"id\": \"T1\", \"parent_turn_id\": null, \"provider\": \"anthropic\", \"input_tokens\": 1700,"
		    " \"cached_input_tokens\": 0, \"cache_write_tokens\": 1700, \"query_message_ids\": [\"M1\"]},\n"
		    " {\"id\": \"T2\", \"parent_turn_id\": \"T1\", \"provider\": \"anthropic\", \"input_tokens\": 1750,"
		    " \"cached_input_tokens\": 1690, \"cache_write_tokens\": 60, \"query_message_ids\": [\"M3\"]},\n"
		    " {\"id\": \"T3\", \"parent_turn_id\": \"T2\", \"turn_type\": \"compaction\"},\n"
		    " {\"id\": \"T4\", \"parent_turn_id\": \"T3\", \"provider\": \"openai\", \"query_message_ids\": [\"M5\"]}],\n"
		    "\"messages\": [\n {\"id\": \"M0\", \"turn_id\": \"T1\", \"role\": \"system\", \"sequence\": 0, \"content\": \"");
	for (int i = 0; i < 700; i++)
		sb_puts(&j, "rules. "); /* 4,900 characters: about 1,225 tokens, over anthropic's minimum */
	sb_puts(&j, "\"},\n"
		    " {\"id\": \"M1\", \"turn_id\": \"T1\", \"role\": \"user\", \"sequence\": 1, \"content\": \"first question\"},\n"
		    " {\"id\": \"M2\", \"turn_id\": \"T1\", \"role\": \"assistant\", \"sequence\": 2, \"content\": \"first answer\"},\n"
		    " {\"id\": \"M3\", \"turn_id\": \"T2\", \"role\": \"user\", \"sequence\": 1, \"content\": \"second question\"},\n"
		    " {\"id\": \"M4\", \"turn_id\": \"T2\", \"role\": \"assistant\", \"sequence\": 2, \"content\": \"second answer\"},\n"
		    " {\"id\": \"M5\", \"turn_id\": \"T4\", \"role\": \"user\", \"sequence\": 1, \"content\": \"third question\"}]}\n");
	char *dir = support_tempdir();
	support_write(dir, "timeline.json", sb_str(&j));
	sb_fini(&j);
	struct source *src = support_load(support_path(dir, "timeline.json"), "ledger");
	struct ledger_turn_usage *u;
	size_t n;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(ledger_timeline(src, &u, &n, &err), CS_OK);
	assert_int_equal(n, 3); /* T1, T2, T4: the compaction turn is not a conversation turn */
	const struct ledger *l = src->model;
	assert_string_equal(l->turns[u[0].turn].id, "T1");
	assert_string_equal(l->turns[u[2].turn].id, "T4");
	/* T1 against a cold cache: nothing read, the system prefix written. */
	assert_string_equal(u[0].profile, "anthropic");
	assert_int_equal(u[0].predicted_read, 0);
	assert_true(u[0].predicted_written >= 1024);
	assert_int_equal(u[0].recorded_input, 1700);
	assert_int_equal(u[0].recorded_written, 1700);
	/* T2 after T1: the system prefix is read. */
	assert_true(u[1].predicted_read >= 1024);
	assert_true(u[1].predicted_read < u[1].estimated);
	assert_true(u[1].estimated > u[0].estimated);
	assert_int_equal(u[1].recorded_read, 1690);
	/* T4: another provider's profile, nothing recorded. */
	assert_string_equal(u[2].profile, "openai");
	assert_int_equal(u[2].recorded_input, -1);
	assert_int_equal(u[2].recorded_read, -1);
	assert_null(l->turn); /* the replays left the settings alone */
	cs_free(u);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static char *report_text(const struct assembly *a)
{
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_TEXT };
	assert_int_equal(report_write(a, &opt, &out), CS_OK);
	return out.data;
}

/* The thread the model keeps from one assembly to the next follows the
 * session (another head), and a timeline's replays (copies of the model)
 * leave it as it was: each report is the one a fresh load gives. */
static void test_kept_thread_follows_the_head(void **state)
{
	(void)state;
	const char *extra = ",\n\"assembly\": {\"memory\": [\"MEM-A\"]}";
	struct fx f = { 0 }, g = { 0 };
	load_fixture(&f, "[]", "\"T4\"", extra);
	load_fixture(&g, "[]", "\"T4\"", extra);
	run(&f); /* the main session's thread kept */
	support_set(f.src, "session", "alt");
	support_set(g.src, "session", "alt");
	struct ledger_turn_usage *u = NULL;
	size_t n;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(ledger_timeline(f.src, &u, &n, &err), CS_OK); /* replays while main's is kept */
	free(u);
	run(&f);
	run(&g);
	char *mine = report_text(&f.a), *fresh = report_text(&g.a);
	assert_string_equal(strchr(mine, '\n'), strchr(fresh, '\n')); /* past the line naming the file */
	free(mine);
	free(fresh);
	support_set(f.src, "session", "main");
	support_set(g.src, "session", "main");
	run(&f);
	run(&g);
	mine = report_text(&f.a);
	fresh = report_text(&g.a);
	assert_string_equal(strchr(mine, '\n'), strchr(fresh, '\n'));
	assert_non_null(strstr(mine, "T6"));
	free(mine);
	free(fresh);
	fx_done(&f);
	fx_done(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_kept_rule),
		cmocka_unit_test(test_after_only_rule),
		cmocka_unit_test(test_recursive_compactions),
		cmocka_unit_test(test_empty_and_tool_messages),
		cmocka_unit_test(test_ancestry_given_and_rebuilt),
		cmocka_unit_test(test_replay_vs_next),
		cmocka_unit_test(test_next_needs_event),
		cmocka_unit_test(test_summary_role_system),
		cmocka_unit_test(test_forks),
		cmocka_unit_test(test_budget_overflow),
		cmocka_unit_test(test_user_exclusion),
		cmocka_unit_test(test_recorded_usage),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_kept_thread_follows_the_head),
		cmocka_unit_test(test_text_in_input),
		cmocka_unit_test(test_load_errors),
		cmocka_unit_test(test_out_of_memory_sweep),
	};
	return cmocka_run_group_tests_name("ledger", tests, NULL, NULL);
}
