/* test_text.c: the UTF-8 module, the token estimate, strbuf and the JSON
 * scanner: units, boundaries, sanitizing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "json/scan.h"
#include "json/lines.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "base/utf8.h"

#include <stdio.h>
#include <string.h>

static void test_decode_strict(void **state)
{
	(void)state;
	int32_t cp;
	assert_int_equal(utf8_decode("\xC3\xA9", 2, &cp), 2);
	assert_int_equal(cp, 0xE9);
	assert_int_equal(utf8_decode("\xF0\x9F\x98\x80", 4, &cp), 4);
	assert_int_equal(cp, 0x1F600);
	/* overlong '/', a surrogate, past U+10FFFF, a truncated sequence */
	assert_int_equal(utf8_decode("\xC0\xAF", 2, &cp), 1);
	assert_int_equal(cp, UTF8_INVALID);
	assert_int_equal(utf8_decode("\xED\xA0\x80", 3, &cp), 1);
	assert_int_equal(cp, UTF8_INVALID);
	assert_int_equal(utf8_decode("\xF4\x90\x80\x80", 4, &cp), 1);
	assert_int_equal(cp, UTF8_INVALID);
	assert_int_equal(utf8_decode("\xE2\x82", 2, &cp), 1);
	assert_int_equal(cp, UTF8_INVALID);
}

static void test_counts_by_unit(void **state)
{
	(void)state;
	const char *s = "h\xC3\xA9llo \xE4\xB8\x96\xE7\x95\x8C"; /* héllo 世界 */
	size_t n = strlen(s);
	assert_int_equal(n, 13);
	assert_int_equal(utf8_count_code_points(s, n), 8);
	assert_int_equal(utf8_columns(s, n), 10);
	/* never cut inside a character */
	assert_int_equal(utf8_bytes_for_code_points(s, n, 2), 3);
	assert_int_equal(utf8_offset_of_last_code_points(s, n, 2), 7);
	size_t cols;
	assert_int_equal(utf8_prefix_for_columns(s, n, 8, &cols), 10); /* "héllo 世" is 8 columns */
	assert_int_equal(cols, 8);
	assert_int_equal(utf8_prefix_for_columns(s, n, 7, &cols), 7); /* 世 does not fit in 1 */
	assert_int_equal(cols, 6);
	/* invalid bytes count as one code point and one column each */
	assert_int_equal(utf8_count_code_points("a\xFF\xFE" "b", 4), 4);
}

static void test_lines(void **state)
{
	(void)state;
	const char *s = "one\ntwo\nthree";
	assert_int_equal(utf8_count_lines(s, strlen(s)), 3);
	assert_int_equal(utf8_count_lines("a\n", 2), 1);
	assert_int_equal(utf8_count_lines("", 0), 0);
	assert_int_equal(utf8_bytes_for_lines(s, strlen(s), 2), 8);
	assert_int_equal(utf8_offset_of_last_lines(s, strlen(s), 1), 8);
	assert_int_equal(utf8_offset_of_last_lines(s, strlen(s), 5), 0);
}

static void test_sanitize_controls(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	const char *evil = "a\x1b[31mred\r\x7f\xC2\x85z\xE2\x80\xAEx\xF3\xA0\x81\x81";
	assert_true(utf8_sanitize(&out, evil, strlen(evil), 0));
	/* ESC, CR, DEL become control pictures; NEL (C1) becomes U+FFFD; the
	 * RLO override and the tag character become a visible lozenge. */
	assert_string_equal(sb_str(&out), "a\xE2\x90\x9B[31mred\xE2\x90\x8D\xE2\x90\xA1\xEF\xBF\xBDz\xE2\x97\x8Ax\xE2\x97\x8A");
	for (size_t i = 0; i < out.len; i++)
		assert_false((unsigned char)out.data[i] < 0x20 || out.data[i] == 0x7f);
	sb_reset(&out);
	assert_true(utf8_sanitize(&out, evil, strlen(evil), UTF8_ASCII));
	assert_string_equal(sb_str(&out), "a^[[31mred^M^??z?x?");
	sb_reset(&out);
	/* typographic marks get their ASCII stand-ins, not the `?` of the unshowable */
	const char *marks = "turn t01 \xC2\xB7 user \xE2\x80\x94 \xE2\x80\x9Cq\xE2\x80\x9D\xE2\x80\xA6 \xE4\xB8\xAD";
	assert_true(utf8_sanitize(&out, marks, strlen(marks), UTF8_ASCII));
	assert_string_equal(sb_str(&out), "turn t01 | user - \"q\". ?"); /* never '~': a truncation flag in ASCII */
	sb_reset(&out);
	assert_true(utf8_sanitize(&out, "a \n\n\tb  c", 9, UTF8_ONE_LINE));
	assert_string_equal(sb_str(&out), "a b c");
	sb_reset(&out);
	assert_true(utf8_sanitize(&out, "a\nb\tc", 5, UTF8_KEEP_NEWLINES));
	assert_string_equal(sb_str(&out), "a\nb\xE2\x90\x89" "c");
	sb_fini(&out);
}

static void test_fit_reserves_ellipsis(void **state)
{
	(void)state;
	struct strbuf out = STRBUF_INIT;
	assert_true(utf8_fit(&out, "abcdef", 6, 4, 0, true));
	assert_string_equal(sb_str(&out), "abc\xE2\x80\xA6");
	sb_reset(&out);
	assert_true(utf8_fit(&out, "ab", 2, 4, 0, true));
	assert_string_equal(sb_str(&out), "ab  ");
	sb_reset(&out);
	/* a wide character that would straddle the edge is left out whole */
	assert_true(utf8_fit(&out, "a\xE4\xB8\x96\xE7\x95\x8C", 7, 4, 0, true));
	assert_string_equal(sb_str(&out), "a\xE4\xB8\x96\xE2\x80\xA6");
	assert_int_equal(utf8_columns(sb_str(&out), out.len), 4);
	sb_fini(&out);
}

static void test_token_estimate(void **state)
{
	(void)state;
	assert_int_equal(tokens_estimate(0, 4), 0);
	assert_int_equal(tokens_estimate(1, 4), 1);
	assert_int_equal(tokens_estimate(4, 4), 1);
	assert_int_equal(tokens_estimate(5, 4), 2);
	assert_int_equal(tokens_estimate(33, 3.3), 10); /* not 11 from float noise */
	assert_int_equal(tokens_estimate(34, 3.3), 11);
	assert_int_equal(tokens_estimate(7, 3.5), 2);
	for (long t = 0; t < 50; t++) {
		size_t room = tokens_code_point_room(t, 4);
		assert_int_equal(room, (size_t)(t * 4));
		assert_true(tokens_estimate(room, 4) <= t);
		assert_true(tokens_estimate(room + 1, 4) > t);
		size_t r35 = tokens_code_point_room(t, 3.5);
		assert_true(tokens_estimate(r35, 3.5) <= t);
		assert_true(tokens_estimate(r35 + 1, 3.5) > t);
	}
	/* code points, not bytes: four CJK characters are one token */
	assert_int_equal(tokens_of_text("\xE4\xB8\x96\xE7\x95\x8C\xE4\xB8\x96\xE7\x95\x8C", 12, 4), 1);
}

static void test_thousands(void **state)
{
	(void)state;
	char buf[32];
	assert_string_equal(fmt_thousands(buf, 0), "0");
	assert_string_equal(fmt_thousands(buf, 999), "999");
	assert_string_equal(fmt_thousands(buf, 1000), "1,000");
	assert_string_equal(fmt_thousands(buf, -3402), "-3,402");
	assert_string_equal(fmt_thousands(buf, 126976), "126,976");
	assert_string_equal(fmt_thousands(buf, 1234567), "1,234,567");
}

static void test_json_locate(void **state)
{
	(void)state;
	const char *doc = "{\n  \"nodes\": [\n    {\"id\": \"n1\"},\n    {\"id\": \"n2\", \"meta\": {\"x\": [1, \"}\", 3]}}\n  ],\n  \"edges\": []\n}";
	size_t n = strlen(doc);
	long at = json_locate(doc, n, "nodes[1].meta.x[2]");
	assert_true(at > 0);
	assert_int_equal(doc[at], '3');
	long line, col;
	text_position(doc, n, (size_t)at, &line, &col);
	assert_int_equal(line, 4);
	assert_int_equal(col, 41);
	assert_int_equal(json_locate(doc, n, "nodes[2]"), -1);
	assert_int_equal(json_locate(doc, n, "missing"), -1);
	struct json_keys keys;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_scan_top_keys(doc, n, &keys, &err), CS_OK);
	assert_int_equal(keys.n, 2);
	assert_true(json_keys_has(&keys, "edges"));
	assert_false(json_keys_has(&keys, "id"));
	json_keys_fini(&keys);
	assert_int_equal(json_scan_top_keys("[1]", 3, &keys, &err), CS_ESYNTAX);
	assert_int_equal(err.line, 1);
}

/* JSON Lines: the last non-blank line is told (found from the end), and a
 * walk that gives back what it read leaves every line it returns intact
 * while the pages behind it read as zeros. */
static void test_jsonl_give_back(void **state)
{
	(void)state;
	struct jsonl j;
	const char *text = "{\"a\":1}\n\n  {\"b\":2}\r\n \n\n";
	jsonl_init(&j, text, strlen(text));
	const char *s;
	size_t n;
	bool last;
	assert_true(jsonl_next(&j, &s, &n, &last));
	assert_int_equal(j.line, 1);
	assert_false(last);
	assert_true(jsonl_next(&j, &s, &n, &last));
	assert_int_equal(j.line, 3);
	assert_true(last);
	assert_false(jsonl_next(&j, &s, &n, &last));

	const size_t line_len = 1000, lines = 20000; /* 20 MB: several give-back steps */
	char *buf = cs_malloc(line_len * lines + 1);
	assert_non_null(buf);
	for (size_t i = 0; i < lines; i++) {
		memset(buf + i * line_len, 'x', line_len - 1);
		snprintf(buf + i * line_len, 24, "{\"n\":%zu,\"t\":\"", i);
		buf[i * line_len + strlen(buf + i * line_len)] = 'x';
		memcpy(buf + (i + 1) * line_len - 3, "\"}\n", 3);
	}
	buf[line_len * lines] = '\0';
	jsonl_init(&j, buf, line_len * lines);
	jsonl_give_back(&j);
	size_t seen = 0;
	while (jsonl_next(&j, &s, &n, &last)) {
		char want[24];
		snprintf(want, sizeof want, "{\"n\":%zu,", seen);
		assert_int_equal(n, line_len - 1);
		assert_memory_equal(s, want, strlen(want));
		assert_int_equal(s[n - 1], '}');
		assert_int_equal(last, seen == lines - 1);
		seen++;
	}
	assert_int_equal(seen, lines);
	assert_true(j.given > (size_t)8 << 20);
	size_t zero = 0; /* a page well behind the end was given back */
	for (size_t i = (size_t)1 << 20; i < ((size_t)1 << 20) + 8192; i++)
		zero += buf[i] == 0;
	assert_true(zero >= 4096);
	cs_free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_strict),
		cmocka_unit_test(test_counts_by_unit),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_sanitize_controls),
		cmocka_unit_test(test_fit_reserves_ellipsis),
		cmocka_unit_test(test_token_estimate),
		cmocka_unit_test(test_thousands),
		cmocka_unit_test(test_json_locate),
		cmocka_unit_test(test_jsonl_give_back),
	};
	return cmocka_run_group_tests_name("text", tests, NULL, NULL);
}
