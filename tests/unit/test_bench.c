/* test_bench.c: the speed work of issue 9 must not change a result: the
 * manifest's radix sort keeps the seed's order (priority, highest first,
 * ties in file order, negative and -0 priorities included), duplicate paths
 * are found past the old 2,000-entry cap, companion hints reach every entry
 * of a duplicated path, the printf-free drop sentence reads as before, and
 * the arena's one-pass printf is right at and across a chunk's end, a
 * capped file dropped from the manifest's sorted array names the capped
 * tokens, and the memory kind's kept score order gives a fresh source's
 * prompt after weight changes and exclusions. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/arena.h"
#include "assembly.h"
#include "kinds/manifest/manifest.h"
#include "base/progress.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes a manifest listing `paths` with `prios` (each file "x\n"). */
static char *write_manifest(const char *const *paths, const char *const *prios, size_t n, const char *budget)
{
	char *dir = support_tempdir();
	struct strbuf y = STRBUF_INIT;
	sb_printf(&y, "%sfiles:\n", budget ? budget : "budget:\n  max_tokens: 100000\n  reserved_for_response: 0\n");
	for (size_t i = 0; i < n; i++) {
		sb_printf(&y, "  - path: %s\n    priority: %s\n", paths[i], prios[i]);
		support_write(dir, paths[i], "x\n");
	}
	support_write(dir, "working-set.yml", sb_str(&y));
	sb_fini(&y);
	return dir;
}

/* The pieces in block order, as their ids joined by spaces. */
static void block_order(const struct source *src, const struct assembly *a, char *out, size_t n)
{
	out[0] = '\0';
	size_t len = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		if (a->blocks[b].piece < 0)
			continue;
		len += (size_t)snprintf(out + len, n - len, "%s%s", len ? " " : "", src->pieces[a->blocks[b].piece].id);
	}
}

static void test_order_is_the_seeds(void **state)
{
	(void)state;
	/* ties (0.5 three times) keep file order; 1.7 and -0.2 are outside 0..1
	 * (warned, kept as written); -0 and 0 are equal, so file order. */
	static const char *const paths[] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };
	static const char *const prios[] = { "0.5", "0.9", "-0.0", "0.5", "1.7", "0", "-0.2", "0.5", "0.25" };
	char *dir = write_manifest(paths, prios, 9, NULL);
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	struct assembly a;
	support_assemble(src, &a);
	char order[256];
	block_order(src, &a, order, sizeof order);
	assert_string_equal(order, "e b a d h i c f g");
	asm_fini(&a);

	/* an edit moves one piece; the rest keep their order */
	support_set(src, "priority", "h=0.95");
	support_assemble(src, &a);
	block_order(src, &a, order, sizeof order);
	assert_string_equal(order, "e h b a d i c f g");
	asm_fini(&a);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

#define MANY 2600 /* past the old check's 2,000-entry cap */

static void test_duplicates_found_everywhere(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct strbuf y = STRBUF_INIT;
	sb_puts(&y, "budget:\n  max_tokens: 1000\n  reserved_for_response: 0\nfiles:\n");
	for (int i = 0; i < MANY; i++)
		sb_printf(&y, "  - path: f%d.txt\n    priority: 0.5\n", i);
	sb_puts(&y, "  - path: f2500.txt\n    priority: 0.4\n"); /* files[2600] repeats files[2500] */
	sb_puts(&y, "  - path: f7.txt\n    priority: 0.3\n");    /* files[2601] repeats files[7] */
	support_write(dir, "working-set.yml", sb_str(&y));
	support_write(dir, "hot.yml", "keep:\n  - path: f7.txt\n    why: the crash site\n");
	sb_fini(&y);
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	size_t dups = 0;
	bool late = false, early = false;
	for (size_t i = 0; i < src->nwarnings; i++) {
		const char *t = src->warnings[i].text;
		if (!strstr(t, "is listed twice"))
			continue;
		dups++;
		late |= strcmp(t, "f2500.txt is listed twice (files[2500] and files[2600])") == 0;
		early |= strcmp(t, "f7.txt is listed twice (files[7] and files[2601])") == 0;
	}
	assert_int_equal(dups, 2);
	assert_true(late);
	assert_true(early);
	/* the hot hint reaches both entries of f7.txt, and no other */
	const struct manifest *m = src->model;
	size_t hinted = 0;
	for (size_t i = 0; i < m->nentries; i++)
		if (m->entries[i].hint) {
			assert_string_equal(src->pieces[m->entries[i].piece].id, "f7.txt");
			assert_string_equal(m->entries[i].hint, "hot (keep): the crash site");
			hinted++;
		}
	assert_int_equal(hinted, 2);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_hint_without_duplicates(void **state)
{
	(void)state;
	static const char *const paths[] = { "a.c", "b.c", "c.c" };
	static const char *const prios[] = { "0.5", "0.5", "0.5" };
	char *dir = write_manifest(paths, prios, 3, NULL);
	support_write(dir, "cold.yml", "evict:\n  - path: c.c\n    why: stale\n    suggested_action: drop\n"
				       "  - path: zz.c\n    why: gone\n");
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	const struct manifest *m = src->model;
	assert_null(m->entries[0].hint);
	assert_null(m->entries[1].hint);
	assert_string_equal(m->entries[2].hint, "cold (evict): stale (suggested: drop)");
	assert_string_equal(m->entries[2].suggested, "drop");
	bool unmatched = false;
	for (size_t i = 0; i < src->nwarnings; i++)
		unmatched |= strcmp(src->warnings[i].text, "cold.yml names zz.c, which the manifest does not list") == 0;
	assert_true(unmatched);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_over_budget_sentence(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	/* 4,000 code points = 1,000 tokens each; 1,500 usable */
	char *big = malloc(4001);
	memset(big, 'y', 4000);
	big[4000] = '\0';
	support_write(dir, "a.txt", big);
	support_write(dir, "b.txt", big);
	free(big);
	support_write(dir, "working-set.yml",
		      "budget:\n  max_tokens: 1500\n  reserved_for_response: 0\nfiles:\n"
		      "  - path: a.txt\n    priority: 0.9\n"
		      "  - path: b.txt\n    priority: 0.8\n    truncate_strategy: never\n");
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	struct assembly a;
	support_assemble(src, &a);
	long b = support_piece(src, "b.txt");
	assert_int_equal(a.results[b].outcome, OUTCOME_DROPPED);
	assert_int_equal(a.results[b].reason, REASON_OVER_BUDGET);
	assert_string_equal(a.results[b].sentence,
			    "dropped: over budget by 500 tokens (needs 1,000, 500 left of 1,500); "
			    "its strategy is never, so it cannot be cut; 1 file of higher priority took 1,000");
	asm_fini(&a);
	/* excluded by the user: the fixed sentence */
	support_set(src, "exclude", "a.txt");
	support_assemble(src, &a);
	assert_string_equal(a.results[support_piece(src, "a.txt")].sentence, "excluded by you");
	assert_int_equal(a.results[b].outcome, OUTCOME_WHOLE);
	asm_fini(&a);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* max_lines cuts are computed at load for every strategy; an edit of the
 * strategy must cut as if computed then. */
static void test_max_lines_after_strategy_edits(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ten.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n");
	support_write(dir, "working-set.yml", "budget:\n  max_tokens: 10000\n  reserved_for_response: 0\nfiles:\n"
					       "  - path: ten.txt\n    priority: 0.5\n    max_lines: 4\n");
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	struct assembly a;
	static const struct {
		const char *strategy, *prompt;
	} cases[] = {
		{ "end", "<context path=\"ten.txt\">\nl1\nl2\nl3\nl4\n\n[... truncated ...]\n</context>\n" },
		{ "start", "<context path=\"ten.txt\">\n\n[... truncated ...]\nl7\nl8\nl9\nl10\n</context>\n" },
		{ "middle", "<context path=\"ten.txt\">\nl1\nl2\n\n[... truncated ...]\nl9\nl10\n</context>\n" },
		{ "end", "<context path=\"ten.txt\">\nl1\nl2\nl3\nl4\n\n[... truncated ...]\n</context>\n" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char setting[64];
		snprintf(setting, sizeof setting, "ten.txt=%s", cases[i].strategy);
		support_set(src, "strategy", setting);
		support_assemble(src, &a);
		assert_string_equal(support_prompt(&a), cases[i].prompt);
		assert_int_equal(a.results[0].outcome, OUTCOME_TRUNCATED);
		assert_int_equal(a.results[0].reason, REASON_MAX_LINES);
		asm_fini(&a);
	}
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* Past 1,024 files, drops with the same tokens and reason share a sentence
 * (a cache); each must still read exactly as its own. */
static void test_shared_drop_sentences(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct strbuf y = STRBUF_INIT;
	sb_puts(&y, "budget:\n  max_tokens: 20\n  reserved_for_response: 0\nfiles:\n");
	for (int i = 0; i < 1100; i++) {
		char name[32];
		snprintf(name, sizeof name, "f%04d.txt", i);
		support_write(dir, name, i % 7 == 3 ? "abcdefghijkl" : "abcdefgh"); /* 3 or 2 tokens */
		sb_printf(&y, "  - path: %s\n    priority: 0.5\n%s", name,
			  i % 5 == 4 ? "    truncate_strategy: never\n" : "");
	}
	support_write(dir, "working-set.yml", sb_str(&y));
	sb_fini(&y);
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	struct assembly a;
	support_assemble(src, &a);
	/* files 0..8 fit (2+2+2+3+2+2+2+2+2 = 19 tokens); with 1 token left
	 * every later file is dropped: a never one as it cannot be cut, the
	 * others as the marker alone would fill what is left. Four distinct
	 * sentences for 1,091 drops: the cache is hit, and must keep the
	 * reasons apart. */
	size_t dropped = 0;
	for (size_t i = 9; i < src->npieces; i++) {
		const struct piece_result *r = &a.results[i];
		assert_int_equal(r->outcome, OUTCOME_DROPPED);
		long t = src->pieces[i].tokens;
		bool never = i % 5 == 4;
		char want[256];
		snprintf(want, sizeof want,
			 "dropped: over budget by %ld tokens (needs %ld, 1 left of 20); %s; 9 files of higher priority took 19",
			 t - 1, t,
			 never ? "its strategy is never, so it cannot be cut"
			       : "the truncation marker alone would fill what is left");
		assert_string_equal(r->sentence, want);
		dropped++;
	}
	assert_int_equal(dropped, 1091);
	asm_fini(&a);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_arena_printf_one_pass(void **state)
{
	(void)state;
	struct arena ar;
	arena_init(&ar);
	/* fill the first chunk to a few bytes from its end, then print across it */
	char *first = arena_printf(&ar, "%d-%s", 42, "answer");
	assert_string_equal(first, "42-answer");
	char *texts[200];
	for (int i = 0; i < 200; i++) {
		texts[i] = arena_printf(&ar, "%0*d|%s", 300 + i, i, "end");
		assert_non_null(texts[i]);
	}
	for (int i = 0; i < 200; i++) {
		size_t n = strlen(texts[i]);
		assert_int_equal(n, (size_t)(300 + i) + 4);
		assert_string_equal(texts[i] + n - 4, "|end");
		assert_int_equal(texts[i][0], '0');
	}
	assert_string_equal(first, "42-answer"); /* nothing written over */
	/* larger than a chunk: the measured path */
	char *huge = arena_printf(&ar, "%070000d", 7);
	assert_int_equal(strlen(huge), 70000);
	assert_int_equal(huge[69999], '7');
	char *dup = arena_strndup(&ar, "abcdef", 3);
	assert_string_equal(dup, "abc");
	arena_fini(&ar);
}

/* The word-at-a-time counts agree with a byte-at-a-time reading wherever
 * the non-ASCII byte falls, and lines keep their meaning. */
static void test_counts_word_at_a_time(void **state)
{
	(void)state;
	for (size_t at = 0; at < 30; at++) {
		char s[40];
		memset(s, 'a', sizeof s);
		memcpy(s + at, "\xC3\xA9", 2); /* e-acute: 2 bytes, 1 code point */
		assert_int_equal(utf8_count_code_points(s, 32), 31);
		s[at] = '\xFF'; /* invalid: one code point, then a stray continuation: another */
		assert_int_equal(utf8_count_code_points(s, 32), 32);
	}
	assert_int_equal(utf8_count_code_points("abcdefgh\xE4\xB8\x96", 11), 9);
	assert_int_equal(utf8_count_lines("", 0), 0);
	assert_int_equal(utf8_count_lines("a", 1), 1);
	assert_int_equal(utf8_count_lines("a\n", 2), 1);
	assert_int_equal(utf8_count_lines("\n\n", 2), 2);
	assert_int_equal(utf8_count_lines("a\nb", 3), 2);
	assert_int_equal(utf8_count_lines("a\nb\n\nccc", 8), 4);
	/* across words: newlines next to bytes 0x0A +- 1, 0x8A, 0x00 and 0xFF,
	 * at every offset, against a byte-at-a-time count */
	static const char around[] = { '\x0B', '\x09', '\x8A', '\0', '\xFF', 'a' };
	for (size_t len = 1; len <= 70; len++) {
		char buf[80];
		size_t want = 0;
		for (size_t i = 0; i < len; i++) {
			buf[i] = (i * 7 + len) % 5 == 0 ? '\n' : around[(i + len) % sizeof around];
			want += buf[i] == '\n';
		}
		want += buf[len - 1] != '\n';
		assert_int_equal(utf8_count_lines(buf, len), want);
	}
}

struct heard {
	int calls, finished;
	size_t done, total;
};

static void hear(void *ctx, const char *what, size_t done, size_t total, bool finished)
{
	struct heard *h = ctx;
	assert_string_equal(what, "reading");
	h->calls++;
	h->finished += finished;
	h->done = done;
	h->total = total;
}

/* Quiet for the first half second, then at most every interval; a last
 * call only when something was shown. */
static void test_progress_after_half_a_second(void **state)
{
	(void)state;
	struct heard h = { 0 };
	struct progress pr;
	progress_init(&pr, hear, &h);
	for (size_t i = 1; i <= 10 * PROGRESS_EVERY; i++)
		progress_tick(&pr, "reading", i, 100000);
	progress_done(&pr, "reading", 100000);
	assert_int_equal(h.calls, 0); /* fast work shows nothing, not even the end */

	progress_init(&pr, hear, &h);
	pr.start -= 2 * PROGRESS_DELAY_S; /* as if begun a second ago */
	for (size_t i = 1; i <= 10 * PROGRESS_EVERY; i++)
		progress_tick(&pr, "reading", i, 100000);
	assert_int_equal(h.calls, 1); /* the next ones are within the interval */
	assert_int_equal(h.done, PROGRESS_EVERY);
	assert_int_equal(h.total, 100000);
	pr.last -= 2 * PROGRESS_INTERVAL_S;
	for (size_t i = 1; i <= PROGRESS_EVERY; i++)
		progress_tick(&pr, "reading", 5000 + i, 100000);
	assert_int_equal(h.calls, 2);
	assert_int_equal(h.done, 5000 + PROGRESS_EVERY);
	progress_done(&pr, "reading", 100000);
	assert_int_equal(h.calls, 3);
	assert_int_equal(h.finished, 1);
	assert_int_equal(h.done, 100000);

	progress_tick(NULL, "reading", 1, 1); /* NULL-safe */
	progress_init(&pr, NULL, NULL);
	pr.start -= 10;
	for (size_t i = 0; i < 2 * PROGRESS_EVERY; i++)
		progress_tick(&pr, "reading", i, 0);
	progress_done(&pr, "reading", 0);
}

static void test_thousands_by_hand(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_thousands(b, 0), "0");
	assert_string_equal(fmt_thousands(b, 999), "999");
	assert_string_equal(fmt_thousands(b, 1000), "1,000");
	assert_string_equal(fmt_thousands(b, -1234567), "-1,234,567");
	assert_string_equal(fmt_thousands(b, INT64_MIN), "-9,223,372,036,854,775,808");
}

/* fmt_fixed3 is printf's "%.3f" exactly: halves, signs, the edges where it
 * hands over to printf, and many random doubles of every scale. */
static void test_fixed3_is_printf(void **state)
{
	(void)state;
	static const double edge[] = { 0.0, -0.0, 0.0005, 0.0015, 0.0025, 1.0005, -0.0004, -0.0005, 0.9995,
				       0.12345, 999999.9995, 1e6, -1e6, 1e300, -1e-300, 0.1, 0.7, 2.675 };
	char want[FIXED3_MAX], got[FIXED3_MAX];
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
		snprintf(want, sizeof want, "%.3f", edge[i]);
		assert_string_equal(fmt_fixed3(got, edge[i]), want);
	}
	unsigned long long x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
		v = (i % 4 == 0) ? v : (i % 4 == 1) ? -v * 10 : (i % 4 == 2) ? v * 1e6 : (double)(x % 100000) / 1000.0 + 0.0005;
		snprintf(want, sizeof want, "%.3f", v);
		assert_string_equal(fmt_fixed3(got, v), want);
	}
}

/* fmt_general6 is printf's "%.6g" exactly: the edges where the exponent
 * changes or rounding carries into a 7th digit, halves, signs, zeros, the
 * exponent form, and many random doubles of every scale. */
static void test_general6_is_printf(void **state)
{
	(void)state;
	static const double edge[] = { 0.0, -0.0, 1e-4, 0.00009999995, 0.000099999949, 999999.5, 999999.4,
				       99999.95, 1e5, 1e6, 123456.5, 0.1, 0.7, 2.675, 0.9629, 0.9999995, 0.99999949,
				       1.0, -1.0, 10, 4.0, 0.5, 1e-5, 1e300, -1e-300, 12.5, 0.125, 3.0000005, 1e15,
				       8.88889e44, -1e20, INFINITY, -INFINITY };
	char want[GENERAL6_MAX], got[GENERAL6_MAX];
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
		snprintf(want, sizeof want, "%.6g", edge[i]);
		assert_string_equal(fmt_general6(got, edge[i]), want);
	}
	unsigned long long x = 88172645463325252ULL;
	for (int i = 0; i < 300000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double v = (double)(x >> 11) / 9007199254740992.0; /* [0, 1) */
		switch (i % 6) {
		case 1: v = -v * 10; break;
		case 2: v *= 1e6; break;
		case 3: v = (double)(x % 1000000) / 1e6 + 5e-7; break; /* near halves */
		case 4: v = ldexp(v, (int)(x % 60) - 30); break;
		case 5: v = (double)(x % 10000) / 10000.0; break;
		default: break;
		}
		snprintf(want, sizeof want, "%.6g", v);
		assert_string_equal(fmt_general6(got, v), want);
	}
}

/* A max_lines cap is budgeted from the sorted array alone once the budget
 * is spent: the tokens named must be the capped content's (markers in),
 * for every strategy; a capped `never` file is still a max_lines drop. */
static void test_fast_drop_of_capped_files(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char *big = malloc(4001); /* 1,000 tokens: the whole budget */
	memset(big, 'y', 4000);
	big[4000] = '\0';
	support_write(dir, "a.txt", big);
	free(big);
	support_write(dir, "ten.txt", "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n");
	support_write(dir, "working-set.yml", "budget:\n  max_tokens: 1000\n  reserved_for_response: 0\nfiles:\n"
					       "  - path: a.txt\n    priority: 0.9\n"
					       "  - path: ten.txt\n    priority: 0.5\n    max_lines: 4\n");
	struct source *src = support_load(support_path(dir, "working-set.yml"), NULL);
	long ten = support_piece(src, "ten.txt");
	struct assembly a;
	/* end: "l1..l4\n" 12 + marker 21 = 33 code points; start: 21 + 13;
	 * middle: 6 + 21 + 7. Uncapped would be 31 (8 tokens). */
	static const char *const strategies[] = { "end", "start", "middle" };
	for (size_t i = 0; i < 3; i++) {
		char setting[64];
		snprintf(setting, sizeof setting, "ten.txt=%s", strategies[i]);
		support_set(src, "strategy", setting);
		support_assemble(src, &a);
		assert_int_equal(a.results[ten].reason, REASON_OVER_BUDGET);
		assert_string_equal(a.results[ten].sentence,
				    "dropped: over budget by 9 tokens (needs 9, 0 left of 1,000); nothing is left of the "
				    "budget; 1 file of higher priority took 1,000");
		asm_fini(&a);
	}
	support_set(src, "strategy", "ten.txt=never");
	support_assemble(src, &a);
	assert_int_equal(a.results[ten].reason, REASON_MAX_LINES);
	asm_fini(&a);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

/* The memory kind keeps its score order between assemblies: after a weight
 * change, and after an exclusion on a kept order, the prompt must be what
 * a fresh source with the same settings gives. */
static void test_memory_rank_order_kept_right(void **state)
{
	(void)state;
	const char *path = "samples/memory/coding-session.json";
	struct source *kept = support_load(path, NULL), *fresh = support_load(path, NULL);
	struct assembly a, b;
	support_assemble(kept, &a); /* sorts for the preset's weights */
	char *before = strdup(support_prompt(&a));
	asm_fini(&a);
	support_set(kept, "weight", "recency=0.5,relevance=0.3");
	support_set(fresh, "weight", "recency=0.5,relevance=0.3");
	support_assemble(kept, &a);
	support_assemble(fresh, &b);
	char *after = strdup(support_prompt(&a));
	assert_string_equal(after, support_prompt(&b));
	assert_string_not_equal(after, before); /* the weights moved items (ev-098 crosses in) */
	asm_fini(&a);
	asm_fini(&b);
	support_set(kept, "exclude", "ev-098");
	support_assemble(kept, &a);
	source_free(fresh);
	fresh = support_load(path, NULL);
	support_set(fresh, "weight", "recency=0.5,relevance=0.3");
	support_set(fresh, "exclude", "ev-098");
	support_assemble(fresh, &b);
	char *excluded = strdup(support_prompt(&a)); /* support_prompt's buffer is shared */
	assert_string_equal(excluded, support_prompt(&b));
	assert_string_not_equal(excluded, after);
	asm_fini(&a);
	asm_fini(&b);
	free(excluded);
	free(before);
	free(after);
	source_free(kept);
	source_free(fresh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_is_the_seeds),
		cmocka_unit_test(test_duplicates_found_everywhere),
		cmocka_unit_test(test_hint_without_duplicates),
		cmocka_unit_test(test_over_budget_sentence),
		cmocka_unit_test(test_max_lines_after_strategy_edits),
		cmocka_unit_test(test_shared_drop_sentences),
		cmocka_unit_test(test_arena_printf_one_pass),
		cmocka_unit_test(test_counts_word_at_a_time),
		cmocka_unit_test(test_progress_after_half_a_second),
		cmocka_unit_test(test_thousands_by_hand),
		cmocka_unit_test(test_fixed3_is_printf),
		cmocka_unit_test(test_general6_is_printf),
		cmocka_unit_test(test_fast_drop_of_capped_files),
		cmocka_unit_test(test_memory_rank_order_kept_right),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
