/* test_cache.c: the cache analysis: where two prompts first differ, the
 * granularity and minimum of prefix caches, explicit breakpoints (limit,
 * lookback, user overrides), the cost arithmetic against hand-computed
 * figures, every lint firing and not firing, and the user file. Assemblies
 * are built by hand (one block per piece, 4 characters a token) so every
 * figure below can be checked with a pencil. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "assembly.h"
#include "cache/cache.h"
#include "cache/section.h"
#include "cli.h"
#include "emit.h"
#include "config.h"
#include "kind.h"
#include "report.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct kind_ops manifest_kind;

/* One block: its piece's id, role (messages; NULL for a document), text,
 * and whether a breakpoint follows it. */
struct spec {
	const char *id;
	const char *role;
	const char *text;
	bool bp;
	double priority;
};

/* n copies of c (static ring of buffers, enough for one spec table). */
static const char *rep(char c, size_t n)
{
	static char *ring[64];
	static int next;
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	free(ring[next]);
	ring[next] = s;
	next = (next + 1) % 64;
	return s;
}

static struct source *make_src(const struct spec *s, size_t n)
{
	struct source *src = source_new(&manifest_kind, "test.yml");
	assert_non_null(src);
	for (size_t i = 0; i < n; i++) {
		long p = source_add_piece(src);
		assert_true(p >= 0);
		assert_int_equal(source_set_piece_text(src, p, s[i].text, strlen(s[i].text)), CS_OK);
		char id[32];
		snprintf(id, sizeof id, "p%zu", i);
		src->pieces[p].id = arena_strdup(&src->arena, s[i].id ? s[i].id : id);
		src->pieces[p].role = "context";
		src->pieces[p].priority = src->pieces[p].input_priority = s[i].priority;
	}
	return src;
}

/* Assembles src as the spec says: a block per piece, in order. */
static void make_asm(const struct source *src, const struct spec *s, size_t n, struct assembly *a)
{
	bool messages = n && s[0].role;
	assert_int_equal(asm_init(a, ASM_RUN(src), messages ? ASM_MESSAGES : ASM_DOCUMENT), CS_OK);
	for (size_t i = 0; i < n; i++) {
		if (messages && (i == 0 || strcmp(s[i].role, s[i - 1].role) != 0))
			asm_message(a, s[i].role);
		struct block *b = asm_block(a, (long)i, 0, -1);
		const struct piece *p = &src->pieces[i];
		asm_span(a, p->text, p->text_bytes, p->code_points);
		if (s[i].bp)
			b->flags |= BLOCK_BREAKPOINT;
		asm_whole(a, (long)i, (long)i, p->tokens);
	}
	struct cs_error err;
	assert_int_equal(asm_finish(a, &err), CS_OK);
}

struct pair {
	struct source *bs, *ns;
	struct assembly base, now;
};

static void make_pair(struct pair *p, const struct spec *b, size_t nb, const struct spec *n, size_t nn)
{
	p->bs = make_src(b, nb);
	p->ns = make_src(n, nn);
	make_asm(p->bs, b, nb, &p->base);
	make_asm(p->ns, n, nn, &p->now);
}

static void free_pair(struct pair *p)
{
	asm_fini(&p->base);
	asm_fini(&p->now);
	source_free(p->bs);
	source_free(p->ns);
}

/* Doubles equal to a millionth (cost figures are sums of products). */
static void near(double got, double want)
{
	if (fabs(got - want) > 1e-6)
		fail_msg("got %.9g, want %.9g", got, want);
}

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

static void diverge_at(const struct spec *b, size_t nb, const struct spec *n, size_t nn, long tokens, long block,
		       bool identical)
{
	struct pair p;
	make_pair(&p, b, nb, n, nn);
	struct cache_divergence d;
	cache_diverge(&p.base, &p.now, &d);
	assert_int_equal(d.identical, identical);
	assert_int_equal(d.tokens, tokens);
	assert_int_equal(d.block, block);
	free_pair(&p);
}

/* ---- divergence ------------------------------------------------------------ */

static void test_diverge_start_middle_end(void **state)
{
	(void)state;
	char x[401], y[401];
	memset(x, 'a', 400), x[400] = '\0';
	memcpy(y, x, 401);
	/* at the start */
	y[0] = 'Z';
	struct spec b[] = { { .text = x }, { .text = "tail of the prompt" } };
	struct spec n[] = { { .text = y }, { .text = "tail of the prompt" } };
	diverge_at(b, 2, n, 2, 0, 0, false);
	/* inside the first block, at character 201: floor(201 / 4) = 50 */
	memcpy(y, x, 401);
	y[201] = 'Z';
	diverge_at(b, 2, n, 2, 50, 0, false);
	/* in the middle block: 100 tokens before it, 10 characters in -> 102 */
	struct spec b3[] = { { .text = x }, { .text = "0123456789 stable" }, { .text = "end" } };
	struct spec n3[] = { { .text = x }, { .text = "0123456789 edited" }, { .text = "end" } };
	diverge_at(b3, 3, n3, 3, 102, 1, false);
	/* at the end: text appended to the last block */
	struct spec b4[] = { { .text = x }, { .text = "abcdefgh" } };
	struct spec n4[] = { { .text = x }, { .text = "abcdefgh and more" } };
	diverge_at(b4, 2, n4, 2, 102, 1, false);
	/* a new block appended: the prompt up to it is intact */
	struct spec n5[] = { { .text = x }, { .text = "abcdefgh" }, { .text = "new event" } };
	diverge_at(b4, 2, n5, 3, 102, 2, false);
	/* identical */
	diverge_at(b4, 2, b4, 2, 102, -1, true);
}

static void test_diverge_across_block_boundary(void **state)
{
	(void)state;
	/* the same text split differently: the serializations agree... */
	struct spec b[] = { { .text = "aaaabbbb", .bp = true }, { .text = "cccc", .bp = true } };
	struct spec n[] = { { .text = "aaaabb", .bp = true }, { .text = "bbcccc", .bp = true } };
	diverge_at(b, 2, n, 2, 4, -1, true); /* identical: the whole prompt, 2 + 2 tokens */
	/* ...but block 0 changed, so its cache entry cannot be read */
	struct pair p;
	make_pair(&p, b, 2, n, 2);
	struct cache_profile prof = *profile("anthropic");
	prof.min_prefix = 1;
	struct cache_analysis an;
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, &prof, &an, NULL), CS_OK);
	assert_int_equal(an.now.read, 0);
	cache_analysis_fini(&an);
	free_pair(&p);
	/* an edit exactly at a block boundary: the first block stays whole */
	struct spec b2[] = { { .text = "0123456789ab" }, { .text = "old" } };
	struct spec n2[] = { { .text = "0123456789ab" }, { .text = "new" } };
	diverge_at(b2, 2, n2, 2, 3, 1, false);
	/* a multi-byte character is never cut: é (2 bytes) vs è differ in the
	 * second byte; 5 characters before it */
	struct spec b3[] = { { .text = "abcde\xC3\xA9xyz" } };
	struct spec n3[] = { { .text = "abcde\xC3\xA8xyz" } };
	diverge_at(b3, 1, n3, 1, 1, 0, false);
}

static void test_diverge_messages_roles(void **state)
{
	(void)state;
	/* same content, a different role: a difference at the message start */
	struct spec b[] = { { .role = "system", .text = "You are terse." },
			    { .role = "user", .text = "0123456789012345" },
			    { .role = "assistant", .text = "ok" } };
	struct spec n[] = { { .role = "system", .text = "You are terse." },
			    { .role = "assistant", .text = "0123456789012345" },
			    { .role = "assistant", .text = "ok" } };
	/* system block: 14 characters, 4 tokens */
	diverge_at(b, 3, n, 3, 4, 1, false);
	/* two messages merged into one (same text): still a difference */
	struct spec m[] = { { .role = "system", .text = "You are terse." },
			    { .role = "user", .text = "0123456789012345" },
			    { .role = "user", .text = "ok" } };
	diverge_at(b, 3, m, 3, 8, 2, false);
}

/* ---- granularity, minimum -------------------------------------------------- */

static void test_granularity(void **state)
{
	(void)state;
	const struct cache_profile *o = profile("openai"), *d = profile("deepseek"), *v = profile("vllm");
	assert_int_equal(o->unit, 128);
	assert_int_equal(cache_storable(o, 1023), 0);   /* under the minimum */
	assert_int_equal(cache_storable(o, 1024), 1024);
	assert_int_equal(cache_storable(o, 1300), 1280); /* 10 units */
	assert_int_equal(cache_storable(o, 4095), 3968);
	assert_int_equal(d->unit, 64);
	assert_int_equal(cache_storable(d, 63), 0);
	assert_int_equal(cache_storable(d, 64), 64);
	assert_int_equal(cache_storable(d, 1000), 960);
	assert_int_equal(v->unit, 16);
	assert_int_equal(cache_storable(v, 15), 0);
	assert_int_equal(cache_storable(v, 1000), 992);
	assert_int_equal(cache_storable(v, 1008), 1008);
}

static void test_minimum_prefix(void **state)
{
	(void)state;
	/* anthropic: 4092 characters = 1023 tokens; 4096 = 1024 */
	struct spec s[] = { { .text = rep('a', 4092), .bp = true }, { .text = "end" } };
	struct source *src = make_src(s, 2);
	struct assembly a;
	make_asm(src, s, 2, &a);
	struct cache_breakpoint *bps;
	size_t n;
	assert_int_equal(cache_breakpoints(&a, NULL, profile("anthropic"), &bps, &n, NULL), CS_OK);
	assert_int_equal(n, 1);
	assert_int_equal(bps[0].end_tokens, 1023);
	assert_false(bps[0].over_min);
	assert_false(bps[0].can_cache);
	cs_free(bps);
	asm_fini(&a);
	source_free(src);

	s[0].text = rep('a', 4096);
	src = make_src(s, 2);
	make_asm(src, s, 2, &a);
	assert_int_equal(cache_breakpoints(&a, NULL, profile("anthropic"), &bps, &n, NULL), CS_OK);
	assert_int_equal(bps[0].end_tokens, 1024);
	assert_true(bps[0].can_cache);
	cs_free(bps);
	asm_fini(&a);
	source_free(src);
}

/* ---- explicit breakpoints ---------------------------------------------------- */

static void lint_run(const struct assembly *a, const struct cache_overrides *o, const struct cache_profile *p,
		     const struct cache_pattern *extra, struct cache_lints *l, struct cache_analysis *an)
{
	assert_int_equal(cache_analyze(a, o, a, o, p, an, NULL), CS_OK);
	struct cs_error err;
	assert_int_equal(cache_lint(a, an, extra, l, &err), CS_OK);
}

static size_t count_lints(const struct cache_lints *l, enum cache_lint_kind k, long *first_block)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->items[i].kind == k) {
			if (!n && first_block)
				*first_block = l->items[i].block;
			n++;
		}
	return n;
}

static void test_four_breakpoint_limit(void **state)
{
	(void)state;
	struct spec s[6];
	for (size_t i = 0; i < 6; i++)
		s[i] = (struct spec){ .text = rep((char)('a' + i), 4096), .bp = true };
	struct source *src = make_src(s, 6);
	struct assembly a;
	make_asm(src, s, 6, &a);
	struct cache_analysis an;
	struct cache_lints l;
	lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
	assert_int_equal(an.nbps, 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(an.bps[i].in_limit, i < 4);
	long first = -1;
	assert_int_equal(count_lints(&l, LINT_OVER_LIMIT, &first), 2);
	assert_int_equal(first, 4);
	/* a warm repeat reads only up to the 4th breakpoint: 4 x 1024 */
	assert_int_equal(an.steady.read, 4096);
	assert_int_equal(an.steady.uncached, 2048);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);

	/* the user removes two: the limit holds, no lint */
	struct cache_overrides o;
	cache_overrides_init(&o);
	assert_int_equal(cache_overrides_set(&o, &a, 1, false, NULL), CS_OK);
	assert_int_equal(cache_overrides_toggle(&o, &a, 3, NULL), CS_OK);
	lint_run(&a, &o, profile("anthropic"), NULL, &l, &an);
	assert_int_equal(an.nbps, 4);
	assert_true(an.bps[3].user == false && an.bps[3].block == 5);
	assert_int_equal(count_lints(&l, LINT_OVER_LIMIT, NULL), 0);
	assert_int_equal(an.steady.read, 6144);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	/* a prefix profile has no limit */
	cache_overrides_fini(&o);
	lint_run(&a, NULL, profile("openai"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_OVER_LIMIT, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
}

static void test_overrides_survive_reassembly(void **state)
{
	(void)state;
	struct spec s[] = { { .id = "sys.md", .text = "system" }, { .id = "a.c", .text = "int a;", .bp = true },
			    { .id = "b.c", .text = "int b;" } };
	struct source *src = make_src(s, 3);
	struct assembly a;
	make_asm(src, s, 3, &a);
	struct cache_overrides o;
	cache_overrides_init(&o);
	assert_int_equal(cache_overrides_toggle(&o, &a, 0, NULL), CS_OK); /* add after sys.md */
	assert_int_equal(cache_overrides_toggle(&o, &a, 1, NULL), CS_OK); /* remove after a.c */
	assert_true(cache_is_breakpoint(&o, &a, 0));
	assert_false(cache_is_breakpoint(&o, &a, 1));
	assert_int_equal(cache_overrides_toggle(&o, &a, 7, NULL), CS_EUSAGE);
	/* re-assembled in another order: the override follows the piece */
	struct spec r[] = { s[2], s[0], s[1] };
	struct assembly b;
	assert_int_equal(asm_init(&b, ASM_RUN(src), ASM_DOCUMENT), CS_OK);
	long order[] = { 2, 0, 1 };
	for (int i = 0; i < 3; i++) {
		struct block *blk = asm_block(&b, order[i], 0, -1);
		asm_span(&b, src->pieces[order[i]].text, src->pieces[order[i]].text_bytes, (size_t)-1);
		if (r[i].bp)
			blk->flags |= BLOCK_BREAKPOINT;
	}
	assert_int_equal(asm_finish(&b, NULL), CS_OK);
	assert_false(cache_is_breakpoint(&o, &b, 0)); /* b.c */
	assert_true(cache_is_breakpoint(&o, &b, 1));  /* sys.md */
	assert_false(cache_is_breakpoint(&o, &b, 2)); /* a.c, removed */
	asm_fini(&b);
	cache_overrides_fini(&o);
	asm_fini(&a);
	source_free(src);
}

static void test_lookback(void **state)
{
	(void)state;
	/* 25 blocks of 100 tokens; breakpoints after block 0 and block 24 */
	struct spec s[25];
	for (size_t i = 0; i < 25; i++)
		s[i] = (struct spec){ .text = rep((char)('A' + i), 400 + (i == 0 ? 3696 : 0)), .bp = i == 0 || i == 24 };
	struct source *src = make_src(s, 25);
	struct assembly a;
	make_asm(src, s, 25, &a);
	struct cache_analysis an;
	struct cache_lints l;
	lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
	long first = -1;
	assert_int_equal(count_lints(&l, LINT_LOOKBACK, &first), 1);
	assert_int_equal(first, 24);
	assert_int_equal(an.bps[1].gap_blocks, 24);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);

	/* now block 5 changes and this request has no breakpoint after block 0:
	 * the entry there (1024 tokens) is intact, but 24 blocks before the
	 * nearest breakpoint: not found, everything is written again */
	struct spec n[25];
	memcpy(n, s, sizeof n);
	n[5].text = rep('z', 400);
	struct source *nsrc = make_src(n, 25);
	struct assembly b;
	make_asm(nsrc, n, 25, &b);
	struct cache_overrides o;
	cache_overrides_init(&o);
	assert_int_equal(cache_overrides_set(&o, &b, 0, false, NULL), CS_OK);
	assert_int_equal(cache_analyze(&a, NULL, &b, &o, profile("anthropic"), &an, NULL), CS_OK);
	assert_int_equal(an.div.tokens, 1024 + 400);
	assert_int_equal(an.now.read, 0);
	assert_int_equal(an.now.written, 1024 + 2400);
	cache_analysis_fini(&an);
	/* with a breakpoint after block 20 (20 blocks from block 0), it is found */
	assert_int_equal(cache_overrides_set(&o, &b, 20, true, NULL), CS_OK);
	assert_int_equal(cache_analyze(&a, NULL, &b, &o, profile("anthropic"), &an, NULL), CS_OK);
	assert_int_equal(an.now.read, 1024);
	assert_int_equal(an.now.written, 2400);
	cache_analysis_fini(&an);
	/* breakpoints after 20 and 24: no lookback lint (the first has none before it) */
	lint_run(&b, &o, profile("anthropic"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_LOOKBACK, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	cache_overrides_fini(&o);
	asm_fini(&b);
	source_free(nsrc);
	asm_fini(&a);
	source_free(src);
}

/* ---- cost ------------------------------------------------------------------------ */

static void test_cost_by_hand(void **state)
{
	(void)state;
	/* blocks of 2000, 1000 and 1000 tokens, a breakpoint after each; the
	 * edit is 400 characters (100 tokens) into the third */
	char *third = strdup(rep('c', 4000));
	assert_non_null(third);
	struct spec b[] = { { .text = rep('a', 8000), .bp = true }, { .text = rep('b', 4000), .bp = true },
			    { .text = third, .bp = true } };
	struct spec n[3];
	memcpy(n, b, sizeof n);
	char *edited = strdup(third);
	assert_non_null(edited);
	edited[400] = 'X';
	n[2].text = edited;
	struct pair p;
	make_pair(&p, b, 3, n, 3);

	struct cache_analysis an;
	/* anthropic: entries at 2000 and 3000 still match: read 3000; the
	 * breakpoint at 4000 writes 1000; cost 3000 x 0.1 + 1000 x 1.25 = 1550;
	 * a warm repeat costs 4000 x 0.1 = 400 */
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, profile("anthropic"), &an, NULL), CS_OK);
	assert_int_equal(an.div.tokens, 3100);
	assert_int_equal(an.now.read, 3000);
	assert_int_equal(an.now.written, 1000);
	assert_int_equal(an.now.rewritten, 1000);
	assert_int_equal(an.now.lost, 1000);
	assert_int_equal(an.now.uncached, 0);
	near(an.now.cost, 1550.0);
	near(an.steady.cost, 400.0);
	near(an.delta, 1150.0);
	cache_analysis_fini(&an);

	/* openai: the baseline stored floor(4000/128)x128 = 3968; the common
	 * prefix 3100 reads 24 units = 3072; this request stores 3968 again, so
	 * it writes 896 and sends 32 uncached: 3072 x 0.5 + 896 + 32 = 2464;
	 * the warm repeat: 3968 x 0.5 + 32 = 2016 */
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, profile("openai"), &an, NULL), CS_OK);
	assert_int_equal(an.now.read, 3072);
	assert_int_equal(an.now.written, 896);
	assert_int_equal(an.now.uncached, 32);
	assert_int_equal(an.now.lost, 896);
	near(an.now.cost, 2464.0);
	near(an.steady.cost, 2016.0);
	cache_analysis_fini(&an);

	/* deepseek: 64-token units: read floor(3100/64)x64 = 3072, store
	 * floor(4000/64)x64 = 3968, so write 896 and send 32 uncached */
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, profile("deepseek"), &an, NULL), CS_OK);
	assert_int_equal(an.now.read, 3072);
	assert_int_equal(an.now.written, 896);
	assert_int_equal(an.now.uncached, 32);
	near(an.now.cost, 61.44 + 896 + 32);
	cache_analysis_fini(&an);

	/* vllm: 16-token units: read 3088 (193 units), write 912; a read is free */
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, profile("vllm"), &an, NULL), CS_OK);
	assert_int_equal(an.now.read, 3088);
	assert_int_equal(an.now.written, 912);
	near(an.now.cost, 912.0);
	cache_analysis_fini(&an);

	/* gemini: min 2048, any length: read 3100, write 900 */
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, profile("gemini"), &an, NULL), CS_OK);
	assert_int_equal(an.now.read, 3100);
	assert_int_equal(an.now.written, 900);
	near(an.now.cost, 310.0 + 900.0);
	cache_analysis_fini(&an);

	/* an edit in the first block: anthropic reads nothing, rewrites all */
	n[2].text = third;
	n[0].text = rep('Q', 8000);
	free_pair(&p);
	make_pair(&p, b, 3, n, 3);
	assert_int_equal(cache_analyze(&p.base, NULL, &p.now, NULL, profile("anthropic"), &an, NULL), CS_OK);
	assert_int_equal(an.div.tokens, 0);
	assert_int_equal(an.now.read, 0);
	assert_int_equal(an.now.written, 4000);
	assert_int_equal(an.now.lost, 4000);
	near(an.now.cost, 5000.0);
	cache_analysis_fini(&an);
	free_pair(&p);
	free(third);
	free(edited);
}

/* ---- lints ------------------------------------------------------------------------ */

/* A user pattern that backtracks without end hits the match limit and
 * counts as no match (compiled for the JIT or not, the answer is the
 * interpreter's); a plain user pattern in the next block still matches,
 * and the lint names it at its place. */
static void test_lint_runaway_pattern(void **state)
{
	(void)state;
	const char *as = rep('a', 64);
	struct spec s[] = { { .text = rep('s', 4096) }, { .text = as }, { .text = "build B-17 done", .bp = true },
			    { .text = "the question" } };
	struct source *src = make_src(s, 4);
	struct assembly a;
	make_asm(src, s, 4, &a);
	static const struct cache_pattern extra[] = { { "runaway", "^(a|aa)+$(?<=b)" }, { "b", "B-[0-9]+" },
						     { NULL, NULL } };
	struct cache_analysis an;
	struct cache_lints l;
	lint_run(&a, NULL, profile("anthropic"), extra, &l, &an);
	long first = -1;
	assert_int_equal(count_lints(&l, LINT_VOLATILE, &first), 1);
	assert_int_equal(first, 2);
	assert_non_null(strstr(l.items[0].sentence, "\"B-17\" (b)"));
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
}

static void test_lint_volatile(void **state)
{
	(void)state;
	static const char *const volatile_texts[] = {
		"Generated at 2026-11-21T09:14:03Z by the nightly job.",
		"session 3f2b9c1e-7a4d-4e21-9b0a-55c1d2e3f4a5 opened",
		"HEAD is 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
		"this is request #4812 of the day",
		"uptime since 1763716443000",
	};
	for (size_t i = 0; i < sizeof volatile_texts / sizeof *volatile_texts; i++) {
		struct spec s[] = { { .text = rep('s', 4096) }, { .text = volatile_texts[i], .bp = true },
				    { .text = "the question" } };
		struct source *src = make_src(s, 3);
		struct assembly a;
		make_asm(src, s, 3, &a);
		struct cache_analysis an;
		struct cache_lints l;
		lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
		long first = -1;
		assert_int_equal(count_lints(&l, LINT_VOLATILE, &first), 1);
		assert_int_equal(first, 1);
		cache_lints_fini(&l);
		cache_analysis_fini(&an);
		asm_fini(&a);
		source_free(src);
	}
	/* not fired: the same text after the last breakpoint, or plain code */
	struct spec s[] = { { .text = rep('s', 4096), .bp = true }, { .text = "at 2026-11-21T09:14:03Z" },
			    { .text = "for (int i = 0; i < 10; i++) total += i;\n"
				      "struct ta_sample s = { .counter = 1 }; int retry = 3; /* step 2 */" } };
	struct source *src = make_src(s, 3);
	struct assembly a;
	make_asm(src, s, 3, &a);
	struct cache_analysis an;
	struct cache_lints l;
	lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_VOLATILE, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
	/* code that names counters and steps is not volatile, even when cached */
	struct spec c[] = { { .text = "struct ta_sample s = { .counter = 1 }; int retry = 3; /* step 2 */\n"
				      "uint64_t mask = 0xffffffffull; size_t n = 4096;", .bp = true },
			    { .text = "q" } };
	src = make_src(c, 2);
	make_asm(src, c, 2, &a);
	lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_VOLATILE, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
	/* a user pattern */
	struct spec u[] = { { .text = "release BUILD-20931 of the gateway", .bp = true }, { .text = "q" } };
	src = make_src(u, 2);
	make_asm(src, u, 2, &a);
	lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_VOLATILE, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	const struct cache_pattern extra[] = { { "build-number", "BUILD-[0-9]+" }, { NULL, NULL } };
	lint_run(&a, NULL, profile("anthropic"), extra, &l, &an);
	long at = -1;
	assert_int_equal(count_lints(&l, LINT_VOLATILE, &at), 1);
	for (size_t i = 0; i < l.n; i++)
		if (l.items[i].kind == LINT_VOLATILE)
			assert_non_null(strstr(l.items[i].sentence, "\"BUILD-20931\" (build-number)"));
	cache_lints_fini(&l);
	/* a pattern that does not compile is refused by name */
	const struct cache_pattern broken[] = { { "oops", "([a-z]" }, { NULL, NULL } };
	struct cs_error err;
	assert_int_equal(cache_lint(&a, &an, broken, &l, &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "oops"));
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
}

/* A history with a timestamp in each of 12 messages: 8 listed, then one
 * summary for the 4 others. */
static void test_lint_volatile_history(void **state)
{
	(void)state;
	struct spec h[12];
	for (size_t i = 0; i < 12; i++)
		h[i] = (struct spec){ .role = i % 2 ? "assistant" : "user",
				      .text = i % 2 ? "[2026-11-21T09:14:03Z] checked" : "[2026-11-21T09:15:41Z] ok?",
				      .bp = i == 11 };
	struct source *hs = make_src(h, 12);
	struct assembly ha;
	make_asm(hs, h, 12, &ha);
	struct cache_analysis han;
	struct cache_lints hl;
	lint_run(&ha, NULL, profile("anthropic"), NULL, &hl, &han);
	long hfirst = -1;
	assert_int_equal(count_lints(&hl, LINT_VOLATILE, &hfirst), 9);
	assert_int_equal(hl.items[hl.n - 1].block, 8);
	assert_non_null(strstr(hl.items[hl.n - 1].sentence, "4 more blocks"));
	cache_lints_fini(&hl);
	cache_analysis_fini(&han);
	asm_fini(&ha);
	source_free(hs);
}

static void test_lint_order(void **state)
{
	(void)state;
	/* a log with a priority before two stable files */
	struct spec s[] = { { .id = "AGENTS.md", .text = rep('r', 4096), .priority = 1.0, .bp = true },
			    { .id = "logs/ci.log", .text = "ok: 12 tests", .priority = 0.9, .bp = true },
			    { .id = "src/ring.c", .text = rep('c', 400), .priority = 0.8, .bp = true },
			    { .id = "src/ring.h", .text = rep('h', 400), .priority = 0.7, .bp = true } };
	struct source *src = make_src(s, 4);
	struct assembly a;
	make_asm(src, s, 4, &a);
	struct cache_analysis an;
	struct cache_lints l;
	lint_run(&a, NULL, profile("openai"), NULL, &l, &an);
	long first = -1;
	assert_int_equal(count_lints(&l, LINT_ORDER, &first), 1);
	assert_int_equal(first, 1);
	assert_non_null(strstr(l.items[0].sentence, "before 2 stable pieces (200 tokens)"));
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
	/* the log last: nothing to say */
	struct spec t[] = { s[0], s[2], s[3], s[1] };
	src = make_src(t, 4);
	make_asm(src, t, 4, &a);
	lint_run(&a, NULL, profile("openai"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_ORDER, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
}

static void test_lint_under_minimum(void **state)
{
	(void)state;
	struct spec s[] = { { .text = "You review C patches for a lock-free ring buffer; be brief.\n"
				    "Answer in English.\n", .bp = true }, { .text = rep('x', 8000), .bp = true } };
	struct source *src = make_src(s, 2);
	struct assembly a;
	make_asm(src, s, 2, &a);
	struct cache_analysis an;
	struct cache_lints l;
	lint_run(&a, NULL, profile("anthropic"), NULL, &l, &an);
	long first = -1;
	assert_int_equal(count_lints(&l, LINT_UNDER_MIN, &first), 1);
	assert_int_equal(first, 0);
	assert_non_null(strstr(l.items[0].sentence, "silently never caches"));
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	/* vllm's minimum is 16 tokens: both cache */
	lint_run(&a, NULL, profile("vllm"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_UNDER_MIN, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	/* an automatic prefix cache: breakpoints do not matter, the whole
	 * prompt (2020 tokens) is over openai's 1024 */
	lint_run(&a, NULL, profile("openai"), NULL, &l, &an);
	assert_int_equal(count_lints(&l, LINT_UNDER_MIN, NULL), 0);
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
	/* ...and under it, one lint on the last block */
	struct spec t[] = { { .text = rep('y', 2000), .bp = true }, { .text = rep('z', 2000) } };
	src = make_src(t, 2);
	make_asm(src, t, 2, &a);
	lint_run(&a, NULL, profile("openai"), NULL, &l, &an);
	first = -1;
	assert_int_equal(count_lints(&l, LINT_UNDER_MIN, &first), 1);
	assert_int_equal(first, 1);
	assert_non_null(strstr(l.items[0].sentence, "the whole prompt is 1000 tokens"));
	cache_lints_fini(&l);
	cache_analysis_fini(&an);
	asm_fini(&a);
	source_free(src);
}

/* ---- the user file ------------------------------------------------------------------ */

static void test_user_file(void **state)
{
	(void)state;
	struct cache_config c;
	cache_config_init(&c);
	assert_string_equal(c.default_profile, "anthropic");
	const char *yml = "profile: gateway\n"
			  "profiles:\n"
			  "  anthropic:\n"
			  "    write: 2.0\n"
			  "    price_per_mtok: 3.00\n"
			  "    min_prefix: 2048\n"
			  "  gateway:\n"
			  "    based_on: openai\n"
			  "    min_prefix: 512\n"
			  "    as_of: 2026-10\n"
			  "volatile_patterns:\n"
			  "  - name: build-number\n"
			  "    pattern: 'BUILD-[0-9]+'\n";
	struct cs_error err;
	assert_int_equal(cache_config_parse(&c, yml, strlen(yml), &err), CS_OK);
	const struct cache_profile *p = cache_config_profile(&c, "anthropic");
	near(p->write, 2.0);
	near(p->price_per_mtok, 3.0);
	assert_int_equal(p->min_prefix, 2048);
	assert_int_equal(p->max_breakpoints, 4); /* untouched */
	const struct cache_profile *g = cache_config_profile(&c, "gateway");
	assert_non_null(g);
	assert_int_equal(g->unit, 128);
	assert_int_equal(g->min_prefix, 512);
	assert_string_equal(g->as_of, "2026-10");
	assert_string_equal(c.default_profile, "gateway");
	assert_int_equal(c.npatterns, 1);
	assert_string_equal(c.patterns[0].pattern, "BUILD-[0-9]+");
	assert_null(c.patterns[1].name);

	/* a broken file changes nothing and says where */
	const char *bad = "profiles:\n  anthropic:\n    read: lots\n";
	assert_int_equal(cache_config_parse(&c, bad, strlen(bad), &err), CS_ETYPE);
	assert_int_equal(err.line, 3);
	assert_string_equal(err.path, "profiles.anthropic.read");
	near(cache_config_profile(&c, "anthropic")->read, 0.1);
	const char *syntax = "profiles: [\n";
	assert_int_equal(cache_config_parse(&c, syntax, strlen(syntax), &err), CS_ESYNTAX);
	const char *pat = "volatile_patterns:\n  - {name: x, pattern: '(unclosed'}\n";
	assert_int_equal(cache_config_parse(&c, pat, strlen(pat), &err), CS_EUSAGE);
	assert_int_equal(c.npatterns, 1);
	assert_string_equal(c.default_profile, "gateway");
	cache_config_fini(&c);

	/* the path */
	char buf[256];
	assert_true(cache_config_path("/x/cfg", "/home/me", buf, sizeof buf));
	assert_string_equal(buf, "/x/cfg/ctxscope/cache.yml");
	assert_true(cache_config_path("", "/home/me", buf, sizeof buf));
	assert_string_equal(buf, "/home/me/.config/ctxscope/cache.yml");
	assert_false(cache_config_path(NULL, NULL, buf, sizeof buf));

	/* a file: missing is fine, present is merged */
	char *dir = support_tempdir();
	cache_config_init(&c);
	assert_int_equal(cache_config_load(&c, support_path(dir, "none.yml"), &err), CS_OK);
	assert_false(c.loaded);
	support_write(dir, "cache.yml", "profiles:\n  vllm:\n    unit: 32\n");
	assert_int_equal(cache_config_load(&c, support_path(dir, "cache.yml"), &err), CS_OK);
	assert_true(c.loaded);
	assert_int_equal(cache_config_profile(&c, "vllm")->unit, 32);
	cache_config_fini(&c);
	support_rmtree(dir);
	free(dir);
}

/* ---- a real manifest, and out of memory ---------------------------------------------- */

static void test_manifest_priority_edit(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "AGENTS.md", rep('r', 8000));
	support_write(dir, "src/ring.c", rep('c', 4000));
	support_write(dir, "build.log", "[2026-11-21T09:14:03Z] make: *** [ring.o] Error 1\n");
	support_write(dir, "ws.yml",
		      "budget: {max_tokens: 50000, reserved_for_response: 4000}\n"
		      "files:\n"
		      "  - {path: AGENTS.md, priority: 1.0, role: system}\n"
		      "  - {path: src/ring.c, priority: 0.8}\n"
		      "  - {path: build.log, priority: 0.5}\n");
	struct source *src = support_load(support_path(dir, "ws.yml"), NULL);
	struct assembly base, now;
	support_assemble(src, &base);
	support_set(src, "priority", "build.log=0.9");
	support_assemble(src, &now);
	struct cache_analysis an;
	assert_int_equal(cache_analyze(&base, NULL, &now, NULL, profile("anthropic"), &an, NULL), CS_OK);
	/* the log moved before ring.c: the first block stays, the rest is written */
	assert_int_equal(an.div.block, 1);
	assert_int_equal(an.now.read, base.blocks[0].tokens);
	assert_int_equal(an.now.lost, base.total_tokens - base.blocks[0].tokens);
	assert_int_equal(an.now.written, now.total_tokens - now.blocks[0].tokens);
	cache_analysis_fini(&an);

	/* out of memory anywhere in analysis and lints: a clean CS_ENOMEM */
	for (long nth = 1; nth < 400; nth++) {
		struct cache_lints l;
		struct cs_error err;
		cs_alloc_fail_from(nth);
		int rc = cache_analyze(&base, NULL, &now, NULL, profile("anthropic"), &an, &err);
		if (rc == CS_OK) {
			rc = cache_lint(&now, &an, NULL, &l, &err);
			if (rc == CS_OK)
				cache_lints_fini(&l);
			cache_analysis_fini(&an);
		}
		cs_alloc_fail_from(0);
		if (rc != CS_OK && rc != CS_ENOMEM)
			fail_msg("allocation %ld: %d %s", nth, rc, err.message);
	}
	asm_fini(&base);
	asm_fini(&now);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_config_out_of_memory(void **state)
{
	(void)state;
	const char *yml = "profiles:\n  anthropic: {write: 2.0}\n  mine: {based_on: vllm}\n"
			  "volatile_patterns:\n  - {name: b, pattern: 'B-[0-9]+'}\n";
	for (long nth = 1; nth < 300; nth++) {
		struct cache_config c;
		struct cs_error err;
		cache_config_init(&c);
		cs_alloc_fail_from(nth);
		int rc = cache_config_parse(&c, yml, strlen(yml), &err);
		cs_alloc_fail_from(0);
		if (rc != CS_OK && rc != CS_ENOMEM)
			fail_msg("allocation %ld: %d %s", nth, rc, err.message);
		if (rc == CS_ENOMEM)
			near(cache_config_profile(&c, "anthropic")->write, 1.25);
		cache_config_fini(&c);
	}
}

/* The whole report path on the demo sample, with a user file that sets a
 * price and the 1-hour write multiplier. */
static char *report_with(char **argv, int argc, int *rc_out)
{
	struct cli cli;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(cli_parse(argc, argv, &cli, &err), CS_OK);
	struct source *src = support_load(cli.file, NULL);
	assert_int_equal(cli_apply(&cli, src, &err), CS_OK);
	struct assembly a;
	support_assemble(src, &a);
	struct cache_report cr;
	int rc = cache_report_prepare(&cr, &cli, &a, &err);
	char *text = NULL;
	if (rc == CS_OK) {
		struct report_options opt = { .format = REPORT_YAML, .extra = cr.sections };
		struct strbuf out = STRBUF_INIT;
		rc = report_write(&a, &opt, &out);
		if (rc == CS_OK)
			text = strdup(sb_str(&out));
		sb_fini(&out);
	}
	cache_report_fini(&cr);
	asm_fini(&a);
	source_free(src);
	*rc_out = rc;
	return text;
}

static void test_report_money_and_user_file(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ctxscope/cache.yml",
		      "profiles:\n  anthropic:\n    write: 2.0\n    price_per_mtok: 3.00\n");
	assert_int_equal(setenv("XDG_CONFIG_HOME", dir, 1), 0);
	char a0[] = "ctxscope", a1[] = "report", a2[] = "samples/manifest/cache-demo/working-set.yml",
	     a3[] = "--priority", a4[] = "logs/ci-1842.log=0.95";
	char *argv[] = { a0, a1, a2, a3, a4, NULL };
	int rc;
	char *text = report_with(argv, 5, &rc);
	assert_int_equal(rc, CS_OK);
	/* breakpoints after system, user and the last block: read 0, write
	 * 2212 at 2.0, 0 uncached: 4424 tokens, $0.013272; the warm baseline:
	 * 2212 x 0.1 = 221.2 tokens, $0.0006636 */
	assert_non_null(strstr(text, "    write_price: 2.0\n"));
	assert_non_null(strstr(text, "      cost_tokens: 4424\n"));
	assert_non_null(strstr(text, "      cost_usd: 0.013272\n"));
	assert_non_null(strstr(text, "      baseline_cost_usd: 0.000664\n"));
	assert_non_null(strstr(text, "      delta_usd: 0.012608\n"));
	free(text);

	/* a broken user file: built-ins, and a note that says where */
	support_write(dir, "ctxscope/cache.yml", "profiles:\n  anthropic:\n    write: [2]\n");
	text = report_with(argv, 5, &rc);
	assert_int_equal(rc, CS_OK);
	assert_non_null(strstr(text, "config: \"ignored (built-ins apply): "));
	assert_non_null(strstr(text, "cache.yml:3:12: profiles.anthropic.write: expected a number"));
	assert_non_null(strstr(text, "    write_price: 1.25\n"));
	assert_null(strstr(text, "cost_usd"));
	free(text);

	/* out of memory anywhere on the way: CS_ENOMEM, nothing leaks */
	support_write(dir, "ctxscope/cache.yml", "profiles:\n  anthropic:\n    price_per_mtok: 3.00\n");
	for (long nth = 1; nth < 3000; nth += 7) {
		struct cli cli;
		struct cs_error err;
		assert_int_equal(cli_parse(5, argv, &cli, &err), CS_OK);
		struct source *src = support_load(cli.file, NULL);
		assert_int_equal(cli_apply(&cli, src, &err), CS_OK);
		struct assembly a;
		support_assemble(src, &a);
		struct cache_report cr;
		cs_alloc_fail_from(nth);
		rc = cache_report_prepare(&cr, &cli, &a, &err);
		cs_alloc_fail_from(0);
		if (rc != CS_OK && rc != CS_ENOMEM)
			fail_msg("allocation %ld: %d %s", nth, rc, err.message);
		cache_report_fini(&cr);
		asm_fini(&a);
		source_free(src);
	}
	unsetenv("XDG_CONFIG_HOME");
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diverge_start_middle_end),
		cmocka_unit_test(test_diverge_across_block_boundary),
		cmocka_unit_test(test_diverge_messages_roles),
		cmocka_unit_test(test_granularity),
		cmocka_unit_test(test_minimum_prefix),
		cmocka_unit_test(test_four_breakpoint_limit),
		cmocka_unit_test(test_overrides_survive_reassembly),
		cmocka_unit_test(test_lookback),
		cmocka_unit_test(test_cost_by_hand),
		cmocka_unit_test(test_lint_volatile),
		cmocka_unit_test(test_lint_volatile_history),
		cmocka_unit_test(test_lint_runaway_pattern),
		cmocka_unit_test(test_lint_order),
		cmocka_unit_test(test_lint_under_minimum),
		cmocka_unit_test(test_user_file),
		cmocka_unit_test(test_manifest_priority_edit),
		cmocka_unit_test(test_config_out_of_memory),
		cmocka_unit_test(test_report_money_and_user_file),
	};
	return cmocka_run_group_tests_name("cache", tests, NULL, NULL);
}
