/* test_memory_incr.c: the memory builder's kept state against a build from
 * nothing. One source takes a long series of random edits (exclusions,
 * weights that come back and weights that push older orders out of the
 * kept ones, the budget, the allocation caps, compression) and is
 * re-assembled as the inspector does (kept score orders, sentences
 * deferred); a twin takes the same edits and forgets every kept order
 * before each build, every sentence written. Prompt, results and
 * sentences must be the same after every edit. Each re-assembly starts
 * from the one before (assemble_lazy_from), whose results it may take
 * over and patch: its list of changed pieces must be what comparing every
 * result before and after gives, and the "what moved" sentence from the
 * list the one from that comparison. And the sentences a kind defers
 * (memory, ledger) against the ones assemble() writes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/tune.h"
#include "assembly.h"
#include "edit.h"
#include "kinds/memory/memory.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* n items of every type, scores from a coarse grid (many ties in the
 * final score: input order must break them) and tokens 10..309. */
static char *snapshot(size_t n, uint64_t seed)
{
	static const char *const types[] = { "event", "chunk", "entity", "relation", "pattern" };
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{ \"maxTokens\": 6000, \"archetype\": \"coding\", \"items\": [\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s{ \"id\": \"m%zu\", \"type\": \"%s\", \"content\": \"item %zu\", \"tokens\": %d, "
			  "\"scores\": { \"recency\": %.2f, \"relevance\": %.2f, \"salience\": %.2f } }\n",
			  i ? "," : "", i, types[next(&seed) % 5], i, (int)(10 + next(&seed) % 300),
			  (double)(next(&seed) % 11) / 10, (double)(next(&seed) % 11) / 10, (double)(next(&seed) % 5) / 4);
	sb_puts(&sb, "] }\n");
	assert_false(sb.failed);
	char *text = strdup(sb_str(&sb));
	sb_fini(&sb);
	return text;
}

static void set_both(struct source *a, struct source *b, const char *name, const char *value)
{
	support_set(a, name, value);
	support_set(b, name, value);
}

/* One random edit, applied to both. */
static void random_edit(struct source *kept, struct source *fresh, uint64_t *rng)
{
	static const char *const weights[] = {
		"recency=0.3,relevance=0.5,salience=0.2", "recency=0.6,relevance=0.2,salience=0.2",
		"recency=0.1,relevance=0.1,salience=0.8", "recency=0.5,relevance=0.5,salience=0",
		"recency=0.25,relevance=0.25,salience=0.5", "recency=0,relevance=1,salience=0",
	};
	static const char *const budgets[] = { "-1", "900", "3000", "20000" };
	unsigned what = (unsigned)(next(rng) % 10);
	if (what < 5) {
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next(rng) % kept->npieces) };
		e.value = piece_excluded(&kept->pieces[e.piece]) ? 0 : 1;
		struct edit f = e;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
		assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
	} else if (what < 8) {
		set_both(kept, fresh, "weight", weights[next(rng) % (sizeof weights / sizeof weights[0])]);
	} else if (next(rng) % 3 == 0) {
		set_both(kept, fresh, "allocation-caps", next(rng) % 2 ? "on" : "off");
	} else if (next(rng) % 2) {
		set_both(kept, fresh, "compress", next(rng) % 2 ? "on" : "off");
	} else {
		struct edit e = { .type = EDIT_BUDGET, .value = atof(budgets[next(rng) % 4]) }, f = e;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
		assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
	}
}

/* The kept build (lazy) is the fresh one (eager), piece by piece. */
static void assert_same(const struct source *src, struct assembly *kept, const struct assembly *fresh)
{
	char *want = strdup(support_prompt(fresh)); /* support_prompt's buffer is shared */
	assert_string_equal(support_prompt(kept), want);
	free(want);
	assert_true(asm_list_not_whole(kept)); /* when the kind lists it only when read */
	assert_int_equal(kept->nnot_whole, fresh->nnot_whole);
	assert_int_equal(kept->nfacts, fresh->nfacts);
	for (size_t f = 0; f < kept->nfacts; f++)
		assert_string_equal(kept->facts[f].value, fresh->facts[f].value);
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece_result *k = &kept->results[i], *r = &fresh->results[i];
		assert_int_equal(k->outcome, r->outcome);
		assert_int_equal(k->reason, r->reason);
		assert_int_equal(k->tokens, r->tokens);
		assert_int_equal(k->original_tokens, r->original_tokens);
		assert_int_equal(k->why[0], r->why[0]);
		assert_int_equal(k->why[1], r->why[1]);
		assert_int_equal(k->block, r->block);
		assert_true(k->score == r->score);
		const char *said = asm_sentence(kept, (long)i, &sb);
		if (r->sentence)
			assert_string_equal(said, r->sentence);
		else
			assert_null(said);
	}
	for (size_t j = 0; j < kept->nnot_whole; j++)
		assert_int_equal(kept->not_whole[j], fresh->not_whole[j]);
	sb_fini(&sb);
}

/* Re-assembles src as the inspector does: from *a, which the new assembly
 * replaces (it may take its results over); the list of changes checked.
 * Returns the results before (the caller frees them). */
static struct piece_result *reassemble(struct source *src, struct assembly *a)
{
	struct piece_result *was = support_copy_results(a);
	struct assembly next;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy_from(src, &next, a, &err), CS_OK);
	support_assert_changes(src, &next, was);
	asm_fini(a);
	*a = next;
	return was;
}

static void test_kept_state_is_a_fresh_build(void **state)
{
	(void)state;
	char *text = snapshot(400, 7);
	struct source *kept = support_load_text("snap.json", text), *fresh = support_load_text("snap.json", text);
	free(text);
	uint64_t rng = 11;
	size_t moved = 0;
	struct assembly a, b;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	for (int step = 0; step < 300; step++) {
		random_edit(kept, fresh, &rng);
		struct piece_result *was = reassemble(kept, &a);
		memory_rank_forget(fresh->model); /* sorts from nothing */
		support_assemble(fresh, &b);
		assert_same(kept, &a, &b);
		for (size_t i = 0; i < kept->npieces; i++)
			moved += a.results[i].outcome != was[i].outcome;
		free(was);
		asm_fini(&b);
	}
	assert_true(moved > 300); /* the edits did move pieces in and out */
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

/* A snapshot for the patched builds: n items, event types a filter keeps
 * or not, ids the filters exclude, and the budget given. */
static char *filtered_snapshot(size_t n, uint64_t seed, long max_tokens)
{
	static const char *const types[] = { "event", "chunk", "entity", "relation", "pattern" };
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{ \"maxTokens\": %ld, \"archetype\": \"support\", \"filters\": { \"eventTypes\": "
		  "[\"file_read\"], \"exclude\": [\"m5\", \"m17\", \"m400\"] }, \"items\": [\n", max_tokens);
	for (size_t i = 0; i < n; i++) {
		const char *type = types[next(&seed) % 5];
		sb_printf(&sb, "%s{ \"id\": \"m%zu\", \"type\": \"%s\", %s\"content\": \"item %zu\", \"tokens\": %d, "
			  "\"scores\": { \"recency\": %.2f, \"relevance\": %.2f, \"salience\": %.2f } }\n",
			  i ? "," : "", i, type,
			  strcmp(type, "event") ? "" : next(&seed) % 4 ? "\"eventType\": \"file_read\", " : "\"eventType\": \"error\", ",
			  i, (int)(5 + next(&seed) % 200), (double)(next(&seed) % 11) / 10, (double)(next(&seed) % 11) / 10,
			  (double)(next(&seed) % 5) / 4);
	}
	sb_puts(&sb, "] }\n");
	assert_false(sb.failed);
	char *text = strdup(sb_str(&sb));
	sb_fini(&sb);
	return text;
}

/* Toggles one piece's exclusion in both: an included one (rng says so and
 * one is in a), else any. */
static void toggle(struct source *kept, struct source *fresh, const struct assembly *a, uint64_t *rng)
{
	long piece = (long)(next(rng) % kept->npieces);
	if (next(rng) % 3 == 0)
		for (size_t j = 0; j < kept->npieces; j++) {
			size_t i = ((size_t)piece + j) % kept->npieces;
			if (a->results[i].outcome == OUTCOME_WHOLE) {
				piece = (long)i;
				break;
			}
		}
	struct edit e = { .type = EDIT_EXCLUDE, .piece = piece, .value = piece_excluded(&kept->pieces[piece]) ? 0 : 1 };
	struct edit f = e;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
	assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
}

/* Re-assembles kept as the inspector does from *a (reassemble) and fresh
 * from nothing; they must be the same. Returns the results before (the
 * caller frees them). */
static struct piece_result *rebuild_both(struct source *kept, struct source *fresh, struct assembly *a)
{
	struct assembly b;
	struct piece_result *was = reassemble(kept, a);
	memory_rank_forget(fresh->model); /* sorts and decides from nothing */
	support_assemble(fresh, &b);
	assert_same(kept, a, &b);
	asm_fini(&b);
	return was;
}

/* Builds patched from the kept one (exclusions only, one to three between
 * builds, included pieces among them, some toggled back; a budget now and
 * then, which builds anew) are the builds from nothing. */
static void patched_series(const char *text, bool caps, uint64_t rng, int steps)
{
	struct source *kept = support_load_text("snap.json", text), *fresh = support_load_text("snap.json", text);
	if (!caps)
		set_both(kept, fresh, "allocation-caps", "off");
	struct assembly a;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	size_t moved = 0;
	for (int step = 0; step < steps; step++) {
		unsigned what = (unsigned)(next(&rng) % 20);
		for (unsigned t = 0; t < 1 + what % 3; t++)
			toggle(kept, fresh, &a, &rng);
		if (what == 0) {
			struct edit e = { .type = EDIT_BUDGET, .value = (double)(500 + next(&rng) % 4000) }, f = e;
			assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
			assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
		}
		struct piece_result *was = rebuild_both(kept, fresh, &a);
		for (size_t i = 0; i < kept->npieces; i++)
			moved += a.results[i].outcome != was[i].outcome || a.results[i].why[1] != was[i].why[1];
		free(was);
	}
	const struct memory *m = kept->model;
	assert_non_null(m->cache.kept);
	assert_true(m->cache.kept->patched > (unsigned long)steps * 3 / 4); /* most builds were patched */
	assert_true(m->cache.kept->reused > (unsigned long)steps * 2 / 3 || /* most of them in the results before */
		    (m->cache.kept->reused > 10 && m->cache.kept->reused < m->cache.kept->patched - 10)); /* long cascades anew */
	assert_true(moved > (size_t)steps); /* and they moved pieces and changed sentences */
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

static void test_patched_builds_are_fresh_builds(void **state)
{
	(void)state;
	char *text = filtered_snapshot(1500, 5, 6000);
	patched_series(text, true, 21, 250); /* most items out in pass 1 */
	patched_series(text, false, 22, 150); /* pass 2 alone */
	free(text);
	text = filtered_snapshot(600, 8, 40000);
	patched_series(text, true, 23, 150); /* most items in */
	cs_tune(CS_TUNE_MEMORY_CASCADE_MIN, (size_t)0); /* a patch of more than a sixteenth writes every result */
	patched_series(text, true, 24, 150);
	cs_tune(CS_TUNE_MEMORY_CASCADE_MIN, (size_t)CS_TUNE_CASCADE_MIN);
	free(text);
}

/* The samples (a task stack's items off the current frame among them),
 * patched after random exclusions. */
static void test_samples_patched(void **state)
{
	(void)state;
	static const char *const paths[] = {
		"samples/memory/coding-session.json", "samples/memory/long-session.json",
		"samples/memory/research-session.json", "samples/memory/task-stack.json",
	};
	for (size_t f = 0; f < sizeof paths / sizeof paths[0]; f++) {
		struct source *kept = support_load(paths[f], NULL), *fresh = support_load(paths[f], NULL);
		uint64_t rng = 31 + f;
		struct assembly a;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
		for (int step = 0; step < 40; step++) {
			toggle(kept, fresh, &a, &rng);
			free(rebuild_both(kept, fresh, &a));
		}
		const struct memory *m = kept->model;
		assert_true(m->cache.kept->patched >= 30);
		assert_true(m->nnew || m->cache.kept->reused >= 30); /* newEvents: the updates' own assembly, not patched */
		asm_fini(&a);
		source_free(kept);
		source_free(fresh);
	}
}

/* As the inspector opens: its assembly, then the baseline's (which
 * re-decides nothing): the first edit still patches the inspector's
 * results, which are the baseline's too. */
static void test_first_edit_after_the_baseline(void **state)
{
	(void)state;
	char *text = filtered_snapshot(500, 12, 5000);
	struct source *kept = support_load_text("snap.json", text), *fresh = support_load_text("snap.json", text);
	free(text);
	struct assembly a, base;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	assert_int_equal(assemble_lazy(kept, &base, &err), CS_OK);
	uint64_t rng = 5;
	for (int step = 0; step < 6; step++) {
		toggle(kept, fresh, &a, &rng);
		unsigned long before = a.serial;
		free(rebuild_both(kept, fresh, &a));
		assert_true(a.reused);
		assert_int_equal(a.reused_from, before);
	}
	asm_fini(&base);
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

/* Out of memory at every allocation of a patched build (and of the build
 * that follows an edit of the same piece back): each fails cleanly or
 * succeeds, and the next build is still a build from nothing. */
static void test_patched_out_of_memory(void **state)
{
	(void)state;
	char *text = filtered_snapshot(300, 9, 3000);
	struct source *kept = support_load_text("snap.json", text), *fresh = support_load_text("snap.json", text);
	free(text);
	uint64_t rng = 41;
	struct assembly a;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	for (long nth = 1; nth < 40; nth++) {
		toggle(kept, fresh, &a, &rng);
		struct assembly failed;
		struct piece_result *was = support_copy_results(&a), *array = a.results;
		cs_alloc_fail_from(nth);
		int rc = assemble_lazy_from(kept, &failed, &a, &err);
		cs_alloc_fail_from(0);
		if (rc == CS_OK) {
			asm_fini(&a);
			a = failed;
		} else { /* the results it took over are back as they were */
			assert_int_equal(rc, CS_ENOMEM);
			assert_ptr_equal(a.results, array);
			assert_memory_equal(a.results, was, kept->npieces * sizeof *was);
		}
		free(was);
		toggle(kept, fresh, &a, &rng);
		free(rebuild_both(kept, fresh, &a));
	}
	assert_true(((const struct memory *)kept->model)->cache.kept->reused > 20);
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

/* Deferred sentences are written once asked (an export reads them all)
 * and are then the ones assemble() writes. */
static void test_written_sentences_are_the_eager_ones(void **state)
{
	(void)state;
	char *text = snapshot(120, 3);
	struct source *src = support_load_text("snap.json", text);
	free(text);
	struct assembly lazy, eager;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(src, &lazy, &err), CS_OK);
	support_assemble(src, &eager);
	size_t deferred = 0;
	for (size_t i = 0; i < src->npieces; i++)
		deferred += lazy.results[i].outcome != OUTCOME_WHOLE && !lazy.results[i].sentence;
	assert_true(deferred > 50);
	assert_true(asm_write_sentences(&lazy));
	for (size_t i = 0; i < src->npieces; i++) {
		if (eager.results[i].sentence)
			assert_string_equal(lazy.results[i].sentence, eager.results[i].sentence);
		else
			assert_null(lazy.results[i].sentence);
	}
	asm_fini(&lazy);
	asm_fini(&eager);
	source_free(src);
}

/* Every sample of the kinds that defer sentences (memory, ledger), with a
 * piece excluded: what the inspector reads is what the report prints. */
static void test_samples_deferred_as_written(void **state)
{
	(void)state;
	static const char *const paths[] = {
		"samples/memory/coding-session.json", "samples/memory/long-session.json",
		"samples/memory/research-session.json", "samples/memory/task-stack.json",
		"samples/ledger/backup-incident.json", "samples/ledger/release-notes-worker.json",
		"samples/ledger/sqla-fork.json",
	};
	size_t deferred = 0;
	for (size_t f = 0; f < sizeof paths / sizeof paths[0]; f++) {
		struct source *src = support_load(paths[f], NULL);
		struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)src->npieces / 2, .value = 1 };
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(edit_apply(src, &e, &err), CS_OK);
		struct assembly lazy, eager;
		assert_int_equal(assemble_lazy(src, &lazy, &err), CS_OK);
		support_assemble(src, &eager);
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < src->npieces; i++) {
			deferred += lazy.results[i].outcome != OUTCOME_WHOLE && !lazy.results[i].sentence;
			const char *said = asm_sentence(&lazy, (long)i, &sb);
			if (eager.results[i].sentence)
				assert_string_equal(said, eager.results[i].sentence);
			else
				assert_null(said);
		}
		sb_fini(&sb);
		asm_fini(&lazy);
		asm_fini(&eager);
		source_free(src);
	}
	assert_true(deferred > 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kept_state_is_a_fresh_build),
		cmocka_unit_test(test_patched_builds_are_fresh_builds),
		cmocka_unit_test(test_samples_patched),
		cmocka_unit_test(test_first_edit_after_the_baseline),
		cmocka_unit_test(test_patched_out_of_memory),
		cmocka_unit_test(test_written_sentences_are_the_eager_ones),
		cmocka_unit_test(test_samples_deferred_as_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
