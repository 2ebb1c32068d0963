/* app.c: the inspector screen (see app.h): its life, its stack of views,
 * the layout, and keys and the mouse handed down the stack (view.h). The views are
 * view_list.c (list, detail, settings panel), view_pages.c (prompt, diff),
 * view_help.c and view_input.c; painting helpers are draw.c; save, export
 * and the command line are app_commands.c. */
#include "app_priv.h"

#include "base/alloc.h"
#include "kind.h"

#include <stdlib.h>
#include <string.h>

/* ---- life ------------------------------------------------------------------ */

int app_init(struct app *app, struct source *src, bool ascii, struct cs_error *err)
{
	memset(app, 0, sizeof *app);
	theme_default(&app->theme);
	app->ascii = ascii;
	app->distinct_bars = !app->theme.has_color;
	app->mouse = true;
	int rc = vm_init(&app->vm, src, err);
	vm_set_ascii(&app->vm, ascii);
	if (rc != CS_OK)
		return rc;
	if (!keymap_default(&app->keymap))
		return cs_error_set(err, CS_ESTRUCT, "the action table names a key that does not exist");
	char np[32], nb[32];
	vm_status(&app->vm, false, "%s pieces, %s blocks; ? for help, q quits",
		  fmt_thousands(np, (long long)app->vm.session.src->npieces),
		  fmt_thousands(nb, (long long)app->vm.session.cur.nblocks));
	app_view_push(app, &view_list);
	app_view_push(app, &view_detail);
	return CS_OK;
}

void app_fini(struct app *app)
{
	app_view_clear(app);
	vm_fini(&app->vm);
	sb_fini(&app->scratch);
	sb_fini(&app->line);
	sb_fini(&app->roles);
}

void app_set_theme(struct app *app, const struct theme *t)
{
	app->theme = *t;
	app->theme_changed = true;
	const char *nc = getenv("NO_COLOR");
	app->distinct_bars = !t->has_color || (nc && nc[0]);
}

/* ---- the view stack ---------------------------------------------------------------- */

bool app_view_insert(struct app *app, size_t at, const struct view_ops *v)
{
	if (app->nviews == APP_VIEW_MAX || at > app->nviews)
		return false;
	void *state = NULL;
	if (v->state_size && !(state = cs_calloc(1, v->state_size))) {
		vm_status(&app->vm, true, "out of memory");
		return false;
	}
	memmove(&app->views[at + 1], &app->views[at], (app->nviews - at) * sizeof app->views[0]);
	app->views[at] = (struct app_view){ .ops = v, .state = state };
	app->nviews++;
	if (v->open)
		v->open(app);
	return true;
}

bool app_view_push(struct app *app, const struct view_ops *v)
{
	return app_view_insert(app, app->nviews, v);
}

/* Closes the view at i (close must not change the stack) and takes it off. */
static void remove_at(struct app *app, size_t i)
{
	struct app_view gone = app->views[i];
	if (gone.ops->close)
		gone.ops->close(app);
	memmove(&app->views[i], &app->views[i + 1], (app->nviews - i - 1) * sizeof app->views[0]);
	app->nviews--;
	cs_free(gone.state);
}

bool app_view_remove(struct app *app, const struct view_ops *v)
{
	for (size_t i = app->nviews; i-- > 0;)
		if (app->views[i].ops == v) {
			remove_at(app, i);
			return true;
		}
	return false;
}

void app_view_clear(struct app *app)
{
	while (app->nviews)
		remove_at(app, app->nviews - 1);
}

const struct view_ops *app_view_top(const struct app *app)
{
	return app->nviews ? app->views[app->nviews - 1].ops : NULL;
}

bool app_view_shown(const struct app *app, const struct view_ops *v)
{
	for (size_t i = 0; i < app->nviews; i++)
		if (app->views[i].ops == v)
			return true;
	return false;
}

void *app_view_state(const struct app *app, const struct view_ops *v)
{
	for (size_t i = app->nviews; i-- > 0;)
		if (app->views[i].ops == v)
			return app->views[i].state;
	return NULL;
}

/* ---- layout: the one place that reacts to a size ---------------------------- */

#define APP_HEADER_ROWS 3 /* title, budget, cache */
#define APP_MAX_BARS 12   /* the size of app_layout.bar_layer; no kind has more layers */

void app_layout(struct app *app, int w, int h)
{
	struct app_layout L = { .w = w, .h = h };
	L.too_small = w < APP_MIN_WIDTH || h < APP_MIN_HEIGHT;
	const struct grouping *g = vm_grouping(&app->vm);
	int nl = g ? (int)g->nlayers : 0;
	int room = h >= 20 ? h - 14 : h >= 12 ? 1 : 0;
	if (room > APP_MAX_BARS)
		room = APP_MAX_BARS;
	/* All layers when they fit; else the non-empty ones, in order. */
	int shown = 0; /* the layers a bar would show: all when they fit, else the non-empty ones */
	for (int i = 0; i < nl; i++)
		shown += nl <= room || g->layers[i].tokens > 0 || g->layers[i].nblocks > 0;
	if (shown > room && room >= 1) {
		L.bars_stacked = true; /* one bar of them all rather than the first few */
		L.nbars = 1;
		L.bar_layer[0] = 0;
	}
	for (int i = 0; i < nl && L.nbars < room && !L.bars_stacked; i++)
		if (nl <= room || g->layers[i].tokens > 0 || g->layers[i].nblocks > 0)
			L.bar_layer[L.nbars++] = i;
	L.bars_y = APP_HEADER_ROWS;
	int sep_y = L.bars_y + L.nbars;         /* a rule under the bars */
	int top = sep_y + 1;                    /* column header row */
	L.hint_y = h - 2;
	L.status_y = h - 1;
	int area = L.hint_y - (top + 1);        /* rows under the column header */
	L.detail_right = w >= APP_WIDE && !app->vm.detail_closed;
	L.list_x = 0;
	L.list_w = w;
	L.list_y = top + 1;
	L.list_h = area;
	if (L.detail_right) {
		L.detail_shown = true;
		L.detail_w = w * 2 / 5;
		L.list_w = w - L.detail_w - 1;
		L.detail_x = L.list_w + 1;
		L.detail_y = top;
		L.detail_h = L.hint_y - top;
	} else if (app->vm.detail_open) {
		L.detail_shown = true;
		L.detail_h = area / 2 > 3 ? area / 2 : 3;
		if (L.detail_h > area - 2)
			L.detail_h = area - 2;
		L.list_h = area - L.detail_h - 1;
		L.detail_x = 0;
		L.detail_w = w;
		L.detail_y = L.list_y + L.list_h + 1;
	}
	if (L.list_h < 1)
		L.list_h = 1;
	for (size_t i = 0; i < app->nviews; i++)
		if (app->views[i].ops->layout)
			app->views[i].ops->layout(app, &L);
	app->layout = L;
	vm_scroll_into_view(&app->vm, (size_t)L.list_h);
}

/* ---- keys and the mouse, down the view stack ------------------------------------ */

enum app_mode app_mode(const struct app *app)
{
	const struct view_ops *top = app_view_top(app);
	return top == &view_input ? APP_PROMPT : top == &view_help ? APP_HELP : APP_NORMAL;
}

/* After a key or a mouse event: every view catches up with the model, the
 * layout is redone when asked; the view flags become enum app_result ones. */
static unsigned settle(struct app *app, unsigned r)
{
	for (size_t i = 0; i < app->nviews; i++)
		if (app->views[i].ops->sync)
			app->views[i].ops->sync(app);
	if (r & VIEW_RELAYOUT)
		app_layout(app, app->layout.w, app->layout.h);
	return (r & VIEW_QUIT ? APP_QUIT : 0) | (r & (VIEW_REDRAW | VIEW_RELAYOUT) ? APP_REDRAW : 0);
}

unsigned app_tick(struct app *app)
{
	return app->follow ? settle(app, app_reload(app, true)) : 0;
}

unsigned app_mouse(struct app *app, int y, int x, enum app_mouse_event ev)
{
	if (app->layout.too_small)
		return 0;
	for (size_t i = app->nviews; i-- > 0;)
		if (app->views[i].ops->mouse)
			return settle(app, app->views[i].ops->mouse(app, y, x, (int)ev));
	return 0;
}

bool app_quit(struct app *app, bool interrupt)
{
	/* every kind asks over edits not saved (w: the file itself, or a
	 * what-if file beside it); a step to another request is not an edit */
	if (!vm_unsaved_edits(&app->vm) || app->quit_asked) {
		app->interrupted = interrupt;
		return true;
	}
	app->quit_asking = true;
	vm_status(&app->vm, true, "unsaved edits: w saves them%s; %s again quits without saving",
		  app->vm.session.src->kind->save ? "" : " as a what-if file", interrupt ? "Ctrl-C" : "q");
	return false;
}

unsigned app_key(struct app *app, int key)
{
	/* the question "quit without saving?" holds for the next key only */
	app->quit_asked = app->quit_asking;
	app->quit_asking = false;
	if (key == CSK_CTRL_C) /* raw mode: quits from anywhere (asking first over unsaved edits) */
		return app_quit(app, true) ? APP_QUIT : settle(app, VIEW_REDRAW);
	int act = keymap_lookup(&app->keymap, key);
	unsigned r = 0;
	for (size_t i = app->nviews; i-- > 0 && !(r & VIEW_HANDLED);)
		if (app->views[i].ops->key)
			r = app->views[i].ops->key(app, key, act);
	if (!(r & VIEW_HANDLED)) /* no view took it: an action of every view's (app_actions.c) */
		r = app_global_action(app, key, act);
	if (app_mode(app) != APP_PROMPT) /* what a key ended with, not the input line's hints */
		vm_log_status(&app->vm);
	return settle(app, r);
}
