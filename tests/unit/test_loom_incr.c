/* test_loom_incr.c: the loom assembler's kept state against a build from
 * nothing. One source takes a long series of random edits (exclusions,
 * some put back as the input says, strategies, budgets, loom-aware
 * rendering, replays) and is re-assembled as the inspector does (lazily:
 * the user's exclusions read from the mirror kept in step through the edit
 * log, the prep made once); a twin takes the same edits and forgets its
 * prep before each build, made eagerly. Every block, span, message,
 * result, sentence, fact and breakpoint must be the same after every
 * build, over the samples and generated trees. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "cache/cache.h"
#include "edit.h"
#include "kinds/loom/loom.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"
#include "vm/viewmodel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* A text for node i: sometimes empty or only white space (filtered), else
 * a few words of a length that varies. */
static void node_text(struct strbuf *sb, size_t i, uint64_t *rng)
{
	unsigned roll = (unsigned)(next(rng) % 100);
	if (roll < 3)
		return;
	if (roll < 5) {
		sb_puts(sb, "  \\n\\t ");
		return;
	}
	sb_printf(sb, "node %zu says", i);
	for (unsigned w = 0, n = (unsigned)(next(rng) % 40); w < n; w++)
		sb_printf(sb, " w%u", (unsigned)(next(rng) % 1000));
	if (roll > 95)
		sb_puts(sb, " caf\xC3\xA9 \xE2\x86\x92 done"); /* code points apart from bytes */
}

/* A loom tree whose path is n nodes (runs of one author, so that merges
 * form and break as nodes go out), some excluded, pruned, reached through
 * annotation edges or empty, edges with context and instruction sources,
 * a few branches off the path; buffer mode or dialogue; loom-aware data. */
static char *tree(size_t n, uint64_t seed, bool buffer)
{
	uint64_t rng = seed;
	struct strbuf sb = STRBUF_INIT;
	sb_printf(&sb, "{\"loomTree\":{\"id\":\"T%llu\",\"title\":\"generated\",\"mode\":\"%s\",\"rootNodeId\":\"n0\","
		  "\"systemContext\":\"Be brief.\",\"bufferModeSystemContext\":%s,\"permissions\":[\"read\"]},",
		  (unsigned long long)seed, buffer ? "buffer" : "dialogue", next(&rng) % 2 ? "true" : "false");
	sb_puts(&sb, "\"agents\":[{\"id\":\"a-m\",\"name\":\"M\",\"type\":\"model\",\"modelRef\":\"anthropic:claude-sonnet-4\","
		     "\"configuration\":{\"systemPrompt\":\"Answer in English.\"}},{\"id\":\"a-h\",\"name\":\"H\",\"type\":\"human\"}],"
		     "\"nodes\":[");
	bool model = false;
	for (size_t i = 0; i < n; i++) {
		if (next(&rng) % 100 < 55)
			model = !model;
		unsigned roll = (unsigned)(next(&rng) % 100);
		sb_printf(&sb, "%s{\"id\":\"n%zu\",\"authorType\":\"%s\",\"content\":{\"type\":\"text\",\"text\":\"", i ? "," : "",
			  i, model ? "model" : "human");
		node_text(&sb, i, &rng);
		sb_printf(&sb, "\"},\"metadata\":{\"excluded\":%s,\"pruned\":%s,\"bookmarked\":%s,\"includeAnnotation\":%s},"
			  "\"createdAt\":\"2026-01-30T10:%02zu:%02zuZ\"}",
			  roll < 6 ? "true" : "false", roll >= 6 && roll < 9 ? "true" : "false", roll % 7 == 0 ? "true" : "false",
			  roll % 11 == 0 ? "true" : "false", i / 60 % 60, i % 60);
		if (i % 9 == 4) /* a context and an instruction source for the edge into node i */
			sb_printf(&sb, ",{\"id\":\"c%zu\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"ctx %zu\"}},"
				  "{\"id\":\"i%zu\",\"authorType\":\"human\",\"content\":{\"type\":\"text\",\"text\":\"%s\"},"
				  "\"metadata\":{\"excluded\":%s}}",
				  i, i, i, i % 2 ? "do it" : " ", i % 5 == 0 ? "true" : "false");
		if (i % 13 == 7) /* a branch off the path */
			sb_printf(&sb, ",{\"id\":\"b%zu\",\"authorType\":\"model\",\"content\":{\"type\":\"text\",\"text\":\"other\"}}", i);
	}
	sb_puts(&sb, "],\"edges\":[");
	bool first = true;
	for (size_t i = 1; i < n; i++) {
		bool annotation = next(&rng) % 100 < 4;
		sb_printf(&sb, "%s{\"id\":\"e%zu\",\"edgeType\":\"%s\",\"targetNodeId\":\"n%zu\",\"sources\":[{\"nodeId\":\"n%zu\","
			  "\"role\":\"primary\"}", first ? "" : ",", i, annotation ? "annotation" : "continuation", i, i - 1);
		first = false;
		if (i % 9 == 4)
			sb_printf(&sb, ",{\"nodeId\":\"c%zu\",\"role\":\"context\"},{\"nodeId\":\"i%zu\",\"role\":\"instruction\"}", i, i);
		sb_puts(&sb, "]}");
		if (i % 13 == 7)
			sb_printf(&sb, ",{\"id\":\"eb%zu\",\"edgeType\":\"continuation\",\"targetNodeId\":\"b%zu\",\"sources\":"
				  "[{\"nodeId\":\"n%zu\",\"role\":\"primary\"}]}", i, i, i - 1);
	}
	sb_printf(&sb, "],\"path\":{\"activeNodeId\":\"n%zu\",\"agentId\":\"a-m\"},\"workingBuffer\":\"%s\","
		  "\"preferences\":{\"truncationStrategy\":\"truncateMiddle\",\"minimumRecentNodes\":3,\"tokenBuffer\":100},"
		  "\"model\":{\"ref\":\"anthropic:claude-sonnet-4\",\"contextLimit\":%zu},"
		  "\"loomAware\":{\"systemAddendum\":\"You can branch.\",\"operationalMemory\":{\"pinned\":"
		  "[{\"label\":\"goal\",\"text\":\"ship it\"},{\"label\":\"risk\",\"text\":\"\"}],\"recentActions\":[\"pruned n3\"],"
		  "\"stashes\":[\"s1\"]}}}",
		  n - 1, buffer ? "and then " : "", 100 + n * 12);
	assert_false(sb.failed);
	char *text = strdup(sb_str(&sb));
	sb_fini(&sb);
	return text;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void assert_same_blocks(const struct assembly *k, const struct assembly *f)
{
	assert_int_equal(k->nblocks, f->nblocks);
	assert_int_equal(k->nspans, f->nspans);
	for (size_t b = 0; b < k->nblocks; b++) {
		const struct block *x = &k->blocks[b], *y = &f->blocks[b];
		assert_int_equal(x->piece, y->piece);
		assert_true(same_str(x->label, y->label));
		assert_int_equal(x->message, y->message);
		assert_int_equal(x->layer[0], y->layer[0]);
		assert_int_equal(x->layer[1], y->layer[1]);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->first_span, y->first_span);
		assert_int_equal(x->nspans, y->nspans);
		assert_int_equal(x->bytes, y->bytes);
		assert_int_equal(x->code_points, y->code_points);
		assert_int_equal(x->tokens, y->tokens);
		assert_int_equal(x->budget_tokens, y->budget_tokens);
		assert_int_equal(x->keep_head, y->keep_head);
		assert_int_equal(x->keep_tail, y->keep_tail);
		assert_int_equal(x->offset_tokens, y->offset_tokens);
	}
	for (size_t s = 0; s < k->nspans; s++) {
		assert_int_equal(k->spans[s].len, f->spans[s].len);
		assert_memory_equal(k->spans[s].ptr, f->spans[s].ptr, k->spans[s].len);
	}
	assert_int_equal(k->nmessages, f->nmessages);
	for (size_t m = 0; m < k->nmessages; m++) {
		assert_true(same_str(k->messages[m].role, f->messages[m].role));
		assert_int_equal(k->messages[m].first_block, f->messages[m].first_block);
		assert_int_equal(k->messages[m].nblocks, f->messages[m].nblocks);
	}
}

/* Where the cache breakpoints fall, under each built-in profile. */
static void assert_same_breakpoints(const struct assembly *k, const struct assembly *f)
{
	size_t np;
	const struct cache_profile *profiles = cache_builtin_profiles(&np);
	for (size_t p = 0; p < np; p++) {
		struct cache_breakpoint *x, *y;
		size_t nx, ny;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(cache_breakpoints(k, NULL, &profiles[p], &x, &nx, &err), CS_OK);
		assert_int_equal(cache_breakpoints(f, NULL, &profiles[p], &y, &ny, &err), CS_OK);
		assert_int_equal(nx, ny);
		for (size_t i = 0; i < nx; i++) {
			assert_int_equal(x[i].block, y[i].block);
			assert_int_equal(x[i].end_tokens, y[i].end_tokens);
			assert_int_equal(x[i].can_cache, y[i].can_cache);
		}
		cs_free(x);
		cs_free(y);
	}
}

/* The kept build (lazy) is the one from nothing (eager), all of it. */
static void assert_same(const struct source *src, const struct assembly *k, const struct assembly *f)
{
	assert_same_blocks(k, f);
	assert_same_breakpoints(k, f);
	assert_int_equal(k->flags, f->flags);
	assert_true(same_str(k->state, f->state));
	assert_int_equal(k->over_by, f->over_by);
	assert_int_equal(k->budget.used, f->budget.used);
	assert_int_equal(k->budget.usable, f->budget.usable);
	assert_int_equal(k->total_tokens, f->total_tokens);
	assert_int_equal(k->total_bytes, f->total_bytes);
	assert_int_equal(k->nfacts, f->nfacts);
	for (size_t i = 0; i < k->nfacts; i++)
		assert_string_equal(k->facts[i].value, f->facts[i].value);
	for (size_t g = 0; g < k->ngroupings; g++)
		for (size_t l = 0; l < k->groupings[g].nlayers; l++) {
			assert_int_equal(k->groupings[g].layers[l].tokens, f->groupings[g].layers[l].tokens);
			assert_int_equal(k->groupings[g].layers[l].nblocks, f->groupings[g].layers[l].nblocks);
		}
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < src->npieces; i++) {
		const struct piece_result *x = &k->results[i], *y = &f->results[i];
		assert_int_equal(x->outcome, y->outcome);
		assert_int_equal(x->reason, y->reason);
		assert_int_equal(x->tokens, y->tokens);
		assert_int_equal(x->original_tokens, y->original_tokens);
		assert_int_equal(x->block, y->block);
		assert_int_equal(x->why[0], y->why[0]);
		assert_int_equal(x->why[1], y->why[1]);
		assert_true(isnan(x->score) && isnan(y->score)); /* every result written: the kind scores none */
		assert_int_equal(x->original_tokens, src->pieces[i].tokens);
		assert_true(x->block < (long)k->nblocks && (x->block >= 0) == (x->outcome != OUTCOME_DROPPED));
		const char *said = asm_sentence(k, (long)i, &sb);
		assert_true(same_str(said, y->sentence));
	}
	assert_int_equal(k->nnot_whole, f->nnot_whole);
	for (size_t j = 0; j < k->nnot_whole; j++)
		assert_int_equal(k->not_whole[j], f->not_whole[j]);
	sb_fini(&sb);
}

static void assert_same_bps(const struct cache_breakpoint *x, size_t nx, const struct cache_breakpoint *y, size_t ny)
{
	assert_int_equal(nx, ny);
	for (size_t i = 0; i < nx; i++) {
		assert_int_equal(x[i].block, y[i].block);
		assert_int_equal(x[i].end_tokens, y[i].end_tokens);
		assert_int_equal(x[i].in_limit, y[i].in_limit);
		assert_int_equal(x[i].over_min, y[i].over_min);
		assert_int_equal(x[i].gap_blocks, y[i].gap_blocks);
		assert_int_equal(x[i].can_cache, y[i].can_cache);
		assert_int_equal(x[i].user, y[i].user);
	}
}

static void assert_same_cost(const struct cache_cost *x, const struct cache_cost *y)
{
	assert_memory_equal(x, y, sizeof *x);
}

/* The inspector's analysis (cache_analyze_again over the one before, the
 * baseline's breakpoints kept) against one from nothing. */
static void assert_same_analysis(const struct assembly *base, const struct assembly *now,
				 const struct cache_profile *p, struct cache_analysis *again)
{
	struct cache_analysis fresh;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(cache_analyze_again(base, NULL, now, NULL, p, NULL, again, &err), CS_OK);
	assert_int_equal(cache_analyze_measured(base, NULL, now, NULL, p, NULL, &fresh, &err), CS_OK);
	assert_same_bps(again->bps, again->nbps, fresh.bps, fresh.nbps);
	assert_same_bps(again->base_bps, again->nbase_bps, fresh.base_bps, fresh.nbase_bps);
	assert_memory_equal(&again->div, &fresh.div, sizeof fresh.div);
	assert_same_cost(&again->now, &fresh.now);
	assert_same_cost(&again->steady, &fresh.steady);
	assert_true(again->delta == fresh.delta);
	cache_analysis_fini(&fresh);
}

static void exclude_both(struct source *kept, struct source *fresh, long piece, double value)
{
	struct edit e = { .type = EDIT_EXCLUDE, .piece = piece, .value = value }, f = e;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(edit_apply(kept, &e, &err), CS_OK);
	assert_int_equal(edit_apply(fresh, &f, &err), CS_OK);
}

static void set_both(struct source *kept, struct source *fresh, const char *name, const char *value)
{
	support_set(kept, name, value);
	support_set(fresh, name, value);
}

/* One random edit, applied to both: mostly exclusions (included again,
 * or back to what the input says), now and then a setting. */
static void random_edit(struct source *kept, struct source *fresh, uint64_t *rng)
{
	static const char *const strategies[] = { "truncateMiddle", "rollingWindow", "stopAtLimit" };
	unsigned what = (unsigned)(next(rng) % 40);
	if (what < 30) {
		long piece = (long)(next(rng) % kept->npieces);
		double value = what < 3 ? -1 : piece_excluded(&kept->pieces[piece]) ? 0 : 1;
		exclude_both(kept, fresh, piece, value);
	} else if (what < 33) {
		set_both(kept, fresh, "strategy", strategies[next(rng) % 3]);
	} else if (what < 35) {
		char budget[32];
		snprintf(budget, sizeof budget, "%llu", (unsigned long long)(50 + next(rng) % 3000));
		set_both(kept, fresh, "budget", budget);
	} else if (what < 37) {
		set_both(kept, fresh, "loom-aware", next(rng) % 2 ? "on" : "off");
	} else if (what < 39) {
		size_t steps = loom_model_node(kept, SIZE_MAX, NULL, NULL);
		char n[32];
		snprintf(n, sizeof n, "%llu", (unsigned long long)(1 + next(rng) % (steps + 1)));
		set_both(kept, fresh, "replay", next(rng) % 3 && steps ? n : "next");
	} else if (next(rng) % 2) {
		set_both(kept, fresh, "min-recent", next(rng) % 2 ? "0" : "5");
	} else {
		set_both(kept, fresh, "chars-per-token", next(rng) % 2 ? "4" : "2.5");
	}
}

/* The twin built from nothing: its prep (lists, token counts, the user's
 * exclusions) forgotten, every sentence written. */
static void build_fresh(struct source *fresh, struct assembly *f)
{
	struct loom *m = fresh->model;
	loom_prep_free(m->cache.prep);
	m->cache.prep = NULL;
	support_assemble(fresh, f);
}

/* steps builds of one input loaded twice (kept, fresh; both freed here),
 * each after one to three random edits (or twenty exclusions, past the
 * edit log's reach), the kept source assembled now and then eagerly too (a
 * report: the next lazy build reads every piece). */
static void series(struct source *kept, struct source *fresh, uint64_t rng, int steps)
{
	assert_int_equal(kept->npieces, fresh->npieces);
	struct cs_error err;
	cs_error_clear(&err);
	size_t differ = 0, np;
	const struct cache_profile *profiles = cache_builtin_profiles(&np);
	struct assembly prev, base;
	struct cache_analysis again;
	memset(&again, 0, sizeof again);
	memset(&prev, 0, sizeof prev);
	assert_int_equal(assemble_lazy(kept, &base, &err), CS_OK);
	size_t profile = 0;
	for (int step = 0; step < steps; step++) {
		unsigned what = (unsigned)(next(&rng) % 25);
		unsigned edits = what == 0 ? 20 : 1 + what % 3;
		for (unsigned t = 0; t < edits; t++) {
			if (what == 0)
				exclude_both(kept, fresh, (long)(next(&rng) % kept->npieces), 1);
			else
				random_edit(kept, fresh, &rng);
		}
		struct assembly k, f;
		if (what == 1) { /* an eager build between lazy ones */
			support_assemble(kept, &k);
			asm_fini(&k);
		}
		assert_int_equal(assemble_lazy(kept, &k, &err), CS_OK);
		build_fresh(fresh, &f);
		assert_same(kept, &k, &f);
		if (what == 2) /* another profile for the cache */
			profile = (profile + 1) % np;
		assert_same_analysis(&base, &k, &profiles[profile], &again);
		if (what == 3) { /* the baseline pinned again (a new assembly) */
			asm_fini(&base);
			assert_int_equal(assemble_lazy(kept, &base, &err), CS_OK);
		}
		differ += step && (prev.nblocks != k.nblocks || prev.total_tokens != k.total_tokens);
		asm_fini(&prev);
		prev = k;
		asm_fini(&f);
	}
	asm_fini(&prev);
	asm_fini(&base);
	cache_analysis_fini(&again);
	assert_true(differ > (size_t)steps / 3); /* the edits changed the prompt */
	source_free(kept);
	source_free(fresh);
}

static void test_generated_trees(void **state)
{
	(void)state;
	const struct {
		size_t nodes;
		bool buffer;
		uint64_t seed;
		int steps;
	} trees[] = { { 40, false, 1, 250 }, { 300, false, 2, 200 }, { 120, true, 3, 200 }, { 2000, false, 4, 60 } };
	for (size_t t = 0; t < sizeof trees / sizeof trees[0]; t++) {
		char *text = tree(trees[t].nodes, trees[t].seed, trees[t].buffer);
		series(support_load_text("tree.json", text), support_load_text("tree.json", text), trees[t].seed * 7 + 1,
		       trees[t].steps);
		free(text);
	}
}

static void test_samples(void **state)
{
	(void)state;
	const char *const samples[] = { "samples/loom/long-session.json", "samples/loom/parser-debug.json",
					"samples/loom/postmortem-buffer.json" };
	for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++)
		series(support_load(samples[s], NULL), support_load(samples[s], NULL), 40 + s, 120);
}

/* A report's build (eager) reads the pieces themselves: a piece set
 * without an edit (as a test or a replay's copy does) shows at once, and
 * the next lazy build does not take the mirror for current. */
static void test_eager_reads_the_pieces(void **state)
{
	(void)state;
	char *text = tree(30, 9, false);
	struct source *src = support_load_text("tree.json", text), *twin = support_load_text("tree.json", text);
	free(text);
	struct assembly a, b;
	struct cs_error err;
	cs_error_clear(&err);
	long piece = support_piece(src, "n5"), other = support_piece(src, "n8");
	assert_int_equal(assemble_lazy(src, &a, &err), CS_OK);
	asm_fini(&a);
	src->pieces[piece].user_excluded = 1; /* no edit, no log */
	twin->pieces[piece].user_excluded = 1;
	support_assemble(src, &a);
	assert_int_equal(a.results[piece].reason, REASON_EXCLUDED_BY_USER);
	asm_fini(&a);
	src->pieces[other].user_excluded = 1; /* after an eager build, again without an edit */
	twin->pieces[other].user_excluded = 1;
	assert_int_equal(assemble_lazy(src, &a, &err), CS_OK);
	assert_int_equal(a.results[other].reason, REASON_EXCLUDED_BY_USER);
	build_fresh(twin, &b);
	assert_same(src, &a, &b);
	asm_fini(&a);
	asm_fini(&b);
	source_free(src);
	source_free(twin);
}

/* The view-model's per-layer cache figures (vm_summarize walks only the
 * blocks the cache reads) against every block counted, after edits that
 * move the read prefix and baselines pinned at other states. */
static void assert_summary(const struct vm *vm)
{
	const struct assembly *a = &vm->session.cur;
	long max = 0;
	for (size_t b = 0; b < a->nblocks; b++)
		max = a->blocks[b].budget_tokens > max ? a->blocks[b].budget_tokens : max;
	assert_int_equal(vm->max_block_tokens, max);
	for (size_t g = 0; g < a->ngroupings; g++)
		for (size_t l = 0; l < a->groupings[g].nlayers; l++) {
			size_t blocks = 0, cached = 0;
			long tokens = 0;
			for (size_t b = 0; b < a->nblocks; b++) {
				if (a->blocks[b].layer[g] != (int)l)
					continue;
				blocks++;
				cached += (long)b <= vm->cache.cached_block;
				long off = vm->cache.exact_off ? vm->cache.exact_off[b] : a->blocks[b].offset_tokens;
				long count = vm->cache.exact_off ? vm->exact.live.block_tokens[b] : a->blocks[b].tokens;
				long in = vm->cache.an.now.read - off;
				if (in > 0 && count > 0)
					tokens += in >= count ? a->blocks[b].budget_tokens
							      : (long)((double)a->blocks[b].budget_tokens * (double)in / (double)count);
			}
			const struct vm_layer_info *li = &vm->cache.layers[g][l];
			assert_int_equal(li->blocks, blocks);
			assert_int_equal(li->cached_blocks, cached);
			assert_int_equal(li->cached_tokens, tokens);
		}
}

static void test_summary_from_the_read_prefix(void **state)
{
	(void)state;
	const char *const inputs[] = { "samples/loom/long-session.json", "samples/loom/parser-debug.json",
				       "samples/memory/coding-session.json" };
	char *text = tree(400, 12, false);
	size_t read = 0;
	for (size_t s = 0; s <= sizeof inputs / sizeof inputs[0]; s++) {
		struct vm vm;
		struct cs_error err;
		cs_error_clear(&err);
		struct source *src = s < 3 ? support_load(inputs[s], NULL) : support_load_text("tree.json", text);
		assert_int_equal(vm_init(&vm, src, &err), CS_OK);
		assert_int_equal(vm_cache_setup(&vm, NULL, "openai", &err), CS_OK); /* a prefix read */
		uint64_t rng = 5 + s;
		for (int step = 0; step < 80; step++) {
			unsigned what = (unsigned)(next(&rng) % 10);
			if (what == 0)
				assert_int_equal(vm_pin_baseline(&vm, &err), CS_OK);
			if (what == 2)
				assert_int_equal(vm_cycle_profile(&vm, &err), CS_OK);
			struct edit e = { .type = EDIT_EXCLUDE, .piece = (long)(next(&rng) % vm.session.src->npieces) };
			e.value = piece_excluded(&vm.session.src->pieces[e.piece]) ? 0 : 1;
			if (what == 1 && vm.session.src->kind->global_strategies)
				e = (struct edit){ .type = EDIT_STRATEGY, .piece = -1,
						   .value = vm.session.src->kind->global_strategies[next(&rng) % 3] };
			assert_int_equal(vm_apply(&vm, &e, &err), CS_OK);
			assert_summary(&vm);
			read += vm.cache.an.now.read > 0 && vm.cache.cached_block + 1 < (long)vm.session.cur.nblocks;
		}
		vm_fini(&vm);
	}
	assert_true(read > 40); /* a read prefix short of the whole prompt, often */
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_trees),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_eager_reads_the_pieces),
		cmocka_unit_test(test_summary_from_the_read_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
