/* test_ui_writes.c: every write the inspector makes goes through the atomic
 * path: `w` on a loom tree whose default what-if name is a planted symbolic
 * link refuses it (the link's target untouched); an existing file typed at
 * the what-if prompt or given to :export is replaced only after "y" to
 * "replace it?", with its .bak; "n" leaves it; a read-only manifest asks
 * before `w` replaces it, and the saved message names the .bak; a what-if
 * save or an export to the input by any other name (sub/../, a symbolic
 * link, a hard link) is refused without asking, the input unchanged. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "base/alloc.h"
#include "app.h"
#include "app_priv.h"
#include "base/fileio.h"
#include "base/strbuf.h"
#include "term.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXTURE_DIR "tests/fixtures/ui/parser-fix"
#define LOOM "samples/loom/parser-debug.json"

static char *read_all(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(file_read(path, 0, &text, &len, NULL, &err), CS_OK);
	return text;
}

static void open_app(struct app *app, const char *path)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(app, support_load(path, NULL), false, &err), CS_OK);
	app_layout(app, 100, 30);
}

static void type(struct app *app, const char *text)
{
	for (const char *p = text; *p; p++)
		app_key(app, (unsigned char)*p);
}

static const char *status(const struct app *app)
{
	return sb_str(&app->vm.status);
}

/* A loom tree in a checkout, with one node excluded. */
static void open_edited_loom(struct app *app, char *dir, char *path, size_t n)
{
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "mkdir -p %s/checkout %s/home && cp %s %s/checkout/session.json", dir, dir, LOOM, dir);
	assert_int_equal(system(cmd), 0);
	snprintf(path, n, "%s/checkout/session.json", dir);
	open_app(app, path);
	app_key(app, 'j');
	app_key(app, 'j');
	app_key(app, 'j');
	app_key(app, ' ');
}

static void test_planted_link_at_the_default_name(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char path[512];
	struct app app;
	open_edited_loom(&app, dir, path, sizeof path);
	support_write(dir, "home/.bashrc", "alias ls='ls -F'\n");
	char link_path[600];
	snprintf(link_path, sizeof link_path, "%s.edits.json", path);
	assert_int_equal(symlink("../home/.bashrc", link_path), 0);
	app_key(&app, 'w');
	assert_int_equal(app_mode(&app), APP_PROMPT);
	app_key(&app, CSK_ENTER); /* the default name, as offered */
	assert_int_equal(app_mode(&app), APP_NORMAL);
	assert_true(app.vm.status_error);
	assert_non_null(strstr(status(&app), "symbolic link"));
	char *rc = read_all(support_path(dir, "home/.bashrc"));
	assert_string_equal(rc, "alias ls='ls -F'\n");
	cs_free(rc);
	assert_int_equal(access(support_path(dir, "home/.bashrc.bak"), F_OK), -1);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

static void test_existing_file_asks(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char path[512];
	struct app app;
	open_edited_loom(&app, dir, path, sizeof path);
	support_write(dir, "checkout/mine.json", "my notes\n");
	char mine[600];
	snprintf(mine, sizeof mine, "%s", support_path(dir, "checkout/mine.json"));
	/* typed at the what-if prompt: asks; n leaves it */
	app_key(&app, 'w');
	app_key(&app, CSK_CTRL_U); /* Ctrl-U: erase the offered name */
	type(&app, mine);
	app_key(&app, CSK_ENTER);
	assert_int_equal(app_mode(&app), APP_PROMPT);
	assert_int_equal(app.input, INPUT_REPLACE);
	type(&app, "n");
	app_key(&app, CSK_ENTER);
	char *now = read_all(mine);
	assert_string_equal(now, "my notes\n");
	cs_free(now);
	assert_non_null(strstr(status(&app), "left as it was"));
	/* y: replaced, the old one kept as .bak and named */
	app_key(&app, 'w');
	app_key(&app, CSK_CTRL_U);
	type(&app, mine);
	app_key(&app, CSK_ENTER);
	type(&app, "y");
	app_key(&app, CSK_ENTER);
	assert_false(app.vm.status_error);
	now = read_all(mine);
	assert_non_null(strstr(now, "\"ctxscope_edits\""));
	cs_free(now);
	char bak[700];
	snprintf(bak, sizeof bak, "%s.bak", mine);
	now = read_all(bak);
	assert_string_equal(now, "my notes\n");
	cs_free(now);
	assert_non_null(strstr(status(&app), bak));
	/* :export over an existing file: asks too */
	support_write(dir, "checkout/report.txt", "an old report\n");
	app_key(&app, ':');
	type(&app, "export ");
	type(&app, support_path(dir, "checkout/report.txt"));
	app_key(&app, CSK_ENTER);
	assert_int_equal(app.input, INPUT_REPLACE);
	now = read_all(support_path(dir, "checkout/report.txt"));
	assert_string_equal(now, "an old report\n");
	cs_free(now);
	type(&app, "y");
	app_key(&app, CSK_ENTER);
	assert_false(app.vm.status_error);
	now = read_all(support_path(dir, "checkout/report.txt.bak"));
	assert_string_equal(now, "an old report\n");
	cs_free(now);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

static void test_read_only_manifest_asks(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp -r %s/. %s/", FIXTURE_DIR, dir);
	assert_int_equal(system(cmd), 0);
	char path[512];
	snprintf(path, sizeof path, "%s", support_path(dir, "working-set.yml"));
	assert_int_equal(chmod(path, 0444), 0);
	char *original = read_all(path);
	struct app app;
	open_app(&app, path);
	app_key(&app, 'j');
	app_key(&app, '+');
	app_key(&app, 'w');
	if (app_mode(&app) != APP_PROMPT)
		print_message("status: %s\n", status(&app));
	assert_int_equal(app_mode(&app), APP_PROMPT);
	assert_int_equal(app.input, INPUT_REPLACE_READONLY);
	char *now = read_all(path);
	assert_string_equal(now, original);
	cs_free(now);
	type(&app, "y");
	app_key(&app, CSK_ENTER);
	assert_false(app.vm.status_error);
	assert_non_null(strstr(status(&app), "saved"));
	char bak[600];
	snprintf(bak, sizeof bak, "%s.bak", path);
	assert_non_null(strstr(status(&app), bak));
	now = read_all(bak);
	assert_string_equal(now, original);
	cs_free(now);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0444);
	cs_free(original);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

static void test_never_over_the_input(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char path[512];
	struct app app;
	open_edited_loom(&app, dir, path, sizeof path);
	char *original = read_all(path);
	char names[3][700];
	snprintf(names[0], sizeof names[0], "%s/checkout/../checkout/session.json", dir);
	snprintf(names[1], sizeof names[1], "%s/checkout/link.json", dir);
	snprintf(names[2], sizeof names[2], "%s/checkout/hard.json", dir);
	assert_int_equal(symlink("session.json", names[1]), 0);
	assert_int_equal(link(path, names[2]), 0);
	for (int i = 0; i < 3; i++) {
		app_key(&app, 'w');
		app_key(&app, CSK_CTRL_U);
		type(&app, names[i]);
		app_key(&app, CSK_ENTER);
		assert_int_equal(app_mode(&app), APP_NORMAL); /* refused, not asked */
		assert_true(app.vm.status_error);
		assert_non_null(strstr(status(&app), "input file"));
		app_key(&app, ':');
		type(&app, "export ");
		type(&app, names[i]);
		app_key(&app, CSK_ENTER);
		assert_int_equal(app_mode(&app), APP_NORMAL);
		assert_true(app.vm.status_error);
		assert_non_null(strstr(status(&app), "input file"));
		char *now = read_all(path);
		assert_string_equal(now, original);
		cs_free(now);
	}
	char bak[600];
	snprintf(bak, sizeof bak, "%s.bak", path);
	assert_int_equal(access(bak, F_OK), -1);
	cs_free(original);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted_link_at_the_default_name),
		cmocka_unit_test(test_existing_file_asks),
		cmocka_unit_test(test_read_only_manifest_asks),
		cmocka_unit_test(test_never_over_the_input),
	};
	return cmocka_run_group_tests_name("ui_writes", tests, NULL, NULL);
}
