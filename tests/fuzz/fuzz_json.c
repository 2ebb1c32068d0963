/* fuzz_json.c: the JSON layer every JSON loader stands on. json_doc_parse
 * (with its depth, NUL and duplicate-key checks), json_scan_top_keys,
 * json_locate on a path taken from the input, and text_position at every
 * end: none may read outside the input (an exact-size copy, so ASan sees
 * a read past the end), and a refusal always says why and where. */
#include "json_doc.h"
#include "json_scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
