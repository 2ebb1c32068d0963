/* test_ledger_quick.c: the ledger reader's two ways through a message row
 * give the same ledger. Every row read straight from its bytes (quick.c)
 * must come out as the tree's way (load.c) makes it: the same messages,
 * turns, pieces, texts and warnings, and on bad input the same error at
 * the same line, column and path. Each input is loaded both ways and
 * compared field by field: the samples, the golden, hostile and export
 * ledgers, and rows at the edge of the shape the quick way takes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kinds/ledger/ledger.h"
#include "base/tune.h"
#include "kinds/ledger/quick.h"
#include "load.h"
#include "source.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void same_longs(const long *a, const long *b, size_t n)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else if (n)
		assert_memory_equal(a, b, n * sizeof *a);
}

static void same_turn(const struct ledger_turn *a, const struct ledger_turn *b)
{
	support_same_str(a->id, b->id);
	support_same_str(a->parent_id, b->parent_id);
	assert_int_equal(a->parent, b->parent);
	assert_int_equal(a->compaction, b->compaction);
	support_same_str(a->status, b->status);
	support_same_str(a->model, b->model);
	support_same_str(a->provider, b->provider);
	support_same_str(a->role, b->role);
	assert_int_equal(a->input_tokens, b->input_tokens);
	assert_int_equal(a->output_tokens, b->output_tokens);
	assert_int_equal(a->cached_input_tokens, b->cached_input_tokens);
	assert_int_equal(a->cache_write_tokens, b->cache_write_tokens);
	assert_int_equal(a->reasoning_tokens, b->reasoning_tokens);
	assert_int_equal(a->total_tokens, b->total_tokens);
	assert_int_equal(a->nquery, b->nquery);
	same_longs(a->query, b->query, a->nquery);
	assert_int_equal(a->has_query, b->has_query);
	assert_int_equal(a->response, b->response);
	assert_int_equal(a->nmessages, b->nmessages);
	same_longs(a->messages, b->messages, a->nmessages);
	assert_int_equal(a->compaction_row, b->compaction_row);
	assert_int_equal(a->nancestry, b->nancestry);
	same_longs(a->ancestry, b->ancestry, a->nancestry);
}

static void same_ledger(const struct source *sa, const struct source *sb)
{
	const struct ledger *a = sa->model, *b = sb->model;
	assert_int_equal(a->nmessages, b->nmessages);
	for (size_t i = 0; i < a->nmessages; i++) {
		const struct ledger_message *x = &a->messages[i], *y = &b->messages[i];
		support_same_str(x->id, y->id);
		assert_int_equal(x->turn, y->turn);
		support_same_str(x->role, y->role);
		assert_int_equal(x->sequence, y->sequence);
		assert_int_equal(x->piece, y->piece);
		assert_int_equal(x->system, y->system);
	}
	assert_int_equal(a->nturns, b->nturns);
	for (size_t t = 0; t < a->nturns; t++)
		same_turn(&a->turns[t], &b->turns[t]);
	assert_int_equal(a->nsessions, b->nsessions);
	assert_int_equal(a->ncompactions, b->ncompactions);
	support_same_pieces(sa, sb);
}

/* Loads path both ways; compares what came out. Returns the status. */
static int both_ways(const char *path)
{
	return support_both_ways(path, "ledger", CS_TUNE_LEDGER_QUICK, same_ledger);
}

static void test_files_both_ways(void **state)
{
	(void)state;
	static const char *const files[] = {
		"samples/ledger/backup-incident.json",
		"samples/ledger/release-notes-worker.json",
		"samples/ledger/sqla-fork.json",
		"tests/ledger/ancestry-mismatch.json",
		"tests/ledger/memory-over.json",
		"tests/hostile/json/control-chars.json",
		"tests/hostile/json/deep-nesting.json",
		"tests/hostile/json/invalid-utf8.json",
		"tests/hostile/json/lone-surrogate.json",
		"tests/hostile/json/nul-escape.json",
	};
	int ok = 0;
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		ok += both_ways(files[i]) == CS_OK;
	assert_true(ok >= 4); /* the samples and memory-over */
}

#define HEAD                                                                                                   \
	"{\"turns\": [{\"id\": \"t1\"}, {\"id\": \"t2\", \"parent_turn_id\": \"t1\"}, {\"id\": 7}],\n"        \
	"\"messages\": [\n"
#define GOOD "{\"id\": \"a\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 0}"

/* Rows at the edge of the quick way's shape, first of two (the second of
 * the usual shape), and as the second; each must read the same both ways. */
static void test_odd_rows_both_ways(void **state)
{
	(void)state;
	static const char *const odd[] = {
		"{\"id\": \"b\", \"turn_id\": \"t2\", \"role\": \"assistant\", \"content\": \"tab\\there \\\"q\\\" \\\\ \\/ "
		"\\b\\f\\r\\n\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"\\u00e9\\u20ac\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"nul \\u0000 here\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"lone \\ud800\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"bad \\x escape\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"raw \t tab\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"content\": \"y\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": null}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": 5}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"tool\", \"content\": \"\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"system\", \"content\": \"s\", \"sequence\": 12}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": -1}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 1.5}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 2.0}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 1e3}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 012}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": "
		"99999999999999999999}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 123456789012345}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": 1234567890123456}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": null}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"sequence\": \"3\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"source\": \"agent\", "
		"\"created_at\": \"2026-01-30T00:01:35Z\", \"context_json\": null}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"context_json\": {\"a\": 1}}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"context_json\": nul}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"source\": 5, \"source\": 6}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\", \"extra\": true}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\",}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\"} trailing",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\"",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"robot\", \"content\": \"x\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"role\": \"us\\u0065r\", \"content\": \"x\"}",
		"{\"id\": \"b\", \"turn_id\": \"t9\", \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": \"b\", \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": \"b\", \"turn_id\": \"t1\", \"content\": \"x\"}",
		"{\"id\": \"\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": \"a\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"dup id\"}",
		"{\"id\": \"b\\u0041\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\"}",
		"{\"i\\u0064\": \"b\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": 42, \"turn_id\": 7, \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": 0, \"turn_id\": 7, \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": -3, \"turn_id\": 7, \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": 4.5, \"turn_id\": 7, \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": 1234567890123456789, \"turn_id\": 7, \"role\": \"user\", \"content\": \"x\"}",
		"{\"id\": \"b\", \"turn_id\": 8, \"role\": \"user\", \"content\": \"x\"}",
		"{ \"id\" :\"b\" ,\"turn_id\":\"t2\"\n,\r\"role\"\t:\"user\", \"content\" : \"x\" }",
		"{}",
		"[\"not a row\"]",
		"null",
	};
	assert_true(support_odd_elements_both_ways(HEAD, GOOD, odd, sizeof odd / sizeof *odd, both_ways) >= 20);
}

/* An escape or a control character at every place of a content string,
 * across the sixteen-byte steps of the scan. */
static void test_escapes_everywhere(void **state)
{
	(void)state;
	support_escapes_both_ways(HEAD, "{\"id\":\"b\",\"turn_id\":\"t1\",\"role\":\"user\",\"content\":\"", "\"}", GOOD,
				  both_ways);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_both_ways),
		cmocka_unit_test(test_odd_rows_both_ways),
		cmocka_unit_test(test_escapes_everywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
