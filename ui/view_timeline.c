/* view_timeline.c: the timeline view (i), a page of the kind's timeline
 * (kind_ops.timeline): for each turn or request the input recorded, the
 * cache the inspector predicts beside the usage the provider recorded. It
 * follows the session: a reload (R, --follow) or an edit rebuilds it.
 * For a kind with a sequence, a cursor sits on one step's line (the one
 * shown, at first): j/k and the page keys move it from step to step, and
 * Enter shows that step's assembly (the same edit as [ ]). */
#include "app_priv.h"

#include "base/alloc.h"
#include "kind.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A step's line in the text. */
struct timeline_row {
	size_t step; /* 0-based, as kind_sequence counts */
	size_t line;
};

struct timeline_state {
	struct scroller sc;
	struct strbuf text;        /* its lines (owned; freed on close) */
	unsigned stamp;            /* the vm.session.changes the text was built at */
	struct timeline_row *rows; /* the steps that have a line, in order (owned) */
	size_t nrows;
	size_t at;                 /* the row under the cursor */
};

/* The steps' lines, from the offsets the kind wrote (SIZE_MAX: none). */
static void index_rows(struct timeline_state *ts, const size_t *step_at, size_t nsteps, size_t current)
{
	const char *s = sb_str(&ts->text);
	size_t line = 0, pos = 0;
	ts->nrows = 0;
	ts->at = 0;
	for (size_t k = 0; k < nsteps; k++) {
		if (step_at[k] == SIZE_MAX || step_at[k] > ts->text.len || (k && step_at[k] < pos))
			continue; /* steps come in the text's order; one out of it is left without a line */
		for (; pos < step_at[k]; pos++)
			line += s[pos] == '\n';
		if (k == current || (ts->nrows == 0 && k > current))
			ts->at = ts->nrows;
		ts->rows[ts->nrows++] = (struct timeline_row){ k, line };
	}
}

static void build(struct app *app)
{
	struct vm *vm = &app->vm;
	struct timeline_state *ts = app_view_state(app, &view_timeline);
	const struct kind_ops *k = vm->session.src->kind;
	struct cs_error err;
	cs_error_clear(&err);
	sb_reset(&ts->text);
	cs_free(ts->rows);
	ts->rows = NULL;
	ts->nrows = 0;
	size_t nsteps = k->sequence ? k->sequence->count(vm->session.src) : 0;
	size_t *step_at = nsteps ? cs_malloc(nsteps * sizeof *step_at) : NULL;
	ts->rows = step_at ? cs_malloc(nsteps * sizeof *ts->rows) : NULL;
	if (!ts->rows) {
		cs_free(step_at);
		step_at = NULL;
	}
	for (size_t i = 0; step_at && i < nsteps; i++)
		step_at[i] = SIZE_MAX;
	if (k->timeline(vm->session.src, app->ascii ? UTF8_ASCII : 0, &ts->text, step_at, &err) != CS_OK) {
		sb_reset(&ts->text);
		sb_printf(&ts->text, "no timeline: %s\n", err.message);
	} else if (step_at) {
		index_rows(ts, step_at, nsteps, k->sequence->current(vm->session.src));
	}
	cs_free(step_at);
	if (ts->text.failed) {
		sb_reset(&ts->text);
		sb_puts(&ts->text, "out of memory\n");
		ts->nrows = 0;
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
	const struct kind_ops *k = f->app->vm.session.src->kind;
	const char *what = k->timeline_title;
	char title[200];
	snprintf(title, sizeof title, " timeline: %s  [%si/Esc: back]",
		 what ? what : "the cache predicted beside the usage recorded", ts->nrows ? "Enter: show it  " : "");
	app_draw_page_at(f, title, &ts->text, &ts->sc, ts->nrows ? view_timeline.hints : " j/k scroll  PgUp/PgDn page  R reload  i back",
			 ts->nrows ? ts->rows[ts->at].line : SIZE_MAX);
}

/* Enter: the step under the cursor becomes the one shown (an edit, as [ ]
 * make it), and the list shows its assembly. */
static void show_step(struct app *app, struct timeline_state *ts)
{
	struct vm *vm = &app->vm;
	const struct kind_sequence *seq = vm->session.src->kind->sequence;
	size_t want = ts->rows[ts->at].step, now = seq->current(vm->session.src);
	struct cs_error err;
	cs_error_clear(&err);
	if (want != now && vm_step_sequence(vm, (long)want - (long)now, &err) != CS_OK)
		return; /* the status says why; the timeline stays */
	app_view_remove(app, &view_timeline); /* the status keeps what the step did */
	if (want == now)
		vm_status(vm, false, "%s %zu of %zu: already the one shown", seq->noun, now + 1, seq->count(vm->session.src));
}

static unsigned timeline_key(struct app *app, int key, int act)
{
	(void)key;
	if (act == ACT_BACK || act == ACT_TIMELINE) {
		app_toggle_timeline_view(app);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	struct timeline_state *ts = app_view_state(app, &view_timeline);
	if (!ts->nrows)
		return scroller_key(&ts->sc, act, 0, false) ? VIEW_HANDLED | VIEW_REDRAW : 0; /* the draw clamps it */
	if (act == ACT_OPEN) {
		show_step(app, ts);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	struct scroll_motion m;
	size_t page = ts->sc.rows > 1 ? ts->sc.rows - 1 : 1;
	if (!scroll_motion(act, page, &m))
		return 0;
	ts->at = scroll_apply(ts->at, &m, ts->nrows - 1);
	return VIEW_HANDLED | VIEW_REDRAW;
}

static unsigned timeline_mouse(struct app *app, int y, int x, int ev)
{
	(void)y, (void)x;
	return app_page_wheel(app, ev, timeline_key);
}

static void timeline_open(struct app *app)
{
	build(app);
	const struct timeline_state *ts = app_view_state(app, &view_timeline);
	if (ts->nrows)
		vm_status(&app->vm, false, "the timeline: j/k move, Enter shows the %s under the cursor, i returns",
			  app->vm.session.src->kind->sequence->noun);
	else
		vm_status(&app->vm, false, "the timeline: j/k scroll, R reloads the file, i returns");
}

static void timeline_close(struct app *app)
{
	struct timeline_state *ts = app_view_state(app, &view_timeline);
	sb_fini(&ts->text);
	cs_free(ts->rows);
	ts->rows = NULL;
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
	.hints = " j/k move  Enter show it  PgUp/PgDn page  [ ] step  { } across groups  R reload  i back",
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
