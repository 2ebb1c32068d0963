/* test_export.c: exporting the report in each format (by extension and by
 * name) byte for byte what report_write makes, the screen with its final
 * newline, an existing file refused unless replacing was asked for, then
 * replaced whole with its .bak and no temporary left behind, a folder that does not exist and the input file itself refused
 * with the file named, and out of memory at every allocation. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "base/alloc.h"
#include "assembly.h"
#include "export.h"
#include "base/fileio.h"
#include "report.h"
#include "source.h"
#include "base/strbuf.h"
#include "support.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST "samples/manifest/bugfix/working-set.yml"

struct fixture {
	char *dir;
	struct source *src;
	struct assembly a;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	f->dir = support_tempdir();
	f->src = support_load(MANIFEST, NULL);
	support_assemble(f->src, &f->a);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	asm_fini(&f->a);
	source_free(f->src);
	support_rmtree(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* The file's bytes (malloc'd, NUL-terminated). */
static char *slurp(const char *path)
{
	char *data = NULL;
	size_t len;
	struct cs_error err;
	if (file_read(path, 0, &data, &len, NULL, &err) != CS_OK)
		fail_msg("%s: %s", path, err.message);
	char *copy = strdup(data);
	cs_free(data);
	return copy;
}

static char *expected_report(const struct assembly *a, enum report_format format)
{
	struct strbuf sb = STRBUF_INIT;
	struct report_options opt = { .format = format };
	assert_int_equal(report_write(a, &opt, &sb), CS_OK);
	char *s = strdup(sb_str(&sb));
	sb_fini(&sb);
	return s;
}

/* Entries in dir besides . and .. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

static void test_format_names(void **state)
{
	(void)state;
	enum export_format f;
	assert_true(export_format_from_name("json", &f));
	assert_int_equal(f, EXPORT_JSON);
	assert_true(export_format_from_name("screen", &f));
	assert_int_equal(f, EXPORT_SCREEN);
	assert_true(export_format_from_name("", &f));
	assert_int_equal(f, EXPORT_AUTO);
	assert_false(export_format_from_name("JSON", &f));
	assert_false(export_format_from_name("xml", &f));
	assert_int_equal(export_format_for_path("out/report.json"), EXPORT_JSON);
	assert_int_equal(export_format_for_path("report.YAML"), EXPORT_YAML);
	assert_int_equal(export_format_for_path("report.yml"), EXPORT_YAML);
	assert_int_equal(export_format_for_path("report.txt"), EXPORT_TEXT);
	assert_int_equal(export_format_for_path("v1.json/report"), EXPORT_TEXT); /* a folder's dot */
	assert_int_equal(export_format_for_path("report"), EXPORT_TEXT);
	assert_int_equal(export_format_for_path("report.screen"), EXPORT_SCREEN);
	/* an extension it does not write is refused, never text under another name */
	assert_int_equal(export_format_for_path("report.csv"), EXPORT_AUTO);
	assert_int_equal(export_format_for_path("report.html"), EXPORT_AUTO);
}

static void test_each_format(void **state)
{
	struct fixture *f = *state;
	struct cs_error err;
	static const struct {
		const char *name;
		enum export_format format;
		enum report_format expect;
	} cases[] = {
		{ "r.json", EXPORT_AUTO, REPORT_JSON },
		{ "r.yaml", EXPORT_AUTO, REPORT_YAML },
		{ "r.txt", EXPORT_AUTO, REPORT_TEXT },
		{ "r.out", EXPORT_JSON, REPORT_JSON },  /* asked for: wins over the extension */
		{ "r2.json", EXPORT_YAML, REPORT_YAML },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s", support_path(f->dir, cases[i].name));
		cs_error_clear(&err);
		assert_int_equal(export_report(&f->a, NULL, cases[i].format, path, NULL, NULL, &err), CS_OK);
		char *got = slurp(path);
		char *want = expected_report(&f->a, cases[i].expect);
		assert_string_equal(got, want);
		if (cases[i].expect == REPORT_JSON) {
			cJSON *doc = cJSON_Parse(got);
			assert_non_null(doc);
			assert_non_null(cJSON_GetObjectItemCaseSensitive(doc, "assembly_report"));
			cJSON_Delete(doc);
		}
		free(got);
		free(want);
	}
	assert_int_equal(entries(f->dir), 5); /* no temporaries, no backups */

	assert_int_equal(export_report(&f->a, NULL, EXPORT_SCREEN, support_path(f->dir, "s"), NULL, NULL, &err), CS_EUSAGE);
}

static void test_ascii_option_passes_through(void **state)
{
	struct fixture *f = *state;
	struct cs_error err;
	struct report_options opt = { .format = REPORT_JSON, .ascii = true };
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(f->dir, "r.txt"));
	/* the format comes from the export, the rest from opt */
	assert_int_equal(export_report(&f->a, &opt, EXPORT_AUTO, path, NULL, NULL, &err), CS_OK);
	char *got = slurp(path);
	struct strbuf sb = STRBUF_INIT;
	struct report_options text = { .format = REPORT_TEXT, .ascii = true };
	assert_int_equal(report_write(&f->a, &text, &sb), CS_OK);
	assert_string_equal(got, sb_str(&sb));
	for (const char *p = got; *p; p++)
		assert_true((unsigned char)*p < 0x80);
	sb_fini(&sb);
	free(got);
}

static void test_screen(void **state)
{
	struct fixture *f = *state;
	struct cs_error err;
	const char screen[] = " ctxscope  working-set.yml\n budget 3,000 \xE2\x94\x82 used 3,000";
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(f->dir, "screen.txt"));
	assert_int_equal(export_screen(screen, sizeof screen - 1, MANIFEST, path, NULL, NULL, &err), CS_OK);
	char *got = slurp(path);
	assert_int_equal(strlen(got), sizeof screen);
	assert_memory_equal(got, screen, sizeof screen - 1);
	assert_int_equal(got[sizeof screen - 1], '\n');
	free(got);

	/* a screen ending in a newline gets no second one */
	snprintf(path, sizeof path, "%s", support_path(f->dir, "screen2.txt"));
	assert_int_equal(export_screen("a\n", 2, NULL, path, NULL, NULL, &err), CS_OK);
	got = slurp(path);
	assert_string_equal(got, "a\n");
	free(got);
}

static void test_replaces_whole(void **state)
{
	struct fixture *f = *state;
	struct cs_error err;
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(f->dir, "report.txt"));
	support_write(f->dir, "report.txt", "an older, much longer report that must not survive in part\n"
					    "............................................................\n");
	/* not without asking */
	struct atomic_write_result res;
	assert_int_equal(export_screen("new", 3, NULL, path, NULL, &res, &err), CS_EUSAGE);
	assert_int_equal(res.refused, ATOMIC_EXISTS);
	char *got = slurp(path);
	assert_non_null(strstr(got, "an older"));
	free(got);
	assert_int_equal(entries(f->dir), 1); /* no temporary */
	struct atomic_write_options replace = { .replace = true, .named = true };
	assert_int_equal(export_screen("new", 3, NULL, path, &replace, &res, &err), CS_OK);
	got = slurp(path);
	assert_string_equal(got, "new\n");
	free(got);
	got = slurp(res.backup);
	assert_non_null(strstr(got, "an older"));
	free(got);
	assert_int_equal(entries(f->dir), 2); /* the .bak, no temporary */
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	struct cs_error err;
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(f->dir, "no/such/folder/r.json"));
	cs_error_clear(&err);
	assert_int_equal(export_report(&f->a, NULL, EXPORT_AUTO, path, NULL, NULL, &err), CS_EIO);
	assert_non_null(strstr(err.file, "r.json"));
	assert_int_equal(entries(f->dir), 0);

	/* the input itself, even by another name for it */
	char *before = slurp(MANIFEST);
	cs_error_clear(&err);
	assert_int_equal(export_report(&f->a, NULL, EXPORT_TEXT, "samples/manifest/bugfix/../bugfix/working-set.yml", NULL, NULL, &err),
			 CS_EUSAGE);
	assert_non_null(strstr(err.message, "input file"));
	cs_error_clear(&err);
	assert_int_equal(export_screen("x", 1, MANIFEST, "./" MANIFEST, NULL, NULL, &err), CS_EUSAGE);
	char *after = slurp(MANIFEST);
	assert_string_equal(before, after);
	free(before);
	free(after);
}

static void test_out_of_memory(void **state)
{
	struct fixture *f = *state;
	char path[4096];
	snprintf(path, sizeof path, "%s", support_path(f->dir, "r.yaml"));
	char *want = expected_report(&f->a, REPORT_YAML);
	bool saw_ok = false;
	for (long n = 1; n < 2000 && !saw_ok; n++) {
		struct cs_error err;
		cs_alloc_fail_from(n);
		int rc = export_report(&f->a, NULL, EXPORT_AUTO, path, NULL, NULL, &err);
		cs_alloc_fail_from(0);
		assert_true(rc == CS_OK || rc == CS_ENOMEM);
		if (rc == CS_OK) {
			saw_ok = true;
			char *got = slurp(path);
			assert_string_equal(got, want);
			free(got);
		} else {
			assert_int_equal(entries(f->dir), 0); /* nothing half-written */
		}
	}
	assert_true(saw_ok);
	free(want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_names),
		cmocka_unit_test_setup_teardown(test_each_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ascii_option_passes_through, setup, teardown),
		cmocka_unit_test_setup_teardown(test_screen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replaces_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
	};
	return cmocka_run_group_tests_name("export", tests, NULL, NULL);
}
