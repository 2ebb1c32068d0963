/* view_list.c: the list screen's views: the list (header, bars, rows, the
 * keys that edit the assembly), the detail pane of the selected row, and
 * the settings panel (W) under the list. */
#include "app_priv.h"

#include "edit.h"
#include "kind.h"

/* ---- the list ---------------------------------------------------------------------- */

/* The settings panel's entries: the kind's weights and shares. */
static size_t panel_count(const struct app *app)
{
	struct vm_panel_entry e[VM_PANEL_MAX];
	return vm_panel_entries(&app->vm, e, VM_PANEL_MAX);
}


/* Enter: the detail open and focused. */
static void open_detail(struct app *app)
{
	struct app_detail *d = app_detail(app);
	if (d) {
		d->open = true;
		d->closed = false;
		d->focused = true;
	}
}

/* Tab: the focus to the other pane (the detail opens when it does not show). */
static void next_pane(struct app *app)
{
	struct app_detail *d = app_detail(app);
	if (!d)
		return;
	if (!app->layout.detail_shown)
		open_detail(app);
	else
		d->focused = !d->focused;
}

/* Esc: the focused detail loses the focus and closes, an open one closes;
 * on a wide screen the pane is put away until Enter. */
static void back(struct app *app)
{
	struct vm *vm = &app->vm;
	struct app_detail *d = app_detail(app);
	if (d && d->focused) {
		d->focused = false;
		d->open = false;
	} else if (d && d->open) {
		d->open = false;
	} else if (d && app->layout.detail_right) {
		d->closed = true; /* a wide screen's pane closes too; Enter opens it again */
		vm_status(vm, false, "detail closed (Enter opens it)");
	} else {
		vm_status(vm, false, "Esc backs out of panes and prompts; q quits");
	}
}

/* The row motions: the view-model steps over marker rows. */
static bool list_motion(struct app *app, int act)
{
	struct vm *vm = &app->vm;
	struct scroll_motion m;
	size_t page = app->layout.list_h > 1 ? (size_t)app->layout.list_h - 1 : 1;
	if (!scroll_motion(act, page, &m))
		return false;
	if (m.jump < 0)
		vm_first(vm);
	else if (m.jump > 0)
		vm_last(vm);
	else
		vm_move(vm, m.delta);
	return true;
}

/* M: sets or removes a breakpoint, and shows the marker row it made. */
static void breakpoint(struct app *app, struct cs_error *err)
{
	struct vm *vm = &app->vm;
	if (vm_toggle_breakpoint(vm, err) == CS_OK && vm->cursor + 1 < vm->nrows &&
	    vm_row_at(vm, vm->cursor + 1).type == VM_ROW_MARKER && app->layout.list_h > 1 &&
	    vm->cursor + 1 >= vm->scroll + (size_t)app->layout.list_h)
		vm_scroll_to(vm, vm->cursor + 2 - (size_t)app->layout.list_h);
}

/* The edits of the selected piece (and the breakpoint after its block);
 * false: not one. The whole assembly's edits are global (app_actions.c). */
static bool edit_key(struct app *app, int act, struct cs_error *err)
{
	struct vm *vm = &app->vm;
	switch (act) {
	case ACT_EXCLUDE: vm_toggle_exclude(vm, err); break;
	case ACT_PRIORITY_UP: vm_nudge_priority(vm, VM_PRIORITY_STEP, err); break;
	case ACT_PRIORITY_DOWN: vm_nudge_priority(vm, -VM_PRIORITY_STEP, err); break;
	case ACT_STRATEGY: vm_cycle_strategy(vm, false, err); break;
	case ACT_BREAKPOINT: breakpoint(app, err); break;
	default: return false;
	}
	return true;
}

bool app_action_offered(const struct app *app, int act)
{
	const struct kind_ops *k = app->vm.session.src->kind;
	switch (act) {
	case ACT_PRIORITY_UP:
	case ACT_PRIORITY_DOWN: return edit_kind_takes(k, EDIT_PRIORITY);
	case ACT_STRATEGY: return edit_kind_takes(k, EDIT_PIECE_STRATEGY) || edit_kind_takes(k, EDIT_STRATEGY);
	case ACT_GLOBAL_STRATEGY: return edit_kind_takes(k, EDIT_STRATEGY);
	case ACT_SETTINGS: return panel_count(app) > 0;
	case ACT_TIMELINE: return k->timeline != NULL;
	case ACT_SEQ_PREV:
	case ACT_SEQ_NEXT: return k->sequence != NULL;
	case ACT_SEQ_PREV_ANY:
	case ACT_SEQ_NEXT_ANY: return k->sequence != NULL && k->sequence->group != NULL;
	default: return true;
	}
}

/* The list's own keys: moving, the detail, the selected piece's edits.
 * Every other key goes on to the global actions (app_actions.c). */
static unsigned list_key(struct app *app, int key, int act)
{
	(void)key;
	struct cs_error err;
	cs_error_clear(&err);
	unsigned done = VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
	if (list_motion(app, act) || edit_key(app, act, &err))
		return done;
	switch (act) {
	case ACT_OPEN: open_detail(app); break;
	case ACT_NEXT_PANE: next_pane(app); break;
	case ACT_BACK: back(app); break;
	default: return 0;
	}
	return done;
}

static long row_at(const struct app *app, int y)
{
	const struct app_layout *L = &app->layout;
	if (y < L->list_y || y >= L->list_y + L->list_h)
		return -1;
	size_t i = app->vm.scroll + (size_t)(y - L->list_y);
	return i < app->vm.nrows ? (long)i : -1;
}

/* A click selects a row, focuses the detail, or (on a layer's bar) limits
 * the list to that layer; the wheel moves three rows. */
static unsigned list_mouse(struct app *app, int y, int x, int ev)
{
	struct vm *vm = &app->vm;
	const struct app_layout *L = &app->layout;
	struct app_detail *d = app_detail(app);
	bool over_detail = d && L->detail_shown && x >= L->detail_x && y >= L->detail_y && y < L->detail_y + L->detail_h;
	if ((ev == APP_MOUSE_WHEEL_UP || ev == APP_MOUSE_WHEEL_DOWN) && over_detail) {
		/* the wheel over the detail scrolls it (down while there is more) */
		if (ev == APP_MOUSE_WHEEL_UP)
			d->scroll = d->scroll > 3 ? d->scroll - 3 : 0;
		else if (app->detail_more)
			d->scroll += 3;
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	if (ev == APP_MOUSE_WHEEL_UP || ev == APP_MOUSE_WHEEL_DOWN) {
		vm_move(vm, ev == APP_MOUSE_WHEEL_UP ? -3 : 3);
		return VIEW_HANDLED | VIEW_RELAYOUT;
	}
	if (y < L->bars_y && y < 3) { /* the header: selected, its detail shown */
		vm_select_header(vm);
		return VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
	}
	if (y >= L->bars_y && y < L->bars_y + L->nbars) {
		vm_set_layer_filter(vm, L->bar_layer[y - L->bars_y]);
		return VIEW_HANDLED | VIEW_RELAYOUT;
	}
	long i = row_at(app, y);
	if (i >= 0 && x >= L->list_x && x < L->list_x + L->list_w && vm_row_at(vm, (size_t)i).type != VM_ROW_MARKER) {
		vm_select_row(vm, (size_t)i);
		if (d)
			d->focused = false; /* the list has the keys */
	} else if (over_detail) {
		d->focused = true;
	}
	return VIEW_HANDLED | VIEW_REDRAW;
}

const struct view_ops view_list = {
	.name = "list",
	.opaque = true,
	.key = list_key,
	.draw = app_draw_list_screen,
	.mouse = list_mouse,
};

/* ---- the detail pane ----------------------------------------------------------------- */

struct app_detail *app_detail(const struct app *app)
{
	return app_view_state(app, &view_detail);
}

/* Motion keys scroll the detail while it has the focus. */
static unsigned detail_key(struct app *app, int key, int act)
{
	(void)key;
	struct app_detail *d = app_detail(app);
	const struct app_layout *L = &app->layout;
	struct scroll_motion m;
	size_t page = L->detail_h > 2 ? (size_t)L->detail_h - 2 : 1;
	if (!d->focused || !scroll_motion(act, page, &m))
		return 0;
	if (!m.jump && !L->detail_shown)
		return 0; /* nothing to scroll: the list moves */
	/* down only while the last frame had rows below its bottom; the draw
	 * settles a scroll past the end on the last page */
	if (m.jump || m.delta < 0 || app->detail_more)
		d->scroll = scroll_apply(d->scroll, &m, SCROLL_END);
	return VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
}

/* Another selection (a key, a click, a search hit, a reload): the detail
 * starts at its top again. */
static void detail_sync(struct app *app)
{
	struct app_detail *d = app_detail(app);
	const struct vm_row *r = vm_selected(&app->vm);
	long piece = r ? r->piece : -1, block = r ? r->block : -1;
	bool header = app->vm.on_header;
	if (d->seen && d->seen_header == header && d->seen_piece == piece && d->seen_block == block)
		return;
	d->scroll = 0;
	d->seen = true;
	d->seen_header = header;
	d->seen_piece = piece;
	d->seen_block = block;
}

const struct view_ops view_detail = {
	.name = "detail",
	.state_size = sizeof(struct app_detail),
	.key = detail_key,
	.draw = app_draw_detail,
	.sync = detail_sync,
};

/* ---- the settings panel (W) ------------------------------------------------------------- */

void app_toggle_panel(struct app *app)
{
	if (app_view_remove(app, &view_panel)) {
		vm_status(&app->vm, false, "settings closed");
		return;
	}
	if (panel_count(app) == 0) {
		vm_status(&app->vm, true, "a %s has no weights or shares to tune", app->vm.session.src->kind->title);
		return;
	}
	/* part of the list screen: right over the list's detail, under any view opened since */
	size_t at = 0;
	while (at < app->nviews && app->views[at].ops != &view_detail)
		at++;
	if (app_view_insert(app, at < app->nviews ? at + 1 : app->nviews, &view_panel))
		vm_status(&app->vm, false, "settings: Up/Down pick, +/- change (re-assembles at once), W or Esc closes");
}

static unsigned panel_key(struct app *app, int key, int act)
{
	(void)key;
	struct cs_error err;
	cs_error_clear(&err);
	size_t n = panel_count(app);
	struct scroller *sc = app_view_state(app, &view_panel); /* its cursor: the selected entry */
	if (scroller_key(sc, act, n, true))
		return VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
	switch (act) {
	case ACT_PRIORITY_UP: vm_panel_nudge(&app->vm, sc->cursor, 1, &err); break;
	case ACT_PRIORITY_DOWN: vm_panel_nudge(&app->vm, sc->cursor, -1, &err); break;
	case ACT_BACK: app_toggle_panel(app); break;
	default: return 0;
	}
	return VIEW_HANDLED | VIEW_REDRAW | VIEW_RELAYOUT;
}

/* The panel's rows come out of the list's: a title and one per entry. */
static void panel_layout(struct app *app, struct app_layout *L)
{
	int want = (int)panel_count(app) + 1;
	L->panel_h = want < L->list_h - 1 ? want : L->list_h - 1;
	if (L->panel_h < 0)
		L->panel_h = 0;
	L->list_h -= L->panel_h;
	L->panel_y = L->list_y + L->list_h;
}

const struct view_ops view_panel = {
	.name = "settings",
	.state_size = sizeof(struct scroller),
	.key = panel_key,
	.draw = app_draw_panel,
	.layout = panel_layout,
};
