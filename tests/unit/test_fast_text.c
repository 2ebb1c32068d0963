/* test_fast_text.c: the reports' fast ways give the general ways' bytes.
 * utf8_sanitize and utf8_fit copy printable ASCII eight bytes a step and
 * fit it a byte a column; with cs_tune(CS_TUNE_UTF8_FAST, 0) they take the general
 * way alone. Both ways must agree on random and hostile strings (controls,
 * spaces in runs, wide and zero-width characters, variation selectors,
 * invalid UTF-8) under every flag; fmt_fixed2 must be printf's "%.2f"; and
 * whole text reports of every hostile input and sample must not change. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "assembly.h"
#include "base/tune.h"
#include "base/error.h"
#include "load.h"
#include "report.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"
#include "base/utf8.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Pieces a hostile string is made of: mostly plain words and spaces (the
 * fast way's ground), then everything it must leave to the general way. */
static const char *const bits[] = {
	"a", "path/to/file.c", "0.94", "x", "Z", "~", "{", "\"", "\\", " ", " ", "  ", "   ",
	"\n", "\t", "\r", "\x1b[31m", "\x7f", "\x01", "\xc2\x85" /* C1 NEL */,
	"\xc3\xa9" /* é */, "\xe4\xb8\x96" /* 世 (wide) */, "\xf0\x9f\x98\x80" /* 😀 */,
	"\xe2\x80\x8b" /* zero-width space */, "\xe2\x80\xae" /* RLO */, "\xcc\x81" /* combining acute */,
	"\xef\xb8\x8f" /* VS16 */, "\xef\xb8\x8f\xef\xb8\x8f" /* a run of them */,
	"\xf3\xa0\x80\x81" /* tag */, "\xe2\x80\x94" /* em dash */, "\xc2\xb7" /* middle dot */,
	"\xff", "\xc0\xaf" /* overlong */, "\xe2\x82" /* cut short */, "\xed\xa0\x80" /* surrogate */,
	"\x80",
};

/* A random string into buf (at most cap - 1 bytes, NUL-ended); its length. */
static size_t hostile_string(uint64_t *seed, char *buf, size_t cap)
{
	size_t n = 0, parts = rng_next(seed) % 24;
	bool plain = rng_next(seed) % 3 == 0; /* a third: plain ASCII only */
	for (size_t k = 0; k < parts; k++) {
		size_t pick = rng_next(seed) % (plain ? 13 : sizeof bits / sizeof bits[0]);
		size_t len = strlen(bits[pick]);
		if (n + len >= cap)
			break;
		memcpy(buf + n, bits[pick], len);
		n += len;
	}
	buf[n] = '\0';
	return n;
}

static const unsigned flag_sets[] = {
	0,
	UTF8_ASCII,
	UTF8_ONE_LINE,
	UTF8_ONE_LINE | UTF8_ASCII,
	UTF8_KEEP_NEWLINES,
	UTF8_KEEP_NEWLINES | UTF8_KEEP_TABS,
	UTF8_KEEP_NEWLINES | UTF8_KEEP_TABS | UTF8_ASCII,
};

/* The function both ways into buffers already holding `lead` bytes (so
 * that appends start at every offset); the two must be the same bytes. */
static void both_ways_text(const char *s, size_t n, unsigned flags, size_t columns, bool pad, bool fit, size_t lead)
{
	struct strbuf out[2] = { STRBUF_INIT, STRBUF_INIT };
	bool ok[2];
	for (int way = 0; way < 2; way++) {
		cs_tune(CS_TUNE_UTF8_FAST, way == 0);
		sb_repeat(&out[way], "#", lead);
		ok[way] = fit ? utf8_fit(&out[way], s, n, columns, flags, pad) : utf8_sanitize(&out[way], s, n, flags);
	}
	cs_tune(CS_TUNE_UTF8_FAST, 1);
	assert_true(ok[0] && ok[1]);
	if (out[0].len != out[1].len || memcmp(sb_str(&out[0]), sb_str(&out[1]), out[0].len) != 0) {
		print_error("flags %u, columns %zu, pad %d, fit %d: [%s] gave fast [%s], general [%s]\n", flags, columns,
			    pad, fit, s, sb_str(&out[0]), sb_str(&out[1]));
		fail();
	}
	sb_fini(&out[0]);
	sb_fini(&out[1]);
}

static void test_sanitize_both_ways(void **state)
{
	(void)state;
	uint64_t seed = 20261126;
	char buf[512];
	for (int round = 0; round < 4000; round++) {
		size_t n = hostile_string(&seed, buf, sizeof buf);
		for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++)
			both_ways_text(buf, n, flag_sets[f], 0, false, false, (size_t)round % 70);
	}
}

static void test_fit_both_ways(void **state)
{
	(void)state;
	uint64_t seed = 7;
	char buf[512];
	for (int round = 0; round < 3000; round++) {
		size_t n = hostile_string(&seed, buf, sizeof buf);
		size_t columns = rng_next(&seed) % 40;
		for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
			both_ways_text(buf, n, flag_sets[f], columns, true, true, (size_t)round % 70);
			both_ways_text(buf, n, flag_sets[f], columns, false, true, 3);
		}
	}
}

/* Every length and every place of a double space, a control and a
 * non-ASCII byte around the eight-byte steps. */
static void test_sanitize_edges(void **state)
{
	(void)state;
	static const char *const odd[] = { " ", "  ", "\x1f", "\x7f", "\x80", "\xc3\xa9", "\n", "\t" };
	char buf[64];
	for (size_t len = 0; len <= 24; len++)
		for (size_t at = 0; at <= len; at++)
			for (size_t o = 0; o < sizeof odd / sizeof odd[0]; o++) {
				memset(buf, 'q', len);
				size_t k = strlen(odd[o]);
				memcpy(buf + at, odd[o], k);
				size_t n = len + k;
				for (size_t pre = 0; pre < 2; pre++) {
					if (pre)
						buf[0] = ' '; /* a space before the steps */
					for (size_t f = 0; f < sizeof flag_sets / sizeof flag_sets[0]; f++) {
						both_ways_text(buf, n, flag_sets[f], 0, false, false, 0);
						both_ways_text(buf, n, flag_sets[f], len, true, true, 0);
					}
				}
			}
}

static void same_as_printf2(double v)
{
	char want[400], got[FIXED3_MAX];
	snprintf(want, sizeof want, "%.2f", v);
	fmt_fixed2(got, v);
	if (strcmp(want, got) != 0) {
		print_error("%.17g: printf %s, fmt_fixed2 %s\n", v, want, got);
		fail();
	}
}

static void test_fixed2_is_printf(void **state)
{
	(void)state;
	static const double edge[] = { 0.0, -0.0, 0.005, 0.015, 0.025, 0.125, 0.375, 1.005, 2.675, 1.0 / 3.0,
				       -0.004, -0.005, 0.994999999, 0.995, 9.995, 99.995, 0.94, 0.98, 1.0,
				       9999999.994, 9999999.995, 1e7, 1e7 + 0.005, 123456789.125, 1e300, -1e300,
				       5e-324, INFINITY, -INFINITY, NAN, 4503599627370495.5 };
	for (size_t i = 0; i < sizeof edge / sizeof edge[0]; i++)
		same_as_printf2(edge[i]);
	uint64_t seed = 17;
	for (int i = 0; i < 200000; i++) {
		uint64_t r = rng_next(&seed);
		double v;
		switch (r % 4) {
		case 0: /* exactly a half of a cent, or next to one */
			v = (double)(int64_t)(rng_next(&seed) % 2000001 - 1000000) / 200.0;
			break;
		case 1: /* priorities as written: two or three decimals */
			v = (double)(rng_next(&seed) % 100000) / (r % 8 < 4 ? 100.0 : 1000.0);
			break;
		case 2: /* any magnitude */
			v = ldexp((double)(rng_next(&seed) >> 11), (int)(rng_next(&seed) % 90) - 70);
			break;
		default: { /* any bits */
			uint64_t b = rng_next(&seed);
			memcpy(&v, &b, sizeof v);
			break;
		}
		}
		if (r & 1u << 20)
			v = -v;
		same_as_printf2(v);
	}
}

/* The text report of path (any kind that loads it) both ways, plain and
 * ASCII: the same bytes. Returns whether it loaded. */
static bool report_both_ways(const char *path)
{
	struct source *src;
	struct cs_error err;
	cs_error_clear(&err);
	if (source_load(path, NULL, &src, &err) != CS_OK)
		return false;
	struct assembly a;
	support_assemble(src, &a);
	for (int ascii = 0; ascii < 2; ascii++) {
		struct report_options opt = { .format = REPORT_TEXT, .ascii = ascii };
		struct strbuf out[2] = { STRBUF_INIT, STRBUF_INIT };
		for (int way = 0; way < 2; way++) {
			cs_tune(CS_TUNE_UTF8_FAST, way == 0);
			assert_int_equal(report_write(&a, &opt, &out[way]), CS_OK);
		}
		cs_tune(CS_TUNE_UTF8_FAST, 1);
		if (strcmp(sb_str(&out[0]), sb_str(&out[1])) != 0) {
			print_error("%s (ascii %d): the report differs between the two ways\n", path, ascii);
			fail();
		}
		sb_fini(&out[0]);
		sb_fini(&out[1]);
	}
	asm_fini(&a);
	source_free(src);
	return true;
}

/* Every file under dir (one level of folders below it too). */
static int reports_under(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int loaded = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		DIR *sub = depth > 0 ? opendir(path) : NULL;
		if (sub) {
			closedir(sub);
			loaded += reports_under(path, depth - 1);
		} else if (strcmp(e->d_name, "run") != 0) {
			loaded += report_both_ways(path);
		}
	}
	closedir(d);
	return loaded;
}

static void test_reports_both_ways(void **state)
{
	(void)state;
	int loaded = reports_under("tests/hostile", 1) + reports_under("samples", 1);
	assert_true(loaded >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sanitize_both_ways),
		cmocka_unit_test(test_fit_both_ways),
		cmocka_unit_test(test_sanitize_edges),
		cmocka_unit_test(test_fixed2_is_printf),
		cmocka_unit_test(test_reports_both_ways),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
