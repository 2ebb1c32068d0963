/* fuzz_db.c: the agents.db reader (src/kinds/ledger/db.c) under libFuzzer.
 * An input is a whole SQLite file, written to a private folder and opened
 * as `ctxscope report agents.db` opens it; what loads is assembled, reported
 * and dumped. The mutator works at the level of SQLite's pages: it takes the
 * page size from the header and mutates within one page, copies one page
 * over another, swaps two, drops or repeats one, or cuts the file at a page
 * boundary, with libFuzzer's byte mutations now and then (and on the header
 * page), so the b-trees stay mostly whole and the reader gets deep into a
 * damaged file instead of stopping at the header. Seeds: databases built
 * from the ledger samples (tests/fuzz/run makes them with
 * tests/ledger/db_from_export.sh at a 512-byte page size).
 * Checked: no crash, leak or sanitizer report; a refusal has a message; the
 * report and the dump hold no control byte a terminal would act on; the
 * folder holds nothing but the file afterwards (nothing made beside it, a
 * private copy removed). */
#include "assembly.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "dump.h"
#include "kind.h"
#include "kinds/ledger/ledger.h"
#include "report.h"
#include "source.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "terminal_safe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);


/* The page size the header says (512 to 65536), else 4096. */
static size_t page_size(const uint8_t *data, size_t size)
{
	if (size < 100)
		return 4096;
	size_t p = (size_t)data[16] << 8 | data[17];
	if (p == 1)
		return 65536;
	return p >= 512 && p <= 32768 && !(p & (p - 1)) ? p : 4096;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	srand(seed);
	size_t ps = page_size(data, size);
	size_t npages = size / ps;
	if (npages < 2 || rand() % 8 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	size_t a = (size_t)rand() % npages, b = (size_t)rand() % npages;
	switch (rand() % 6) {
	case 0: { /* bytes within one page (often the header page: 0) */
		size_t p = rand() % 4 == 0 ? 0 : a;
		size_t off = p * ps;
		size_t n = ps < size - off ? ps : size - off;
		size_t got = LLVMFuzzerMutate(data + off, n, n);
		if (got < n)
			memset(data + off + got, 0, n - got);
		return size;
	}
	case 1: /* one page over another */
		memmove(data + b * ps, data + a * ps, ps);
		return size;
	case 2: { /* two pages swapped */
		uint8_t tmp[65536];
		memcpy(tmp, data + a * ps, ps);
		memmove(data + a * ps, data + b * ps, ps);
		memcpy(data + b * ps, tmp, ps);
		return size;
	}
	case 3: /* a page dropped */
		memmove(data + a * ps, data + (a + 1) * ps, size - (a + 1) * ps);
		return size - ps;
	case 4: /* a page repeated */
		if (size + ps > max_size)
			return size;
		memmove(data + (a + 1) * ps, data + a * ps, size - a * ps);
		return size + ps;
	default: /* cut at a page boundary */
		return (a ? a : 1) * ps;
	}
}

/* The entries of dir but . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

static void assemble_and_report(struct source *src)
{
	struct cs_error err;
	cs_error_clear(&err);
	struct assembly a;
	if (assemble(src, &a, &err) != CS_OK) {
		if (err.code != CS_ENOMEM && err.message[0] == '\0')
			abort();
		return;
	}
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_TEXT };
	if (report_write(&a, &opt, &out) == CS_OK)
		check_terminal_safe(&out);
	sb_reset(&out);
	if (dump_write(&a, false, false, &out) == CS_OK)
		check_terminal_safe(&out);
	sb_fini(&out);
	asm_fini(&a);
}

static char dir[256], path[300];

static void remove_dir(void)
{
	unlink(path);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof dir, "%s/fuzz-db-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		snprintf(path, sizeof path, "%s/agents.db", dir);
		atexit(remove_dir);
	}
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	const struct kind_ops *kind = kind_by_name("ledger");
	struct source *src = kind ? source_new(kind, path) : NULL;
	struct cs_error err;
	cs_error_clear(&err);
	int rc = src ? ledger_load_db(src, path, NULL, &err) : CS_ENOMEM;
	if (entries(dir) != 1)
		abort(); /* something was made beside the database, or a copy left */
	if (rc == CS_OK)
		assemble_and_report(src);
	else if (rc != CS_ENOMEM && err.message[0] == '\0')
		abort(); /* every refusal says why */
	source_free(src);
	unlink(path);
	return 0;
}
