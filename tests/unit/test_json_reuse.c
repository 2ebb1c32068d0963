/* test_json_reuse.c: json_reuse_parse answers as json_doc_parse does (the
 * same tree, the same error word for word, line, column and path) on good
 * and bad documents in a row through one pool, small and large; a tree
 * kept (json_reuse_keep) outlives the pool; bulk keeps every copy whole
 * across its chunks, and text written in place (bulk_reserve). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "base/bulk.h"
#include "json/reuse.h"
#include "base/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses text both ways and checks the answers are the same. */
static void same_answer(struct json_reuse *pool, const char *text, size_t len)
{
	struct json_doc a, b;
	struct cs_error ea, eb;
	cs_error_clear(&ea);
	cs_error_clear(&eb);
	int ra = json_doc_parse(&a, text, len, &ea);
	int rb = json_reuse_parse(pool, &b, text, len, &eb);
	assert_int_equal(rb, ra);
	if (ra == CS_OK) {
		char *pa = cJSON_PrintUnformatted(a.root), *pb = cJSON_PrintUnformatted(b.root);
		assert_non_null(pa);
		assert_non_null(pb);
		assert_string_equal(pb, pa);
		cJSON_free(pa);
		cJSON_free(pb);
	} else {
		assert_string_equal(eb.message, ea.message);
		assert_string_equal(eb.path, ea.path);
		assert_int_equal(eb.line, ea.line);
		assert_int_equal(eb.column, ea.column);
	}
	json_doc_free(&a);
	json_doc_free(&b);
}

static void same(struct json_reuse *pool, const char *text)
{
	same_answer(pool, text, strlen(text));
}

static void test_same_as_json_doc(void **state)
{
	(void)state;
	struct json_reuse pool = JSON_REUSE_INIT;
	cs_alloc_install_cjson_hooks();
	same(&pool, "{\"type\": \"user\", \"uuid\": \"u-1\", \"message\": {\"content\": \"a\\nb \\\"q\\\" \\\\ \\u00e9\"}}");
	same(&pool, "{\"a\": \"x\\u0000y\"}");                   /* a NUL escape */
	same(&pool, "{\"a\": \"x\\\\u0000y\"}");                 /* an escaped backslash, then letters */
	same(&pool, "{\"a\": \"\\\"\\u0000\"}");                 /* after an escaped quote */
	same(&pool, "{\"a\": \"\\\\\\\\\", \"b\": \"\\u0000\"}"); /* after escaped backslashes */
	same(&pool, "{\"a\": 1, \"b\": {\"c\": 2, \"c\": 3}}");  /* a key twice, nested */
	same(&pool, "{\"ab\": 1, \"ba\": 2, \"a\": 3, \"b\": 4}"); /* alike, all different */
	same(&pool, "[{\"x\": 1}, {\"x\": 2}]");                 /* the same key in two objects */
	same(&pool, "{\"a\": [1, 2,, 3]}");                      /* malformed */
	same(&pool, "{\"a\": \"unclosed");
	same(&pool, "");
	same(&pool, "  42 ");
	same(&pool, "{\"a\": 1} trailing");

	struct strbuf s = STRBUF_INIT;
	for (int dup = 0; dup < 2; dup++) { /* more keys than the scan checks itself */
		sb_reset(&s);
		sb_puts(&s, "{\"m\": {");
		for (int i = 0; i < 100; i++)
			sb_printf(&s, "%s\"k%d\": %d", i ? ", " : "", i, i);
		sb_puts(&s, dup ? ", \"k57\": 0}}" : "}}");
		same_answer(&pool, sb_str(&s), s.len);
	}
	sb_reset(&s); /* deep, after what cJSON takes */
	sb_puts(&s, "{\"a\": 1} ");
	sb_repeat(&s, "[", JSON_MAX_DEPTH + 5);
	same_answer(&pool, sb_str(&s), s.len);
	same(&pool, "{\"a\": \"text with u0000 in it, not an escape\"}");
	same(&pool, "{\"a\": 1}  \n ");
	for (int extra = 0; extra < 2; extra++) { /* the depth limit, and one past it */
		sb_reset(&s);
		sb_repeat(&s, "[", JSON_MAX_DEPTH + (size_t)extra);
		sb_repeat(&s, "]", JSON_MAX_DEPTH + (size_t)extra);
		same_answer(&pool, sb_str(&s), s.len);
	}
	sb_reset(&s); /* a document larger than the pool's first chunk, then small ones again */
	sb_puts(&s, "{\"content\": [");
	for (int i = 0; i < 5000; i++)
		sb_printf(&s, "%s{\"type\": \"text\", \"text\": \"block %d \\\"quoted\\\"\\n\"}", i ? ", " : "", i);
	sb_puts(&s, "]}");
	same_answer(&pool, sb_str(&s), s.len);
	same(&pool, "{\"after\": \"the big one\"}");
	same_answer(&pool, sb_str(&s), s.len);
	same(&pool, "{\"b\": 1, \"b\": 2}");
	sb_fini(&s);
	json_reuse_fini(&pool);
}

static void test_bulk_copies(void **state)
{
	(void)state;
	struct bulk b;
	bulk_init(&b, 1000);
	char src[70000];
	for (size_t i = 0; i < sizeof src; i++)
		src[i] = (char)('a' + i % 26);
	const char *kept[200];
	size_t lens[200];
	for (size_t i = 0; i < 200; i++) { /* small, then some larger than a chunk */
		lens[i] = i % 50 == 49 ? 65000 + i : i * 37 % 3000;
		kept[i] = bulk_strndup(&b, src + i % 26, lens[i]);
		assert_non_null(kept[i]);
	}
	for (size_t i = 0; i < 200; i++) {
		assert_memory_equal(kept[i], src + i % 26, lens[i]);
		assert_int_equal(kept[i][lens[i]], '\0');
	}
	bulk_fini(&b);
	bulk_fini(&b); /* twice is fine */
}

/* A kept tree is the document's own: later parses through the pool and the
 * pool's end leave it whole (AddressSanitizer would see a reuse), and
 * json_doc_free frees it (LeakSanitizer would see it kept). */
static void test_keep(void **state)
{
	(void)state;
	struct json_reuse pool = JSON_REUSE_INIT;
	cs_alloc_install_cjson_hooks();
	struct json_doc kept, next, owned;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(json_reuse_parse(&pool, &kept, "{\"a\": \"kept\"}", 13, &err), CS_OK);
	json_reuse_keep(&pool, &kept);
	assert_int_equal(json_reuse_parse(&pool, &next, "{\"b\": \"next one\"}", 17, &err), CS_OK);
	json_doc_free(&next);
	/* one json_doc_parse answers itself ("u0000" in the text): its tree is already its own */
	assert_int_equal(json_reuse_parse(&pool, &owned, "{\"c\": \"u0000\"}", 14, &err), CS_OK);
	json_reuse_keep(&pool, &owned);
	json_reuse_fini(&pool);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(kept.root, "a")->valuestring, "kept");
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(owned.root, "c")->valuestring, "u0000");
	json_doc_free(&kept);
	json_doc_free(&owned);
}

/* Text written in place: a reserve, then a commit of what was used. */
static void test_bulk_reserve(void **state)
{
	(void)state;
	struct bulk b;
	bulk_init(&b, 1000);
	const char *kept[100];
	for (int i = 0; i < 100; i++) {
		size_t room = (size_t)(i % 10 == 9 ? 70000 : 100 + i);
		char *p = bulk_reserve(&b, room);
		assert_non_null(p);
		int n = snprintf(p, room, "item %d", i); /* uses less than it reserved */
		bulk_commit(&b, p, (size_t)n);
		kept[i] = p;
	}
	char want[32];
	for (int i = 0; i < 100; i++) {
		snprintf(want, sizeof want, "item %d", i);
		assert_string_equal(kept[i], want);
	}
	bulk_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_json_doc),
		cmocka_unit_test(test_bulk_copies),
		cmocka_unit_test(test_keep),
		cmocka_unit_test(test_bulk_reserve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
