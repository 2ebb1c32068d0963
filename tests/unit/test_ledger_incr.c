/* test_ledger_incr.c: the ledger assembler's kept state against a build
 * from nothing. One source takes a long series of random edits
 * (exclusions anywhere: compacted, kept, system, off-thread, memory and
 * event pieces; the session, the replayed turn, next, the compaction rule,
 * the summary role, the budget, chars per token) and is re-assembled as the inspector does
 * (what the model keeps from one assembly to the next, the previous
 * assembly's results taken over and patched, sentences deferred); a twin takes the same edits, forgets what its model kept
 * before each build, and writes every sentence. Every block, span,
 * message, layer total, result, sentence, fact and warning, and the order
 * of what did not go in whole, must be the same after every edit, over the
 * samples and generated ledgers; and the list of the results that changed
 * must name exactly those that differ from the previous assembly's. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "edit.h"
#include "kinds/ledger/ledger.h"
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

/* One message of turn tid into sb: k-th of the ledger, role, text by kind. */
static void message(struct strbuf *sb, size_t *k, const char *tid, const char *role, size_t seq, uint64_t *rng)
{
	static const char *const texts[] = { "Fix the parser.", "Done: the tests pass.", "   ", "",
					     "line one\nline two", "caf\xC3\xA9 \xE2\x80\x94 ok", "Ran make test: 214 passed." };
	unsigned t = (unsigned)(next(rng) % 7);
	if (!strcmp(role, "user") && t < 4 && next(rng) % 5)
		t = 0; /* queries are mostly not blank */
	*k += 1;
	sb_printf(sb, "%s{\"id\": \"m%zu\", \"turn_id\": \"%s\", \"role\": \"%s\", \"content\": \"", *k > 1 ? ",\n" : "", *k,
		  tid, role);
	for (const char *c = texts[t]; *c; c++)
		*c == '\n' ? sb_puts(sb, "\\n") : sb_putc(sb, *c);
	sb_printf(sb, "\", \"sequence\": %zu}", seq);
}

/* A ledger of n turns on main (a compaction every `every`, some with
 * first_kept_turn_id, one naming a turn off the thread) and a worker
 * session forked from the middle; system messages on the way; sections
 * or not. Its text (the caller frees it). */
static char *generated(size_t n, size_t every, bool sections, uint64_t seed)
{
	uint64_t rng = seed;
	size_t fork = n / 2, nalt = 6, k = 0;
	struct strbuf turns = STRBUF_INIT, msgs = STRBUF_INIT, comps = STRBUF_INIT, sb = STRBUF_INIT;
	size_t ncomp = 0;
	for (size_t i = 1; i <= n + nalt; i++) {
		bool alt = i > n;
		char tid[32], parent[32];
		snprintf(tid, sizeof tid, alt ? "a%zu" : "t%zu", alt ? i - n : i);
		if (i == 1)
			snprintf(parent, sizeof parent, "null");
		else if (alt && i == n + 1)
			snprintf(parent, sizeof parent, "\"t%zu\"", fork);
		else
			snprintf(parent, sizeof parent, alt ? "\"a%zu\"" : "\"t%zu\"", alt ? i - n - 1 : i - 1);
		bool comp = !alt && i % every == 0 && i < n;
		bool query = next(&rng) % 3 != 0;
		sb_printf(&turns, "%s{\"id\": \"%s\", \"parent_turn_id\": %s, \"turn_type\": \"%s\", \"model\": \"%s\", "
			  "\"role\": \"%s\", \"input_tokens\": %zu", i > 1 ? ",\n" : "", tid, parent,
			  comp ? "compaction" : "normal", next(&rng) % 4 ? "claude-sonnet-4" : "gpt-9-unknown",
			  alt ? "worker" : "manager", 100 + i);
		size_t first = k + 1;
		size_t seq = 0;
		if (i == 1 || next(&rng) % 9 == 0)
			message(&msgs, &k, tid, "system", seq++, &rng);
		message(&msgs, &k, tid, "user", seq++, &rng);
		if (!comp)
			for (size_t m = next(&rng) % 4; m > 0; m--)
				message(&msgs, &k, tid, m % 2 ? "assistant" : "tool", seq++, &rng);
		if (query)
			sb_printf(&turns, ", \"query_message_ids\": [\"m%zu\"]", i == 1 ? first + 1 : first);
		sb_puts(&turns, "}");
		if (comp) {
			unsigned fk = (unsigned)(next(&rng) % 4);
			char fkid[32] = "null";
			if (fk == 1 && i > 3)
				snprintf(fkid, sizeof fkid, "\"t%zu\"", i - 3);
			else if (fk == 2)
				snprintf(fkid, sizeof fkid, "\"a1\""); /* not on main's thread */
			sb_printf(&comps, "%s{\"turn_id\": \"%s\", \"summary\": \"summary of %s\", "
				  "\"summarized_through_turn_id\": \"t%zu\", \"first_kept_turn_id\": %s}",
				  ncomp++ ? ",\n" : "", tid, tid, i - 1, fkid);
		}
	}
	sb_printf(&sb, "{\"sessions\": [{\"label\": \"main\", \"thread_id\": \"t%zu\", \"status\": \"active\"},\n"
		       "{\"label\": \"alt\", \"thread_id\": \"a%zu\", \"is_subagent\": 1, \"task_description\": \"Look.\", "
		       "\"status\": \"idle\"}],\n"
		       "\"threads\": [],\n\"turns\": [%s],\n\"messages\": [%s],\n\"tool_calls\": [],\n\"compactions\": [%s],\n"
		       "\"assembly\": {\"session\": \"main\", ",
		  n, nalt, sb_str(&turns), sb_str(&msgs), sb_str(&comps));
	if (sections)
		sb_puts(&sb, "\"systemPrompt\": [{\"layer\": \"workspace\", \"name\": \"AGENTS.md\", \"text\": \"Rules.\"}, "
			     "{\"layer\": \"persona\", \"name\": \"SOUL.md\", \"text\": \"Calm.\"}], "
			     "\"nexusEnvironment\": \"## Nexus\", \"runtime\": {\"host\": \"h\", \"os\": \"linux\", \"arch\": \"x\"}, ");
	sb_puts(&sb, "\"memory\": [\"one\", \"two\"], \"event\": {\"content\": \"What next?\", \"time\": \"now\"}, "
		     "\"budget\": {\"modelLimit\": 30000}}}\n");
	assert_false(sb.failed || turns.failed || msgs.failed || comps.failed);
	char *text = strdup(sb_str(&sb));
	sb_fini(&sb);
	sb_fini(&turns);
	sb_fini(&msgs);
	sb_fini(&comps);
	return text;
}

static void set_both(struct source *a, struct source *b, const char *name, const char *value)
{
	support_set(a, name, value);
	support_set(b, name, value);
}

/* One piece's exclusion set (value 1), lifted (0), or toggled (-1), on both. */
static void exclude_both(struct source *kept, struct source *fresh, long piece, int value)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct edit e = { .type = EDIT_EXCLUDE, .piece = piece };
	e.value = value >= 0 ? value : piece_excluded(&kept->pieces[piece]) ? 0 : 1;
	struct edit f = e;
	assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
	assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
}

/* A turn of the ledger, at random: mostly one on the session's thread. */
static const char *some_turn(const struct source *src, uint64_t *rng)
{
	const struct ledger *l = src->model;
	return l->turns[next(rng) % l->nturns].id;
}

/* One random edit, applied to both; a turn that does not replay under
 * the session is set back to the head on both. */
static void random_edit(struct source *kept, struct source *fresh, uint64_t *rng)
{
	const struct ledger *l = kept->model;
	static const char *const budgets[] = { "-1", "50", "2000", "100000" };
	unsigned what = (unsigned)(next(rng) % 17);
	struct cs_error err;
	cs_error_clear(&err);
	if (what < 9) {
		exclude_both(kept, fresh, (long)(next(rng) % kept->npieces), -1);
	} else if (what == 9 && l->nsessions > 1) {
		set_both(kept, fresh, "session", l->sessions[next(rng) % l->nsessions].label);
		set_both(kept, fresh, "turn", "head");
	} else if (what == 10) {
		set_both(kept, fresh, "turn", next(rng) % 3 ? some_turn(kept, rng) : "head");
	} else if (what == 11 && l->event >= 0) {
		set_both(kept, fresh, "next", next(rng) % 2 ? "on" : "off");
	} else if (what == 12) {
		set_both(kept, fresh, "compaction-rule", next(rng) % 2 ? "first-kept" : "after-only");
	} else if (what == 13) {
		set_both(kept, fresh, "summary-role", next(rng) % 2 ? "user" : "system");
	} else if (what == 14) {
		static const double cpts[] = { 4, 3, 4.5 };
		struct edit e = { .type = EDIT_CHARS_PER_TOKEN, .value = cpts[next(rng) % 3] }, f = e;
		assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
		assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
	} else {
		struct edit e = { .type = EDIT_BUDGET, .value = atof(budgets[next(rng) % 4]) }, f = e;
		assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
		assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
	}
}

static void assert_same_text(const char *a, const char *b)
{
	if (!a || !b)
		assert_ptr_equal(a, b);
	else
		assert_string_equal(a, b);
}

/* The blocks, their text, the messages and the layers. */
static void assert_same_prompt(const struct assembly *k, const struct assembly *f)
{
	assert_int_equal(k->nblocks, f->nblocks);
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	for (size_t b = 0; b < k->nblocks; b++) {
		const struct block *p = &k->blocks[b], *q = &f->blocks[b];
		assert_int_equal(p->piece, q->piece);
		assert_same_text(p->label, q->label);
		assert_int_equal(p->message, q->message);
		assert_int_equal(p->layer[0], q->layer[0]);
		assert_int_equal(p->layer[1], q->layer[1]);
		assert_int_equal(p->flags, q->flags);
		assert_int_equal(p->nspans, q->nspans);
		assert_int_equal(p->bytes, q->bytes);
		assert_int_equal(p->code_points, q->code_points);
		assert_int_equal(p->tokens, q->tokens);
		assert_int_equal(p->budget_tokens, q->budget_tokens);
		assert_int_equal(p->keep_head, q->keep_head);
		assert_int_equal(p->keep_tail, q->keep_tail);
		assert_int_equal(p->offset_tokens, q->offset_tokens);
		for (size_t s = 0; s < p->nspans; s++) {
			const struct span *u = &k->spans[p->first_span + s], *v = &f->spans[q->first_span + s];
			assert_int_equal(u->len, v->len);
			assert_memory_equal(u->ptr, v->ptr, u->len);
		}
		sb_reset(&x);
		sb_reset(&y);
		assert_true(asm_block_text(k, b, &x) && asm_block_text(f, b, &y));
		assert_string_equal(sb_str(&x), sb_str(&y));
	}
	sb_fini(&x);
	sb_fini(&y);
	assert_int_equal(k->nmessages, f->nmessages);
	for (size_t m = 0; m < k->nmessages; m++) {
		assert_string_equal(k->messages[m].role, f->messages[m].role);
		assert_int_equal(k->messages[m].first_block, f->messages[m].first_block);
		assert_int_equal(k->messages[m].nblocks, f->messages[m].nblocks);
	}
	assert_int_equal(k->ngroupings, f->ngroupings);
	for (size_t g = 0; g < k->ngroupings; g++) {
		assert_int_equal(k->groupings[g].nlayers, f->groupings[g].nlayers);
		for (size_t i = 0; i < k->groupings[g].nlayers; i++) {
			const struct layer *p = &k->groupings[g].layers[i], *q = &f->groupings[g].layers[i];
			assert_string_equal(p->name, q->name);
			assert_int_equal(p->tokens, q->tokens);
			assert_int_equal(p->budget_tokens, q->budget_tokens);
			assert_int_equal(p->nblocks, q->nblocks);
		}
	}
}

/* The kept build (lazy) is the fresh one (eager), everything. */
static void assert_same(const struct source *src, const struct assembly *k, const struct assembly *f)
{
	assert_same_prompt(k, f);
	assert_int_equal(k->total_tokens, f->total_tokens);
	assert_int_equal(k->total_bytes, f->total_bytes);
	assert_memory_equal(&k->budget, &f->budget, sizeof k->budget);
	assert_int_equal(k->flags, f->flags);
	assert_same_text(k->state, f->state);
	assert_int_equal(k->over_by, f->over_by);
	assert_int_equal(k->excluded, f->excluded);
	assert_int_equal(k->recorded.input, f->recorded.input);
	assert_int_equal(k->recorded.read, f->recorded.read);
	assert_int_equal(k->recorded.written, f->recorded.written);
	assert_same_text(k->recorded.what, f->recorded.what);
	assert_int_equal(k->nfacts, f->nfacts);
	for (size_t i = 0; i < k->nfacts; i++) {
		assert_string_equal(k->facts[i].key, f->facts[i].key);
		assert_string_equal(k->facts[i].value, f->facts[i].value);
	}
	assert_int_equal(k->nwarnings, f->nwarnings);
	for (size_t i = 0; i < k->nwarnings; i++) {
		assert_string_equal(k->warnings[i].text, f->warnings[i].text);
		assert_int_equal(k->warnings[i].piece, f->warnings[i].piece);
	}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece_result *p = &k->results[i], *q = &f->results[i];
		assert_int_equal(p->outcome, q->outcome);
		assert_int_equal(p->reason, q->reason);
		assert_int_equal(p->tokens, q->tokens);
		assert_int_equal(p->original_tokens, q->original_tokens);
		assert_int_equal(p->block, q->block);
		assert_int_equal(p->why[0], q->why[0]);
		assert_int_equal(p->why[1], q->why[1]);
		assert_true(p->score == q->score || (p->score != p->score && q->score != q->score));
		assert_same_text(asm_sentence(k, (long)i, &sb), q->sentence);
	}
	sb_fini(&sb);
	assert_int_equal(k->nnot_whole, f->nnot_whole);
	for (size_t j = 0; j < k->nnot_whole; j++)
		assert_int_equal(k->not_whole[j], f->not_whole[j]);
}

/* What the fresh twin's model kept from its last build, gone. */
static void forget(struct source *src)
{
	struct ledger *l = src->model;
	ledger_thread_free(l->cache.thread);
	l->cache.thread = NULL;
}

/* The kept source re-assembled as the inspector does: the previous
 * assembly *a offered (its results taken over), then replaced. Returns the
 * status; on failure *a is as it was. Counts the builds that kept results.
 * fail_from: the allocation the build runs out of memory at (0: none). */
static int rebuild_kept_failing(struct source *kept, struct assembly *a, struct cs_error *err, size_t *reused,
				long fail_from)
{
	struct piece_result *was = support_copy_results(a);
	struct assembly now;
	cs_alloc_fail_from(fail_from);
	int rc = assemble_lazy_from(kept, &now, a, err);
	cs_alloc_fail_from(0);
	if (rc == CS_OK) {
		assert_true(!now.reused || now.changes_valid); /* results taken over: the list of what changed */
		support_assert_changes(kept, &now, was);
		*reused += now.reused;
		asm_fini(a);
		*a = now;
	} else {
		assert_non_null(a->results); /* given back */
		assert_memory_equal(a->results, was, kept->npieces * sizeof *was);
	}
	free(was);
	return rc;
}

static int rebuild_kept(struct source *kept, struct assembly *a, struct cs_error *err, size_t *reused)
{
	return rebuild_kept_failing(kept, a, err, reused, 0);
}

/* The fresh twin built from nothing (its kept thread forgotten, every
 * sentence written) is the kept build a. */
static void assert_as_fresh(const struct source *kept, struct source *fresh, const struct assembly *a)
{
	struct assembly b;
	forget(fresh);
	support_assemble(fresh, &b);
	assert_same(kept, a, &b);
	asm_fini(&b);
}

/* Two loads of a generated ledger's text (freed). */
static void load_twins(char *text, struct source **kept, struct source **fresh)
{
	*kept = support_load_text("gen.json", text);
	*fresh = support_load_text("gen.json", text);
	free(text);
}

/* steps random edits on two loads of one ledger (freed). */
static void series(struct source *kept, struct source *fresh, uint64_t rng, int steps)
{
	struct assembly a, b;
	struct cs_error err;
	cs_error_clear(&err);
	size_t reused = 0;
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	for (int step = 0; step < steps; step++) {
		random_edit(kept, fresh, &rng);
		cs_error_clear(&err);
		int rc = rebuild_kept(kept, &a, &err, &reused);
		forget(fresh);
		struct cs_error ferr;
		cs_error_clear(&ferr);
		int frc = assemble(fresh, &b, &ferr);
		assert_int_equal(rc, frc);
		if (rc != CS_OK) { /* a turn off the session's thread: both refuse, alike */
			assert_string_equal(err.message, ferr.message);
			set_both(kept, fresh, "turn", "head");
			assert_int_equal(rebuild_kept(kept, &a, &err, &reused), CS_OK);
			continue;
		}
		assert_same(kept, &a, &b);
		if (step % 7 == 6) { /* as before a report from the inspector: every sentence written */
			assert_true(asm_write_sentences(&a));
			for (size_t i = 0; i < kept->npieces; i++)
				assert_same_text(a.results[i].sentence, b.results[i].sentence);
		}
		asm_fini(&b);
	}
	assert_true(reused >= (size_t)steps / 3); /* most edits are exclusions: their builds keep results */
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

static void test_generated_ledgers(void **state)
{
	(void)state;
	for (int v = 0; v < 4; v++) {
		char *text = generated(v < 2 ? 60 : 400, v % 2 ? 7 : 50, v % 2 == 0, 100 + (uint64_t)v);
		series(support_load_text("gen.json", text), support_load_text("gen.json", text), 7 + (uint64_t)v,
		       v < 2 ? 300 : 120);
		free(text);
	}
}

static void test_samples(void **state)
{
	(void)state;
	static const char *const samples[] = { "samples/ledger/backup-incident.json",
					       "samples/ledger/release-notes-worker.json",
					       "samples/ledger/sqla-fork.json", "tests/ledger/memory-over.json" };
	for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++)
		series(support_load(samples[i], NULL), support_load(samples[i], NULL), 3 + (uint64_t)i, 200);
}

/* A build whose only deferred sentences are those of the summarized runs
 * it kept (nothing else dropped): writing the sentences before a report
 * must still write theirs. */
static void test_sentences_of_kept_runs(void **state)
{
	(void)state;
	static const char text[] =
		"{\"sessions\": [{\"label\": \"main\", \"thread_id\": \"t6\", \"status\": \"active\"}],\n"
		"\"threads\": [], \"tool_calls\": [],\n"
		"\"turns\": [{\"id\": \"t1\", \"parent_turn_id\": null}, {\"id\": \"t2\", \"parent_turn_id\": \"t1\"},\n"
		" {\"id\": \"t3\", \"parent_turn_id\": \"t2\"},\n"
		" {\"id\": \"t4\", \"parent_turn_id\": \"t3\", \"turn_type\": \"compaction\"},\n"
		" {\"id\": \"t5\", \"parent_turn_id\": \"t4\"}, {\"id\": \"t6\", \"parent_turn_id\": \"t5\"}],\n"
		"\"messages\": [{\"id\": \"m1\", \"turn_id\": \"t1\", \"role\": \"user\", \"content\": \"one\"},\n"
		" {\"id\": \"m2\", \"turn_id\": \"t2\", \"role\": \"user\", \"content\": \"two\"},\n"
		" {\"id\": \"m3\", \"turn_id\": \"t3\", \"role\": \"assistant\", \"content\": \"three\"},\n"
		" {\"id\": \"m5\", \"turn_id\": \"t5\", \"role\": \"user\", \"content\": \"five\"},\n"
		" {\"id\": \"m6\", \"turn_id\": \"t6\", \"role\": \"assistant\", \"content\": \"six\"}],\n"
		"\"compactions\": [{\"turn_id\": \"t4\", \"summary\": \"S\"}],\n"
		"\"assembly\": {\"systemPrompt\": [{\"layer\": \"workspace\", \"name\": \"A\", \"text\": \"Rules.\"}],\n"
		" \"event\": {\"content\": \"Next?\", \"time\": \"now\"}}}\n";
	struct source *kept = support_load_text("runs.json", text), *fresh = support_load_text("runs.json", text);
	set_both(kept, fresh, "next", "on");
	struct assembly a, b;
	struct cs_error err;
	cs_error_clear(&err);
	size_t reused = 0;
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	long m5 = support_piece(kept, "m5");
	for (int value = 1; value >= 0; value--) { /* m5 out, then back in: nothing dropped but the runs */
		exclude_both(kept, fresh, m5, value);
		assert_int_equal(rebuild_kept(kept, &a, &err, &reused), CS_OK);
	}
	assert_int_equal(reused, 2);
	assert_int_equal(a.nnot_whole, 3); /* m1..m3, summarized */
	assert_true(asm_write_sentences(&a));
	support_assemble(fresh, &b);
	assert_same(kept, &a, &b);
	for (size_t i = 0; i < kept->npieces; i++)
		assert_same_text(a.results[i].sentence, b.results[i].sentence);
	asm_fini(&a);
	asm_fini(&b);
	source_free(kept);
	source_free(fresh);
}

/* As the inspector opens a ledger (the current assembly, then the
 * baseline, one after the other), every exclusion that follows keeps the
 * summarized runs of the one before: the first one too. */
static void test_runs_kept_beside_a_baseline(void **state)
{
	(void)state;
	struct source *kept, *fresh;
	load_twins(generated(60, 7, false, 3), &kept, &fresh);
	uint64_t rng = 21;
	size_t reused = 0;
	struct assembly a, base;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	assert_int_equal(assemble_lazy(kept, &base, &err), CS_OK);
	for (size_t step = 1; step <= 20; step++) {
		exclude_both(kept, fresh, (long)(next(&rng) % kept->npieces), -1);
		assert_int_equal(rebuild_kept(kept, &a, &err, &reused), CS_OK);
		assert_int_equal(reused, step); /* kept (a build that declines writes every result: not reused) */
		assert_as_fresh(kept, fresh, &a);
	}
	asm_fini(&base);
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

/* Out of memory at every allocation of a build that would keep results:
 * it fails cleanly (the previous assembly gets every result back as it
 * was) or succeeds, and the next build is still a build from nothing. */
static void test_kept_out_of_memory(void **state)
{
	(void)state;
	struct source *kept, *fresh;
	load_twins(generated(40, 6, true, 77), &kept, &fresh);
	uint64_t rng = 5;
	size_t reused = 0;
	struct assembly a;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(assemble_lazy(kept, &a, &err), CS_OK);
	for (long nth = 1; nth < 60; nth++) {
		exclude_both(kept, fresh, (long)(next(&rng) % kept->npieces), -1);
		int rc = rebuild_kept_failing(kept, &a, &err, &reused, nth);
		if (rc != CS_OK) {
			assert_int_equal(rc, CS_ENOMEM);
			assert_int_equal(rebuild_kept(kept, &a, &err, &reused), CS_OK);
		}
		assert_as_fresh(kept, fresh, &a);
	}
	asm_fini(&a);
	source_free(kept);
	source_free(fresh);
}

/* The timeline replays each turn bare (what stays out not recorded): each
 * row's estimate is the prompt a full build of that turn gives. */
static void test_timeline_replays_are_full_builds(void **state)
{
	(void)state;
	struct source *src, *full;
	load_twins(generated(90, 8, true, 31), &src, &full);
	struct assembly a, b;
	support_assemble(src, &a); /* the thread kept, as in a report */
	struct ledger_turn_usage *rows;
	size_t n;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(ledger_timeline(src, &rows, &n, &err), CS_OK);
	assert_true(n > 40);
	const struct ledger *l = src->model;
	for (size_t i = 0; i < n; i++) {
		support_set(full, "turn", l->turns[rows[i].turn].id);
		support_assemble(full, &b);
		assert_int_equal(rows[i].estimated, b.total_tokens);
		asm_fini(&b);
	}
	cs_free(rows);
	asm_fini(&a);
	source_free(src);
	source_free(full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_ledgers),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_sentences_of_kept_runs),
		cmocka_unit_test(test_kept_out_of_memory),
		cmocka_unit_test(test_runs_kept_beside_a_baseline),
		cmocka_unit_test(test_timeline_replays_are_full_builds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
