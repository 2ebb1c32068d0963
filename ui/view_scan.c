/* view_scan.c: the scan's table in the inspector (`ctxscope FOLDER`, or
 * `ctxscope scan` on a terminal): one row per session, worst waste first.
 * Enter opens the session at its worst request (the file loaded in place
 * of the one shown, the `request` setting set); Esc from that session's
 * list comes back to the table.
 *
 * Two views: view_scan_base sits above the list and its detail, holds the
 * scan's result for as long as the inspector runs, and takes Esc when the
 * list has nothing left to close; view_scan is the opaque table over them. */
#include "app_priv.h"
#include "scan_view.h"

#include "base/alloc.h"
#include "edit.h"
#include "load.h"
#include "scan/scan.h"
#include "source.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct scan_base_state {
	struct scan_result res;   /* owned */
	bool ascii;
	size_t at;                /* the row under the cursor, kept while a session is open */
	enum scan_sort sort;      /* s cycles it */
};

struct scan_view_state {
	struct scroller sc;
	struct strbuf text;       /* the table's lines (owned) */
	size_t first_row_line;    /* the line of the first session row */
};

extern const struct view_ops view_scan_base;
extern const struct view_ops view_scan;

/* Two lines a session: its figures, then the waste's causes (or a blank line). */
static void build(struct app *app)
{
	struct scan_view_state *vs = app_view_state(app, &view_scan);
	const struct scan_base_state *bs = app_view_state(app, &view_scan_base);
	sb_reset(&vs->text);
	struct scan_result one = bs->res;
	struct strbuf all = STRBUF_INIT;
	scan_write(&one, SCAN_TEXT, 0, bs->ascii, &all);
	/* the text table: a summary line, a blank line, the header, then the rows */
	const char *s = sb_str(&all);
	size_t lines = 0;
	for (size_t i = 0; i < all.len && lines < 2; i++)
		lines += s[i] == '\n';
	sb_append(&vs->text, s, all.len);
	vs->first_row_line = 3;
	sb_fini(&all);
	(void)lines;
}

static void draw_scan(struct frame *f)
{
	struct scan_view_state *vs = app_view_state(f->app, &view_scan);
	const struct scan_base_state *bs = app_view_state(f->app, &view_scan_base);
	char title[160];
	static const char *const by[] = { "worst waste first", "highest cost first", "most requests first",
					   "best hit rate first", "latest first", "most tokens first", "by name" };
	snprintf(title, sizeof title, " scan: %zu sessions, %s  [Enter: open at the worst request]",
		 bs->res.nsessions, by[bs->sort]);
	size_t mark = bs->res.nsessions ? vs->first_row_line + 2 * bs->at : SIZE_MAX;
	app_draw_page_at(f, title, &vs->text, &vs->sc, view_scan.hints, mark);
}

/* Loads the session under the cursor in place of the one shown. */
static bool open_row(struct app *app, const struct scan_session *s)
{
	struct vm *vm = &app->vm;
	const char *path = s->worst_path ? s->worst_path : s->path;
	struct cs_error err;
	cs_error_clear(&err);
	struct source *fresh = NULL;
	if (source_load(path, NULL, &fresh, &err) != CS_OK) {
		vm_status(vm, true, "cannot open %s: %s", path, err.message);
		return false;
	}
	char num[32];
	snprintf(num, sizeof num, "%ld", s->worst_number);
	struct edit e;
	bool at = s->worst_path && s->worst_number > 0 && edit_from_setting(fresh, "request", num, &e, &err) == CS_OK &&
		  edit_apply(fresh, &e, &err) == CS_OK;
	char *old = cs_strdup(vm->session.src->path);
	vm_fini(vm);
	if (vm_init(vm, fresh, &err) != CS_OK) {
		vm_fini(vm);
		struct source *back = NULL;
		if (!old || source_load(old, NULL, &back, &err) != CS_OK || vm_init(vm, back, &err) != CS_OK) {
			cs_free(old);
			return false; /* the caller quits: there is nothing to show */
		}
		vm_status(vm, true, "cannot show %s: %s", path, err.message);
		cs_free(old);
		return true;
	}
	cs_free(old);
	vm_set_ascii(vm, app->ascii);
	load_stamp_take(path, &app->stamp);
	if (at)
	{
		char w[32];
		vm_status(vm, false, "Esc: back to the scan · its worst request, %ld: %s tokens %s (%s)", s->worst_number,
			  fmt_thousands(w, s->worst_waste), s->worst_unread ? "written, never read" : "of reads lost",
			  scan_cause_words(s->worst_cause));
	}
	else
		vm_status(vm, false, "%s/%s; Esc: back to the scan", s->project, s->session);
	return true;
}

static unsigned scan_key(struct app *app, int key, int act)
{
	(void)key;
	struct scan_base_state *bs = app_view_state(app, &view_scan_base);
	struct scan_view_state *vs = app_view_state(app, &view_scan);
	size_t n = bs->res.nsessions;
	if (act == ACT_QUIT)
		return VIEW_HANDLED | VIEW_QUIT;
	if (act == ACT_OPEN && n) {
		if (!open_row(app, &bs->res.sessions[bs->at]))
			return VIEW_HANDLED | VIEW_QUIT;
		app_view_remove(app, &view_scan);
		return VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
	}
	if (act == ACT_SORT && n) {
		static const char *const names[] = { "waste", "cost", "requests", "hit rate", "last activity", "tokens",
						     "name" };
		bs->sort = (enum scan_sort)((bs->sort + 1) % (SORT_NAME + 1));
		scan_sort(&bs->res, bs->sort);
		bs->at = 0;
		build(app);
		vm_status(&app->vm, false, "sorted by %s (s: the next key)", names[bs->sort]);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	if (act == ACT_HELP || act == ACT_BACK)
		return VIEW_HANDLED; /* the table is the bottom of this stack: q quits */
	struct scroll_motion m;
	size_t page = vs->sc.rows > 2 ? (vs->sc.rows - 1) / 2 : 1;
	if (!scroll_motion(act, page, &m))
		return VIEW_HANDLED;
	if (n)
		bs->at = scroll_apply(bs->at, &m, n - 1);
	return VIEW_HANDLED | VIEW_REDRAW;
}

static unsigned scan_mouse(struct app *app, int y, int x, int ev)
{
	(void)y, (void)x;
	return app_page_wheel(app, ev, scan_key);
}

static void scan_open(struct app *app)
{
	build(app);
	vm_status(&app->vm, false, "j/k move, Enter opens a session at its worst request, q quits");
}

static void scan_close(struct app *app)
{
	struct scan_view_state *vs = app_view_state(app, &view_scan);
	sb_fini(&vs->text);
}

const struct view_ops view_scan = {
	.name = "scan",
	.opaque = true,
	.state_size = sizeof(struct scan_view_state),
	.open = scan_open,
	.close = scan_close,
	.key = scan_key,
	.draw = draw_scan,
	.mouse = scan_mouse,
	.hints = " j/k move  Enter open at the worst request  s sort  PgUp/PgDn page  q quit",
};

/* Esc on a session's list with nothing open: back to the table. */
static unsigned base_key(struct app *app, int key, int act)
{
	(void)key;
	if (act != ACT_BACK || app->vm.focus != VM_FOCUS_LIST || app->vm.detail_open)
		return 0;
	app_view_push(app, &view_scan);
	return VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
}

static void base_draw(struct frame *f)
{
	(void)f; /* the list below is the picture; this view only listens for Esc */
}

static void base_close(struct app *app)
{
	struct scan_base_state *bs = app_view_state(app, &view_scan_base);
	scan_result_fini(&bs->res);
}

const struct view_ops view_scan_base = {
	.name = "scan-base",
	.opaque = false,
	.state_size = sizeof(struct scan_base_state),
	.close = base_close,
	.key = base_key,
	.draw = base_draw,
};

bool app_scan_start(struct app *app, struct scan_result *res, int sort)
{
	size_t at = app->nviews; /* above the list and its detail, under what opens later */
	if (!app_view_insert(app, at, &view_scan_base)) {
		scan_result_fini(res);
		return false;
	}
	struct scan_base_state *bs = app_view_state(app, &view_scan_base);
	bs->res = *res;
	bs->ascii = app->ascii;
	bs->sort = sort >= 0 && sort <= SORT_NAME ? (enum scan_sort)sort : SORT_WASTE;
	memset(res, 0, sizeof *res);
	return app_view_push(app, &view_scan);
}
