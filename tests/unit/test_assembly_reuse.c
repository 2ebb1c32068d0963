/* test_assembly_reuse.c: results kept from one assembly to the next
 * (asm_init_reuse, assemble_lazy_from). A test kind writes each piece's
 * result from a table (whole with some tokens, or dropped with a deferred
 * sentence); when it takes the previous results over it writes only the
 * pieces it is told to. The patched results and their list of changes must
 * be what a build from nothing and a comparison of every result give; a
 * failed or declined re-assembly must leave the previous one as it was;
 * the cases that must not reuse (another kind's init, sentences written, a
 * report's assembly) do not; and the "what moved" sentence from the list is
 * the one from comparing every result. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "kind.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"
#include "vm/viewmodel_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void assert_status_says(const char *status, const char *full);

#define MAXP 3000

/* What the test kind writes: each piece's tokens, -1 for dropped. */
static long want[MAXP];
static struct {
	bool reuse;         /* asm_init_reuse (else asm_init) */
	bool decline;       /* asm_reuse_decline after the init */
	bool fail;          /* returns CS_ENOMEM after writing */
	bool fini_itself;   /* and calls asm_fini itself first */
	long write[MAXP];   /* with reused results: the pieces written, in this order, */
	long value[MAXP];   /* each with this value (want[] is the last one's) */
	size_t nwrite;
} script;
static struct kind_ops fake;

static bool fake_sentence(const struct assembly *a, long piece, struct strbuf *out)
{
	sb_reset(out);
	sb_printf(out, "dropped: piece %ld (%ld)", piece, a->results[piece].why[0]);
	return !out->failed;
}

static void write_piece(struct assembly *a, long i, long value)
{
	if (value < 0) {
		asm_drop_later(a, i, REASON_OVER_BUDGET, i, 0);
		return;
	}
	struct piece_result r = a->results[i];
	r.why[0] = r.why[1] = 0; /* a build from nothing leaves them so */
	asm_set_result(a, i, &r);
	asm_whole(a, i, -1, value);
}

static int fake_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	int rc = script.reuse ? asm_init_reuse(a, run, ASM_DOCUMENT) : asm_init(a, run, ASM_DOCUMENT);
	if (rc == CS_OK && script.decline)
		rc = asm_reuse_decline(a);
	if (rc != CS_OK)
		return cs_error_nomem(err);
	a->sentence_fn = fake_sentence;
	if (a->reused) {
		for (size_t k = 0; k < script.nwrite; k++)
			write_piece(a, script.write[k], script.value[k]);
	} else {
		for (size_t i = 0; i < src->npieces; i++) {
			a->results[i] = (struct piece_result){ .outcome = OUTCOME_DROPPED, .block = -1, .score = 0.5,
							       .original_tokens = src->pieces[i].tokens };
			write_piece(a, (long)i, want[i]);
		}
	}
	if (script.fail) {
		if (script.fini_itself)
			asm_fini(a);
		return cs_error_nomem(err);
	}
	return asm_finish(a, err);
}

/* A memory snapshot of n items (the test kind reads only its pieces). */
static struct source *load_items(size_t n)
{
	struct strbuf sb = STRBUF_INIT;
	sb_puts(&sb, "{ \"maxTokens\": 6000, \"items\": [\n");
	for (size_t i = 0; i < n; i++)
		sb_printf(&sb, "%s{ \"id\": \"m%zu\", \"type\": \"chunk\", \"content\": \"item %zu\", \"tokens\": 10, "
			  "\"scores\": { \"relevance\": 0.5 } }\n", i ? "," : "", i, i);
	sb_puts(&sb, "] }\n");
	assert_false(sb.failed);
	struct source *src = support_load_text("snap.json", sb_str(&sb));
	sb_fini(&sb);
	return src;
}

static struct source *fake_source(struct source *src)
{
	assert_true(src->npieces >= 12 && src->npieces <= MAXP);
	fake = *src->kind;
	fake.assemble = fake_assemble;
	src->kind = &fake;
	for (size_t i = 0; i < src->npieces; i++)
		want[i] = (long)(10 * (i + 1));
	memset(&script, 0, sizeof script);
	script.reuse = true;
	return src;
}

static struct source *open_fake(void)
{
	return fake_source(support_load("samples/memory/long-session.json", "memory"));
}

static void assemble_from(const struct source *src, struct assembly *next, struct assembly *prev)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy_from(src, next, prev, &err), CS_OK);
}

/* Sets want[piece] and lists it among the pieces written. */
static void change(long piece, long tokens)
{
	want[piece] = tokens;
	script.value[script.nwrite] = tokens;
	script.write[script.nwrite++] = piece;
}

/* next's results against a build from nothing, its changes against every
 * result compared with was (a copy of the previous results), and the two
 * "what moved" sentences. */
static void check_patched(const struct source *src, const struct assembly *next, const struct piece_result *was)
{
	bool reuse = script.reuse;
	struct assembly fresh;
	script.reuse = false;
	assemble_from(src, &fresh, NULL);
	script.reuse = reuse;
	assert_true(next->changes_valid);
	for (size_t i = 0; i < src->npieces; i++)
		assert_false(asm_result_differs(&next->results[i], &fresh.results[i]));
	support_assert_changes(src, next, was);
	asm_fini(&fresh);
}

static void test_patched_results_and_changes(void **state)
{
	(void)state;
	struct source *src = open_fake();
	struct assembly prev, next, third;
	assemble_from(src, &prev, NULL);
	assert_false(prev.reused);
	assert_false(prev.changes_valid);
	struct piece_result *was = support_copy_results(&prev), *array = prev.results;

	change(3, 35);  /* more tokens */
	change(1, -1);  /* out */
	change(1, -1);  /* written twice: listed once, with its first old result */
	change(2, 30);  /* written as it was: not listed */
	change(7, 5);   /* written, then back as it was: not listed */
	change(7, 80);
	assemble_from(src, &next, &prev);
	assert_true(next.reused);
	assert_int_equal(next.reused_from, prev.serial);
	assert_ptr_equal(next.results, array); /* taken over, not copied */
	assert_null(prev.results);
	assert_int_equal(next.nchanges, 2);
	check_patched(src, &next, was);

	/* and again from the patched one, with more moves than the sentence names */
	free(was);
	was = support_copy_results(&next);
	script.nwrite = 0;
	change(1, 10);
	for (long i = 5; i < 11; i++)
		change(i, i == 6 ? -1 : 10 * (i + 1) + (i % 3 ? 7 : -7));
	assemble_from(src, &third, &next);
	assert_ptr_equal(third.results, array);
	assert_int_equal(third.reused_from, next.serial);
	check_patched(src, &third, was);

	free(was);
	asm_fini(&prev);
	asm_fini(&next);
	asm_fini(&third);
	source_free(src);
}

/* A failed re-assembly gives every result back as it was, whether the
 * kind finishes the assembly itself or leaves it to assemble_lazy_from. */
static void test_failure_gives_back(void **state)
{
	(void)state;
	for (int itself = 0; itself < 2; itself++) {
		struct source *src = open_fake();
		struct assembly prev, next;
		assemble_from(src, &prev, NULL);
		struct piece_result *was = support_copy_results(&prev), *array = prev.results;
		change(0, -1);
		change(4, 1000);
		change(4, -1);
		script.fail = true;
		script.fini_itself = itself;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_not_equal(assemble_lazy_from(src, &next, &prev, &err), CS_OK);
		assert_ptr_equal(prev.results, array);
		assert_memory_equal(prev.results, was, prev.nresults * sizeof *was);
		assert_null(next.results);
		free(was);
		asm_fini(&prev);
		source_free(src);
	}
}

/* Declined: the previous results back untouched, a fresh array to write. */
static void test_decline(void **state)
{
	(void)state;
	struct source *src = open_fake();
	struct assembly prev, next;
	assemble_from(src, &prev, NULL);
	struct piece_result *was = support_copy_results(&prev), *array = prev.results;
	want[2] = -1;
	script.decline = true;
	assemble_from(src, &next, &prev);
	assert_false(next.reused);
	assert_false(next.changes_valid);
	assert_ptr_equal(prev.results, array);
	assert_memory_equal(prev.results, was, prev.nresults * sizeof *was);
	assert_true(next.results != array);
	assert_int_equal(next.results[2].outcome, OUTCOME_DROPPED);
	free(was);
	asm_fini(&prev);
	asm_fini(&next);
	source_free(src);
}

/* What must not be taken over: results whose sentences were written into
 * the previous arena, a report's assembly (assemble: sentences written),
 * another source's, and none at all for a kind that inits as before. */
static void test_not_reused(void **state)
{
	(void)state;
	struct cs_error err;
	cs_error_clear(&err);
	struct source *src = open_fake(), *other = support_load("samples/memory/long-session.json", "memory");
	other->kind = &fake;
	struct assembly prev, next;
	change(2, -1);

	assemble_from(src, &prev, NULL);
	assert_true(asm_write_sentences(&prev));
	assert_true(prev.sentences_filled);
	assemble_from(src, &next, &prev);
	assert_false(next.reused);
	assert_non_null(prev.results);
	asm_fini(&next);
	asm_fini(&prev);

	assert_int_equal(assemble(src, &prev, &err), CS_OK);
	assemble_from(src, &next, &prev);
	assert_false(next.reused);
	asm_fini(&next);

	assemble_from(other, &next, &prev);
	assert_false(next.reused);
	assert_non_null(prev.results);
	asm_fini(&next);

	asm_fini(&prev);
	assemble_from(src, &prev, NULL); /* one it could take over, */
	script.reuse = false;              /* but the kind inits as before */
	struct piece_result *array = prev.results;
	assemble_from(src, &next, &prev);
	assert_false(next.reused);
	assert_false(next.changes_valid);
	assert_ptr_equal(prev.results, array);
	asm_fini(&next);
	asm_fini(&prev);
	source_free(other);
	source_free(src);
}

/* Rounds of re-assembly, each from the one before, the pieces written
 * chosen by plan; each checked (check_patched). */
static void patch_rounds(struct source *src, int rounds, void (*plan)(const struct source *src, int round, uint64_t *rng))
{
	struct assembly a[2];
	assemble_from(src, &a[0], NULL);
	uint64_t rng = 7;
	for (int round = 0; round < rounds; round++) {
		struct assembly *prev = &a[round % 2], *next = &a[1 - round % 2];
		struct piece_result *was = support_copy_results(prev);
		script.nwrite = 0;
		plan(src, round, &rng);
		assemble_from(src, next, prev);
		assert_true(next->reused);
		check_patched(src, next, was);
		asm_fini(prev);
		free(was);
	}
	asm_fini(&a[0]);
	asm_fini(&a[1]);
	source_free(src);
}

static uint64_t step(uint64_t *rng)
{
	*rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
	return *rng;
}

/* Up to eight random moves of a few sizes (ties among them). */
static void few_moves(const struct source *src, int round, uint64_t *rng)
{
	(void)round;
	size_t moves = (size_t)(*rng % 9);
	for (size_t m = 0; m < moves; m++) {
		uint64_t r = step(rng);
		long piece = (long)((r >> 33) % src->npieces), size = (long)((r >> 40) % 7);
		change(piece, size == 0 ? -1 : size * 10);
	}
}

/* By turns: 1,200 pieces out of order (the radix sort), every piece in
 * order and then 30 written again anywhere (the merge, ties among them),
 * or 40. */
static void long_lists(const struct source *src, int round, uint64_t *rng)
{
	size_t many = round % 3 == 0 ? 1200 : round % 3 == 1 ? src->npieces : 40;
	for (size_t m = 0; m < many && script.nwrite < MAXP - 50; m++) {
		uint64_t r = step(rng);
		long piece = round % 3 == 1 ? (long)m : (long)((r >> 33) % src->npieces), size = (long)((r >> 40) % 5);
		change(piece, size == 0 ? -1 : size * 10 + round);
	}
	for (int more = 0; round % 3 == 1 && more < 30; more++) {
		uint64_t r = step(rng);
		change((long)((r >> 33) % 2900), (long)(r >> 60) + 1000);
	}
}

/* The sentence from the list against the full comparison, on random
 * moves of every size (ties among them: the order must be the same). */
static void test_say_changes_random(void **state)
{
	(void)state;
	patch_rounds(open_fake(), 200, few_moves);
}

/* Long lists of changes: sorted by a radix sort, merged, or by qsort. */
static void test_long_lists(void **state)
{
	(void)state;
	patch_rounds(fake_source(load_items(3000)), 12, long_lists);
}

/* Through the inspector: random exclusions and undos on a memory snapshot
 * (pieces in the prompt among them); the status line says what the
 * comparison of every result says, and the edits patched the results. */
static void test_inspector_says_what_moved(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	sb_puts(&sb, "{ \"maxTokens\": 900, \"items\": [\n");
	for (size_t i = 0; i < 400; i++)
		sb_printf(&sb, "%s{ \"id\": \"m%zu\", \"type\": \"%s\", \"content\": \"item %zu\", \"tokens\": %zu, "
			  "\"scores\": { \"recency\": 0.%zu, \"relevance\": 0.%zu } }\n", i ? "," : "", i,
			  i % 3 ? "chunk" : "event", i, 5 + i % 37, i % 7, i % 10);
	sb_puts(&sb, "] }\n");
	assert_false(sb.failed);
	struct vm vm;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(&vm, support_load_text("snap.json", sb_str(&sb)), &err), CS_OK);
	sb_fini(&sb);
	const struct source *src = vm.session.src;
	uint64_t rng = 17;
	size_t reused = 0, moved = 0;
	for (int turn = 0; turn < 60; turn++) {
		struct piece_result *was = support_copy_results(&vm.session.cur);
		uint64_t r = step(&rng);
		if (turn % 5 == 4) {
			assert_int_equal(vm_undo(&vm, &err), CS_OK);
		} else {
			long piece = (long)((r >> 33) % src->npieces);
			for (size_t j = 0; r % 2 && j < src->npieces; j++) /* now and then one in the prompt */
				if (vm.session.cur.results[(piece + (long)j) % (long)src->npieces].outcome == OUTCOME_WHOLE) {
					piece = (piece + (long)j) % (long)src->npieces;
					break;
				}
			struct edit e = { .type = EDIT_EXCLUDE, .piece = piece,
					  .value = piece_excluded(&src->pieces[piece]) ? 0 : 1 };
			assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
		}
		reused += vm.session.cur.reused;
		struct strbuf full = STRBUF_INIT;
		vm_say_moved(src, was, vm.session.cur.results, &full);
		/* "[undone: ]excluded m5: out (-40); used ...; also m7 +3 (cut less)",
		 * or "...: used ...; moved: m7 +3, m9 in (+12)" when m5 did not move */
		const char *status = sb_str(&vm.status);
		if (full.len) {
			assert_status_says(status, sb_str(&full));
			moved++;
		} else {
			assert_non_null(strstr(status, ": no piece moved;"));
		}
		sb_fini(&full);
		free(was);
	}
	assert_true(reused > 40);
	assert_true(moved > 10);
	vm_fini(&vm);
}

/* Each move vm_say_moved names is in the status: whole, or, for the edited
 * piece (the status's edit ends with its name), its move right after the
 * edit's ": "; "and N more" too; the budget follows. */
static void assert_status_says(const char *status, const char *full)
{
	const char *colon = strstr(status, ": ");
	assert_non_null(colon);
	assert_non_null(strstr(status, "used "));
	char items[1024];
	snprintf(items, sizeof items, "%s", full);
	char *more = strstr(items, " and ");
	if (more) {
		assert_non_null(strstr(status, more));
		*more = '\0';
	}
	for (char *item = items, *next; item; item = next) {
		next = strstr(item, ", ");
		if (next) {
			*next = '\0';
			next += 2;
		}
		if (strstr(status, item))
			continue;
		char *sp = strchr(item, ' ');
		assert_non_null(sp);
		size_t name = (size_t)(sp - item);
		const char *edit_end = colon;
		if (!strncmp(status, "undone: ", 8) || !strncmp(status, "redone: ", 8))
			edit_end = strstr(colon + 2, ": ");
		assert_non_null(edit_end);
		assert_true((size_t)(edit_end - status) > name && !strncmp(edit_end - name, item, name) &&
			    edit_end[-(long)name - 1] == ' ');
		assert_true(!strncmp(edit_end + 2, sp + 1, strlen(sp + 1)));
		assert_int_equal(edit_end[2 + strlen(sp + 1)], ';');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_patched_results_and_changes),
		cmocka_unit_test(test_failure_gives_back),
		cmocka_unit_test(test_decline),
		cmocka_unit_test(test_not_reused),
		cmocka_unit_test(test_say_changes_random),
		cmocka_unit_test(test_long_lists),
		cmocka_unit_test(test_inspector_says_what_moved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
