/* test_json_lex.c: the one JSON lexer (json/lex.h). Strings: every escape
 * decoded, surrogate pairs joined and lone halves refused where cJSON
 * refuses them, \u0000 and \u refused on request, the place and kind of
 * each fault; unescaping in place as cJSON reads text it took; UTF-8
 * checked (overlong forms, encoded surrogates, past U+10FFFF, cut short).
 * Numbers: the grammar, where a digit is missing, counts at their limit.
 * White space of the grammar and of cJSON. Keys written twice. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "json/lex.h"

#include <stdio.h>
#include <string.h>

#define LEN(s) (sizeof(s) - 1)

/* The string at text[0] (a quote) unescaped by json_lex_unescape: its bytes
 * into out (NUL-ended), or the fault. */
static enum json_lex_fault unescaped(const char *text, unsigned flags, char *out, size_t *len)
{
	size_t n = strlen(text);
	enum json_lex_fault fault = JSON_LEX_OK;
	const char *after = json_lex_unescape(text, text + n, flags, out, len, &fault);
	if (after)
		out[*len] = '\0';
	assert_true((after != NULL) == (fault == JSON_LEX_OK));
	return fault;
}

static void test_escapes(void **state)
{
	(void)state;
	char out[128];
	size_t len;
	assert_int_equal(unescaped("\"a\\\"b\\\\c\\/d\\be\\ff\\ng\\rh\\ti\"", 0, out, &len), JSON_LEX_OK);
	assert_string_equal(out, "a\"b\\c/d\be\ff\ng\rh\ti");
	assert_int_equal(unescaped("\"\\u0041\\u00e9\\u20AC\"", 0, out, &len), JSON_LEX_OK);
	assert_string_equal(out, "A\xC3\xA9\xE2\x82\xAC");
	/* the SSE2 copy: runs longer than sixteen bytes between escapes */
	assert_int_equal(unescaped("\"0123456789abcdefghij\\n0123456789abcdefghij\"", 0, out, &len), JSON_LEX_OK);
	assert_string_equal(out, "0123456789abcdefghij\n0123456789abcdefghij");
	assert_int_equal(len, 41);
	assert_int_equal(unescaped("\"a\\x\"", 0, out, &len), JSON_LEX_ESCAPE);
	assert_int_equal(unescaped("\"a\\u00g1\"", 0, out, &len), JSON_LEX_HEX);
	assert_int_equal(unescaped("\"a\\u00\"", 0, out, &len), JSON_LEX_HEX);
	assert_int_equal(unescaped("\"a\tb\"", 0, out, &len), JSON_LEX_CONTROL);
	assert_int_equal(unescaped("\"0123456789abcdefghij", 0, out, &len), JSON_LEX_UNCLOSED);
	assert_int_equal(unescaped("\"ab\\", 0, out, &len), JSON_LEX_UNCLOSED);
	assert_int_equal(unescaped("\"a\\u0000b\"", JSON_LEX_NO_NUL, out, &len), JSON_LEX_NUL);
	assert_int_equal(unescaped("\"a\\u0000b\"", 0, out, &len), JSON_LEX_OK);
	assert_int_equal(len, 3);
	assert_memory_equal(out, "a\0b", 3);
}

static void test_surrogates(void **state)
{
	(void)state;
	char out[64];
	size_t len;
	/* U+1F600 and U+10FFFF as pairs, upper and lower case hex */
	assert_int_equal(unescaped("\"\\ud83d\\ude00|\\uDBFF\\uDFFF\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_OK);
	assert_string_equal(out, "\xF0\x9F\x98\x80|\xF4\x8F\xBF\xBF");
	assert_int_equal(unescaped("\"\\ud83d\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE);       /* high alone */
	assert_int_equal(unescaped("\"\\ude00\\ud83d\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE); /* low first */
	assert_int_equal(unescaped("\"\\ude00\\ude00\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE); /* low, low */
	assert_int_equal(unescaped("\"\\ud83d\\u0041\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE); /* high, not low */
	assert_int_equal(unescaped("\"\\ud83d\\ud83d\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE); /* high, high */
	assert_int_equal(unescaped("\"\\ud83dx\\ude00\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE);
	assert_int_equal(unescaped("\"\\ud83d\\ude0", JSON_LEX_PAIRS, out, &len), JSON_LEX_SURROGATE); /* cut short */
	assert_int_equal(unescaped("\"\\ud83d\\udeZ0\"", JSON_LEX_PAIRS, out, &len), JSON_LEX_HEX);
	/* without JSON_LEX_PAIRS a \u needs only its four digits */
	struct json_lex_str s;
	const char *t = "\"\\ud83d\"";
	assert_ptr_equal(json_lex_string(t, t + strlen(t), 0, &s), t + strlen(t));
	assert_int_equal(s.esc, 1);
	/* a pair is one escape */
	t = "\"\\ud83d\\ude00\\n\"";
	assert_ptr_equal(json_lex_string(t, t + strlen(t), JSON_LEX_PAIRS, &s), t + strlen(t));
	assert_int_equal(s.esc, 2);
	assert_int_equal(s.n, strlen(t) - 2);
}

/* The fault json_lex_string finds in text, and that it is at text[at]. */
static void fault_is(const char *text, unsigned flags, enum json_lex_fault want, size_t at)
{
	struct json_lex_str s;
	assert_null(json_lex_string(text, text + strlen(text), flags, &s));
	assert_int_equal(s.fault, want);
	assert_int_equal(s.at - text, at);
}

static void test_string_faults(void **state)
{
	(void)state;
	fault_is("\"abc", 0, JSON_LEX_UNCLOSED, 0);
	fault_is("\"abc\\", 0, JSON_LEX_UNCLOSED, 0);
	fault_is("\"ab\x01\"", 0, JSON_LEX_CONTROL, 3);
	fault_is("\"ab\\q\"", 0, JSON_LEX_ESCAPE, 3);
	fault_is("\"ab\\u12\"", 0, JSON_LEX_HEX, 3);
	fault_is("\"ab\\u0000\"", JSON_LEX_NO_NUL, JSON_LEX_NUL, 3);
	fault_is("\"ab\\u0041\"", JSON_LEX_NO_U, JSON_LEX_U, 3);
	fault_is("\"0123456789abcdefghij\\ud800\"", JSON_LEX_PAIRS, JSON_LEX_SURROGATE, 21);
	struct json_lex_str s;
	const char *t = "\"a\\nb\\\"c\" rest";
	assert_ptr_equal(json_lex_string(t, t + strlen(t), JSON_LEX_NO_U | JSON_LEX_NO_NUL, &s), t + 9);
	assert_int_equal(s.n, 7);
	assert_int_equal(s.esc, 2);
	assert_ptr_equal(s.s, t + 1);
}

static void test_utf8(void **state)
{
	(void)state;
	const char *good = "\"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF\"";
	struct json_lex_str s;
	assert_non_null(json_lex_string(good, good + strlen(good), JSON_LEX_UTF8, &s));
	fault_is("\"ab\xC0\xAF\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);             /* overlong '/' */
	fault_is("\"ab\xE0\x80\xAF\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);         /* overlong, three bytes */
	fault_is("\"ab\xF0\x80\x80\xAF\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);     /* overlong, four bytes */
	fault_is("\"ab\xED\xA0\x80\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);         /* U+D800 encoded */
	fault_is("\"ab\xF4\x90\x80\x80\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);     /* past U+10FFFF */
	fault_is("\"ab\x80\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);                 /* a lone continuation */
	fault_is("\"ab\xE2\x82\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 3);             /* cut by the quote */
	fault_is("\"0123456789abcdef\\n\xFF\"", JSON_LEX_UTF8, JSON_LEX_BAD_UTF8, 19); /* after an escape */
	/* without the flag the bytes pass (cJSON takes them) */
	const char *bad = "\"ab\xC0\xAF\"";
	assert_non_null(json_lex_string(bad, bad + strlen(bad), 0, &s));
	assert_int_equal(json_utf8_bad("ok\xC3\xA9\xC3", 5), 4);
	assert_int_equal(json_utf8_bad("ok", 2), 2);
}

static void test_unescape_in_place(void **state)
{
	(void)state;
	char a[] = "x\\u00e9\\ud83d\\ude00\\n\\\"y\" tail";
	json_unescape_in_place(a, 10);
	assert_string_equal(a, "x\xC3\xA9\xF0\x9F\x98\x80\n\"y");
	char b[] = "ab\\uZZZZcd\"";
	json_unescape_in_place(b, 3); /* cJSON reads a bad hex digit as 0 (a NUL byte: its value ends there) */
	assert_memory_equal(b, "ab\0", 4);
	char c[] = "plain\"";
	json_unescape_in_place(c, 5);
	assert_string_equal(c, "plain");
}

static void test_string_end_and_nul(void **state)
{
	(void)state;
	const char *t = "\"a\\\"b\\\\\" x";
	assert_int_equal(json_string_end(t, strlen(t), 0), 7);
	assert_int_equal(json_string_end("\"ab", 3, 0), 3);
	const char *n = "{\"a\": \"x\\\\u0000\\u0000\"}";
	assert_int_equal(json_string_nul(n, strlen(n), 7, strlen(n) - 2), 15);
	assert_true(json_may_hold_nul(n, strlen(n)));
	const char *no = "{\"a\": \"u0000 \\u0001 0123456789abcdef u0000\"}";
	assert_false(json_may_hold_nul(no, strlen(no)));
	assert_true(json_may_hold_nul("0123456789abcdef0123\\u0000", 26)); /* past the vector steps */
	assert_false(json_may_hold_nul("\\u000", 5));
	const char *stop = "0123456789abcdef0123\"";
	assert_ptr_equal(json_string_stop(stop, stop + strlen(stop)), stop + 20);
	assert_ptr_equal(json_string_stop(stop, stop + 20), stop + 20);
}

/* json_lex_number over all of text: must stop at its end. */
static struct json_lex_num num_of(const char *text)
{
	struct json_lex_num n;
	const char *end = text + strlen(text);
	assert_ptr_equal(json_lex_number(text, end, &n), end);
	assert_int_equal(n.n, strlen(text));
	return n;
}

static void test_numbers(void **state)
{
	(void)state;
	/* counts at their limit, leading zeros or not */
	static const struct {
		const char *text;
		bool count;
		long long value;
	} counts[] = {
		{ "0", true, 0 },
		{ "9223372036854775799", true, JSON_LEX_COUNT_MAX },
		{ "9223372036854775800", false, 0 },
		{ "18446744073709551616", false, 0 },
		{ "000000000000000000000001", true, 1 }, /* leading zeros: no digits that count */
		{ "09223372036854775799", true, JSON_LEX_COUNT_MAX },
		{ "09223372036854775800", false, 0 },
	};
	struct json_lex_num n;
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
		n = num_of(counts[i].text);
		assert_int_equal(n.count, counts[i].count);
		if (n.count)
			assert_true(n.value == counts[i].value);
		assert_int_equal(n.lead_zero, counts[i].text[0] == '0' && counts[i].text[1] != '\0');
	}
	n = num_of("-1");
	assert_false(n.count);
	assert_true(n.neg);
	n = num_of("-0");
	assert_false(n.count);
	n = num_of("1.0");
	assert_false(n.count);
	assert_true(n.frac);
	assert_int_equal(n.digits, 2);
	assert_int_equal(n.frac_digits, 1);
	assert_true(n.mantissa == 10);
	n = num_of("1e3");
	assert_false(n.count);
	assert_true(n.exp);
	n = num_of("2.5E-07");
	assert_true(n.frac && n.exp);
	assert_true(n.mantissa == 25);
	n = num_of("0123");
	assert_true(n.lead_zero);
	assert_true(n.count); /* as the scan reads it; readers of the grammar decline lead_zero */
	assert_int_equal(n.value, 123);
	n = num_of("123456789012345");
	assert_int_equal(n.digits, 15);
	assert_true(n.mantissa == 123456789012345ull);
	assert_false(n.lead_zero);

	struct json_lex_num f;
	const char *t = "12,";
	assert_ptr_equal(json_lex_number(t, t + 3, &f), t + 2);
	/* refused: where a digit is missing, and whether any came before */
	static const struct {
		const char *text;
		size_t at;
		bool no_value;
	} bad[] = { { "-x", 1, true }, { "x", 0, true }, { "1.}", 2, false }, { "1e+", 3, false }, { "-", 1, true } };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		t = bad[i].text;
		assert_null(json_lex_number(t, t + strlen(t), &f));
		assert_ptr_equal(f.at, t + bad[i].at);
		assert_int_equal(f.no_value, bad[i].no_value);
	}
	t = "1-2e+5.x";
	assert_ptr_equal(json_number_chars(t, t + 8), t + 7);
}

static void test_white_space(void **state)
{
	(void)state;
	const char *t = " \t\r\n\f x";
	assert_ptr_equal(json_ws(t, t + 7), t + 4); /* a form feed is no white space of the grammar */
	assert_ptr_equal(json_ws_cjson(t, t + 7), t + 6);
	assert_ptr_equal(json_ws(t, t + 2), t + 2);
	assert_true(json_blank(" \r\n\t", 4));
	assert_false(json_blank(" \v", 2));
	assert_true(json_blank("", 0));
}

static void test_keys(void **state)
{
	(void)state;
	struct json_keyset ks;
	json_keyset_init(&ks);
	assert_int_equal(json_keyset_add(&ks, "type", 4), JSON_KEY_NEW);
	assert_int_equal(json_keyset_add(&ks, "uuid", 4), JSON_KEY_NEW);
	assert_int_equal(json_keyset_add(&ks, "", 0), JSON_KEY_NEW);
	assert_int_equal(json_keyset_add(&ks, "typ", 3), JSON_KEY_NEW); /* a prefix is another key */
	assert_int_equal(json_keyset_add(&ks, "uuid", 4), 1);
	assert_int_equal(json_keyset_add(&ks, "", 0), 2);
	assert_int_equal(json_keyset_add(&ks, "type\"rest", 4), 0); /* a span of raw text */
	/* keys on one bit: same length, first, second and last bytes */
	json_keyset_init(&ks);
	assert_int_equal(json_keyset_add(&ks, "abXd", 4), JSON_KEY_NEW);
	assert_int_equal(json_keyset_add(&ks, "abYd", 4), JSON_KEY_NEW);
	assert_int_equal(json_keyset_add(&ks, "abYd", 4), 1);
	json_keyset_init(&ks);
	char names[JSON_KEYS_MAX + 1][8];
	for (int i = 0; i <= JSON_KEYS_MAX; i++) {
		int w = snprintf(names[i], sizeof names[i], "k%d", i);
		assert_int_equal(json_keyset_add(&ks, names[i], (size_t)w), i < JSON_KEYS_MAX ? JSON_KEY_NEW : JSON_KEY_FULL);
	}
	assert_int_equal(json_keyset_add(&ks, "k47", 3), 47); /* a repeat is told even when full */
}

static void test_hex_and_escape(void **state)
{
	(void)state;
	assert_int_equal(json_hex4("00e9"), 0xE9);
	assert_int_equal(json_hex4("FFFF"), 0xFFFF);
	assert_int_equal(json_hex4("aBcD"), 0xABCD);
	assert_int_equal(json_hex4("12g4"), -1);
	assert_int_equal(json_hex4("-123"), -1);
	char out[4];
	size_t len;
	enum json_lex_fault f;
	const char *e = "\\u00e9";
	assert_int_equal(json_lex_escape(e, e + 6, 0, out, &len, &f), 6);
	assert_int_equal(len, 2);
	assert_memory_equal(out, "\xC3\xA9", 2);
	e = "\\uZZZZ";
	assert_int_equal(json_lex_escape(e, e + 6, 0, out, &len, &f), 0);
	assert_int_equal(f, JSON_LEX_HEX);
	assert_int_equal(json_lex_escape(e, e + 6, JSON_LEX_CJSON_HEX, out, &len, &f), 6);
	assert_int_equal(len, 1);
	assert_int_equal(out[0], 0);
	e = "\\n";
	assert_int_equal(json_lex_escape(e, e + 1, 0, out, &len, &f), 0);
	assert_int_equal(f, JSON_LEX_UNCLOSED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_surrogates),
		cmocka_unit_test(test_string_faults),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_unescape_in_place),
		cmocka_unit_test(test_string_end_and_nul),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_white_space),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_hex_and_escape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
