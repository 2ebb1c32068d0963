/* fuzz_scan.c: `ctxscope scan` (src/scan) on any bytes. Each line goes
 * through the scan's line reader on an exact-size copy (ASan sees a read
 * past the end), a refusal saying where inside the line; then the input as
 * a session file through the whole scan (reader, chain, waste model, every
 * output format), which must never fail but for memory. */
#include "base/strbuf.h"
#include "scan/lines.h"
#include "scan/scan.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static void lines(const uint8_t *data, size_t size)
{
	size_t from = 0;
	while (from <= size) {
		const uint8_t *nl = memchr(data + from, '\n', size - from);
		size_t n = nl ? (size_t)(nl - data) - from : size - from;
		char *copy = malloc(n ? n : 1);
		memcpy(copy, data + from, n);
		struct line_fields lf;
		size_t at = 0;
		const char *why = NULL;
		if (!scan_line_fields(copy, n, &lf, &at, &why) && (at > n || !why))
			abort();
		free(copy);
		if (!nl)
			break;
		from += n + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lines(data, size);
	if (!path[0]) {
		snprintf(path, sizeof path, "/tmp/ctxscope-fuzz-scan-%ld.jsonl", (long)getpid());
	}
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	const char *paths[] = { path };
	struct scan_options o = { .paths = paths, .npaths = 1, .threads = 1, .since = -1, .now = 1e10 };
	struct scan_result r;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = scan_run(&o, &r, &err);
	if (rc != CS_OK && rc != CS_ENOMEM)
		abort();
	scan_sort(&r, SORT_WASTE);
	for (int fm = SCAN_TEXT; fm <= SCAN_CSV; fm++) {
		struct strbuf out = STRBUF_INIT;
		scan_write(&r, (enum scan_format)fm, 0, fm == SCAN_CSV, &out);
		sb_fini(&out);
	}
	scan_result_fini(&r);
	unlink(path);
	return 0;
}
