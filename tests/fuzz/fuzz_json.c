/* fuzz_json.c: the JSON layer every JSON loader stands on. json_doc_parse
 * (with its depth, NUL and duplicate-key checks), json_scan_top_keys,
 * json_locate on a path taken from the input, and text_position at every
 * end: none may read outside the input (an exact-size copy, so ASan sees
 * a read past the end), and a refusal always says why and where. The same
 * text read lazily (json_doc_parse_lazy, every lazy array walked) must give
 * the same syntax error, or none when the whole parse has none, and each
 * element's strings unescaped in place read as cJSON's. */
#include "json/doc.h"
#include "json/scan.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool syntax_class(int rc)
{
	return rc == CS_ESYNTAX || rc == CS_ELIMIT;
}

/* Each string member of an element, found in the text and unescaped in
 * place (a copy of the text) to cJSON's length, must read as cJSON's
 * value, then a NUL. */
static void check_in_place(const struct json_iter *it, const cJSON *el, const char *s, size_t size)
{
	const cJSON *m;
	const cJSON *members = cJSON_IsObject(el) ? el : (const cJSON *)NULL;
	cJSON_ArrayForEach(m, members)
	{
		const char *at = json_iter_string_at(it, m->string);
		if (!at)
			continue; /* not a string, or a key written with escapes */
		if (!cJSON_IsString(m))
			abort();
		char *copy = malloc(size); /* exact: a write or read past the text is seen */
		if (!copy)
			return;
		memcpy(copy, s, size);
		size_t n = strlen(m->valuestring);
		char *t = copy + (at - s);
		json_unescape_in_place(t, n);
		if (memcmp(t, m->valuestring, n) || t[n] != '\0')
			abort();
		free(copy);
	}
}

/* The lazy parse of s with every lazy array walked, last key first: its
 * first error. */
static int lazy_all(char *s, size_t size, struct cs_error *err)
{
	static const char *const lazy[] = { "a", "b", "nodes", "items", NULL };
	struct json_doc d;
	int rc = json_doc_parse_lazy(&d, s, size, lazy, err);
	for (int k = 3; k >= 0 && rc == CS_OK; k--) {
		struct json_array arr;
		struct jpath at = JPATH_KEY(JPATH_ROOT, lazy[k]);
		if (!cJSON_IsObject(d.root) || json_get_lazy(&d, lazy[k], JSON_OPTIONAL, &arr, err) != CS_OK)
			continue; /* not an array: the loaders' error, not the parser's */
		struct json_iter it;
		json_iter_init(&it, &d, &arr, &at);
		const cJSON *el = NULL;
		size_t n = 0;
		while ((rc = json_iter_next(&it, &el, err)) == CS_OK && el) {
			check_in_place(&it, el, s, size);
			n++;
		}
		if (rc == CS_OK && n != arr.count)
			abort();
	}
	json_doc_free(&d);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size ? size : 1);
	if (!s)
		return 0;
	memcpy(s, data, size);

	struct json_doc d;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = json_doc_parse(&d, s, size, &err);
	if (rc != CS_OK && rc != CS_ENOMEM && err.message[0] == '\0')
		abort();
	json_doc_free(&d);

	/* Read lazily, the same text gives the same syntax error (line, column,
	 * message), or none; a duplicate key found in an array before a later
	 * syntax error is the one difference streaming allows. */
	struct cs_error lerr;
	cs_error_clear(&lerr);
	int lrc = lazy_all(s, size, &lerr);
	if (lrc != CS_ENOMEM && rc != CS_ENOMEM) {
		if (syntax_class(lrc) && (lrc != rc || lerr.line != err.line || lerr.column != err.column ||
					  strcmp(lerr.message, err.message)))
			abort();
		if ((rc == CS_OK) != (lrc == CS_OK) || (lrc == CS_ESTRUCT && rc != CS_ESTRUCT && !syntax_class(rc)))
			abort();
	}

	struct json_keys keys = { 0 };
	cs_error_clear(&err);
	if (json_scan_top_keys(s, size, &keys, &err) == CS_OK && keys.n)
		json_keys_has(&keys, keys.names[keys.n - 1]);
	json_keys_fini(&keys);

	/* A path from the input's last line, e.g. "nodes[3].metadata". */
	size_t start = size;
	while (start > 0 && s[start - 1] != '\n')
		start--;
	char path[128];
	size_t plen = size - start < sizeof path - 1 ? size - start : sizeof path - 1;
	memcpy(path, s + start, plen);
	path[plen] = '\0';
	long off = json_locate(s, size, path);
	if (off > (long)size)
		abort();
	json_locate(s, size, "");
	json_locate(s, size, "a.b[0]");
	long line, col;
	text_position(s, size, size, &line, &col);
	text_position(s, size, size / 2, &line, &col);
	if (line < 1 || col < 1)
		abort();
	json_error_at(&err, s, size, path);
	free(s);
	return 0;
}
