/* test_diff.c: the baseline diff on the manifest samples: a piece pulled
 * forward is the one "moved" (not everything it passed), truncated
 * differently with tokens before and after, removed by the budget or by
 * exclusion with the reason, added when the budget grows (and nothing
 * "moved" by the shift), pieces only one of two files has, an identical
 * prompt; the cache figures are cache.h's own; the text lines are checked
 * whole, ids are sanitized; the emitted map parses; out of memory is clean. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "cache/cache.h"
#include "diff.h"
#include "emit.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"
#include "base/utf8.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define BUGFIX "samples/manifest/bugfix/working-set.yml"

static const struct cache_profile *profile(const char *name)
{
	size_t n;
	const struct cache_profile *p = cache_builtin_profiles(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].name, name))
			return &p[i];
	fail_msg("no profile %s", name);
	return NULL;
}

static void build(const struct assembly *base, const struct assembly *now, const char *prof, struct diff *d)
{
	struct cs_error err;
	cs_error_clear(&err);
	if (diff_build(base, NULL, now, NULL, profile(prof), d, &err) != CS_OK)
		fail_msg("%s", err.message);
}

static const struct diff_change *change(const struct diff *d, const char *id)
{
	for (size_t k = 0; k < d->n; k++)
		if (!strcmp(d->changes[k].id, id))
			return &d->changes[k];
	return NULL;
}

static void test_moved_and_truncated(void **state)
{
	(void)state;
	struct source *src = support_load(BUGFIX, NULL);
	struct assembly base, now;
	support_assemble(src, &base);
	/* the CI log jumps from last to third: it now comes before bucket.py,
	 * so it is whole, and what comes after it is squeezed */
	support_set(src, "priority", "logs/pytest-latest.log=0.9");
	support_assemble(src, &now);
	struct diff d;
	build(&base, &now, "anthropic", &d);

	assert_int_equal(d.n, 3);
	assert_int_equal(d.moved, 1);
	assert_int_equal(d.cut, 2);
	assert_int_equal(d.removed, 1);
	assert_int_equal(d.added, 0);

	const struct diff_change *log = &d.changes[0];
	assert_string_equal(log->id, "logs/pytest-latest.log");
	assert_int_equal(log->flags, DIFF_CUT | DIFF_MOVED);
	assert_int_equal(log->tokens_before, 1461);
	assert_int_equal(log->tokens_after, 1826);
	assert_int_equal(log->original_tokens, 1826);
	assert_int_equal(log->position_before, 6);
	assert_int_equal(log->position_after, 3);
	assert_int_equal(log->reason_before, REASON_TRUNCATED);
	assert_int_equal(log->reason_after, REASON_NONE);
	assert_int_equal(log->offset_after, now.blocks[now.results[log->piece].block].offset_tokens);

	/* bucket.py passed by the log is not "moved" */
	assert_null(change(&d, "src/throttle/bucket.py"));

	const struct diff_change *test = &d.changes[1];
	assert_string_equal(test->id, "tests/test_bucket.py");
	assert_int_equal(test->flags, DIFF_CUT);
	assert_int_equal(test->tokens_before, 355);
	assert_int_equal(test->tokens_after, 256);
	assert_int_equal(test->reason_after, REASON_TRUNCATED);

	const struct diff_change *reg = &d.changes[2];
	assert_string_equal(reg->id, "src/throttle/registry.py");
	assert_int_equal(reg->flags, DIFF_REMOVED);
	assert_int_equal(reg->tokens_before, 266);
	assert_int_equal(reg->tokens_after, 0);
	assert_int_equal(reg->position_before, 5);
	assert_int_equal(reg->position_after, 0);
	assert_int_equal(reg->offset_after, -1);
	assert_int_equal(reg->reason_after, REASON_OVER_BUDGET);

	/* the cache figures are cache.h's */
	struct cache_analysis an;
	struct cs_error err;
	assert_int_equal(cache_analyze(&base, NULL, &now, NULL, profile("anthropic"), &an, &err), CS_OK);
	assert_int_equal(d.an.div.tokens, an.div.tokens);
	assert_int_equal(d.still_cached, an.now.read);
	assert_int_equal(d.to_rewrite, an.now.rewritten);
	assert_int_equal(d.still_cached + d.to_rewrite + d.new_tokens, now.total_tokens);
	assert_true(d.an.delta == an.now.cost - an.steady.cost);
	/* by hand, from the report's cache section for the same edit */
	assert_int_equal(d.an.div.tokens, 443);
	assert_int_equal(d.still_cached, 0);
	assert_int_equal(d.to_rewrite, 3049); /* the baseline's last breakpoint held it all */
	assert_int_equal(d.new_tokens, 0);
	cache_analysis_fini(&an);

	struct strbuf sb = STRBUF_INIT;
	assert_true(diff_lines(&d, 0, &sb));
	assert_string_equal(sb_str(&sb),
		"diff against the baseline, cache profile anthropic\n"
		"  prompt       3,061 -> 3,049 tokens (-12)\n"
		"  budget used  3,000 -> 3,000 of 3,000\n"
		"  first diff   at token 443, in logs/pytest-latest.log\n"
		"  cache        0 read, 3,049 written, 0 uncached (3,049 of the written were read in the baseline)\n"
		"  cost         3,811 base-price tokens a request, against 306 for the baseline repeated (+3,505)\n"
		"  changes      0 added, 1 removed, 2 truncated differently, 1 moved\n"
		"\n"
		"  ~> logs/pytest-latest.log    tokens 1,461 -> 1,826 of 1,826; place 6 -> 3\n"
		"  ~  tests/test_bucket.py      tokens 355 -> 256 of 355\n"
		"  -  src/throttle/registry.py  removed: 266 tokens were at place 5 (now: did not fit the budget)\n");
	sb_fini(&sb);

	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
}

static void test_added_when_budget_grows(void **state)
{
	(void)state;
	struct source *src = support_load(BUGFIX, NULL);
	struct assembly base, now;
	support_set(src, "budget", "1000");
	support_assemble(src, &base);
	support_set(src, "budget", "6000");
	support_assemble(src, &now);
	struct diff d;
	build(&base, &now, "openai", &d);

	assert_true(d.added >= 2);
	assert_int_equal(d.moved, 0); /* the added ones shift the rest; none moved */
	assert_int_equal(d.removed, 0);
	for (size_t k = 0; k < d.n; k++) {
		const struct diff_change *c = &d.changes[k];
		if (!(c->flags & DIFF_ADDED))
			continue;
		assert_int_equal(c->flags, DIFF_ADDED);
		assert_int_equal(c->position_before, 0);
		assert_true(c->position_after > 0);
		assert_int_equal(c->tokens_before, 0);
		assert_int_equal(c->tokens_after, now.results[c->piece].tokens);
		assert_int_equal(c->reason_before, base.results[c->piece].reason);
		assert_true(c->reason_before == REASON_OVER_BUDGET || c->reason_before == REASON_TRUNCATED);
	}
	/* in the current prompt's order */
	for (size_t k = 1; k < d.n; k++)
		assert_true(d.changes[k - 1].position_after < d.changes[k].position_after);
	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
}

static void test_removed_by_exclusion(void **state)
{
	(void)state;
	struct source *src = support_load(BUGFIX, NULL);
	struct assembly base, now;
	support_assemble(src, &base);
	support_set(src, "exclude", "current_task.md");
	support_assemble(src, &now);
	struct diff d;
	build(&base, &now, "anthropic", &d);
	const struct diff_change *c = change(&d, "current_task.md");
	assert_non_null(c);
	assert_int_equal(c->flags, DIFF_REMOVED);
	assert_int_equal(c->reason_after, REASON_EXCLUDED_BY_USER);
	assert_int_equal(c->tokens_before, 187);
	assert_int_equal(c->position_before, 2);
	/* the first difference: right after the constitution */
	assert_int_equal(d.an.div.block, 1);
	assert_int_equal(d.moved, 0);
	struct strbuf sb = STRBUF_INIT;
	assert_true(diff_lines(&d, 0, &sb));
	assert_non_null(strstr(sb_str(&sb), "current_task.md         removed: 187 tokens were at place 2 (now: excluded by you)\n"));
	sb_fini(&sb);
	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
}

static void test_identical(void **state)
{
	(void)state;
	struct source *src = support_load(BUGFIX, NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct diff d;
	build(&a, &a, "anthropic", &d);
	assert_int_equal(d.n, 0);
	assert_true(d.an.div.identical);
	assert_true(d.an.delta == 0);
	struct strbuf sb = STRBUF_INIT;
	assert_true(diff_lines(&d, 0, &sb));
	assert_non_null(strstr(sb_str(&sb), "  first diff   none: the same prompt\n"));
	assert_non_null(strstr(sb_str(&sb), "  changes      0 added, 0 removed, 0 truncated differently, 0 moved\n"));
	assert_null(strstr(sb_str(&sb), "\n\n")); /* no list of changes */
	sb_fini(&sb);
	diff_fini(&d);
	asm_fini(&a);
	source_free(src);
}

static void test_two_files(void **state)
{
	(void)state;
	/* yesterday's working set against today's: the CI log was replaced */
	struct source *bs = support_load("samples/manifest/cache-demo/yesterday.yml", NULL);
	struct source *ns = support_load("samples/manifest/cache-demo/working-set.yml", NULL);
	struct assembly base, now;
	support_assemble(bs, &base);
	support_assemble(ns, &now);
	struct diff d;
	build(&base, &now, "openai", &d);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.changes[0].id, "logs/ci-1842.log");
	assert_int_equal(d.changes[0].flags, DIFF_ADDED);
	assert_int_equal(d.changes[0].base_piece, -1);
	assert_int_equal(d.changes[0].position_after, 6);
	assert_string_equal(d.changes[1].id, "logs/ci-1841.log");
	assert_int_equal(d.changes[1].flags, DIFF_REMOVED);
	assert_int_equal(d.changes[1].piece, -1);
	assert_int_equal(d.changes[1].position_before, 6);
	assert_int_equal(d.moved + d.cut, 0);
	/* openai caches the common prefix in 128-token units: 1,920 of the
	 * first 1,981 identical tokens, by cache.h */
	assert_int_equal(d.an.div.tokens, 1981);
	assert_int_equal(d.still_cached, d.an.now.read);
	assert_int_equal(d.still_cached, 1920);
	struct strbuf sb = STRBUF_INIT;
	assert_true(diff_lines(&d, 0, &sb));
	assert_non_null(strstr(sb_str(&sb), "  +  logs/ci-1842.log  added: 231 tokens at place 6 (not in the baseline's input)\n"));
	assert_non_null(strstr(sb_str(&sb), "  -  logs/ci-1841.log  removed: 221 tokens were at place 6 (not in the current input)\n"));
	sb_fini(&sb);
	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(bs);
	source_free(ns);
}

static void test_loom_messages(void **state)
{
	(void)state;
	/* a messages array: truncateMiddle takes the middle of the dialogue */
	struct source *src = support_load("samples/loom/parser-debug.json", NULL);
	struct assembly base, now;
	support_assemble(src, &base);
	support_set(src, "budget", "600");
	support_assemble(src, &now);
	struct diff d;
	build(&base, &now, "anthropic", &d);
	assert_int_equal(d.added + d.cut + d.moved, 0);
	assert_int_equal(d.removed, 6);
	long prev = 0;
	for (size_t k = 0; k < d.n; k++) {
		const struct diff_change *c = &d.changes[k];
		assert_int_equal(c->flags, DIFF_REMOVED);
		assert_int_equal(c->reason_after, REASON_TRUNCATE_MIDDLE);
		assert_int_equal(c->tokens_before, base.results[c->base_piece].tokens);
		assert_true(c->position_before > prev); /* in the baseline's order */
		prev = c->position_before;
	}
	/* the first message stays: the first difference is after it */
	assert_true(d.an.div.tokens > 0);
	assert_int_equal(d.still_cached + d.to_rewrite + d.new_tokens, now.total_tokens);
	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
}

static void test_emit_json(void **state)
{
	(void)state;
	struct source *src = support_load(BUGFIX, NULL);
	struct assembly base, now;
	support_assemble(src, &base);
	support_set(src, "priority", "logs/pytest-latest.log=0.9");
	support_assemble(src, &now);
	struct diff d;
	build(&base, &now, "anthropic", &d);
	struct strbuf sb = STRBUF_INIT;
	struct emitter em;
	emit_init(&em, &sb, EMIT_JSON, 0);
	assert_int_equal(diff_emit(&d, &em), CS_OK);
	assert_int_equal(emit_finish(&em), CS_OK);
	cJSON *doc = cJSON_Parse(sb_str(&sb));
	assert_non_null(doc);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(doc, "at")->valuestring, "logs/pytest-latest.log");
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(doc, "first_difference")->valueint, 443);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(doc, "to_rewrite")->valueint, 3049);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(doc, "delta_tokens")->valueint, 3505);
	assert_int_equal(cJSON_GetObjectItemCaseSensitive(doc, "moved")->valueint, 1);
	cJSON *changes = cJSON_GetObjectItemCaseSensitive(doc, "changes");
	assert_int_equal(cJSON_GetArraySize(changes), 3);
	cJSON *first = cJSON_GetArrayItem(changes, 0);
	cJSON *kinds = cJSON_GetObjectItemCaseSensitive(first, "change");
	assert_int_equal(cJSON_GetArraySize(kinds), 2);
	assert_string_equal(cJSON_GetArrayItem(kinds, 0)->valuestring, "truncated");
	assert_string_equal(cJSON_GetArrayItem(kinds, 1)->valuestring, "moved");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "reason_before")->valuestring, "truncated");
	cJSON_Delete(doc);
	sb_fini(&sb);
	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
}

static void test_ids_are_sanitized(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	/* a file name holding an escape sequence: it must not reach a terminal */
	support_write(dir, "ws.yml",
		      "protocol: CONTEXT-ASSEMBLY/0.1\n"
		      "files:\n"
		      "  - path: \"a\\e[2Jb.md\"\n    priority: 0.9\n"
		      "  - path: plain.md\n    priority: 0.5\n");
	support_write(dir, "a\x1b[2Jb.md", "clear-screen in a name\n");
	support_write(dir, "plain.md", "plain\n");
	struct source *src = support_load(support_path(dir, "ws.yml"), NULL);
	struct assembly base, now;
	support_assemble(src, &base);
	support_set(src, "exclude", "a\x1b[2Jb.md");
	support_assemble(src, &now);
	struct diff d;
	build(&base, &now, "anthropic", &d);
	assert_int_equal(d.removed, 1);
	struct strbuf sb = STRBUF_INIT;
	assert_true(diff_lines(&d, 0, &sb));
	assert_null(strchr(sb_str(&sb), '\x1b'));
	assert_non_null(strstr(sb_str(&sb), "a\xE2\x90\x9B[2Jb.md")); /* ␛ */
	sb_reset(&sb);
	assert_true(diff_lines(&d, UTF8_ASCII, &sb));
	for (const char *p = sb_str(&sb); *p; p++)
		assert_true((unsigned char)*p < 0x80 && (*p == '\n' || (unsigned char)*p >= 0x20));
	sb_fini(&sb);
	diff_fini(&d);
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_out_of_memory(void **state)
{
	(void)state;
	struct source *bs = support_load("samples/manifest/cache-demo/yesterday.yml", NULL);
	struct source *ns = support_load("samples/manifest/cache-demo/working-set.yml", NULL);
	struct assembly base, now;
	support_assemble(bs, &base);
	support_assemble(ns, &now);
	bool saw_ok = false;
	for (long n = 1; n < 200 && !saw_ok; n++) {
		struct diff d;
		struct cs_error err;
		struct strbuf sb = STRBUF_INIT;
		cs_alloc_fail_from(n);
		int rc = diff_build(&base, NULL, &now, NULL, profile("anthropic"), &d, &err);
		bool lines = rc == CS_OK && diff_lines(&d, 0, &sb);
		cs_alloc_fail_from(0);
		assert_true(rc == CS_OK || rc == CS_ENOMEM);
		if (rc == CS_OK && lines) {
			saw_ok = true;
			assert_int_equal(d.n, 2);
		}
		if (rc != CS_OK)
			assert_null(d.changes);
		sb_fini(&sb);
		diff_fini(&d);
	}
	assert_true(saw_ok);
	asm_fini(&base);
	asm_fini(&now);
	source_free(bs);
	source_free(ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_moved_and_truncated),
		cmocka_unit_test(test_added_when_budget_grows),
		cmocka_unit_test(test_removed_by_exclusion),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_two_files),
		cmocka_unit_test(test_loom_messages),
		cmocka_unit_test(test_emit_json),
		cmocka_unit_test(test_ids_are_sanitized),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
