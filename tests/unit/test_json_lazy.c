/* test_json_lazy.c: documents whose big top-level arrays are read one
 * element at a time (json_doc_parse_lazy, json_iter). Every error a whole
 * parse gives (syntax, \u0000, depth, duplicate keys) comes out the same,
 * at the same line and column, whichever order the arrays are walked in;
 * the elements share one element's memory (under AddressSanitizer each is
 * freed instead); an array not read lazily (a key with escapes) is walked
 * from the tree; a string member is found in the text and unescaped there. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "json/doc.h"
#include "json/scan.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <string.h>

static const char *const lazy_ab[] = { "a", "b", NULL };

/* Walks one array to its end: its first error. */
static int walk(struct json_doc *d, const char *key, size_t *n, struct cs_error *err)
{
	struct json_array arr;
	int rc = json_get_lazy(d, key, JSON_OPTIONAL, &arr, err);
	struct jpath at = JPATH_KEY(JPATH_ROOT, key);
	struct json_iter it;
	json_iter_init(&it, d, &arr, &at);
	const cJSON *el = NULL;
	*n = 0;
	while (rc == CS_OK && (rc = json_iter_next(&it, &el, err)) == CS_OK && el)
		(*n)++;
	if (rc == CS_OK)
		assert_int_equal(*n, arr.count);
	return rc;
}

/* The lazy parse of text, "b" walked before "a": its first error. */
static int lazy_all(const char *text, size_t len, struct cs_error *err)
{
	struct json_doc d;
	size_t n;
	cs_error_clear(err);
	int rc = json_doc_parse_lazy(&d, text, len, lazy_ab, err);
	if (rc == CS_OK && (rc = walk(&d, "b", &n, err)) == CS_OK)
		rc = walk(&d, "a", &n, err);
	json_doc_free(&d);
	return rc;
}

/* Lazy and whole parses of text agree: status, line, column, path, message. */
static void same_as_whole(const char *text, size_t len)
{
	struct cs_error lazy, whole;
	int rl = lazy_all(text, len, &lazy);
	struct json_doc d;
	cs_error_clear(&whole);
	int rw = json_doc_parse(&d, text, len, &whole);
	json_doc_free(&d);
	if (rl != rw || lazy.line != whole.line || lazy.column != whole.column || strcmp(lazy.path, whole.path) ||
	    strcmp(lazy.message, whole.message))
		fail_msg("%s\n  lazy:  %d %ld:%ld %s: %s\n  whole: %d %ld:%ld %s: %s", text, rl, lazy.line, lazy.column,
			 lazy.path, lazy.message, rw, whole.line, whole.column, whole.path, whole.message);
}

static void test_errors_as_a_whole_parse(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"{\"x\": 1, \"a\": [{\"k\": 1}, {\"k\": 2}], \"b\": [], \"c\": {\"d\": [1, 2]}}",
		"{\"a\": [{\"k\": 1}, {\"k\" 2}], \"b\": [1]}",      /* in an element */
		"{\"b\": [1, ?], \"a\": [{\"k\" 1}]}",              /* the first in the text, though walked second */
		"{\"a\": [{\"k\": 1}, {\"k\" 2}], \"x\" 1}",         /* a top-level one after a broken array */
		"{\"a\": [{\"k\": 1}, {\"k\": 2}",                   /* cut short */
		"{\"a\": [ {\"k\": 1 ] }, \"b\": []}",               /* brackets crossed */
		"{\"a\": [1, 2,], \"b\": []}",                       /* a trailing comma */
		"{\"a\": [1 2], \"b\": []}",                         /* a missing comma */
		"{\"a\": [ \xEF\xBB\xBF" "1], \"b\": []}",           /* a byte order mark inside */
		"\xEF\xBB\xBF{\"a\": [1], \"b\": [2]}",              /* one at the start is fine */
		"\xEF\xBB\xBF{", "\xEF\xBB\xBF", "\xEF\xBB\xBF {\"a\": [1]}", "{\"a\": [1] \xEF\xBB\xBF}",
		"{\"a\": [\"x\\u0000\"], \"b\": [1 2]}",             /* the syntax error before the NUL */
		"{\"a\": [\"x\", \"y\\u0000z\"], \"b\": [1]}",       /* the NUL */
		"{\"a\": [{\"k\": 1, \"k\": 2}], \"b\": [1]}",       /* a duplicate key in an element */
		"{\"a\": [1], \"a\": [2]}",                          /* a lazy key twice */
		"{\"a\": [1], \"x\": 1, \"b\": [], \"x\": 2}",
		"{\"a\": [1], \"x\": {\"y\": [{\"z\": 1, \"z\": 1}]}}",
		"{\"\\u0061\": [1, 2], \"b\": [3]}",                 /* a key with an escape: from the tree */
		"[1, 2]", "", "{", "{\"a\"", "{\"a\":", "{\"a\": [", "{\"a\": [1,", "{\"a\": [1]", "{\"a\": [1] x",
		"{\"a\": [1]} trailing", "{1: 2}", "{\"a\": [1], }", "{\"a\": [1], \"b\": [\"\\x\"]}",
		"{\"a\": [1], \"b\": [\"unterminated]}", " \t\n{ \"a\" : [ ] , \"b\" : [ {} , [ ] ] } ",
	};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
		same_as_whole(texts[i], strlen(texts[i]));

	/* too deep inside an element */
	struct strbuf s = STRBUF_INIT;
	sb_puts(&s, "{\"b\": [1, 2], \"a\": [1, ");
	sb_repeat(&s, "[", JSON_MAX_DEPTH);
	sb_repeat(&s, "]", JSON_MAX_DEPTH);
	sb_puts(&s, "]}");
	same_as_whole(sb_str(&s), s.len);
	sb_fini(&s);
}

/* The arrays are not in the tree, their elements come one at a time in
 * the same memory, counted before the walk. */
static void test_one_element_at_a_time(void **state)
{
	(void)state;
	struct strbuf s = STRBUF_INIT;
	sb_puts(&s, "{\"title\": \"t\", \"a\": [");
	for (int i = 0; i < 1000; i++)
		sb_printf(&s, "%s{\"id\": \"n%d\", \"text\": \"some words of node %d\"}", i ? ",\n" : "", i, i);
	sb_puts(&s, "], \"b\": [[1], [2]]}");
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse_lazy(&d, sb_str(&s), s.len, lazy_ab, &err), CS_OK);
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(d.root, "a");
	assert_non_null(a);
	assert_false(cJSON_IsArray(a)); /* not parsed */
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(d.root, "title")), "t");
	struct json_array arr;
	assert_int_equal(json_get_lazy(&d, "a", JSON_REQUIRED, &arr, &err), CS_OK);
	assert_int_equal(arr.count, 1000);
	struct jpath at = JPATH_KEY(JPATH_ROOT, "a");
	struct json_iter it;
	json_iter_init(&it, &d, &arr, &at);
	const cJSON *el, *first = NULL;
	size_t n = 0, at500 = 0;
	while (json_iter_next(&it, &el, &err) == CS_OK && el) {
		char want[16];
		snprintf(want, sizeof want, "n%zu", n);
		assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(el, "id")), want);
		if (!first)
			first = el;
#ifndef __SANITIZE_ADDRESS__ /* which frees each element's memory instead, to catch pointers kept into it */
		assert_ptr_equal(el, first); /* the element before was dropped: its memory reused */
#endif
		if (n == 500)
			at500 = it.el_start;
		n++;
	}
	assert_int_equal(n, 1000);
	/* an element parsed again from its place */
	assert_int_equal(json_doc_element(&d, at500, &el, &err), CS_OK);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(el, "id")), "n500");
	/* absent and required: positioned as json_get_array says it */
	assert_int_equal(json_get_lazy(&d, "c", JSON_REQUIRED, &arr, &err), CS_ESTRUCT);
	assert_non_null(strstr(err.message, "missing \"c\""));
	json_doc_free(&d);
	sb_fini(&s);
}

/* A lazy key whose value is not an array is in the tree, and says so. */
static void test_not_an_array(void **state)
{
	(void)state;
	const char *text = "{\"a\": {\"k\": 1},\n \"b\": null}";
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse_lazy(&d, text, strlen(text), lazy_ab, &err), CS_OK);
	struct json_array arr;
	assert_int_equal(json_get_lazy(&d, "a", JSON_REQUIRED, &arr, &err), CS_ETYPE);
	assert_string_equal(err.path, "a");
	assert_int_equal(json_get_lazy(&d, "b", JSON_OPTIONAL, &arr, &err), CS_OK);
	assert_false(arr.present);
	json_doc_free(&d);
}

/* An element's string members found in the text (json_iter_string_at)
 * and unescaped in place read as cJSON reads them; a key written with
 * escapes, a member that is not a string, or an absent one: NULL. */
static void test_strings_in_place(void **state)
{
	(void)state;
	char text[] = "{\"a\": [{\"id\": \"x\", \"n\": {\"content\": \"no\"}, \"content\": \"plain text\"},\n"
		      " {\"content\": \"l1\\nl2 \\\"q\\\" \\\\ \\/ \\u00e9\\ud83d\\ude00 \\u00zz!\", \"k\": 1},\n"
		      " {\"c\\u006fntent\": \"escaped key\", \"k\": 2}, {\"content\": 3}]}";
	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_doc_parse_lazy(&d, text, strlen(text), lazy_ab, &err), CS_OK);
	struct json_array arr;
	assert_int_equal(json_get_lazy(&d, "a", JSON_REQUIRED, &arr, &err), CS_OK);
	struct jpath at = JPATH_KEY(JPATH_ROOT, "a");
	struct json_iter it;
	json_iter_init(&it, &d, &arr, &at);
	const cJSON *el;
	const char *found[4];
	char want[2][64];
	size_t wlen[2], n = 0;
	while (json_iter_next(&it, &el, &err) == CS_OK && el) {
		found[n] = json_iter_string_at(&it, "content");
		if (n < 2) {
			const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(el, "content"));
			wlen[n] = strlen(v);
			memcpy(want[n], v, wlen[n] + 1);
		}
		assert_null(json_iter_string_at(&it, "absent"));
		n++;
	}
	assert_int_equal(n, 4);
	assert_null(found[2]); /* its key has an escape */
	assert_null(found[3]); /* a number */
	json_doc_free(&d);
	/* settled once nothing reads the text as JSON again */
	char *t0 = text + (found[0] - text), *t1 = text + (found[1] - text);
	json_unescape_in_place(t0, strlen("plain text"));
	assert_string_equal(t0, "plain text");
	assert_string_equal(want[1], "l1\nl2 \"q\" \\ / \xC3\xA9\xF0\x9F\x98\x80 "); /* \u00zz: cJSON's NUL */
	json_unescape_in_place(t1, wlen[1]);
	assert_memory_equal(t1, want[1], wlen[1] + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_as_a_whole_parse),
		cmocka_unit_test(test_one_element_at_a_time),
		cmocka_unit_test(test_not_an_array),
		cmocka_unit_test(test_strings_in_place),
	};
	return cmocka_run_group_tests_name("json_lazy", tests, NULL, NULL);
}
