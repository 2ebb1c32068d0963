/* test_models.c: the built-in model table (ctxscope-formats(5) section 5): every row
 * sourced and dated, lookups by the ids real inputs carry, the fallbacks
 * said to be fallbacks, and the request kinds' cache facts at the same
 * prices as the table. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "kinds/request/request.h"
#include "models.h"

#include <math.h>
#include <string.h>

static void test_rows_sourced(void **state)
{
	(void)state;
	unsigned long n;
	const struct model_info *t = model_table(&n);
	assert_true(n >= 40);
	for (unsigned long i = 0; i < n; i++) {
		assert_non_null(t[i].source);
		assert_true(strlen(t[i].source) > 10);
		assert_non_null(t[i].as_of);
		assert_true(t[i].limit >= 8192);
		assert_true(t[i].input < 0 || (t[i].input > 0 && t[i].output > t[i].input));
		if (!strncmp(t[i].name, "claude-", 7)) {
			assert_true(t[i].limit >= 200000); /* every Claude model */
			assert_true(t[i].input < 0 || fabs(t[i].write_1h - 2 * t[i].input) < 1e-9);
			assert_true(t[i].input < 0 || fabs(t[i].write_5m - 1.25 * t[i].input) < 1e-9);
		}
	}
}

static void test_lookup(void **state)
{
	(void)state;
	static const struct {
		const char *ref, *row;
	} cases[] = {
		{ "claude-sonnet-4-5-20250929", "claude-sonnet-4-5" },
		{ "anthropic:claude-opus-4-1-20250805", "claude-opus-4-1" },
		{ "claude-opus-4-20250514", "claude-opus-4" },
		{ "claude-opus-4-6", "claude-opus-4-6" },
		{ "claude-haiku-4-5-20251001", "claude-haiku-4-5" },
		{ "claude-3-5-haiku-20241022", "claude-3-5-haiku" },
		{ "claude-opus-5-5", "claude-opus-5-5" },
		{ "claude-sonnet-4.5", "claude-sonnet-4-5" },
		{ "gpt-4o-2024-08-06", "gpt-4o" },
		{ "gpt-4o-mini", "gpt-4o-mini" },
		{ "gpt-4.1-mini", "gpt-4.1-mini" },
		{ "o4-mini", "o4-mini" },
		{ "gemini-2.5-pro", "gemini-2.5-pro" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct model_info *mi = model_lookup(cases[i].ref);
		assert_non_null(mi);
		assert_string_equal(mi->name, cases[i].row);
	}
	bool fallback = false;
	assert_int_equal(model_limit("claude-sonnet-4-5-20250929", &fallback), 200000);
	assert_false(fallback);
	assert_int_equal(model_limit("claude-opus-4-7", &fallback), 1000000);
	assert_int_equal(model_limit("claude-nova-9-20270101", &fallback), 200000); /* an unknown Claude */
	assert_true(fallback);
	assert_int_equal(model_limit("mystery-model", &fallback), 128000);
	assert_true(fallback);
	assert_null(model_lookup("claude-opus-4x"));
}

/* facts.c's cache figures (what the sequence prices) agree with the table. */
static void test_facts_agree(void **state)
{
	(void)state;
	unsigned long n;
	const struct model_info *t = model_table(&n);
	for (unsigned long i = 0; i < n; i++) {
		bool anthropic = !strcmp(t[i].provider, "anthropic");
		if (!anthropic && strcmp(t[i].provider, "openai"))
			continue;
		if (!anthropic && t[i].cache_read < 0)
			continue; /* no prompt cache */
		bool known;
		const struct req_model_facts *f =
			request_model_facts(anthropic ? REQ_ANTHROPIC : REQ_OPENAI_CHAT, t[i].name, &known);
		assert_true(known);
		assert_true(fabs(f->price_per_mtok - t[i].input) < 1e-9);
		if (t[i].cache_min > 0)
			assert_int_equal(f->min_prefix, t[i].cache_min);
		if (t[i].input > 0 && t[i].cache_read >= 0)
			assert_true(fabs(f->read * t[i].input - t[i].cache_read) < 1e-9);
	}
}

/* Thinking of earlier turns, by caching.md section 1's rule ("older
 * Opus/Sonnet and all Haiku strip prior thinking; Opus 4.5+/Sonnet 4.6+
 * keep it"; Fable/Mythos 5.1 and Opus 5.5 keep it, since dropping their
 * blocks breaks the cache), over the ids real inputs carry. */
static void test_prior_thinking(void **state)
{
	(void)state;
	static const struct {
		const char *model;
		bool keeps;
	} cases[] = {
		/* every Haiku strips */
		{ "claude-3-haiku-20240307", false },
		{ "claude-3-5-haiku-20241022", false },
		{ "claude-haiku-4-5-20251001", false },
		{ "claude-haiku-5", false },
		{ "claude-haiku-5-5", false },
		{ "anthropic:claude-haiku-4.5", false },
		/* older Opus strips, Opus 4.5 and later keep */
		{ "claude-3-opus-20240229", false },
		{ "claude-opus-4-20250514", false },
		{ "claude-opus-4-1-20250805", false },
		{ "claude-opus-4-1@20250805", false },
		{ "claude-opus-4-5-20251101", true },
		{ "us.anthropic.claude-opus-4-5-20251101-v1:0", true },
		{ "claude-opus-4-6", true },
		{ "claude-opus-4-7", true },
		{ "claude-opus-4-8", true },
		{ "claude-opus-5", true },
		{ "claude-opus-5-5", true },
		{ "anthropic/claude-opus-4.5", true },
		/* older Sonnet strips, Sonnet 4.6 and later keep */
		{ "claude-3-5-sonnet-20240620", false },
		{ "claude-3-7-sonnet-20250219", false },
		{ "claude-sonnet-4-20250514", false },
		{ "claude-sonnet-4-5-20250929", false },
		{ "Claude-Sonnet-4.5", false },
		{ "claude-sonnet-4-6", true },
		{ "claude-sonnet-5", true },
		{ "claude-sonnet-5-5", true },
		/* Fable and Mythos keep */
		{ "claude-fable-5-1", true },
		{ "claude-mythos-5-1", true },
		{ "claude-fable-5", true },
		{ "claude-mythos-preview", true },
		/* not a Claude family: as sent */
		{ "gpt-4o", true },
		{ "", true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		if (model_keeps_prior_thinking(cases[i].model) != cases[i].keeps)
			fail_msg("%s: expected %s", cases[i].model, cases[i].keeps ? "kept" : "stripped");
	assert_true(model_keeps_prior_thinking(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_sourced),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_facts_agree),
		cmocka_unit_test(test_prior_thinking),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
