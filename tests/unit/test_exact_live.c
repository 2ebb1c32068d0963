/* test_exact_live.c: the inspector's exact counts, remembered by text
 * (exact_live.c): the line-start split they rest on holds for both
 * encodings on texts made to stress it; the live figures (total, per
 * piece, per layer) equal a full count on every sample; after an edit only
 * what changed is counted again, and the figures still equal a full count.
 * Without the rank files (`make deps`) every test fails saying why. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "cache/cache.h"
#include "config.h"
#include "edit.h"
#include "tokens/exact.h"
#include "base/strbuf.h"
#include "support.h"
#include "tokens/tokenizer.h"
#include "vm/viewmodel.h"

#include <stdio.h>
#include <string.h>

static long count(struct tokenizer *t, const char *s, size_t n)
{
	long c = -1;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_count(t, s, n, &c, &err), CS_OK);
	return c;
}

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Fragments the patterns treat differently around a newline: whitespace
 * runs, '/', punctuation runs, letters, digits, contractions, CJK, emoji. */
static const char *const fragments[] = {
	"\n", "\n", "\n\n", "\r\n", " ", "  ", "\t", "\t\t", "/", "//", "a", "The", " cat", "'s", "'LL", "123",
	"4567", "...", "});", "#", "-", "*", "\"", "x/y", "日本語", "é", "\xc2\xa0", "\xe3\x80\x80", "👩‍💻", "🇫🇷",
	"<|endoftext|>", "\xff", "=", "{", "}", "0x1F", "  \n", " \n\n", "if (", "\v", "\f",
};

/* Wherever a line start splits the count (a newline, then a printable
 * ASCII character other than '/'), the count of the whole is the sum of
 * the counts of both sides; 4,000 random texts per encoding. */
static void test_line_split(void **state)
{
	(void)state;
	const char *names[] = { "o200k_base", "cl100k_base" };
	size_t nfrag = sizeof fragments / sizeof *fragments;
	for (size_t k = 0; k < 2; k++) {
		struct tokenizer *t = support_tokenizer(names[k]);
		assert_true(tokenizer_splits_at_lines(t));
		uint64_t rng = 0x9e3779b97f4a7c15ULL + k;
		struct strbuf sb = STRBUF_INIT;
		size_t tried = 0;
		for (int i = 0; i < 4000; i++) {
			sb_reset(&sb);
			size_t parts = 2 + rng_next(&rng) % 14;
			for (size_t p = 0; p < parts; p++)
				sb_puts(&sb, fragments[rng_next(&rng) % nfrag]);
			const char *s = sb_str(&sb);
			for (size_t at = 1; at < sb.len; at++) {
				unsigned char c = (unsigned char)s[at];
				if (s[at - 1] != '\n' || c <= 0x20 || c >= 0x7f || c == '/')
					continue;
				long whole = count(t, s, sb.len), left = count(t, s, at), right = count(t, s + at, sb.len - at);
				if (whole != left + right)
					fail_msg("%s: \"%s\" split at %zu: %ld != %ld + %ld", names[k], s, at, whole, left, right);
				tried++;
			}
		}
		assert_true(tried > 1000);
		sb_fini(&sb);
		tokenizer_close(t);
	}
}

/* The live figures against a full count of the same assembly. */
static void assert_same(const struct exact_live *L, struct tokenizer *t, const struct assembly *a, const char *what)
{
	struct exact_counts x;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(exact_count(&x, t, a, &err), CS_OK);
	if (x.total != L->total)
		fail_msg("%s: live total %ld, counted whole %ld", what, L->total, x.total);
	assert_int_equal(x.over, L->over);
	assert_string_equal(x.note, L->note);
	assert_int_equal(L->npieces, a->src->npieces);
	for (size_t i = 0; i < a->src->npieces; i++)
		assert_int_equal(L->piece_tokens[i], x.piece_tokens[i]);
	for (size_t l = 0; l < x.nlayers; l++)
		assert_int_equal(L->layer_tokens[0][l], x.layer_tokens[l]);
	exact_fini(&x);
}

static const char *const samples[] = {
	"samples/manifest/cache-demo/working-set.yml",
	"samples/manifest/bugfix/working-set.yml",
	"samples/manifest/tuning-crlf/working-set.yml",
	"samples/loom/parser-debug.json",
	"samples/loom/postmortem-buffer.json",
	"samples/ledger/sqla-fork.json",
	"samples/memory/coding-session.json",
	"samples/requests/openai-chat.json",
	"samples/requests/anthropic-tools.json",
	"samples/claude-code/session.jsonl",
	"tests/fixtures/tokenizer/uuids/working-set.yml",
	"tests/fixtures/tokenizer/loom-gpt-4o.json",
};

/* Every sample, both encodings: the live count equals a full count, and
 * counting the same assembly again tokenizes nothing. */
static void test_live_equals_full(void **state)
{
	(void)state;
	const char *names[] = { "o200k_base", "cl100k_base" };
	for (size_t k = 0; k < 2; k++) {
		struct tokenizer *t = support_tokenizer(names[k]);
		for (size_t s = 0; s < sizeof samples / sizeof *samples; s++) {
			struct source *src = support_load(samples[s], NULL);
			struct assembly a;
			support_assemble(src, &a);
			struct exact_live L = { 0 };
			struct cs_error err;
			cs_error_clear(&err);
			assert_int_equal(exact_live_count(&L, t, &a, &err), CS_OK);
			size_t named = 0; /* an image's text only names it: never tokenized */
			for (size_t b = 0; b < a.nblocks; b++)
				named += a.blocks[b].flags & BLOCK_MEDIA ? a.blocks[b].bytes : 0;
			assert_true(L.counted_bytes + named >= a.total_bytes);
			assert_same(&L, t, &a, samples[s]);
			assert_int_equal(exact_live_count(&L, t, &a, &err), CS_OK);
			assert_int_equal(L.counted_bytes, 0);
			assert_same(&L, t, &a, samples[s]);
			exact_live_fini(&L);
			asm_fini(&a);
			source_free(src);
		}
		tokenizer_close(t);
	}
}

/* Images and documents count by their rule in every count, never as the
 * text that names them ("[image image/png 2000x1008]"): an image block is
 * its rule's tokens, a tool result holding one its text's and the image's,
 * the whole prompt each message's text without the names plus the images;
 * the live figures the same. */
static void test_media_counts(void **state)
{
	(void)state;
	const char *names[] = { "o200k_base", "cl100k_base" };
	for (size_t k = 0; k < 2; k++) {
		struct tokenizer *t = support_tokenizer(names[k]);
		struct source *src = support_load("tests/golden/request/shapes/images-anthropic.json", NULL);
		struct assembly a;
		support_assemble(src, &a);
		struct exact_counts x;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(exact_count(&x, t, &a, &err), CS_OK);
		struct strbuf text = STRBUF_INIT;
		long media = 0, images = 0, holders = 0, total = 0;
		for (size_t m = 0; m < a.nmessages; m++) {
			sb_reset(&text);
			for (size_t b = a.messages[m].first_block; b < a.messages[m].first_block + a.messages[m].nblocks; b++) {
				const struct block *bl = &a.blocks[b];
				media += bl->media_tokens;
				if (bl->flags & BLOCK_MEDIA) {
					assert_true(bl->media_tokens > 1000);
					assert_int_equal(x.piece_tokens[bl->piece], bl->media_tokens);
					images++;
					continue;
				}
				struct strbuf own = STRBUF_INIT;
				assert_true(asm_block_text(&a, b, &own));
				assert_int_equal(x.piece_tokens[bl->piece], count(t, sb_str(&own), own.len) + bl->media_tokens);
				holders += bl->media_tokens > 0;
				sb_fini(&own);
				assert_true(asm_block_text(&a, b, &text));
			}
			total += count(t, sb_str(&text), text.len);
		}
		assert_int_equal(images, 1);
		assert_int_equal(holders, 1);
		assert_int_equal(x.total, total + media);
		struct exact_live L = { 0 };
		assert_int_equal(exact_live_count(&L, t, &a, &err), CS_OK);
		assert_same(&L, t, &a, "images-anthropic.json");
		exact_live_fini(&L);
		sb_fini(&text);
		exact_fini(&x);
		asm_fini(&a);
		source_free(src);
		tokenizer_close(t);
	}
}

/* Random edits through the inspector: after each, the figures equal a full
 * count; over the series, far less is tokenized than the prompts hold. */
static void test_recount_after_edits(void **state)
{
	(void)state;
	const char *inputs[] = { "samples/manifest/bugfix/working-set.yml", "samples/loom/parser-debug.json",
				 "samples/memory/coding-session.json", "samples/manifest/over-budget/working-set.yml" };
	for (size_t s = 0; s < sizeof inputs / sizeof *inputs; s++) {
		struct vm vm;
		struct cs_error err;
		cs_error_clear(&err);
		assert_int_equal(vm_init(&vm, support_load(inputs[s], NULL), &err), CS_OK);
		if (vm_set_tokenizer(&vm, "o200k_base", &err) != CS_OK)
			fail_msg("%s (%s)", SUPPORT_RANKS_MISSING, err.message);
		assert_true(vm.exact.total > 0);
		uint64_t rng = 77 + s;
		size_t counted = 0, prompts = 0;
		for (int i = 0; i < 40; i++) {
			struct edit e = { 0 };
			e.piece = (long)(rng_next(&rng) % vm.session.src->npieces);
			e.type = EDIT_EXCLUDE;
			e.value = piece_excluded(&vm.session.src->pieces[e.piece]) ? 0 : 1;
			if (vm_apply(&vm, &e, &err) != CS_OK)
				continue;
			assert_same(&vm.exact.live, vm.exact.tok, &vm.session.cur, inputs[s]);
			assert_int_equal(vm.exact.total, vm.exact.live.total);
			counted += vm.exact.live.counted_bytes;
			prompts += vm.session.cur.total_bytes;
		}
		assert_true(prompts > 0);
		if (counted * 3 > prompts)
			fail_msg("%s: %zu bytes counted again for %zu in the prompts", inputs[s], counted, prompts);
		/* the row and layer figures the screen shows */
		for (size_t r = 0; r < vm.nrows; r++) {
			long x = vm_row_exact(&vm, support_row(&vm, r));
			if (support_row(&vm, r)->type == VM_ROW_MARKER)
				assert_int_equal(x, -1);
			else
				assert_true(x >= 0);
		}
		vm_fini(&vm);
	}
}

/* A dropped piece's whole text is counted once, then remembered. */
static void test_text_remembered(void **state)
{
	(void)state;
	struct tokenizer *t = support_tokenizer("cl100k_base");
	struct exact_live L = { 0 };
	struct cs_error err;
	cs_error_clear(&err);
	const char *s = "dropped piece: 0x1F 48f165d5-7b00-47f4-b81e-f86f5c8cc1ab\n";
	long n = exact_live_text(&L, t, s, strlen(s), &err);
	assert_int_equal(n, count(t, s, strlen(s)));
	assert_int_equal(L.counted_bytes, strlen(s));
	L.counted_bytes = 0;
	assert_int_equal(exact_live_text(&L, t, s, strlen(s), &err), n);
	assert_int_equal(L.counted_bytes, 0);
	/* many texts: the memo forgets what no count uses, and stays right */
	char buf[64];
	for (int i = 0; i < 5000; i++) {
		int len = snprintf(buf, sizeof buf, "text %d\n", i);
		assert_int_equal(exact_live_text(&L, t, buf, (size_t)len, &err), count(t, buf, (size_t)len));
	}
	exact_live_fini(&L);
	tokenizer_close(t);
}

/* A profile whose provider's tokenizer is public prices in exact counts:
 * the uuids the estimate puts under OpenAI's 1,024 minimum are over it
 * exactly, and a warm repeat reads every whole 128-token step of them;
 * without a measure, or for the other profiles, nothing changes. */
static void test_cache_in_exact_tokens(void **state)
{
	(void)state;
	size_t n;
	const struct cache_profile *profiles = cache_builtin_profiles(&n);
	const struct cache_profile *openai = NULL;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(profiles[i].exact, !strcmp(profiles[i].name, "openai"));
		if (profiles[i].exact)
			openai = &profiles[i];
	}
	assert_non_null(openai);
	/* a profile of the user's file based on openai prices as it does */
	struct cache_config cfg;
	cache_config_init(&cfg);
	struct cs_error cerr;
	cs_error_clear(&cerr);
	const char *yml = "profiles:\n  gateway:\n    based_on: openai\n    min_prefix: 512\n  other:\n    unit: 64\n";
	assert_int_equal(cache_config_parse(&cfg, yml, strlen(yml), &cerr), CS_OK);
	assert_true(cache_config_profile(&cfg, "gateway")->exact);
	assert_false(cache_config_profile(&cfg, "other")->exact);
	cache_config_fini(&cfg);
	struct tokenizer *t = support_tokenizer("o200k_base");
	struct source *src = support_load("tests/fixtures/tokenizer/uuids/working-set.yml", NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct exact_live L = { 0 };
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(exact_live_count(&L, t, &a, &err), CS_OK);
	struct cache_measure m = { L.block_tokens, L.block_tokens, L.total, L.total };
	struct cache_analysis est, exact;
	assert_int_equal(cache_analyze(&a, NULL, &a, NULL, openai, &est, &err), CS_OK);
	assert_int_equal(cache_analyze_measured(&a, NULL, &a, NULL, openai, &m, &exact, &err), CS_OK);
	assert_true(a.total_tokens < openai->min_prefix && L.total >= openai->min_prefix);
	assert_false(est.exact);
	assert_int_equal(est.now.read, 0);
	assert_true(exact.exact);
	assert_int_equal(exact.now.total, L.total);
	assert_int_equal(exact.now.read, L.total / openai->unit * openai->unit);
	assert_int_equal(exact.now.uncached, L.total - exact.now.read);
	cache_analysis_fini(&est);
	cache_analysis_fini(&exact);
	/* a NULL measure is the estimate */
	assert_int_equal(cache_analyze_measured(&a, NULL, &a, NULL, openai, NULL, &exact, &err), CS_OK);
	assert_false(exact.exact);
	assert_int_equal(exact.now.total, a.total_tokens);
	cache_analysis_fini(&exact);
	exact_live_fini(&L);
	asm_fini(&a);
	source_free(src);
	tokenizer_close(t);
}

/* Out of memory at every allocation of a count, then of a recount: the
 * error says so, the figures are -1, nothing leaks, and a later count with
 * memory is right again. */
static void test_out_of_memory(void **state)
{
	(void)state;
	struct tokenizer *t = support_tokenizer("cl100k_base");
	struct source *src = support_load("samples/manifest/bugfix/working-set.yml", NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct exact_counts want;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(exact_count(&want, t, &a, &err), CS_OK);
	bool done = false;
	for (long nth = 1; !done && nth < 400; nth++) {
		struct exact_live L = { 0 };
		cs_error_clear(&err);
		cs_alloc_fail_from(nth);
		int rc = exact_live_count(&L, t, &a, &err);
		if (rc == CS_OK) /* a recount after the first: the memo grows */
			rc = exact_live_count(&L, t, &a, &err);
		cs_alloc_fail_from(0);
		if (rc == CS_OK) {
			done = true;
		} else {
			assert_int_equal(rc, CS_ENOMEM);
			assert_int_equal(L.total, -1);
		}
		assert_int_equal(exact_live_count(&L, t, &a, &err), CS_OK);
		assert_int_equal(L.total, want.total);
		exact_live_fini(&L);
	}
	assert_true(done);
	exact_fini(&want);
	asm_fini(&a);
	source_free(src);
	tokenizer_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_split),
		cmocka_unit_test(test_live_equals_full),
		cmocka_unit_test(test_media_counts),
		cmocka_unit_test(test_recount_after_edits),
		cmocka_unit_test(test_text_remembered),
		cmocka_unit_test(test_cache_in_exact_tokens),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
