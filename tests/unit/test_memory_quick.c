/* test_memory_quick.c: the memory reader's two ways through an item give
 * the same snapshot. Every item read straight from its bytes (quick.c)
 * must come out as the tree's way (load.c) makes it: the same items,
 * pieces, texts, counts and warnings, and on bad input the same error at
 * the same line and column. Each input is loaded both ways and compared
 * field by field: the samples, the golden and hostile snapshots, and items
 * at the edge of the shape the quick way takes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kinds/memory/memory.h"
#include "base/tune.h"
#include "kinds/memory/quick.h"
#include "load.h"
#include "source.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void same_double(double a, double b)
{
	if (isnan(a) || isnan(b))
		assert_true(isnan(a) && isnan(b));
	else
		assert_memory_equal(&a, &b, sizeof a); /* bit for bit: -0 too */
}

static void same_item(const struct memory_item *a, const struct memory_item *b)
{
	assert_int_equal(a->piece, b->piece);
	assert_int_equal(a->type, b->type);
	for (int w = 0; w < MW_COUNT; w++)
		same_double(a->scores[w], b->scores[w]);
	assert_int_equal(a->given, b->given);
	assert_int_equal(a->derived, b->derived);
	assert_int_equal(a->tokens, b->tokens);
	assert_int_equal(a->tokens_given, b->tokens_given);
	support_same_str(a->timestamp, b->timestamp);
	support_same_str(a->task_id, b->task_id);
	assert_int_equal(a->arrival, b->arrival);
	assert_int_equal(a->has_ms, b->has_ms);
	assert_int_equal(a->ms, b->ms);
	same_double(a->age_hours, b->age_hours);
	same_double(a->weight, b->weight);
	support_same_str(a->subtype, b->subtype);
	assert_int_equal(a->filtered, b->filtered);
	support_same_str(a->note, b->note);
}

static void same_snapshot(const struct source *sa, const struct source *sb)
{
	const struct memory *a = sa->model, *b = sb->model;
	assert_int_equal(a->nitems, b->nitems);
	for (size_t i = 0; i < a->nitems; i++)
		same_item(&a->items[i], &b->items[i]);
	support_same_pieces(sa, sb);
}

/* Loads path both ways; compares what came out. Returns the status. */
static int both_ways(const char *path)
{
	return support_both_ways(path, "memory", CS_TUNE_MEMORY_QUICK, same_snapshot);
}

static void test_files_both_ways(void **state)
{
	(void)state;
	static const char *const files[] = {
		"samples/memory/coding-session.json",
		"samples/memory/long-session.json",
		"samples/memory/research-session.json",
		"samples/memory/task-stack.json",
		"tests/golden/memory/alloc-sum.json",
		"tests/golden/memory/bad-type.json",
		"tests/golden/memory/bad-weight.json",
		"tests/golden/memory/filters-defaults.json",
		"tests/golden/memory/new-event-dup.json",
		"tests/golden/memory/new-event-not-event.json",
		"tests/golden/memory/raw-forms.json",
		"tests/golden/memory/stack-updates.json",
		"tests/golden/memory/stack-warnings.json",
		"tests/hostile/json/memory-new-events-bad.json",
		"tests/hostile/json/memory-stack-hostile.json",
	};
	for (size_t i = 0; i < sizeof files / sizeof *files; i++)
		assert_true(both_ways(files[i]) >= 0);
}

#define HEAD "{\"maxTokens\": 100, \"archetype\": \"coding\", \"items\": [\n"
#define GOOD "{\"id\": \"a\", \"type\": \"chunk\", \"content\": \"x\"}"

/* Items at the edge of the quick way's shape, first of two (the second of
 * the usual shape), and as the second; each must read the same both ways. */
static void test_odd_items_both_ways(void **state)
{
	(void)state;
	static const char *const odd[] = {
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"tab\\there \\\"q\\\" \\\\ \\/ \\b\\f\\r\\n\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"\\u00e9\\u20ac\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"nul \\u0000 here\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"lone \\ud800\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"bad \\x escape\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"raw \t tab\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"content\": \"y\"}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 12}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": -1}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 1.5}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 12.0}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 1e3}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 012}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 99999999999999999999}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 123456789012345}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"tokens\": 1234567890123456}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": 0.000000000000001, "
		"\"relevance\": 0.0000000000000001, \"salience\": -12345678901234.5}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": 0.1, \"relevance\": "
		"-0.0, \"salience\": 0.30000000000000004}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": 0.123456789012345, "
		"\"relevance\": 1.7976931348623157e308, \"salience\": 1e-5}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": 0.1, \"recency\": 0.2}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": \"high\"}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"other\": 1}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": 1.}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": -}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\", \"scores\": {\"recency\": 0.5,}}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\",}",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\"} trailing",
		"{\"id\": \"b\", \"type\": \"chunk\", \"content\": \"x\"",
		"{\"id\": \"b\", \"type\": \"memo\", \"content\": \"x\"}",
		"{\"id\": \"\", \"type\": \"chunk\", \"content\": \"x\"}",
		"{\"id\": \"a\", \"type\": \"chunk\", \"content\": \"dup id\"}",
		"{\"id\": \"b\\u0041\", \"type\": \"chunk\", \"content\": \"x\"}",
		"{\"i\\u0064\": \"b\", \"type\": \"chunk\", \"content\": \"x\"}",
		"{\"id\": \"b\", \"type\": \"chunk\"}",
		"{\"id\": \"b\", \"type\": \"event\", \"content\": \"x\", \"timestamp\": 1700000000000}",
		"{\"id\": \"b\", \"type\": \"relation\", \"content\": \"x\", \"weight\": 0.5}",
		"{\"id\": \"b\", \"type\": \"pattern\", \"content\": \"x\", \"tokens\": 0}",
		"{\"id\": 5, \"type\": \"chunk\", \"content\": \"x\"}",
		"{ \"id\" :\"b\" ,\"type\":\"entity\"\n,\r\"content\"\t:\"x\" }",
		"[\"not an item\"]",
	};
	assert_true(support_odd_elements_both_ways(HEAD, GOOD, odd, sizeof odd / sizeof *odd, both_ways) >= 20);
}

/* An escape or a control character at every place of a content string,
 * across the sixteen-byte steps of the scan, and a string that ends on a
 * step's last byte. */
static void test_escapes_everywhere(void **state)
{
	(void)state;
	support_escapes_both_ways(HEAD, "{\"id\":\"b\",\"type\":\"chunk\",\"content\":\"", "\"}", GOOD,
				  both_ways);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_both_ways),
		cmocka_unit_test(test_odd_items_both_ways),
		cmocka_unit_test(test_escapes_everywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
