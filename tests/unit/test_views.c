/* test_views.c: the inspector's views as tables on a stack (ui/view.h):
 * the one scroller (saturating, clamped), keys going to the top view first,
 * a view added as one table, the diff view's text rebuilt only when the
 * assembly moved (not on keys typed into the input line), and the detail
 * pane scrolled past its end without overflow, and the footer offering
 * only what the kind takes. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "support.h"

#include "app.h"
#include "app_priv.h"
#include "paint.h"
#include "base/strbuf.h"
#include "term.h"
#include "view.h"

#include <string.h>

#define FIXTURE "tests/fixtures/ui/parser-fix/working-set.yml"

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

/* One frame on a text grid, as the terminal loop draws after a key. */
static void draw(struct app *app)
{
	struct text_grid *g = text_grid_new(app->layout.w, app->layout.h);
	assert_non_null(g);
	struct painter p = text_grid_painter(g);
	app_draw(app, &p);
	text_grid_free(g);
}

static void test_scroller(void **state)
{
	(void)state;
	struct scroll_motion m;
	assert_false(scroll_motion(ACT_EXCLUDE, 10, &m));
	assert_true(scroll_motion(ACT_PAGE_DOWN, 10, &m));
	assert_int_equal(m.delta, 10);
	/* never below 0, never past the last line, even from far out */
	assert_int_equal(scroll_apply(5, &m, 12), 12);
	assert_true(scroll_motion(ACT_PAGE_UP, 10, &m));
	assert_int_equal(scroll_apply(5, &m, 12), 0);
	assert_true(scroll_motion(ACT_DOWN, 0, &m));
	assert_int_equal(scroll_apply(SCROLL_END, &m, SCROLL_END), SCROLL_END);
	assert_true(scroll_motion(ACT_LAST, 1, &m));
	assert_int_equal(scroll_apply(0, &m, 7), 7);
	/* a cursor view: the cursor stays in the text, the window follows it */
	struct scroller s = { 0 };
	scroller_fit(&s, 100, 10, true);
	assert_true(scroller_key(&s, ACT_PAGE_DOWN, 100, true));
	assert_int_equal(s.cursor, 9);
	assert_true(scroller_key(&s, ACT_LAST, 100, true));
	scroller_fit(&s, 100, 10, true);
	assert_int_equal(s.cursor, 99);
	assert_int_equal(s.top, 90);
	/* a text view: the top goes as far as asked, the fit settles it */
	s = (struct scroller){ 0 };
	assert_true(scroller_key(&s, ACT_LAST, 0, false));
	scroller_fit(&s, 25, 10, false);
	assert_int_equal(s.top, 15);
	scroller_fit(&s, 5, 10, false);
	assert_int_equal(s.top, 0);
}

/* A view added by a test: one table, pushed. */
static const struct view_ops probe_view;
static int probe_keys, probe_draws;
static unsigned probe_key(struct app *app, int key, int act)
{
	(void)act;
	probe_keys++;
	int *mine = app_view_state(app, &probe_view); /* its own state, zeroed at open */
	(*mine)++;
	return key == 'j' ? VIEW_HANDLED | VIEW_REDRAW : 0; /* takes j, passes the rest */
}
static void probe_draw(struct frame *f)
{
	(void)f;
	probe_draws++;
}
static const struct view_ops probe_view = {
	.name = "probe", .state_size = sizeof(int), .key = probe_key, .draw = probe_draw,
};

static void test_stack_top_view_first(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, FIXTURE);
	assert_string_equal(app_view_top(&app)->name, "detail");
	assert_true(app_view_push(&app, &probe_view));
	size_t cursor = app.vm.cursor;
	app_key(&app, 'j'); /* the probe takes it: the list does not move */
	assert_int_equal(app.vm.cursor, cursor);
	app_key(&app, 'G'); /* passed down: the list moves */
	assert_true(app.vm.cursor > cursor);
	assert_int_equal(probe_keys, 2);
	assert_int_equal(*(int *)app_view_state(&app, &probe_view), 2);
	draw(&app);
	assert_int_equal(probe_draws, 1);
	/* the help covers the screen and takes every key: the probe sees none */
	app_key(&app, '?');
	assert_int_equal(app_mode(&app), APP_HELP);
	app_key(&app, 'j');
	assert_int_equal(probe_keys, 3); /* only the '?' reached it */
	draw(&app);
	assert_int_equal(probe_draws, 1); /* under an opaque view: not painted */
	app_key(&app, CSK_ESC);
	assert_int_equal(app_mode(&app), APP_NORMAL);
	assert_true(app_view_remove(&app, &probe_view));
	assert_false(app_view_shown(&app, &probe_view));
	app_fini(&app);
}

/* The settings panel belongs to the list screen: opened from the prompt
 * view it goes under it, and the prompt view keeps the motion keys. */
static void test_panel_opens_under_a_page_view(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, "samples/memory/coding-session.json");
	app_key(&app, 'v');
	assert_string_equal(app_view_top(&app)->name, "prompt");
	app_key(&app, 'W');
	assert_string_equal(app_view_top(&app)->name, "prompt");
	app_key(&app, 'v'); /* back: the panel shows under the list */
	assert_string_equal(app_view_top(&app)->name, "settings");
	app_key(&app, 'W');
	assert_string_equal(app_view_top(&app)->name, "detail");
	app_fini(&app);
}

/* The diff view's text follows the assembly: typing into the input line
 * (a command, a search) does not rebuild it; an edit does. */
static void test_diff_text_not_rebuilt_per_key(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, FIXTURE);
	app_key(&app, 'd');
	assert_int_equal(app.diff_builds, 1);
	app_key(&app, ':');
	type(&app, "sort tokens");
	app_key(&app, CSK_BACKSPACE);
	app_key(&app, CSK_ENTER);
	app_key(&app, 'j');
	app_key(&app, 'k');
	draw(&app);
	assert_int_equal(app.diff_builds, 1);
	app_key(&app, ' '); /* Space passes down to the list: an exclusion */
	assert_int_equal(app.diff_builds, 2);
	app_key(&app, 'u');
	assert_int_equal(app.diff_builds, 3);
	app_key(&app, 'd');
	assert_string_equal(app_view_top(&app)->name, "detail");
	app_fini(&app);
}

/* End on the detail pane, then Down before a frame settled it: the scroll
 * saturates (it used to add to LONG_MAX). */
static void test_detail_scroll_past_the_end(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, FIXTURE);
	app_key(&app, CSK_ENTER); /* focus the detail */
	app_key(&app, 'G');
	app.detail_more = true; /* as if the last frame had rows below */
	app_key(&app, 'j');
	app_key(&app, CSK_PGDN);
	assert_true(app.vm.detail_scroll >= SCROLL_END);
	draw(&app); /* settles on the last page */
	assert_true(app.vm.detail_scroll < 1000);
	app_key(&app, 'g');
	assert_int_equal(app.vm.detail_scroll, 0);
	app_fini(&app);
}

/* The footer's line of a kind's screen (the row above the status). */
static void footer_of(const char *path, struct strbuf *line)
{
	struct app app;
	struct cs_error err;
	cs_error_clear(&err);
	assert_int_equal(app_init(&app, support_load(path, NULL), false, &err), CS_OK);
	struct strbuf out = STRBUF_INIT;
	assert_int_equal(screen_run(&app, 100, 30, "", &out, &err), CS_OK);
	const char *s = sb_str(&out);
	for (int row = 0; row < 28; row++)
		s = strchr(s, '\n') + 1;
	sb_reset(line);
	sb_append(line, s, strcspn(s, "\n"));
	sb_fini(&out);
	app_fini(&app);
}

/* The footer offers what the kind takes: priorities on a manifest, none on
 * a loom tree, a ledger or a memory snapshot (nothing there has one). */
static void test_footer_offers_what_the_kind_takes(void **state)
{
	(void)state;
	struct strbuf line = STRBUF_INIT;
	footer_of(FIXTURE, &line);
	assert_non_null(strstr(sb_str(&line), "+ priority-up"));
	assert_non_null(strstr(sb_str(&line), "t strategy"));
	footer_of("samples/loom/parser-debug.json", &line);
	assert_null(strstr(sb_str(&line), "priority"));
	assert_non_null(strstr(sb_str(&line), "t strategy")); /* the assembly's */
	footer_of("samples/ledger/backup-incident.json", &line);
	assert_null(strstr(sb_str(&line), "priority"));
	assert_null(strstr(sb_str(&line), "strategy"));
	footer_of("samples/memory/coding-session.json", &line);
	assert_null(strstr(sb_str(&line), "priority"));
	assert_non_null(strstr(sb_str(&line), "Space exclude"));
	sb_fini(&line);
}

/* The list view takes only its own keys (moving, the detail, the selected
 * piece's edits) and declines the rest; a key no view takes goes to the
 * global table (app_actions.c): ? opens the help, u undoes, from the list
 * or from the prompt view over it alike. */
static void test_global_actions_after_the_stack(void **state)
{
	(void)state;
	struct app app;
	open_app(&app, FIXTURE);
	assert_int_equal(view_list.key(&app, '?', ACT_HELP), 0);
	assert_int_equal(view_list.key(&app, 'u', ACT_UNDO), 0);
	assert_int_equal(view_list.key(&app, ' ', ACT_EXCLUDE) & VIEW_HANDLED, VIEW_HANDLED);
	type(&app, "?");
	assert_ptr_equal(app_view_top(&app), &view_help);
	app_key(&app, CSK_ESC);
	type(&app, "jj v");
	assert_ptr_equal(app_view_top(&app), &view_prompt);
	type(&app, "u"); /* undone from the prompt view: the global table */
	assert_non_null(strstr(sb_str(&app.vm.status), "undone: "));
	type(&app, "Z"); /* bound to nothing */
	assert_non_null(strstr(sb_str(&app.vm.status), "Z does nothing here"));
	app_fini(&app);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scroller),
		cmocka_unit_test(test_stack_top_view_first),
		cmocka_unit_test(test_global_actions_after_the_stack),
		cmocka_unit_test(test_panel_opens_under_a_page_view),
		cmocka_unit_test(test_diff_text_not_rebuilt_per_key),
		cmocka_unit_test(test_detail_scroll_past_the_end),
		cmocka_unit_test(test_footer_offers_what_the_kind_takes),
	};
	return cmocka_run_group_tests_name("views", tests, NULL, NULL);
}
