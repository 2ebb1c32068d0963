/* app.c: the inspector screen (see app.h): its life, the layout, keys and
 * the mouse to actions. Painting is draw.c and views.c; save, export and
 * the command line are app_commands.c. */
#include "app_priv.h"

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
	app->vm.ascii = ascii;
	if (rc != CS_OK)
		return rc;
	if (!keymap_default(&app->keymap))
		return cs_error_set(err, CS_ESTRUCT, "the action table names a key that does not exist");
	vm_status(&app->vm, false, "%zu pieces, %zu blocks; ? for help, q quits", app->vm.src->npieces,
		  app->vm.cur.nblocks);
	return CS_OK;
}

void app_fini(struct app *app)
{
	vm_fini(&app->vm);
	sb_fini(&app->scratch);
	sb_fini(&app->line);
	sb_fini(&app->view_text);
	sb_fini(&app->roles);
}

void app_set_theme(struct app *app, const struct theme *t)
{
	app->theme = *t;
	app->theme_changed = true;
	const char *nc = getenv("NO_COLOR");
	app->distinct_bars = !t->has_color || (nc && nc[0]);
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
	for (int i = 0; i < nl && L.nbars < room; i++)
		if (nl <= room || g->layers[i].tokens > 0 || g->layers[i].nblocks > 0)
			L.bar_layer[L.nbars++] = i;
	L.bars_y = APP_HEADER_ROWS;
	int sep_y = L.bars_y + L.nbars;         /* a rule under the bars */
	int top = sep_y + 1;                    /* column header row */
	L.hint_y = h - 2;
	L.status_y = h - 1;
	int area = L.hint_y - (top + 1);        /* rows under the column header */
	L.detail_right = w >= APP_WIDE;
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
	if (app->panel) {
		struct vm_panel_entry e[VM_PANEL_MAX];
		int want = (int)vm_panel_entries(&app->vm, e, VM_PANEL_MAX) + 1; /* a title row */
		L.panel_h = want < L.list_h - 1 ? want : L.list_h - 1;
		if (L.panel_h < 0)
			L.panel_h = 0;
		L.list_h -= L.panel_h;
		L.panel_y = L.list_y + L.list_h;
	}
	app->layout = L;
	vm_scroll_into_view(&app->vm, (size_t)L.list_h);
}

/* ---- keys ---------------------------------------------------------------------------- */

void app_input_start(struct app *app, int input, const char *prefill)
{
	app->mode = APP_PROMPT;
	app->input = input;
	size_t n = prefill ? strlen(prefill) : 0;
	if (n > APP_PROMPT_MAX)
		n = 0;
	memcpy(app->prompt, prefill ? prefill : "", n);
	app->prompt_len = n;
	app->prompt[n] = '\0';	vm_status(&app->vm, false, "Enter accepts · Esc cancels · Backspace · Ctrl-U erases%s",
		  input == INPUT_COMMAND ? " · Tab completes" : "");
}

static unsigned prompt_key(struct app *app, int key)
{
	if (key == CSK_ESC) {
		app->mode = APP_NORMAL;
		if (app->input == INPUT_BUDGET)
			vm_status(&app->vm, false, "budget unchanged");
		else
			vm_status(&app->vm, false, "cancelled");
	} else if (key == CSK_ENTER) {
		app->prompt[app->prompt_len] = '\0';
		app->mode = APP_NORMAL;
		unsigned r = app_input_accept(app);
		app_layout(app, app->layout.w, app->layout.h);
		return APP_REDRAW | r;
	} else if (key == CSK_BACKSPACE) {
		/* a whole character: step back over UTF-8 continuation bytes */
		while (app->prompt_len && ((unsigned char)app->prompt[app->prompt_len - 1] & 0xC0) == 0x80)
			app->prompt_len--;
		if (app->prompt_len)
			app->prompt_len--;
	} else if (key == CSK_CTRL_U) {
		app->prompt_len = 0;
	} else if (key == CSK_TAB) {
		if (app->input == INPUT_COMMAND)
			app_input_complete(app);
	} else if (key == CSK_SPACE || (key > ' ' && key < 0x7f) || (key >= 0x80 && key < 0x100)) {
		/* bytes from the terminal: UTF-8 arrives one byte at a time */
		if (app->prompt_len < APP_PROMPT_MAX)
			app->prompt[app->prompt_len++] = (char)key;
	}
	return APP_REDRAW;
}

static void toggle_detail_focus(struct app *app)
{
	struct vm *vm = &app->vm;
	if (!app->layout.detail_shown) {
		vm->detail_open = true;
		vm->focus = VM_FOCUS_DETAIL;
	} else {
		vm->focus = vm->focus == VM_FOCUS_DETAIL ? VM_FOCUS_LIST : VM_FOCUS_DETAIL;
	}
}

static void back(struct app *app)
{
	struct vm *vm = &app->vm;
	if (vm->focus == VM_FOCUS_DETAIL) {
		vm->focus = VM_FOCUS_LIST;
		vm->detail_open = false;
	} else if (vm->detail_open) {
		vm->detail_open = false;
	} else {
		vm_status(vm, false, "Esc backs out of panes and prompts; q quits");
	}
}

static void scroll_or_move(struct app *app, long delta)
{
	struct vm *vm = &app->vm;
	if (vm->focus == VM_FOCUS_DETAIL && app->layout.detail_shown) {
		/* down only while the last frame had rows below its bottom */
		if (delta > 0 && !app->detail_more)
			return;
		/* unsigned and saturating: End leaves SIZE_MAX/2 until a frame
		 * big enough to draw the detail settles it */
		size_t s = vm->detail_scroll, cap = (size_t)-1 / 2;
		size_t d = delta < 0 ? 0 - (size_t)delta : (size_t)delta;
		if (delta < 0)
			vm->detail_scroll = d > s ? 0 : s - d;
		else
			vm->detail_scroll = s >= cap || d >= cap - s ? cap : s + d;
	} else {
		vm_move(vm, delta);
	}
}

/* Keys while the help is open: scroll it, or close it. */
static void help_key(struct app *app, int act)
{
	size_t page = app->layout.h > 2 ? (size_t)app->layout.h - 2 : 1;
	switch (act) {
	case ACT_BACK:
	case ACT_HELP:
	case ACT_OPEN:
		app->mode = APP_NORMAL;
		break;
	case ACT_DOWN: app->help_scroll += 1; break; /* the draw clamps it */
	case ACT_PAGE_DOWN: app->help_scroll += page; break;
	case ACT_UP: app->help_scroll -= app->help_scroll > 0; break;
	case ACT_PAGE_UP: app->help_scroll = app->help_scroll > page ? app->help_scroll - page : 0; break;
	case ACT_FIRST: app->help_scroll = 0; break;
	default: break;
	}
}

static void open_panel(struct app *app)
{
	struct vm_panel_entry e[VM_PANEL_MAX];
	if (vm_panel_entries(&app->vm, e, VM_PANEL_MAX) == 0) {
		vm_status(&app->vm, true, "a %s has no weights or shares to tune", app->vm.src->kind->title);
		return;
	}
	app->panel = !app->panel;
	vm_status(&app->vm, false, "%s", app->panel ? "settings: Up/Down pick, +/- change (re-assembles at once), W or Esc closes"
						  : "settings closed");
}

/* Keys while the settings panel is open; false: not the panel's, handle as usual. */
static bool panel_key(struct app *app, int act, struct cs_error *err)
{
	struct vm_panel_entry e[VM_PANEL_MAX];
	size_t n = vm_panel_entries(&app->vm, e, VM_PANEL_MAX);
	switch (act) {
	case ACT_DOWN: app->panel_sel += app->panel_sel + 1 < n; break;
	case ACT_UP: app->panel_sel -= app->panel_sel > 0; break;
	case ACT_PRIORITY_UP: vm_panel_nudge(&app->vm, app->panel_sel, 1, err); break;
	case ACT_PRIORITY_DOWN: vm_panel_nudge(&app->vm, app->panel_sel, -1, err); break;
	case ACT_BACK:
		app->panel = false;
		vm_status(&app->vm, false, "settings closed");
		break;
	default: return false;
	}
	app_layout(app, app->layout.w, app->layout.h);
	return true;
}

static long row_at(const struct app *app, int y)
{
	const struct app_layout *L = &app->layout;
	if (y < L->list_y || y >= L->list_y + L->list_h)
		return -1;
	size_t i = app->vm.scroll + (size_t)(y - L->list_y);
	return i < app->vm.nrows ? (long)i : -1;
}

unsigned app_mouse(struct app *app, int y, int x, enum app_mouse_event ev)
{
	struct vm *vm = &app->vm;
	const struct app_layout *L = &app->layout;
	if (app->mode != APP_NORMAL || L->too_small)
		return 0;
	if (app->view != VIEW_LIST) {
		if (ev != APP_MOUSE_CLICK) {
			int act = ev == APP_MOUSE_WHEEL_UP ? ACT_UP : ACT_DOWN;
			for (int i = 0; i < 3; i++)
				app->view == VIEW_PROMPT ? (void)app_prompt_view_key(app, act) : (void)app_diff_view_key(app, act);
		}
		return APP_REDRAW;
	}
	if (ev == APP_MOUSE_WHEEL_UP || ev == APP_MOUSE_WHEEL_DOWN) {
		vm_move(vm, ev == APP_MOUSE_WHEEL_UP ? -3 : 3);
		app_layout(app, L->w, L->h);
		return APP_REDRAW;
	}
	if (y >= L->bars_y && y < L->bars_y + L->nbars) {
		vm_set_layer_filter(vm, L->bar_layer[y - L->bars_y]);
		app_layout(app, L->w, L->h);
		return APP_REDRAW;
	}
	long i = row_at(app, y);
	if (i >= 0 && x >= L->list_x && x < L->list_x + L->list_w && vm->rows[i].type != VM_ROW_MARKER) {
		vm->cursor = (size_t)i;
		vm->detail_scroll = 0;
		vm->focus = VM_FOCUS_LIST;
	} else if (L->detail_shown && x >= L->detail_x && y >= L->detail_y && y < L->detail_y + L->detail_h) {
		vm->focus = VM_FOCUS_DETAIL;
	}
	return APP_REDRAW;
}

unsigned app_key(struct app *app, int key)
{
	struct vm *vm = &app->vm;
	if (key == 3) /* Ctrl-C in raw mode: quits from anywhere */
		return APP_QUIT;
	if (app->mode == APP_PROMPT) {
		unsigned r = prompt_key(app, key);
		if (app->view == VIEW_DIFF)
			app_build_diff(app);
		if (app->view == VIEW_PROMPT)
			app_prompt_view_follow_hit(app);
		return r;
	}
	int act = keymap_lookup(&app->keymap, key);
	if (app->mode == APP_HELP) {
		if (act == ACT_QUIT)
			return APP_QUIT;
		help_key(app, act);
		return APP_REDRAW;
	}
	if (app->view == VIEW_PROMPT && (act == ACT_BACK ? (app_toggle_prompt_view(app), true) : app_prompt_view_key(app, act)))
		return APP_REDRAW;
	if (app->view == VIEW_DIFF && (act == ACT_BACK ? (app_toggle_diff_view(app), true) : app_diff_view_key(app, act)))
		return APP_REDRAW;
	struct cs_error err;
	cs_error_clear(&err);
	if (app->panel && panel_key(app, act, &err))
		return APP_REDRAW;
	long page = app->layout.list_h > 1 ? app->layout.list_h - 1 : 1;
	long detail_page = app->layout.detail_h > 2 ? app->layout.detail_h - 2 : 1;
	switch (act) {
	case ACT_DOWN: scroll_or_move(app, 1); break;
	case ACT_UP: scroll_or_move(app, -1); break;
	case ACT_PAGE_DOWN: scroll_or_move(app, vm->focus == VM_FOCUS_DETAIL ? detail_page : page); break;
	case ACT_PAGE_UP: scroll_or_move(app, vm->focus == VM_FOCUS_DETAIL ? -detail_page : -page); break;
	case ACT_FIRST:
		if (vm->focus == VM_FOCUS_DETAIL)
			vm->detail_scroll = 0;
		else
			vm_first(vm);
		break;
	case ACT_LAST:
		if (vm->focus == VM_FOCUS_DETAIL)
			vm->detail_scroll = (size_t)-1 / 2; /* the draw settles it on the last page */
		else
			vm_last(vm);
		break;
	case ACT_OPEN:
		vm->detail_open = true;
		vm->focus = VM_FOCUS_DETAIL;
		break;
	case ACT_NEXT_PANE: toggle_detail_focus(app); break;
	case ACT_BACK: back(app); break;
	case ACT_EXCLUDE: vm_toggle_exclude(vm, &err); break;
	case ACT_PRIORITY_UP: vm_nudge_priority(vm, VM_PRIORITY_STEP, &err); break;
	case ACT_PRIORITY_DOWN: vm_nudge_priority(vm, -VM_PRIORITY_STEP, &err); break;
	case ACT_STRATEGY: vm_cycle_strategy(vm, false, &err); break;
	case ACT_GLOBAL_STRATEGY: vm_cycle_strategy(vm, true, &err); break;
	case ACT_BUDGET: app_input_start(app, INPUT_BUDGET, NULL); break;
	case ACT_BASELINE: vm_pin_baseline(vm, &err); break;
	case ACT_SORT: vm_cycle_sort(vm); break;
	case ACT_SHOW_DROPPED: vm_toggle_dropped(vm); break;
	case ACT_LAYERS: vm_cycle_grouping(vm); break;
	case ACT_HELP: app->mode = APP_HELP; break;
	case ACT_QUIT: return APP_QUIT;
	case ACT_PROFILE: vm_cycle_profile(vm, &err); break;
	case ACT_BREAKPOINT:
		/* show the marker row it made under the cursor */
		if (vm_toggle_breakpoint(vm, &err) == CS_OK && vm->cursor + 1 < vm->nrows &&
		    vm->rows[vm->cursor + 1].type == VM_ROW_MARKER && app->layout.list_h > 1 &&
		    vm->cursor + 1 >= vm->scroll + (size_t)app->layout.list_h)
			vm->scroll = vm->cursor + 2 - (size_t)app->layout.list_h;
		break;
	case ACT_SETTINGS: open_panel(app); break;
	case ACT_PRESET: vm_cycle_option(vm, NULL, &err); break;
	case ACT_LOOM_AWARE: vm_toggle_option(vm, "loom-aware", &err); break;
	case ACT_SEARCH: app_input_start(app, INPUT_SEARCH, NULL); break;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		vm_search_step(vm, act == ACT_SEARCH_PREV);
		if (app->view == VIEW_PROMPT)
			app_prompt_view_follow_hit(app);
		break;
	case ACT_FILTER: app_input_start(app, INPUT_FILTER, NULL); break;
	case ACT_FILTER_INVERT: vm_invert_filter(vm); break;
	case ACT_PROMPT_VIEW: app_toggle_prompt_view(app); break;
	case ACT_DIFF: app_toggle_diff_view(app); break;
	case ACT_UNDO: vm_undo(vm, &err); break;
	case ACT_RELOAD: app_reload(app, false); break;
	case ACT_REDO: vm_redo(vm, &err); break;
	case ACT_SAVE: app_save(app, NULL); break;
	case ACT_EXPORT: app_input_start(app, INPUT_EXPORT, NULL); break;
	case ACT_COMMAND: app_input_start(app, INPUT_COMMAND, NULL); break;
	default: {
		char name[32];
		if (cskey_name(key, name, sizeof name))
			vm_status(vm, false, "%s does nothing here; ? lists the keys", name);
		break;
	}
	}
	if (app->view == VIEW_DIFF)
		app_build_diff(app);
	app_layout(app, app->layout.w, app->layout.h);
	return APP_REDRAW;
}
