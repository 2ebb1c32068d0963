/* test_ui_work.c: the inspector for real work (issue 7) below the terminal:
 * search (hits, n / N wrapping, the cursor following, pcre2 errors, a
 * catastrophic pattern stopped), the filter and its inverse, undo and redo
 * restoring the exact assembly, the prompt view's lines, and through the
 * app: the input line's editing keys, Tab completion, saving a manifest in
 * place and a loom what-if file, export of the report and the screen, and
 * the mouse. */
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
#include "report.h"
#include "base/strbuf.h"
#include "term.h"
#include "theme.h"
#include "vm/viewmodel.h"
#include "whatif.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE "tests/fixtures/ui/parser-fix/working-set.yml"
#define FIXTURE_DIR "tests/fixtures/ui/parser-fix"
#define LOOM "samples/loom/parser-debug.json"

static void open_vm(struct vm *vm, const char *path)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_init(vm, support_load(path, NULL), &err), CS_OK);
}

static long row_of_piece(const struct vm *vm, long piece)
{
	for (size_t i = 0; i < vm->nrows; i++)
		if (support_row(vm, i)->type != VM_ROW_MARKER && support_row(vm, i)->piece == piece)
			return (long)i;
	return -1;
}

static void select_piece(struct vm *vm, long piece)
{
	long at = row_of_piece(vm, piece);
	assert_true(at >= 0);
	vm->cursor = (size_t)at;
}

/* The whole text report of the current assembly (caller frees). */
static char *report_of(const struct vm *vm)
{
	struct strbuf out = STRBUF_INIT;
	struct report_options opt = { .format = REPORT_TEXT };
	assert_int_equal(report_write(&vm->session.cur, &opt, &out), CS_OK);
	return sb_detach(&out, NULL);
}

static char *read_all(const char *path)
{
	char *text = NULL;
	size_t len = 0;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(file_read(path, 0, &text, &len, NULL, &err), CS_OK);
	return text;
}

/* ---- search ------------------------------------------------------------------ */

static void test_search_moves_the_cursor_and_counts(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm, FIXTURE);
	struct cs_error err;
	cs_error_clear(&err);
	long asan = support_piece(vm.session.src, "logs/asan-crash.log");
	long parser = support_piece(vm.session.src, "src/http_parser.c");
	long task = support_piece(vm.session.src, "notes/task.md");
	assert_int_equal(vm_search(&vm, "hp_fold", &err), CS_OK);
	/* 3 in the ASan log, 2 in http_parser.c, in the prompt and in the pieces */
	assert_int_equal(vm.search.found.nprompt_hits, 5);
	assert_int_equal(vm.search.found.nhits - vm.search.found.nprompt_hits, 5);
	assert_int_equal(vm_selected_piece(&vm), asan);
	assert_string_equal(sb_str(&vm.status), "/hp_fold: match 1 of 5 in the prompt (5 in pieces)");
	assert_true(vm_row_matches(&vm, support_row(&vm, row_of_piece(&vm, asan))));
	assert_false(vm_row_matches(&vm, support_row(&vm, row_of_piece(&vm, task))));
	/* n three times: the last of the log, then into http_parser.c */
	vm_search_step(&vm, false);
	vm_search_step(&vm, false);
	assert_int_equal(vm_selected_piece(&vm), asan);
	vm_search_step(&vm, false);
	assert_int_equal(vm_selected_piece(&vm), parser);
	assert_non_null(strstr(sb_str(&vm.status), "match 4 of 5"));
	/* N from the first wraps to the last */
	vm_search_step(&vm, false);
	vm_search_step(&vm, false);
	assert_non_null(strstr(sb_str(&vm.status), "match 1 of 5"));
	vm_search_step(&vm, true);
	assert_non_null(strstr(sb_str(&vm.status), "match 5 of 5"));
	assert_int_equal(vm_selected_piece(&vm), parser);
	/* hits inside the piece's text, for the detail's highlights */
	size_t first, n;
	vm_hits_of(&vm, SEARCH_TEXT, asan, &first, &n);
	assert_int_equal(n, 3);
	const struct piece *p = &vm.session.src->pieces[asan];
	for (size_t i = first; i < first + n; i++)
		assert_memory_equal(p->text + vm.search.found.hits[i].start, "hp_fold", 7);
	/* smart case: a capital makes it case-sensitive */
	assert_int_equal(vm_search(&vm, "HP_FOLD", &err), CS_OK);
	assert_int_equal(vm.search.found.nhits, 0);
	assert_string_equal(sb_str(&vm.status), "/HP_FOLD: no match");
	vm_fini(&vm);
}

static void test_search_errors_keep_the_previous_search(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm, FIXTURE);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_search(&vm, "obs-fold", &err), CS_OK);
	size_t hits = vm.search.found.nhits;
	assert_true(hits > 0);
	assert_int_equal(vm_search(&vm, "(a", &err), CS_EUSAGE);
	assert_true(vm.status_error);
	assert_non_null(strstr(sb_str(&vm.status), "missing closing parenthesis"));
	assert_non_null(strstr(sb_str(&vm.status), "3"));
	assert_string_equal(search_pattern_text(vm.search.find), "obs-fold");
	assert_int_equal(vm.search.found.nhits, hits);
	assert_int_equal(vm_search(&vm, "", &err), CS_OK);
	assert_null(vm.search.find);
	vm_fini(&vm);
}

static void test_search_catastrophic_pattern_stops(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char as[64];
	memset(as, 'a', 40);
	strcpy(as + 40, "b\n");
	support_write(dir, "notes/aaa.txt", as);
	support_write(dir, "working-set.yml",
		      "protocol: WORKING-SET/0.1\nbudget:\n  max_tokens: 4000\nfiles:\n  - path: notes/aaa.txt\n    priority: 1.0\n");
	struct vm vm;
	open_vm(&vm, support_path(dir, "working-set.yml"));
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(vm_search(&vm, "(a+)+$", &err), CS_ELIMIT);
	assert_true(vm.status_error);
	assert_non_null(strstr(sb_str(&vm.status), "pattern too costly"));
	assert_null(vm.search.find);
	/* the filter too: nothing hidden */
	assert_int_equal(vm_set_filter(&vm, "(a+)+$", &err), CS_ELIMIT);
	assert_null(vm.search.keep);
	assert_non_null(strstr(sb_str(&vm.status), "pattern too costly"));
	vm_fini(&vm);
	support_rmtree(dir);
	free(dir);
}

/* ---- filter ------------------------------------------------------------------ */

static size_t piece_rows(const struct vm *vm, size_t *markers)
{
	size_t n = 0;
	*markers = 0;
	for (size_t i = 0; i < vm->nrows; i++)
		if (support_row(vm, i)->type == VM_ROW_MARKER)
			(*markers)++;
		else
			n++;
	return n;
}

static void test_filter_and_invert(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm, FIXTURE);
	struct cs_error err;
	cs_error_clear(&err);
	size_t markers;
	assert_int_equal(piece_rows(&vm, &markers), 7);
	assert_int_equal(vm_set_filter(&vm, "test", &err), CS_OK);
	assert_int_equal(piece_rows(&vm, &markers), 4);
	assert_int_equal(markers, 0);
	assert_true(row_of_piece(&vm, support_piece(vm.session.src, "tests/test_headers.c")) >= 0);
	assert_int_equal(row_of_piece(&vm, support_piece(vm.session.src, "src/http_parser.c")), -1);
	assert_string_equal(sb_str(&vm.status), "filter /test/: 4 of 7 pieces (! inverts, \\ then Enter on empty clears)");
	vm_invert_filter(&vm);
	assert_int_equal(piece_rows(&vm, &markers), 3);
	assert_true(row_of_piece(&vm, support_piece(vm.session.src, "src/http_parser.c")) >= 0);
	assert_int_equal(row_of_piece(&vm, support_piece(vm.session.src, "tests/test_headers.c")), -1);
	/* a filtered list still takes edits, and keeps its filter */
	select_piece(&vm, support_piece(vm.session.src, "src/http_parser.c"));
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	assert_int_equal(piece_rows(&vm, &markers), 3);
	assert_int_equal(vm_set_filter(&vm, "", &err), CS_OK);
	assert_int_equal(piece_rows(&vm, &markers), 7);
	assert_true(markers > 0);
	/* a bad filter: pcre2's message, the list untouched */
	assert_int_equal(vm_set_filter(&vm, "[z-a]", &err), CS_EUSAGE);
	assert_non_null(strstr(sb_str(&vm.status), "range out of order"));
	assert_int_equal(piece_rows(&vm, &markers), 7);
	vm_fini(&vm);
}

/* ---- undo and redo -------------------------------------------------------------- */

static void test_undo_redo_restore_the_exact_assembly(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm, FIXTURE);
	struct cs_error err;
	cs_error_clear(&err);
	char *loaded = report_of(&vm);
	select_piece(&vm, support_piece(vm.session.src, "src/http_parser.c"));
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	char *one = report_of(&vm);
	select_piece(&vm, support_piece(vm.session.src, "docs/rfc9112-notes.md"));
	assert_int_equal(vm_nudge_priority(&vm, VM_PRIORITY_STEP, &err), CS_OK);
	assert_int_equal(vm_cycle_strategy(&vm, false, &err), CS_OK);
	assert_int_equal(vm_set_budget(&vm, "1k", &err), CS_OK);
	char *four = report_of(&vm);
	assert_int_equal(vm.session.hist.ndone, 4);

	for (int i = 0; i < 3; i++)
		assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_non_null(strstr(sb_str(&vm.status), "undone: priority of docs/rfc9112-notes.md"));
	char *r = report_of(&vm);
	assert_string_equal(r, one);
	cs_free(r);
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	assert_non_null(strstr(sb_str(&vm.status), "undone: excluded src/http_parser.c"));
	assert_non_null(strstr(sb_str(&vm.status), "prompt same as the baseline"));
	assert_true(vm.cache.identical);
	r = report_of(&vm);
	assert_string_equal(r, loaded);
	cs_free(r);
	assert_int_equal(vm_undo(&vm, &err), CS_EUSAGE);
	assert_string_equal(sb_str(&vm.status), "nothing to undo");

	for (int i = 0; i < 4; i++)
		assert_int_equal(vm_redo(&vm, &err), CS_OK);
	assert_non_null(strstr(sb_str(&vm.status), "redone: budget"));
	r = report_of(&vm);
	assert_string_equal(r, four);
	cs_free(r);
	assert_int_equal(vm_redo(&vm, &err), CS_EUSAGE);
	/* a new edit after an undo forgets what could be redone */
	assert_int_equal(vm_undo(&vm, &err), CS_OK);
	select_piece(&vm, support_piece(vm.session.src, "notes/task.md"));
	assert_int_equal(vm_toggle_exclude(&vm, &err), CS_OK);
	assert_false(history_can_redo(&vm.session.hist));
	cs_free(loaded);
	cs_free(one);
	cs_free(four);
	vm_fini(&vm);
}

/* ---- the prompt view --------------------------------------------------------------- */

static void test_prompt_lines_hold_the_prompt(void **state)
{
	(void)state;
	struct vm vm;
	open_vm(&vm, LOOM);
	assert_true(vm_prompt_lines(&vm));
	const struct assembly *a = &vm.session.cur;
	/* every block's text, line by line, in order; a marker line after every breakpoint */
	struct strbuf body = STRBUF_INIT, joined = STRBUF_INIT;
	size_t breakpoints = 0, marker_lines = 0, headers = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		breakpoints += (a->blocks[b].flags & BLOCK_BREAKPOINT) != 0;
		sb_reset(&body);
		sb_reset(&joined);
		asm_block_text(a, b, &body);
		bool first = true;
		for (size_t i = 0; i < vm.prompt.nlines; i++) {
			const struct vm_line *l = &vm.prompt.lines[i];
			if (l->block != (long)b || !l->src_off1)
				continue;
			if (!first)
				sb_putc(&joined, '\n');
			first = false;
			assert_memory_equal(vm.prompt.text.data + l->off, sb_str(&body) + l->src_off1 - 1, l->len);
			sb_append(&joined, vm.prompt.text.data + l->off, l->len);
		}
		assert_string_equal(sb_str(&joined), sb_str(&body));
	}
	for (size_t i = 0; i < vm.prompt.nlines; i++) {
		const struct vm_line *l = &vm.prompt.lines[i];
		if (!l->src_off1 && l->block >= 0)
			marker_lines++;
		if (l->block < 0)
			headers++;
	}
	assert_true(breakpoints >= 2);
	assert_int_equal(marker_lines, breakpoints);
	size_t shown_messages = 0;
	for (size_t m = 0; m < a->nmessages; m++)
		shown_messages += a->messages[m].nblocks > 0;
	/* each message, and the system blocks when they sit before the first */
	assert_int_equal(headers, shown_messages + (a->messages[0].first_block > 0));
	assert_memory_equal(vm.prompt.text.data + vm.prompt.lines[0].off, "== system ==", 12);
	/* the line of a block, and back */
	long b3 = 3;
	size_t at = vm_prompt_line_of_block(&vm, b3);
	assert_int_equal(vm.prompt.lines[at].block, b3);
	vm_select_block(&vm, b3);
	assert_int_equal(vm_selected(&vm)->block, b3);
	sb_fini(&body);
	sb_fini(&joined);
	vm_fini(&vm);
}

/* ---- through the app: input line, save, export, mouse ------------------------------------ */

static void open_app(struct app *app, const char *path)
{
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(app, support_load(path, NULL), false, &err), CS_OK);
	app_layout(app, 100, 30);
}

/* Types text into the app, a character at a time. */
static void type(struct app *app, const char *text)
{
	for (const char *p = text; *p; p++)
		app_key(app, (unsigned char)*p);
}

static void test_input_line_editing_and_completion(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, FIXTURE);
	app_key(&app, 'b');
	assert_int_equal(app_mode(&app), APP_PROMPT);
	type(&app, "99");
	app_key(&app, CSK_BACKSPACE);
	assert_int_equal(app_input_line(&app)->len, 1);
	app_key(&app, CSK_CTRL_U);
	assert_int_equal(app_input_line(&app)->len, 0);
	type(&app, "1k");
	app_key(&app, CSK_ENTER);
	assert_int_equal(app_mode(&app), APP_NORMAL);
	assert_int_equal(app.vm.session.cur.budget.usable, 1000);
	/* Backspace takes a whole UTF-8 character */
	app_key(&app, '/');
	type(&app, "a\xc3\xa9");
	app_key(&app, CSK_BACKSPACE);
	assert_int_equal(app_input_line(&app)->len, 1);
	app_key(&app, CSK_ESC);
	assert_int_equal(app_mode(&app), APP_NORMAL);
	assert_null(app.vm.search.find);
	/* Tab: a unique command, then its argument */
	app_key(&app, ':');
	type(&app, "so");
	app_key(&app, CSK_TAB);
	assert_string_equal(app_input_line(&app)->text, "sort ");
	type(&app, "tok");
	app_key(&app, CSK_TAB);
	assert_string_equal(app_input_line(&app)->text, "sort tokens ");
	app_key(&app, CSK_ENTER);
	assert_int_equal(app.vm.sort, VM_SORT_TOKENS);
	/* :undo undoes the budget; :q quits */
	app_key(&app, ':');
	type(&app, "undo");
	app_key(&app, CSK_ENTER);
	assert_int_equal(app.vm.session.cur.budget.usable, 1600);
	app_key(&app, ':');
	type(&app, "q");
	assert_true(app_key(&app, CSK_ENTER) & APP_QUIT);
	app_fini(&app);
}

static void test_save_manifest_and_refuse_a_changed_file(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp -r %s/. %s/", FIXTURE_DIR, dir);
	assert_int_equal(system(cmd), 0);
	char path[512];
	snprintf(path, sizeof path, "%s", support_path(dir, "working-set.yml"));
	char *original = read_all(path);
	struct app app;
	open_app(&app, path);
	/* exclude the RFC notes, raise http_parser.h, save */
	select_piece(&app.vm, support_piece(app.vm.session.src, "docs/rfc9112-notes.md"));
	app_key(&app, ' ');
	select_piece(&app.vm, support_piece(app.vm.session.src, "src/http_parser.h"));
	app_key(&app, '+');
	app_key(&app, 'w');
	assert_false(app.vm.status_error);
	assert_non_null(strstr(sb_str(&app.vm.status), "1 value changed, 1 entry removed"));
	char *saved = read_all(path);
	char bak[600];
	snprintf(bak, sizeof bak, "%s.bak", path);
	char *backup = read_all(bak);
	assert_string_equal(backup, original);
	assert_non_null(strstr(saved, "  - path: src/http_parser.h\n    priority: 0.75\n"));
	assert_null(strstr(saved, "rfc9112"));
	assert_non_null(strstr(saved, "# Working set for the header-folding crash"));
	/* changed on disk since: not overwritten, save-as offered */
	support_write(dir, "working-set.yml", "# someone else's edit\nprotocol: WORKING-SET/0.1\nfiles: []\n");
	app_key(&app, '-');
	app_key(&app, 'w');
	assert_int_equal(app_mode(&app), APP_PROMPT);
	char *now = read_all(path);
	assert_string_equal(now, "# someone else's edit\nprotocol: WORKING-SET/0.1\nfiles: []\n");
	app_key(&app, CSK_ENTER); /* the offered name: FILE.new */
	char newpath[600];
	snprintf(newpath, sizeof newpath, "%s.new", path);
	char *as = read_all(newpath);
	assert_non_null(strstr(as, "  - path: src/http_parser.h\n    priority: 0.7\n"));
	assert_non_null(strstr(sb_str(&app.vm.status), "saved"));
	cs_free(original);
	cs_free(saved);
	cs_free(backup);
	cs_free(now);
	cs_free(as);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

static void test_loom_what_if_file(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "cp %s %s/tree.json", LOOM, dir);
	assert_int_equal(system(cmd), 0);
	char path[512];
	snprintf(path, sizeof path, "%s", support_path(dir, "tree.json"));
	struct app app;
	open_app(&app, path);
	app_key(&app, 'w');
	assert_int_equal(app_mode(&app), APP_NORMAL); /* nothing to save yet */
	assert_non_null(strstr(sb_str(&app.vm.status), "no edits to save"));
	app_key(&app, 'j');
	app_key(&app, 'j');
	app_key(&app, 'j');
	app_key(&app, ' ');
	app_key(&app, 'w');
	assert_int_equal(app_mode(&app), APP_PROMPT);
	app_key(&app, CSK_ENTER);
	char wpath[600];
	snprintf(wpath, sizeof wpath, "%s.edits.json", path);
	char *w = read_all(wpath);
	assert_non_null(strstr(w, "\"setting\": \"exclude\""));
	assert_non_null(strstr(sb_str(&app.vm.status), "reapply with: ctxscope"));
	/* the file reapplies to a fresh load: the same assembly */
	struct source *again = support_load(path, NULL);
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(whatif_apply(again, wpath, &err), CS_OK);
	struct assembly a;
	support_assemble(again, &a);
	assert_int_equal(a.total_tokens, app.vm.session.cur.total_tokens);
	assert_int_equal(a.nblocks, app.vm.session.cur.nblocks);
	asm_fini(&a);
	source_free(again);
	cs_free(w);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

static void test_export_report_and_screen(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct app app;
	open_app(&app, FIXTURE);
	char path[600];
	snprintf(path, sizeof path, "%s", support_path(dir, "r.json"));
	app_key(&app, 'x');
	type(&app, path);
	app_key(&app, CSK_ENTER);
	assert_false(app.vm.status_error);
	char *json = read_all(path);
	assert_int_equal(json[0], '{');
	assert_non_null(strstr(json, "\"src/http_parser.c\""));
	snprintf(path, sizeof path, "%s", support_path(dir, "view.screen"));
	app_key(&app, ':');
	type(&app, "export ");
	type(&app, path);
	app_key(&app, CSK_ENTER);
	char *screen = read_all(path);
	assert_non_null(strstr(screen, " ctxscope "));
	assert_non_null(strstr(screen, "cache breakpoint"));
	assert_null(strstr(screen, "export ")); /* the screen under the input line */
	/* never over the input */
	app_key(&app, 'x');
	type(&app, FIXTURE);
	app_key(&app, CSK_ENTER);
	assert_true(app.vm.status_error);
	cs_free(json);
	cs_free(screen);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

/* The inspector defers the memory kind's drop sentences (it shows a
 * screenful): an export from it still writes every one, as the report does. */
static void test_export_writes_deferred_sentences(void **state)
{
	(void)state;
	char *dir = support_tempdir();
	struct app app;
	open_app(&app, "samples/memory/coding-session.json");
	char path[600];
	snprintf(path, sizeof path, "%s", support_path(dir, "r.txt"));
	app_key(&app, 'x');
	type(&app, path);
	app_key(&app, CSK_ENTER);
	assert_false(app.vm.status_error);
	char *text = read_all(path);
	struct source *src = support_load("samples/memory/coding-session.json", NULL);
	struct assembly a;
	support_assemble(src, &a);
	size_t checked = 0;
	for (size_t i = 0; i < src->npieces; i++)
		if (a.results[i].sentence && strstr(a.results[i].sentence, "over allocation") && ++checked)
			assert_non_null(strstr(text, a.results[i].sentence));
	assert_true(checked > 0);
	asm_fini(&a);
	source_free(src);
	cs_free(text);
	app_fini(&app);
	support_rmtree(dir);
	free(dir);
}

static void test_mouse(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, FIXTURE);
	const struct app_layout *L = &app.layout;
	/* a click on a row selects it; on a marker nothing */
	long parser = support_piece(app.vm.session.src, "src/http_parser.c");
	long row = row_of_piece(&app.vm, parser);
	app_mouse(&app, L->list_y + (int)row, 40, APP_MOUSE_CLICK);
	assert_int_equal(vm_selected_piece(&app.vm), parser);
	app_mouse(&app, L->list_y + 1, 40, APP_MOUSE_CLICK);
	assert_int_equal(vm_selected_piece(&app.vm), parser);
	/* a click on the context bar: that layer only; again: all */
	int bar = -1;
	for (int i = 0; i < L->nbars; i++)
		if (strcmp(vm_grouping(&app.vm)->layers[L->bar_layer[i]].name, "context") == 0)
			bar = i;
	assert_true(bar >= 0);
	size_t all = app.vm.nrows;
	app_mouse(&app, L->bars_y + bar, 30, APP_MOUSE_CLICK);
	assert_int_equal(app.vm.nrows, 3);
	for (size_t i = 0; i < app.vm.nrows; i++)
		assert_string_equal(app.vm.session.src->pieces[support_row(&app.vm, i)->piece].role, "context");
	app_mouse(&app, L->bars_y + bar, 30, APP_MOUSE_CLICK);
	assert_int_equal(app.vm.nrows, all);
	/* the wheel moves three rows (markers stepped over) */
	vm_first(&app.vm);
	app_mouse(&app, L->list_y, 40, APP_MOUSE_WHEEL_DOWN);
	assert_int_equal(vm_selected_piece(&app.vm), parser);
	app_fini(&app);
}

/* ---- highlights: a painter that keeps what is painted in the match role ---------- */

struct capture {
	struct strbuf hl; /* each highlighted run, one per line */
};

static void cap_begin(void *ctx, int w, int h)
{
	(void)w;
	(void)h;
	sb_reset(&((struct capture *)ctx)->hl);
}

static void cap_put(void *ctx, int y, int x, const char *s, size_t bytes, int role)
{
	(void)y;
	(void)x;
	struct capture *c = ctx;
	if (role == ROLE_HINT_KEY && bytes > 1) { /* the match role; hint keys are short */
		sb_append(&c->hl, s, bytes);
		sb_putc(&c->hl, '\n');
	}
}

static void cap_cursor(void *ctx, int y, int x)
{
	(void)ctx;
	(void)y;
	(void)x;
}

static void cap_end(void *ctx)
{
	(void)ctx;
}

static const struct painter_ops cap_ops = { .begin = cap_begin, .put = cap_put, .cursor = cap_cursor, .end = cap_end };

static size_t count_lines_equal(const char *text, const char *line)
{
	size_t n = 0, k = strlen(line);
	for (const char *p = text; *p; p = strchr(p, '\n') + 1)
		n += strncmp(p, line, k) == 0 && p[k] == '\n';
	return n;
}

static void test_matches_highlighted(void **state)
{
	(void)state;
	struct app app;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(&app, support_load(FIXTURE, NULL), false, &err), CS_OK);
	app_layout(&app, 120, 40); /* the detail on the right */
	struct capture c = { .hl = STRBUF_INIT };
	struct painter p = { .ops = &cap_ops, .ctx = &c };
	app_key(&app, '/');
	type(&app, "hp_fold");
	app_key(&app, CSK_ENTER);
	app_draw(&app, &p);
	/* the three in the ASan log's detail, exactly the matched bytes */
	assert_int_equal(count_lines_equal(sb_str(&c.hl), "hp_fold"), 3);
	/* the other matching row's label (the selected one wears the cursor) */
	assert_non_null(strstr(sb_str(&c.hl), "/http_parser.c")); /* a path cut in the middle keeps its name */
	assert_null(strstr(sb_str(&c.hl), "notes/task.md"));
	/* the prompt view: the log's lines in view */
	app_key(&app, 'v');
	app_draw(&app, &p);
	assert_true(count_lines_equal(sb_str(&c.hl), "hp_fold") >= 3);
	/* cleared: nothing highlighted */
	app_key(&app, 'v');
	app_key(&app, '/');
	app_key(&app, CSK_ENTER);
	app_draw(&app, &p);
	assert_int_equal(count_lines_equal(sb_str(&c.hl), "hp_fold"), 0);
	sb_fini(&c.hl);
	app_fini(&app);
}

/* ---- out of memory anywhere in a working session ------------------------------------ */

static bool session_with_failure(long nth, long *allocs)
{
	struct app app;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(&app, support_load(FIXTURE, NULL), false, &err), CS_OK);
	struct strbuf out = STRBUF_INIT;
	cs_alloc_fail_from(nth);
	int rc = screen_run(&app, 120, 40,
			    "/ h p _ f o l d Enter n N \\ t e s t Enter ! j Space u C-r v j j v d d : s o Tab t Tab Enter "
			    "\\ Enter u u",
			    &out, &err);
	if (allocs)
		*allocs = cs_alloc_count();
	cs_alloc_fail_from(0);
	assert_true(rc == CS_OK || rc == CS_ENOMEM);
	bool clean = rc == CS_OK && !out.failed && !strstr(sb_str(&out), "out of memory");
	sb_fini(&out);
	app_fini(&app);
	return clean;
}

static void test_session_out_of_memory_sweep(void **state)
{
	(void)state;
	long total = 0;
	assert_true(session_with_failure(0, &total));
	assert_true(total > 10);
	long step = total / 151 > 0 ? total / 151 : 1;
	int failed = 0;
	for (long nth = 1; nth <= total; nth += step)
		failed += !session_with_failure(nth, NULL);
	assert_true(failed > 0);
	assert_true(session_with_failure(total + 1, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_search_moves_the_cursor_and_counts),
		cmocka_unit_test(test_search_errors_keep_the_previous_search),
		cmocka_unit_test(test_search_catastrophic_pattern_stops),
		cmocka_unit_test(test_filter_and_invert),
		cmocka_unit_test(test_undo_redo_restore_the_exact_assembly),
		cmocka_unit_test(test_prompt_lines_hold_the_prompt),
		cmocka_unit_test(test_input_line_editing_and_completion),
		cmocka_unit_test(test_save_manifest_and_refuse_a_changed_file),
		cmocka_unit_test(test_loom_what_if_file),
		cmocka_unit_test(test_export_report_and_screen),
		cmocka_unit_test(test_export_writes_deferred_sentences),
		cmocka_unit_test(test_mouse),
		cmocka_unit_test(test_matches_highlighted),
		cmocka_unit_test(test_session_out_of_memory_sweep),
	};
	return cmocka_run_group_tests_name("ui-work", tests, NULL, NULL);
}
