/* test_tokenizer.c: exact token counts (bpe.h, tokenizer.h) against
 * gpt-tokenizer: its own test vectors (data/TestPlans.txt, fetched with the
 * rank files by `make deps`) for o200k_base and cl100k_base, vectors taken
 * from it under node, the two merge strategies against each other, 10 MB of
 * whitespace, invalid UTF-8, and the rank files' errors. Without the rank
 * files every test that needs them fails with the sentence saying why. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/base64.h"
#include "tokens/bpe.h"
#include "tokens/bpe_cache.h"
#include "tokens/exact.h"
#include "base/fileio.h"
#include "support.h"
#include "tokens/tokenizer.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void assert_tokens(struct tokenizer *t, const char *s, size_t n, const uint32_t *want, size_t nwant)
{
	uint32_t *got = NULL;
	size_t ngot = 0;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_encode(t, s, n, &got, &ngot, &err), CS_OK);
	bool same = ngot == nwant && (!nwant || !memcmp(got, want, nwant * sizeof *want));
	if (!same) {
		fprintf(stderr, "%s: \"%.*s\": got %zu tokens, want %zu:", tokenizer_name(t), (int)n, s, ngot, nwant);
		for (size_t i = 0; i < ngot && i < 40; i++)
			fprintf(stderr, " %u", got[i]);
		fprintf(stderr, "\n");
	}
	long count = -1;
	assert_int_equal(tokenizer_count(t, s, n, &count, &err), CS_OK);
	assert_int_equal(count, (long)ngot);
	cs_free(got);
	assert_true(same);
}

/* "Encoded: [1, 2, 3]" -> want; returns the count. */
static size_t parse_encoded(const char *line, uint32_t *want, size_t cap)
{
	size_t n = 0;
	for (const char *p = strchr(line, '['); p && *p && *p != ']' && n < cap;) {
		p++;
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		char *end;
		want[n++] = (uint32_t)strtoul(p, &end, 10);
		p = end;
	}
	return n;
}

/* Runs every sample of TestPlans.txt for this encoding; returns how many. */
static int run_plans(const char *encoding)
{
	char path[4096];
	if (!tokenizer_find(encoding, path, sizeof path))
		fail_msg("%s", SUPPORT_RANKS_MISSING);
	strcpy(strrchr(path, '/') + 1, "TestPlans.txt");
	char *text = NULL;
	size_t len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	if (file_read(path, 0, &text, &len, NULL, &err) != CS_OK)
		fail_msg("%s (%s)", SUPPORT_RANKS_MISSING, err.message);
	struct tokenizer *t = support_tokenizer(encoding);
	static uint32_t want[4096];
	int ran = 0;
	bool mine = false;
	const char *sample = NULL;
	size_t sample_len = 0;
	for (char *line = text, *nl; line < text + len; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(text + len - line));
		if (!nl)
			nl = text + len;
		if (!strncmp(line, "EncodingName: ", 14))
			mine = (size_t)(nl - line - 14) == strlen(encoding) && !strncmp(line + 14, encoding, strlen(encoding));
		else if (!strncmp(line, "Sample: ", 8))
			sample = line + 8, sample_len = (size_t)(nl - line - 8);
		else if (mine && sample && !strncmp(line, "Encoded: ", 9)) {
			*nl = '\0';
			size_t n = parse_encoded(line, want, sizeof want / sizeof *want);
			assert_tokens(t, sample, sample_len, want, n);
			ran++;
			sample = NULL;
		}
	}
	tokenizer_close(t);
	cs_free(text);
	return ran;
}

static void test_plans_o200k(void **state)
{
	(void)state;
	assert_true(run_plans("o200k_base") >= 50);
}

static void test_plans_cl100k(void **state)
{
	(void)state;
	assert_true(run_plans("cl100k_base") >= 50);
}

/* Taken from gpt-tokenizer 4.0.0 under node (disallowedSpecial: none). */
static void test_node_vectors(void **state)
{
	(void)state;
	struct tokenizer *o = support_tokenizer("o200k"), *c = support_tokenizer("cl100k_base");
	const char *eot = "<|endoftext|>";
	assert_tokens(o, eot, strlen(eot), (const uint32_t[]){ 27, 91, 419, 1440, 919, 91, 29 }, 7);
	assert_tokens(c, eot, strlen(eot), (const uint32_t[]){ 27, 91, 8862, 728, 428, 91, 29 }, 7);
	/* JavaScript's whitespace: NBSP and U+FEFF are \s there. gpt-tokenizer
	 * gives U+FEFF as [5416, 123] (o200k): its TextDecoder drops a leading
	 * BOM from the token it keys by text; tiktoken's ranks say 5574. */
	const char *ws = "x \xC2\xA0 \xEF\xBB\xBFy";
	assert_tokens(o, ws, strlen(ws), (const uint32_t[]){ 87, 35753, 220, 5574, 88 }, 5);
	const char *contr = "don't WE\xE2\x80\x99RE I'LL";
	assert_tokens(o, contr, strlen(contr), (const uint32_t[]){ 91418, 26919, 438, 1099, 3413, 7454 }, 6);
	assert_tokens(c, contr, strlen(contr), (const uint32_t[]){ 15357, 956, 20255, 529, 793, 358, 6, 4178 }, 8);
	tokenizer_close(o);
	tokenizer_close(c);
}

/* Invalid UTF-8 reads as node reads the file: each maximal invalid subpart
 * becomes U+FFFD (o200k 3251). */
static void test_invalid_utf8(void **state)
{
	(void)state;
	struct tokenizer *o = support_tokenizer("o200k_base");
	assert_tokens(o, "a\xFF" "b", 3, (const uint32_t[]){ 64, 3251, 65 }, 3);
	assert_tokens(o, "a\xE2\x82" "b", 4, (const uint32_t[]){ 64, 3251, 65 }, 3);   /* truncated: one */
	assert_tokens(o, "\xED\xA0\x80", 3, (const uint32_t[]){ 72387 }, 1); /* a surrogate: three U+FFFD, one token */
	assert_tokens(o, "\xC0\xAF", 2, (const uint32_t[]){ 10123 }, 1); /* overlong: two U+FFFD, one token */
	tokenizer_close(o);
}

/* 10 MB of whitespace is one piece: the split must not hit pcre2's match
 * limit, and the merge must not be quadratic. 20,000 spaces: 157 (node). */
static void test_long_whitespace(void **state)
{
	(void)state;
	struct tokenizer *t[2] = { support_tokenizer("o200k_base"), support_tokenizer("cl100k_base") };
	size_t n = 10u << 20;
	char *s = malloc(n);
	assert_non_null(s);
	struct cs_error err;
	cs_error_clear(&err);
	long count = 0;
	memset(s, ' ', 20000);
	assert_int_equal(tokenizer_count(t[0], s, 20000, &count, &err), CS_OK);
	assert_int_equal(count, 157);
	/* o200k: lines of spaces and tabs (its [\s]*[\r\n]+ backtracks over all
	 * of it); cl100k: spaces, 128 a token */
	for (size_t i = 0; i < n; i++)
		s[i] = i % 1001 == 1000 ? '\n' : i % 7 ? ' ' : '\t';
	assert_int_equal(tokenizer_count(t[0], s, n, &count, &err), CS_OK);
	assert_true(count > 0 && count < (long)n);
	long jit_count = count;
	tokenizer_use_jit(t[0], false); /* pcre2's interpreter: its match limit */
	assert_int_equal(tokenizer_count(t[0], s, n, &count, &err), CS_OK);
	assert_int_equal(count, jit_count);
	memset(s, ' ', n);
	assert_int_equal(tokenizer_count(t[1], s, n, &count, &err), CS_OK);
	assert_int_equal(count, (long)(n / 128));
	tokenizer_close(t[0]);
	tokenizer_close(t[1]);
	free(s);
}

/* The heap (long pieces) and the linear scan (short ones) merge alike. */
static void test_merge_strategies_agree(void **state)
{
	(void)state;
	struct tokenizer *t = support_tokenizer("o200k_base");
	static const char *const alphabet[] = { " ", "a", "b", "e", "r", "1", "\xC3\xA9", "-", "=", "\n", "th", "in" };
	unsigned seed = 12345;
	for (int round = 0; round < 400; round++) {
		char s[BPE_SHORT_PIECE + 8];
		size_t n = 0, want = 1 + (size_t)round % 200;
		while (n < want) {
			seed = seed * 1103515245u + 12345u;
			const char *a = alphabet[(seed >> 16) % (sizeof alphabet / sizeof *alphabet)];
			if (n + strlen(a) > BPE_SHORT_PIECE)
				break;
			memcpy(s + n, a, strlen(a));
			n += strlen(a);
		}
		uint32_t lin[BPE_SHORT_PIECE], heap[BPE_SHORT_PIECE];
		long a = bpe_merge_linear(tokenizer_ranks(t), (const unsigned char *)s, n, lin);
		long b = bpe_merge_heap(tokenizer_ranks(t), (const unsigned char *)s, n, heap);
		assert_true(a > 0);
		assert_int_equal(a, b);
		assert_memory_equal(lin, heap, (size_t)a * sizeof *lin);
	}
	tokenizer_close(t);
}

static void test_for_model(void **state)
{
	(void)state;
	assert_string_equal(tokenizer_for_model("gpt-4o-mini"), "o200k_base");
	assert_string_equal(tokenizer_for_model("gpt-4.1"), "o200k_base");
	assert_string_equal(tokenizer_for_model("gpt-5"), "o200k_base");
	assert_string_equal(tokenizer_for_model("o3-mini"), "o200k_base");
	assert_string_equal(tokenizer_for_model("openai/o1"), "o200k_base");
	assert_string_equal(tokenizer_for_model("openai:gpt-4o, limit 128,000 from the model table"), "o200k_base");
	assert_string_equal(tokenizer_for_model("gpt-4.1-mini via openai"), "o200k_base");
	assert_string_equal(tokenizer_for_model("gpt-4-turbo"), "cl100k_base");
	assert_string_equal(tokenizer_for_model("gpt-4"), "cl100k_base");
	assert_string_equal(tokenizer_for_model("gpt-3.5-turbo"), "cl100k_base");
	assert_string_equal(tokenizer_for_model("claude-sonnet-4"), "claude");
	assert_string_equal(tokenizer_for_model("claude-3-5-haiku-20241022"), "claude");
	assert_string_equal(tokenizer_for_model("anthropic/claude-opus-4.5"), "claude");
	assert_string_equal(tokenizer_for_model("us.anthropic.claude-sonnet-4-5-20250929-v1:0"), "claude");
	assert_true(tokenizer_is_claude("anthropic:claude-haiku-4-5"));
	assert_false(tokenizer_is_claude("clau"));
	assert_null(tokenizer_for_model("o1x"));
	assert_null(tokenizer_for_model("gemini-2.5-pro"));
	assert_null(tokenizer_for_model(NULL));
}

/* A path is any .tiktoken file; errors say which file and line. */
static void test_rank_files(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct tokenizer *t = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_open(support_path(dir, "none.tiktoken"), &t, &err), CS_EIO);
	assert_null(t);
	support_write(dir, "bad.tiktoken", "IQ== 0\nnot-base64! 1\n");
	assert_int_equal(tokenizer_open(support_path(dir, "bad.tiktoken"), &t, &err), CS_ESYNTAX);
	assert_int_equal(err.line, 2);
	support_write_byte_ranks(dir, "tiny.tiktoken"); /* all 256 bytes, then "ab" */
	assert_int_equal(tokenizer_open(support_path(dir, "tiny.tiktoken"), &t, &err), CS_OK);
	assert_string_equal(tokenizer_name(t), "tiny.tiktoken");
	assert_tokens(t, "abc ab", 6, (const uint32_t[]){ 256, 'c', ' ', 256 }, 4);
	tokenizer_close(t);
	support_rmtree(dir);
	free(dir);
}

/* Tokens past 255 bytes (claude's runs of spaces go to 1,024): found whole,
 * and merged to. */
static void test_long_tokens(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	FILE *f = fopen(support_path(dir, "r50k_long.tiktoken"), "w");
	assert_non_null(f);
	support_byte_ranks(f);
	/* runs of 2, 4, ... 512 spaces, then 600 spaces (not a power of two) */
	int rank = 256;
	for (int n = 2; n <= 512; n *= 2) {
		for (int i = 0; i < n / 3; i++)
			fputs("ICAg", f); /* three spaces */
		fputs(n % 3 == 1 ? "IA==" : n % 3 == 2 ? "ICA=" : "", f);
		fprintf(f, " %d\n", rank++);
	}
	for (int i = 0; i < 200; i++)
		fputs("ICAg", f);
	fprintf(f, " %d\n", rank++);
	fclose(f);
	struct tokenizer *t = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_open(support_path(dir, "r50k_long.tiktoken"), &t, &err), CS_OK);
	char text[700];
	memset(text, ' ', sizeof text);
	assert_int_equal(bpe_rank(tokenizer_ranks(t), (const unsigned char *)text, 600), 265);
	assert_int_equal(bpe_rank(tokenizer_ranks(t), (const unsigned char *)text, 512), 264);
	assert_int_equal(bpe_rank(tokenizer_ranks(t), (const unsigned char *)text, 601), BPE_NO_RANK);
	/* r50k splits a text of spaces alone into one piece: 600 is a token
	 * whole; 512 is merged to pairwise; 601 merges to 512+64+16+8+1 (no
	 * pair of those is a token), twice (the second remembered) */
	long want[][2] = { { 600, 1 }, { 512, 1 }, { 601, 5 }, { 601, 5 } };
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		long count = 0;
		assert_int_equal(tokenizer_count(t, text, (size_t)want[i][0], &count, &err), CS_OK);
		assert_int_equal(count, want[i][1]);
	}
	tokenizer_close(t);
	support_rmtree(dir);
	free(dir);
}

/* The claude encoding against ai-tokenizer 1.0.6's own encode() (the ids
 * printed under node; -1 where it returns the inherited member, see
 * tokenizer.c js_inherited). */
static void test_claude_vectors(void **state)
{
	(void)state;
	struct tokenizer *t = support_tokenizer("claude");
	assert_true(tokenizer_approximate(t));
	assert_true(tokenizer_name_approximate("claude"));
	assert_false(tokenizer_name_approximate("o200k_base"));
	static const char cjk[] = "日本語のテキストです。長い文が一つのピースになります";
	static const uint32_t cjk_ids[] = { 12956, 12163, 23598, 257, 6211, 34774, 47169, 35883, 38544,
					    5785, 16400, 120, 10264, 6708, 13498, 5005, 35435, 6211,
					    2633, 247, 9780, 15838, 10256, 14398, 20697, 26826 };
	assert_tokens(t, "Hello, world! It's 2026.", 24,
		      (const uint32_t[]){ 10002, 16, 2253, 5, 1111, 562, 1625, 1873, 18 }, 9);
	assert_tokens(t, "obj.hasOwnProperty(k) + x.valueOf()", 35,
		      (const uint32_t[]){ 1716, 18, BPE_NO_RANK, 12, 79, 13, 452, 679, 18, BPE_NO_RANK, 370 }, 11);
	for (int twice = 0; twice < 2; twice++) /* a long piece, then remembered */
		assert_tokens(t, cjk, strlen(cjk), cjk_ids, sizeof cjk_ids / sizeof *cjk_ids);
	char spaces[302];
	memset(spaces, ' ', 300);
	spaces[300] = 'x';
	assert_tokens(t, spaces, 301, (const uint32_t[]){ 14585, 38221, 679 }, 3);
	assert_tokens(t, "<EOT> ok", 8, (const uint32_t[]){ 32, 41, 1591, 34, 5806 }, 5);
	assert_tokens(t, "\u00e9t\u00e9 \U0001F600", 10, (const uint32_t[]){ 42789, 41270, 251, 227 }, 4);
	tokenizer_close(t);
}

/* The byte-level prefix of a rank file: every byte, rank = its value. */
/* A token listed twice keeps its first rank, whether the second comes
 * right after it or many lines later (the table is filled a few lines
 * behind the parse); long tokens compare past their first 8 bytes. */
static void test_rank_duplicates(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	FILE *f = fopen(support_path(dir, "dup.tiktoken"), "w");
	assert_non_null(f);
	support_byte_ranks(f);
	fprintf(f, "YWJj 256\nYWJk 257\nYWJk 258\nYWI= 259\nYWI= 260\n"); /* abc abd abd ab ab */
	for (int i = 0; i < 40; i++) /* "x" then two more bytes */
		fprintf(f, "eH%c%c 3%02d\n", "wxyz"[i / 10 % 4], "ABCDEFGHIJ"[i % 10], i);
	fprintf(f, "YWJj 400\n");                                  /* abc again */
	fprintf(f, "YWJjZGVmZ2hpamtsbW4= 401\n");                  /* abcdefghijklmn */
	fprintf(f, "YWJjZGVmZ2hpamtsbW8= 402\n");                  /* abcdefghijklmo */
	fprintf(f, "YWJjZGVmZ2hpamtsbW4= 403\n");                  /* abcdefghijklmn again */
	fclose(f);
	struct tokenizer *t = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_open(support_path(dir, "dup.tiktoken"), &t, &err), CS_OK);
	const struct bpe_ranks *r = tokenizer_ranks(t);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"abc", 3), 256);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"abd", 3), 257);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"ab", 2), 259);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"abcdefghijklmn", 14), 401);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"abcdefghijklmo", 14), 402);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"abcdefghijklmp", 14), BPE_NO_RANK);
	assert_int_equal(bpe_rank(r, (const unsigned char *)"abe", 3), BPE_NO_RANK);
	tokenizer_close(t);
	support_rmtree(dir);
	free(dir);
}

/* base64: whole groups and the tail, padding, both alphabets, and what is
 * not base64 (a stray character anywhere, a lone sixth digit, padding that
 * is not exactly the last group's, bits left over). */
static void test_base64(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		long len;
		const char *out;
	} cases[] = {
		{ "", 0, "" },          { "YWJj", 3, "abc" },     { "YWI=", 2, "ab" },   { "YWI", 2, "ab" },
		{ "YQ==", 1, "a" },     { "YQ", 1, "a" },         { "Y", -1, NULL },     { "YWJjZ", -1, NULL },
		{ "YWJjZA", 4, "abcd" }, { "-_8=", 2, "\xfb\xff" }, { "+/8=", 2, "\xfb\xff" },
		{ "YW=j", -1, NULL },   { "YW!j", -1, NULL },     { "YWJjYW!", -1, NULL }, { "Y WJ", -1, NULL },
		{ "YWJjZGVmZ2hp", 9, "abcdefghi" },
		/* over-padded, short of padding, or not the one spelling */
		{ "YWJj=", -1, NULL },  { "YWJj==", -1, NULL },   { "YQ===", -1, NULL }, { "YQ=", -1, NULL },
		{ "YWI==", -1, NULL },  { "=", -1, NULL },        { "====", -1, NULL },  { "YR==", -1, NULL },
		{ "YWJ=", -1, NULL },   { "YWJ", -1, NULL },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		unsigned char out[32];
		long got = base64_decode(cases[i].in, strlen(cases[i].in), out);
		assert_int_equal(got, cases[i].len);
		if (got > 0)
			assert_memory_equal(out, cases[i].out, (size_t)got);
	}
	assert_int_equal(base64_digit('A'), 0);
	assert_int_equal(base64_digit('_'), 63);
	assert_int_equal(base64_digit('='), -1);
	assert_int_equal(base64_digit(0xC3), -1);
	assert_int_equal(base64_digit(-1), -1);
}

/* Opens path, encodes text, checks the table came from where it should
 * (mapped from the cache or parsed) and that the tokens are want's. */
static void open_and_compare(const char *path, bool mapped, const char *text, size_t n, const uint32_t *want,
			     size_t nwant)
{
	struct tokenizer *t = NULL;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(tokenizer_open(path, &t, &err), CS_OK);
	assert_int_equal(tokenizer_ranks(t)->unmap != NULL, mapped);
	assert_tokens(t, text, n, want, nwant);
	tokenizer_close(t);
}

/* A big rank file is cached: the second open maps the table and counts the
 * same tokens; a damaged cache, or a rank file touched since, is parsed
 * again (and the cache made anew); a small rank file is never cached. */
static void test_rank_cache(void **state)
{
	(void)state;
	char ranks[4096], cache[4096], plans[4096];
	if (!tokenizer_find("o200k_base", ranks, sizeof ranks))
		fail_msg("%s", SUPPORT_RANKS_MISSING);
	snprintf(plans, sizeof plans, "%s", ranks);
	strcpy(strrchr(plans, '/') + 1, "TestPlans.txt");
	char *dir = support_tempdir(), *data = NULL, *text = NULL;
	size_t len = 0, text_len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(file_read(ranks, 0, &data, &len, NULL, &err), CS_OK);
	assert_int_equal(file_read(plans, 0, &text, &text_len, NULL, &err), CS_OK);
	support_write_bytes(dir, "o200k_base.tiktoken", data, len);
	snprintf(ranks, sizeof ranks, "%s", support_path(dir, "o200k_base.tiktoken"));
	char *old = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
	/* a cache folder that is not there is not made */
	setenv("XDG_CACHE_HOME", support_path(dir, "none"), 1);
	open_and_compare(ranks, false, "ab", 2, (const uint32_t[]){ 378 }, 1);
	assert_int_not_equal(access(support_path(dir, "none"), F_OK), 0);
	setenv("XDG_CACHE_HOME", dir, 1);
	assert_true(bpe_cache_path(ranks, cache, sizeof cache));
	/* the tokens of the parsed table, the reference */
	struct tokenizer *t = NULL;
	assert_int_equal(tokenizer_open(ranks, &t, &err), CS_OK);
	assert_null(tokenizer_ranks(t)->unmap);
	uint32_t *want = NULL;
	size_t nwant = 0;
	assert_int_equal(tokenizer_encode(t, text, text_len, &want, &nwant, &err), CS_OK);
	assert_true(nwant > 10000);
	tokenizer_close(t);
	assert_int_equal(access(cache, R_OK), 0);
	open_and_compare(ranks, true, text, text_len, want, nwant);
	/* one byte of the table damaged */
	int fd = open(cache, O_RDWR);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	unsigned char b = 0;
	assert_int_equal(pread(fd, &b, 1, st.st_size / 2), 1);
	b = (unsigned char)~b;
	assert_int_equal(pwrite(fd, &b, 1, st.st_size / 2), 1);
	close(fd);
	open_and_compare(ranks, false, text, text_len, want, nwant);
	open_and_compare(ranks, true, text, text_len, want, nwant);
	/* the rank file touched */
	struct timespec times[2] = { { 0, UTIME_OMIT }, { 1000000000, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, ranks, times, 0), 0);
	open_and_compare(ranks, false, text, text_len, want, nwant);
	open_and_compare(ranks, true, text, text_len, want, nwant);
	/* a small rank file */
	FILE *f = fopen(support_path(dir, "tiny.tiktoken"), "w");
	assert_non_null(f);
	support_byte_ranks(f);
	fclose(f);
	snprintf(ranks, sizeof ranks, "%s", support_path(dir, "tiny.tiktoken"));
	open_and_compare(ranks, false, "ab", 2, (const uint32_t[]){ 'a', 'b' }, 2);
	assert_true(bpe_cache_path(ranks, cache, sizeof cache));
	assert_int_not_equal(access(cache, F_OK), 0);
	if (old)
		setenv("XDG_CACHE_HOME", old, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	free(old);
	cs_free(want);
	cs_free(data);
	cs_free(text);
	support_rmtree(dir);
	free(dir);
}

/* Every allocation of opening a rank file and counting (invalid UTF-8, a
 * long piece for the heap) failing in turn: a clean CS_ENOMEM, no leak. */
static void test_out_of_memory(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	FILE *f = fopen(support_path(dir, "tiny.tiktoken"), "w");
	assert_non_null(f);
	support_byte_ranks(f);
	fprintf(f, "ICA= 256\n");
	fclose(f);
	char text[600];
	memset(text, ' ', sizeof text);
	memcpy(text, "ab\xFF c", 6);
	bool done = false;
	for (long nth = 1; !done && nth < 200; nth++) {
		struct tokenizer *t = NULL;
		struct cs_error err;
		cs_error_clear(&err);
		cs_alloc_fail_from(nth);
		int rc = tokenizer_open(support_path(dir, "tiny.tiktoken"), &t, &err);
		long count = 0;
		if (rc == CS_OK)
			rc = tokenizer_count(t, text, sizeof text, &count, &err);
		uint32_t *tokens = NULL;
		size_t n = 0;
		if (rc == CS_OK)
			rc = tokenizer_encode(t, text, sizeof text, &tokens, &n, &err);
		cs_alloc_fail_from(0);
		if (rc == CS_OK) {
			assert_int_equal((long)n, count);
			done = true;
		} else {
			assert_int_equal(rc, CS_ENOMEM);
		}
		cs_free(tokens);
		tokenizer_close(t);
	}
	assert_true(done);
	support_rmtree(dir);
	free(dir);
}

/* The report's exact counts: UUIDs the estimate says fit are over exactly;
 * an encoding chosen by the model's name whose rank file is not there is
 * no error, and says how to get it. */
static void test_exact_report(void **state)
{
	(void)state;
	struct source *src = support_load("tests/fixtures/tokenizer/uuids/working-set.yml", NULL);
	struct assembly a;
	support_assemble(src, &a);
	struct exact_counts x;
	struct cs_error err;
	cs_error_clear(&err);
	if (exact_prepare(&x, "o200k_base", &a, false, &err) != CS_OK)
		fail_msg("%s (%s)", SUPPORT_RANKS_MISSING, err.message);
	assert_true(a.budget.used <= a.budget.usable);
	assert_true(x.over);
	assert_true(x.total > a.budget.usable);
	assert_non_null(strstr(x.note, "the system thinks this fits: 947 of 1,200 estimated; exactly"));
	exact_fini(&x);
	assert_int_equal(exact_prepare(&x, "/nonexistent/o200k_base.tiktoken", &a, false, &err), CS_EIO);
	exact_fini(&x);
	assert_int_equal(exact_prepare(&x, "/nonexistent/o200k_base.tiktoken", &a, true, &err), CS_OK);
	assert_true(x.unavailable);
	assert_non_null(strstr(x.note, "/nonexistent/o200k_base.tiktoken"));
	exact_fini(&x);
	asm_fini(&a);
	source_free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plans_o200k),
		cmocka_unit_test(test_plans_cl100k),
		cmocka_unit_test(test_node_vectors),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_long_whitespace),
		cmocka_unit_test(test_merge_strategies_agree),
		cmocka_unit_test(test_for_model),
		cmocka_unit_test(test_rank_files),
		cmocka_unit_test(test_long_tokens),
		cmocka_unit_test(test_claude_vectors),
		cmocka_unit_test(test_rank_duplicates),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_rank_cache),
		cmocka_unit_test(test_out_of_memory),
		cmocka_unit_test(test_exact_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
