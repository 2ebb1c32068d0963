/* test_search.c: the pcre2 search and filter: smart case (ASCII and
 * non-ASCII capitals, escapes that are not capitals), UTF-8 offsets that
 * land on characters, hits in blocks, labels and texts with their counts,
 * n / N wrapping, a bad pattern's message and position, a catastrophic
 * pattern stopped quickly as "too costly", the filter and its inverse, and
 * out of memory at every allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "text/search.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	char *dir;
	struct source *src;
	struct assembly a;
};

static const char NOTES[] = "Timeout in the Parser: parser timeout after 30s\n";
static const char CAFE[] = "\xC3\x84rger mit dem Caf\xC3\xA9: \xC3\xA4rger \xC3\xBC" "berall\n"; /* Ärger mit dem Café: ärger überall */

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	f->dir = support_tempdir();
	support_write(f->dir, "ws.yml",
		      "protocol: CONTEXT-ASSEMBLY/0.1\n"
		      "budget:\n  max_tokens: 1000\n  reserved_for_response: 100\n"
		      "files:\n"
		      "  - path: notes.md\n    priority: 0.9\n"
		      "  - path: caf\xC3\xA9.md\n    priority: 0.5\n"
		      "  - path: stack.txt\n    priority: 0.4\n");
	support_write(f->dir, "notes.md", NOTES);
	support_write(f->dir, "caf\xC3\xA9.md", CAFE);
	/* what a catastrophic pattern chokes on: 40 a's, then a b */
	support_write(f->dir, "stack.txt", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\n");
	f->src = support_load(support_path(f->dir, "ws.yml"), NULL);
	support_assemble(f->src, &f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	asm_fini(&f->a);
	source_free(f->src);
	support_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static struct search_pattern *compile_ok(const char *pattern)
{
	struct search_pattern *p = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = search_pattern_compile(pattern, &p, NULL, &err);
	if (rc != CS_OK)
		fail_msg("%s: %s", pattern, err.message);
	return p;
}

static void run_ok(const struct search_pattern *p, const struct assembly *a, struct search_result *r)
{
	struct cs_error err;
	cs_error_clear(&err);
	int rc = search_run(p, a, r, &err);
	if (rc != CS_OK)
		fail_msg("%s", err.message);
}

static void test_smart_case_rules(void **state)
{
	(void)state;
	assert_true(search_smart_caseless("timeout"));
	assert_false(search_smart_caseless("Timeout"));
	assert_true(search_smart_caseless("\\W+\\S\\D\\B\\A")); /* escapes are not capitals */
	assert_true(search_smart_caseless("\\p{Lu}\\x{41}\\N{U+41}"));
	assert_true(search_smart_caseless("(?<Name>x)\\k<Name>(*UTF)"));
	assert_false(search_smart_caseless("\xC3\x84rger")); /* Ä */
	assert_true(search_smart_caseless("\xC3\xA4rger"));  /* ä */
	assert_false(search_smart_caseless("\\QAB\\E"));     /* quoted text is literal */
	assert_true(search_smart_caseless("\\xAB\\cA(?#Note)x")); /* hex digits, \cA, a comment */
	assert_false(search_smart_caseless("\\xABC"));       /* the C after two hex digits is one */
}

static void test_smart_case_search(void **state)
{
	struct fixture *f = *state;
	long notes = support_piece(f->src, "notes.md");
	struct search_result r;

	struct search_pattern *p = compile_ok("timeout");
	assert_true(search_pattern_caseless(p));
	run_ok(p, &f->a, &r);
	assert_int_equal(r.piece_text_hits[notes], 2); /* Timeout, timeout */
	assert_int_equal(r.piece_hits[notes], 2);      /* none in the label */
	assert_int_equal(r.nprompt_hits, 2);
	assert_int_equal(r.nhits, 4);
	/* the text hits, by byte offset in the text */
	const struct search_hit *h = &r.hits[r.nprompt_hits];
	assert_int_equal(h[0].target, SEARCH_TEXT);
	assert_int_equal(h[0].start, 0);
	assert_int_equal(h[0].end, 7);
	assert_int_equal(h[1].start, strstr(NOTES, "timeout") - NOTES);
	search_result_fini(&r);
	search_pattern_free(p);

	p = compile_ok("Timeout");
	assert_false(search_pattern_caseless(p));
	run_ok(p, &f->a, &r);
	assert_int_equal(r.piece_text_hits[notes], 1);
	assert_int_equal(r.nprompt_hits, 1);
	search_result_fini(&r);
	search_pattern_free(p);

	/* (?-i) in the pattern wins over smart case */
	p = compile_ok("(?-i)timeout");
	run_ok(p, &f->a, &r);
	assert_int_equal(r.piece_text_hits[notes], 1);
	search_result_fini(&r);
	search_pattern_free(p);
}

static void test_utf8_offsets_and_blocks(void **state)
{
	struct fixture *f = *state;
	long cafe = support_piece(f->src, "caf\xC3\xA9.md");
	struct search_result r;

	/* Unicode case folding: ärger finds Ärger and ärger */
	struct search_pattern *p = compile_ok("\xC3\xA4rger");
	run_ok(p, &f->a, &r);
	assert_int_equal(r.piece_text_hits[cafe], 2);
	const struct search_hit *h = &r.hits[r.nprompt_hits];
	assert_int_equal(h[0].start, 0);
	assert_int_equal(h[0].end, 6); /* Ä is two bytes */
	assert_int_equal(h[1].start, 22);
	assert_int_equal(h[1].end, 28);
	/* the block hits point at the same characters in the rendered text */
	assert_int_equal(r.nprompt_hits, 2);
	struct strbuf text = STRBUF_INIT;
	for (size_t i = 0; i < r.nprompt_hits; i++) {
		sb_reset(&text);
		assert_true(asm_block_text(&f->a, (size_t)r.hits[i].index, &text));
		assert_int_equal(r.hits[i].end - r.hits[i].start, 6);
		assert_memory_equal(sb_str(&text) + r.hits[i].start + 2, "rger", 4); /* after Ä or ä */
		assert_int_equal(r.block_hits[r.hits[i].index] >= 1, 1);
	}
	sb_fini(&text);
	search_result_fini(&r);
	search_pattern_free(p);

	/* \w knows é; the label counts too, before the text */
	p = compile_ok("caf\\w");
	run_ok(p, &f->a, &r);
	assert_int_equal(r.piece_hits[cafe], 2);      /* label café.md, text Café */
	assert_int_equal(r.piece_text_hits[cafe], 1);
	h = &r.hits[r.nprompt_hits];
	assert_int_equal(h[0].target, SEARCH_LABEL);
	assert_int_equal(h[0].end - h[0].start, 5);   /* "café": 5 bytes */
	assert_int_equal(h[1].target, SEARCH_TEXT);
	assert_true(h[1].key > h[0].key);
	assert_int_equal(r.nprompt_hits, 2);          /* the wrapper's path="café.md" and Café */
	search_result_fini(&r);
	search_pattern_free(p);
}

static void test_step_and_from(void **state)
{
	struct fixture *f = *state;
	struct search_result r;
	struct search_pattern *p = compile_ok("r");
	run_ok(p, &f->a, &r);
	assert_true(r.nprompt_hits > 2);
	size_t lo = r.nprompt_hits, hi = r.nhits;
	assert_true(hi - lo > 2);
	/* n and N wrap within a scope and never cross into the other one */
	assert_int_equal(search_step(&r, 0, true), (long)lo - 1);
	assert_int_equal(search_step(&r, (long)lo - 1, false), 0);
	assert_int_equal(search_step(&r, (long)hi - 1, false), (long)lo);
	assert_int_equal(search_step(&r, (long)lo, true), (long)hi - 1);
	assert_int_equal(search_step(&r, (long)lo, false), (long)lo + 1);
	assert_int_equal(search_step(&r, (long)hi, false), -1);
	/* from the start of a piece: its first hit; past the last piece: wraps */
	long cafe = support_piece(f->src, "caf\xC3\xA9.md");
	long at = search_from(&r, SEARCH_SCOPE_PIECES, cafe, 0, false);
	assert_int_equal(r.hits[at].index, cafe);
	assert_true(at == (long)lo || r.hits[at - 1].index < cafe);
	assert_int_equal(search_from(&r, SEARCH_SCOPE_PIECES, 99, 0, false), (long)lo);
	/* backward from the start of café: the last hit before it (notes.md) */
	long back = search_from(&r, SEARCH_SCOPE_PIECES, cafe, 0, true);
	assert_true(r.hits[back].index < cafe);
	assert_int_equal(r.hits[back + 1].index, cafe);
	/* in the prompt: from block 0 forward is hit 0 */
	assert_int_equal(search_from(&r, SEARCH_SCOPE_PROMPT, 0, 0, false), 0);
	search_result_fini(&r);
	search_pattern_free(p);

	/* a scope without hits */
	p = compile_ok("stack\\.txt");
	run_ok(p, &f->a, &r);
	assert_int_equal(r.nhits - r.nprompt_hits, 1);
	assert_int_equal(search_from(&r, SEARCH_SCOPE_PROMPT, 0, 0, false),
			 r.nprompt_hits ? 0 : -1);
	search_result_fini(&r);
	search_pattern_free(p);
}

static void test_describe(void **state)
{
	struct fixture *f = *state;
	struct search_result r;
	struct search_pattern *p = compile_ok("timeout");
	run_ok(p, &f->a, &r); /* 2 in the prompt, 2 in pieces */
	struct strbuf sb = STRBUF_INIT;
	assert_true(search_describe(&r, -1, &sb));
	assert_string_equal(sb_str(&sb), "2 matches in the prompt, 2 in pieces");
	sb_reset(&sb);
	assert_true(search_describe(&r, 1, &sb));
	assert_string_equal(sb_str(&sb), "match 2 of 2 in the prompt (2 in pieces)");
	sb_reset(&sb);
	assert_true(search_describe(&r, 2, &sb));
	assert_string_equal(sb_str(&sb), "match 1 of 2 in pieces (2 in the prompt)");
	search_result_fini(&r);
	search_pattern_free(p);
	p = compile_ok("zebra");
	run_ok(p, &f->a, &r);
	sb_reset(&sb);
	assert_true(search_describe(&r, -1, &sb));
	assert_string_equal(sb_str(&sb), "no match");
	search_result_fini(&r);
	search_pattern_free(p);
	/* a capped scope says so */
	r = (struct search_result){ .nhits = SEARCH_MAX_HITS + 3, .nprompt_hits = SEARCH_MAX_HITS, .capped = true };
	sb_reset(&sb);
	assert_true(search_describe(&r, 0, &sb));
	assert_string_equal(sb_str(&sb), "match 1 of 100,000+ in the prompt (3 in pieces)");
	sb_fini(&sb);
}

static void test_empty_matches_are_not_hits(void **state)
{
	struct fixture *f = *state;
	struct search_result r;
	struct search_pattern *p = compile_ok("x*");
	run_ok(p, &f->a, &r);
	/* one hit per x: in the prompt, the wrappers' "context" and "stack.txt";
	 * in the pieces, only the label "stack.txt" (no text holds an x) */
	size_t xs = 0;
	for (const char *s = support_prompt(&f->a); *s; s++)
		xs += *s == 'x';
	assert_true(xs >= 6);
	assert_int_equal(r.nprompt_hits, xs);
	assert_int_equal(r.nhits - r.nprompt_hits, 1);
	assert_int_equal(r.hits[r.nprompt_hits].target, SEARCH_LABEL);
	assert_int_equal(r.hits[r.nprompt_hits].end - r.hits[r.nprompt_hits].start, 1);
	search_result_fini(&r);
	search_pattern_free(p);
}

static void test_bad_pattern(void **state)
{
	(void)state;
	struct search_pattern *p = (struct search_pattern *)1;
	struct cs_error err;
	size_t off = 99;
	cs_error_clear(&err);
	assert_int_equal(search_pattern_compile("time(out", &p, &off, &err), CS_EUSAGE);
	assert_null(p);
	assert_int_equal(off, 8);
	assert_int_equal(err.column, 9);
	assert_non_null(strstr(err.message, "missing closing parenthesis"));
	assert_non_null(strstr(err.message, "character 9"));

	/* the position counts characters, not bytes */
	cs_error_clear(&err);
	assert_int_equal(search_pattern_compile("\xC3\xA9t\xC3\xA9[", &p, &off, &err), CS_EUSAGE);
	assert_int_equal(off, 6);
	assert_int_equal(err.column, 5);
	assert_non_null(strstr(err.message, "missing terminating ]"));

	cs_error_clear(&err);
	assert_int_equal(search_pattern_compile("a{2,1}", &p, NULL, &err), CS_EUSAGE);
	assert_non_null(strstr(err.message, "out of order"));
}

static void test_catastrophic_pattern(void **state)
{
	struct fixture *f = *state;
	struct search_pattern *p = compile_ok("(a+)+$");
	struct search_result r;
	struct cs_error err;
	cs_error_clear(&err);
	/* 2^40 steps unbounded: the step limit stops it (not the clock, which a
	 * loaded machine would reach first: the whole-search limit is off) */
	search_pattern_set_time_limit(p, 0);
	assert_int_equal(search_run(p, &f->a, &r, &err), CS_ELIMIT);
	assert_non_null(strstr(err.message, "pattern too costly: it backtracks past the limit of"));
	assert_int_equal(r.nhits, 0);
	assert_null(r.hits);

	/* the filter: too costly keeps everything */
	bool keep[3] = { false, false, false };
	size_t kept = 0;
	cs_error_clear(&err);
	assert_int_equal(search_filter(p, f->src, false, keep, &kept, &err), CS_ELIMIT);
	assert_int_equal(kept, 3);
	assert_true(keep[0] && keep[1] && keep[2]);
	search_result_fini(&r);
	search_pattern_free(p);
}

/* A pattern that stays under the per-call limits but costs a quarter of a
 * second over a long session: the whole-search time limit stops it. */
static void test_time_limit(void **state)
{
	(void)state;
	struct source *src = support_load("samples/loom/long-session.json", NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct search_pattern *p = compile_ok("(\\w*)*\\d");
	struct search_result r;
	struct cs_error err;
	search_pattern_set_time_limit(p, 1);
	cs_error_clear(&err);
	assert_int_equal(search_run(p, &a, &r, &err), CS_ELIMIT);
	assert_string_equal(err.message, "pattern too costly: the search took more than 1 ms");
	assert_int_equal(r.nhits, 0);
	/* without the limit it finishes, with hits: the limit was what stopped it */
	search_pattern_set_time_limit(p, 0);
	assert_int_equal(search_run(p, &a, &r, &err), CS_OK);
	assert_true(r.nhits > 0);
	search_result_fini(&r);
	search_pattern_free(p);
	asm_fini(&a);
	source_free(src);
}

/* More hits than SEARCH_MAX_HITS: each scope is capped on its own, so the
 * prompt's hits never starve the pieces' highlights, and stops its work
 * there (counted in pcre2 calls, not timed). */
static void test_cap_per_scope(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ws.yml",
		      "protocol: CONTEXT-ASSEMBLY/0.1\n"
		      "budget:\n  max_tokens: 100000\n  reserved_for_response: 1000\n"
		      "files:\n  - path: big.txt\n    priority: 0.9\n");
	size_t n = SEARCH_MAX_HITS + 20000;
	char *big = malloc(n);
	memset(big, 'a', n);
	support_write_bytes(dir, "big.txt", big, n);
	free(big);
	struct source *src = support_load(support_path(dir, "ws.yml"), NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct search_pattern *p = compile_ok("a");
	search_pattern_set_time_limit(p, 0); /* what is measured is the work, not the machine's speed */
	struct search_result r;
	run_ok(p, &a, &r);
	assert_true(r.capped);
	/* each scope stops calling pcre2 at its cap: about SEARCH_MAX_HITS calls
	 * a scope, not one a character of the prompt and the piece (twice as many) */
	assert_true(r.match_calls >= 2 * (size_t)SEARCH_MAX_HITS);
	assert_true(r.match_calls <= 2 * (size_t)SEARCH_MAX_HITS + 16);
	assert_int_equal(r.nprompt_hits, SEARCH_MAX_HITS);
	assert_int_equal(r.nhits - r.nprompt_hits, SEARCH_MAX_HITS);
	assert_int_equal(r.piece_text_hits[0], SEARCH_MAX_HITS);
	assert_int_equal(r.hits[r.nprompt_hits].target, SEARCH_TEXT);
	search_result_fini(&r);
	search_pattern_free(p);
	asm_fini(&a);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_filter_and_invert(void **state)
{
	struct fixture *f = *state;
	long notes = support_piece(f->src, "notes.md");
	long cafe = support_piece(f->src, "caf\xC3\xA9.md");
	long stack = support_piece(f->src, "stack.txt");
	struct cs_error err;
	bool keep[3];
	size_t kept;

	/* over label and text: "md" is in two labels; "parser" in one text */
	struct search_pattern *p = compile_ok("\\.md$|parser");
	assert_int_equal(search_filter(p, f->src, false, keep, &kept, &err), CS_OK);
	assert_int_equal(kept, 2);
	assert_true(keep[notes]);
	assert_true(keep[cafe]);
	assert_false(keep[stack]);
	assert_int_equal(search_filter(p, f->src, true, keep, &kept, &err), CS_OK);
	assert_int_equal(kept, 1);
	assert_false(keep[notes]);
	assert_false(keep[cafe]);
	assert_true(keep[stack]);
	search_pattern_free(p);

	p = compile_ok("\xC3\xBC" "berall"); /* text only */
	assert_int_equal(search_filter(p, f->src, false, keep, &kept, &err), CS_OK);
	assert_int_equal(kept, 1);
	assert_true(keep[cafe]);
	search_pattern_free(p);

	bool found = true;
	p = compile_ok("PARSER"); /* a capital: case-sensitive, no match */
	assert_int_equal(search_pattern_find(p, NOTES, strlen(NOTES), &found, &err), CS_OK);
	assert_false(found);
	search_pattern_free(p);
}

static void test_invalid_utf8_text(void **state)
{
	(void)state;
	/* hits on both sides of invalid bytes, at their offsets in the whole text;
	 * ^ and $ only at the text's own ends, not at an invalid byte */
	{
		struct search_pattern *p = compile_ok("\\w+");
		struct cs_error err;
		const char t[] = "ab\xFF" "cd\xC3\xA9\xC3(ef";
		bool found = false;
		assert_int_equal(search_pattern_find(p, t, sizeof t - 1, &found, &err), CS_OK);
		assert_true(found);
		search_pattern_free(p);
		p = compile_ok("^cd");
		assert_int_equal(search_pattern_find(p, t, sizeof t - 1, &found, &err), CS_OK);
		assert_false(found);
		search_pattern_free(p);
		p = compile_ok("ab$");
		assert_int_equal(search_pattern_find(p, t, sizeof t - 1, &found, &err), CS_OK);
		assert_false(found);
		search_pattern_free(p);
		p = compile_ok("ef$");
		assert_int_equal(search_pattern_find(p, t, sizeof t - 1, &found, &err), CS_OK);
		assert_true(found);
		search_pattern_free(p);
	}
	struct search_pattern *p = compile_ok("b.d");
	struct cs_error err;
	bool found = false;
	/* an invalid byte before the match does not make the search fail */
	const char text[] = "x\xFF\xFE abd";
	assert_int_equal(search_pattern_find(p, text, sizeof text - 1, &found, &err), CS_OK);
	assert_false(found); /* "abd": b then d, nothing between */
	search_pattern_free(p);
	p = compile_ok("a.d");
	assert_int_equal(search_pattern_find(p, text, sizeof text - 1, &found, &err), CS_OK);
	assert_true(found);
	search_pattern_free(p);
}

/* Offsets of hits around invalid bytes are offsets in the whole text. */
static void test_invalid_utf8_offsets(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	support_write(dir, "ws.yml", "protocol: CONTEXT-ASSEMBLY/0.1\nfiles:\n  - path: bad.txt\n    priority: 0.5\n");
	/* a b FF c d é(C3 A9) C3 ( e f: two invalid bytes */
	support_write(dir, "bad.txt", "ab\xFF" "cd\xC3\xA9\xC3(ef");
	struct source *src = support_load(support_path(dir, "ws.yml"), NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct search_pattern *p = compile_ok("\\w+");
	struct search_result r;
	run_ok(p, &a, &r);
	assert_int_equal(r.piece_text_hits[0], 3);
	const struct search_hit *h = &r.hits[r.nhits - 3];
	assert_int_equal(h[0].target, SEARCH_TEXT);
	assert_int_equal(h[0].start, 0);
	assert_int_equal(h[0].end, 2);
	assert_int_equal(h[1].start, 3);
	assert_int_equal(h[1].end, 7); /* cdé */
	assert_int_equal(h[2].start, 9);
	assert_int_equal(h[2].end, 11);
	search_result_fini(&r);
	search_pattern_free(p);
	asm_fini(&a);
	source_free(src);
	support_rmtree(dir);
	free(dir);
}

static void test_out_of_memory(void **state)
{
	struct fixture *f = *state;
	bool saw_ok = false;
	for (long n = 1; n < 400 && !saw_ok; n++) {
		struct search_pattern *p = NULL;
		struct search_result r;
		struct cs_error err;
		memset(&r, 0, sizeof r);
		cs_error_clear(&err);
		cs_alloc_fail_from(n);
		int rc = search_pattern_compile("caf\\w|timeout", &p, NULL, &err);
		if (rc == CS_OK)
			rc = search_run(p, &f->a, &r, &err);
		cs_alloc_fail_from(0);
		assert_true(rc == CS_OK || rc == CS_ENOMEM);
		if (rc == CS_OK) {
			saw_ok = true;
			assert_int_equal(r.nhits, 8);
		}
		search_result_fini(&r);
		search_pattern_free(p);
	}
	assert_true(saw_ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smart_case_rules),
		cmocka_unit_test_setup_teardown(test_smart_case_search, setup, teardown),
		cmocka_unit_test_setup_teardown(test_utf8_offsets_and_blocks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_and_from, setup, teardown),
		cmocka_unit_test_setup_teardown(test_describe, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_matches_are_not_hits, setup, teardown),
		cmocka_unit_test(test_bad_pattern),
		cmocka_unit_test_setup_teardown(test_catastrophic_pattern, setup, teardown),
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_cap_per_scope),
		cmocka_unit_test_setup_teardown(test_filter_and_invert, setup, teardown),
		cmocka_unit_test(test_invalid_utf8_text),
		cmocka_unit_test(test_invalid_utf8_offsets),
		cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
	};
	return cmocka_run_group_tests_name("search", tests, NULL, NULL);
}
