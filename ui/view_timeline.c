/* view_timeline.c: the timeline view (i), a page of the kind's timeline
 * (kind_ops.timeline): for each turn or request the input recorded, the
 * cache the inspector predicts beside the usage the provider recorded. It
 * follows the session: a reload (R, --follow) or an edit rebuilds it. */
#include "app_priv.h"

#include "kind.h"
#include "utf8.h"

#include <stdio.h>

struct timeline_state {
	struct scroller sc;
	struct strbuf text; /* its lines (owned; freed on close) */
	unsigned stamp;     /* the vm.session.changes the text was built at */
};

static void build(struct app *app)
{
	struct vm *vm = &app->vm;
	struct timeline_state *ts = app_view_state(app, &view_timeline);
	struct cs_error err;
	cs_error_clear(&err);
	sb_reset(&ts->text);
	if (vm->session.src->kind->timeline(vm->session.src, app->ascii ? UTF8_ASCII : 0, &ts->text, &err) != CS_OK) {
		sb_reset(&ts->text);
		sb_printf(&ts->text, "no timeline: %s\n", err.message);
	}
	if (ts->text.failed) {
		sb_reset(&ts->text);
		sb_puts(&ts->text, "out of memory\n");
	}
	ts->stamp = vm->session.changes;
}

static void timeline_sync(struct app *app)
{
	const struct timeline_state *ts = app_view_state(app, &view_timeline);
	if (ts->stamp != app->vm.session.changes)
		build(app);
}

static void draw_timeline(struct frame *f)
{
	struct timeline_state *ts = app_view_state(f->app, &view_timeline);
	const char *what = f->app->vm.session.src->kind->timeline_title;
	char title[160];
	snprintf(title, sizeof title, " timeline: %s  [i/Esc: back]",
		 what ? what : "the cache predicted beside the usage recorded");
	app_draw_page(f, title, &ts->text, &ts->sc,
		      view_timeline.hints);
}

static unsigned timeline_key(struct app *app, int key, int act)
{
	(void)key;
	if (act == ACT_BACK || act == ACT_TIMELINE) {
		app_toggle_timeline_view(app);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	struct timeline_state *ts = app_view_state(app, &view_timeline);
	return scroller_key(&ts->sc, act, 0, false) ? VIEW_HANDLED | VIEW_REDRAW : 0; /* the draw clamps it */
}

static unsigned timeline_mouse(struct app *app, int y, int x, int ev)
{
	(void)y, (void)x;
	return app_page_wheel(app, ev, timeline_key);
}

static void timeline_open(struct app *app)
{
	build(app);
	vm_status(&app->vm, false, "the timeline: j/k scroll, R reloads the file, i returns");
}

static void timeline_close(struct app *app)
{
	struct timeline_state *ts = app_view_state(app, &view_timeline);
	sb_fini(&ts->text);
}

const struct view_ops view_timeline = {
	.name = "timeline",
	.opaque = true,
	.state_size = sizeof(struct timeline_state),
	.open = timeline_open,
	.close = timeline_close,
	.key = timeline_key,
	.draw = draw_timeline,
	.mouse = timeline_mouse,
	.sync = timeline_sync,
	.hints = " j/k scroll  PgUp/PgDn page  R reload  i back",
};

void app_toggle_timeline_view(struct app *app)
{
	if (!app->vm.session.src->kind->timeline) {
		vm_status(&app->vm, false, "a %s records no turns: no timeline", app->vm.session.src->kind->title);
		return;
	}
	if (app_view_remove(app, &view_timeline)) {
		vm_status(&app->vm, false, "back to the list");
		return;
	}
	app_view_remove(app, &view_prompt);
	app_view_remove(app, &view_diff);
	app_view_push(app, &view_timeline);
}
