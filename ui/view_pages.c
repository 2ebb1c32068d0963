/* view_pages.c: the prompt view (v) and the diff view (d), pages of text
 * over the whole screen: their tables, drawing and keys. Keys they do not
 * take go down the stack to the list (Space still excludes, u undoes). */
#include "app_priv.h"

#include "diff.h"
#include "base/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The prompt view's own state. */
struct prompt_state {
	struct scroller sc;   /* with a cursor: the line under it */
	unsigned search_seen; /* the vm.search.gen it last followed */
};

/* The diff view's own state. */
struct diff_state {
	struct scroller sc;
	struct strbuf text;   /* its lines (owned; freed on close) */
	unsigned stamp;       /* the vm.session.changes the text was built at */
};

/* ---- the prompt view and the diff view -------------------------------------------- */

/* The views' frame: a title, the lines, the hints and the status. */
static void draw_view_title(struct frame *f, const char *title)
{
	struct app *app = f->app;
	app_put_repeat(f, 0, 0, " ", app->layout.w, ROLE_TITLE);
	app_put_str(f, 0, 0, app->layout.w, title, ROLE_TITLE);
}

static size_t view_rows(const struct app *app)
{
	return app->layout.h > 3 ? (size_t)app->layout.h - 3 : 1; /* title, hints, status */
}

static void draw_prompt_view(struct frame *f)
{
	struct app *app = f->app;
	struct vm *vm = &app->vm;
	const struct app_layout *L = &app->layout;
	char title[160], n1[32];
	snprintf(title, sizeof title, " prompt as the model receives it: %zu blocks, %s tokens (estimated)  "
		 "[v/Esc: back to the list]", vm->session.cur.nblocks, fmt_thousands(n1, vm->session.cur.total_tokens));
	draw_view_title(f, title);
	if (!vm_prompt_lines(vm)) {
		app_put_str(f, 1, 0, L->w, "out of memory", ROLE_ERROR);
		return;
	}
	struct scroller *sc = &((struct prompt_state *)app_view_state(app, &view_prompt))->sc;
	size_t rows = view_rows(app);
	scroller_fit(sc, vm->prompt.nlines, rows, true);
	for (size_t i = 0; i < rows && sc->top + i < vm->prompt.nlines; i++) {
		size_t li = sc->top + i;
		const struct vm_line *l = &vm->prompt.lines[li];
		int y = 1 + (int)i;
		bool cur = li == sc->cursor;
		size_t hfirst = 0, hn = 0;
		if (l->src_off1 && l->block >= 0)
			vm_hits_of(vm, SEARCH_BLOCK, l->block, &hfirst, &hn);
		app_put_str(f, y, 0, 2, cur ? (app->ascii ? "> " : "▶ ") : "  ", cur ? ROLE_CURSOR : ROLE_NORMAL);
		if (!app_display_line(app, vm->prompt.text.data + l->off, l->len, l->role,
				  l->src_off1 ? l->src_off1 - 1 : 0, hfirst, hn))
			return;
		size_t room = (size_t)(L->w - 2);
		size_t take = utf8_prefix_for_columns(app->scratch.data, app->scratch.len, room, NULL);
		size_t cols = 0, ell = utf8_ellipsis_columns(app->ascii ? UTF8_ASCII : 0, room);
		bool cut = take < app->scratch.len && room > ell;
		if (cut) /* keep the cells for the ellipsis */
			take = utf8_prefix_for_columns(app->scratch.data, app->scratch.len, room - ell, &cols);
		app_put_runs(f, y, 2, 0, take);
		if (cut) /* after: put_str reuses the scratch buffer */
			app_put_str(f, y, 2 + (int)cols, (int)ell, utf8_ellipsis(app->ascii ? UTF8_ASCII : 0, room), ROLE_BORDER);
	}
	if (sc->cursor >= sc->top && sc->cursor < sc->top + rows)
		f->p->ops->cursor(f->p->ctx, 1 + (int)(sc->cursor - sc->top), 0);
	app_draw_hint_text(f, view_prompt.hints);
	app_draw_status(f);
}

/* (Re)builds the diff view's text against the pinned baseline. */
static void build_diff(struct app *app)
{
	struct vm *vm = &app->vm;
	struct diff_state *ds = app_view_state(app, &view_diff);
	struct diff d;
	struct cs_error err;
	cs_error_clear(&err);
	sb_reset(&ds->text);
	/* under the active profile, with the user's breakpoints then and now */
	if (diff_build(&vm->session.base, &vm->cache.bp_base, &vm->session.cur, &vm->cache.bp_now, vm->cache.active, &d, &err) != CS_OK ||
	    !diff_lines(&d, app->ascii ? UTF8_ASCII : 0, &ds->text))
		sb_puts(&ds->text, "out of memory\n");
	diff_fini(&d);
	ds->stamp = vm->session.changes;
	app->diff_builds++;
}

/* The text follows the assembly, the baseline and the cache settings: it
 * is rebuilt when they moved, not on keys that change none of them. */
static void diff_sync(struct app *app)
{
	const struct diff_state *ds = app_view_state(app, &view_diff);
	if (ds->stamp != app->vm.session.changes)
		build_diff(app);
}

void app_draw_page(struct frame *f, const char *title, const struct strbuf *text, struct scroller *sc,
		   const char *hints)
{
	app_draw_page_at(f, title, text, sc, hints, SIZE_MAX);
}

void app_draw_page_at(struct frame *f, const char *title, const struct strbuf *text, struct scroller *sc,
		      const char *hints, size_t mark)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	draw_view_title(f, title);
	const char *s = sb_str(text);
	size_t nlines = 0;
	for (const char *q = s; (q = strchr(q, '\n')); q++)
		nlines++;
	size_t rows = view_rows(app);
	if (mark != SIZE_MAX)
		sc->cursor = mark;
	scroller_fit(sc, nlines, rows, mark != SIZE_MAX);
	size_t line = 0;
	int y = 1;
	while (*s && (size_t)y <= rows) {
		size_t n = strcspn(s, "\n");
		if (line >= sc->top) {
			/* display-safe already; headings are the unindented lines */
			int role = line == mark ? ROLE_CURSOR : s[0] == ' ' ? ROLE_NORMAL : ROLE_HEADING;
			if (line == mark)
				app_put_repeat(f, y, 1, " ", L->w - 1, role);
			app_put_fit(f, y, 1, L->w - 1, s, n, role);
			y++;
		}
		line++;
		s += n + (s[n] == '\n');
	}
	app_draw_hint_text(f, hints);
	app_draw_status(f);
}

static void draw_diff_view(struct frame *f)
{
	char title[160];
	snprintf(title, sizeof title, " changes since the baseline (profile %s; B pins a new one)  [d/Esc: back]",
		 f->app->vm.cache.profile->name);
	struct diff_state *ds = app_view_state(f->app, &view_diff);
	app_draw_page(f, title, &ds->text, &ds->sc, view_diff.hints);
}

/* Motion keys move the cursor, and the list's selection follows the line
 * under it; Esc (or v, through the list) goes back. */
static unsigned prompt_view_key(struct app *app, int key, int act)
{
	(void)key;
	struct vm *vm = &app->vm;
	if (act == ACT_BACK) {
		app_toggle_prompt_view(app);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	if (!vm_prompt_lines(vm))
		return 0;
	size_t n = vm->prompt.nlines;
	struct scroller *sc = &((struct prompt_state *)app_view_state(app, &view_prompt))->sc;
	if (!scroller_key(sc, act, n, true))
		return 0;
	for (size_t i = sc->cursor + 1; i-- > 0 && n;)
		if (vm->prompt.lines[i].block >= 0) {
			vm_select_block(vm, vm->prompt.lines[i].block);
			break;
		}
	return VIEW_HANDLED | VIEW_REDRAW;
}

/* Puts the cursor on the line of a new current search hit. */
static void prompt_view_sync(struct app *app)
{
	struct vm *vm = &app->vm;
	struct prompt_state *ps = app_view_state(app, &view_prompt);
	if (ps->search_seen == vm->search.gen)
		return;
	ps->search_seen = vm->search.gen;
	if (!vm_prompt_lines(vm) || vm->search.found_at < 0 || (size_t)vm->search.found_at >= vm->search.found.nhits)
		return;
	const struct search_hit *h = &vm->search.found.hits[vm->search.found_at];
	if (h->target != SEARCH_BLOCK)
		return;
	for (size_t i = 0; i < vm->prompt.nlines; i++) {
		const struct vm_line *l = &vm->prompt.lines[i];
		if (l->block == h->index && l->src_off1 && h->start >= l->src_off1 - 1 &&
		    h->start <= l->src_off1 - 1 + l->len) {
			ps->sc.cursor = i;
			return;
		}
	}
}

static unsigned diff_view_key(struct app *app, int key, int act)
{
	(void)key;
	if (act == ACT_BACK) {
		app_toggle_diff_view(app);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	struct diff_state *ds = app_view_state(app, &view_diff);
	return scroller_key(&ds->sc, act, 0, false) ? VIEW_HANDLED | VIEW_REDRAW : 0; /* the draw clamps it */
}

/* The wheel moves three lines, as three keys would. */
unsigned app_page_wheel(struct app *app, int ev, unsigned (*key)(struct app *, int, int))
{
	if (ev != APP_MOUSE_CLICK)
		for (int i = 0; i < 3; i++)
			key(app, 0, ev == APP_MOUSE_WHEEL_UP ? ACT_UP : ACT_DOWN);
	return VIEW_HANDLED | VIEW_REDRAW;
}

static unsigned prompt_view_mouse(struct app *app, int y, int x, int ev)
{
	(void)y, (void)x;
	return app_page_wheel(app, ev, prompt_view_key);
}

static unsigned diff_view_mouse(struct app *app, int y, int x, int ev)
{
	(void)y, (void)x;
	return app_page_wheel(app, ev, diff_view_key);
}

static void prompt_view_open(struct app *app)
{
	struct vm *vm = &app->vm;
	struct prompt_state *ps = app_view_state(app, &view_prompt);
	ps->search_seen = vm->search.gen;
	if (!vm_prompt_lines(vm)) {
		vm_status(vm, true, "out of memory");
		return;
	}
	const struct vm_row *r = vm_selected(vm);
	ps->sc.cursor = r && r->block >= 0 ? vm_prompt_line_of_block(vm, r->block) : 0;
	ps->sc.top = ps->sc.cursor > 2 ? ps->sc.cursor - 2 : 0;
	vm_status(vm, false, "the prompt: j/k move, / searches, Space excludes the piece under the cursor, v returns");
}

static void diff_view_open(struct app *app)
{
	build_diff(app);
	vm_status(&app->vm, false, "changes since the baseline: j/k scroll, d returns");
}

static void diff_view_close(struct app *app)
{
	struct diff_state *ds = app_view_state(app, &view_diff);
	sb_fini(&ds->text);
}

const struct view_ops view_prompt = {
	.name = "prompt",
	.opaque = true,
	.state_size = sizeof(struct prompt_state),
	.open = prompt_view_open,
	.key = prompt_view_key,
	.draw = draw_prompt_view,
	.mouse = prompt_view_mouse,
	.sync = prompt_view_sync,
	.hints = " j/k move  PgUp/PgDn page  / search  n/N next  Space exclude  u undo  v back",
};

const struct view_ops view_diff = {
	.name = "diff",
	.opaque = true,
	.state_size = sizeof(struct diff_state),
	.open = diff_view_open,
	.close = diff_view_close,
	.key = diff_view_key,
	.draw = draw_diff_view,
	.mouse = diff_view_mouse,
	.sync = diff_sync,
	.hints = " j/k scroll  PgUp/PgDn page  B pin the baseline  P profile  u undo  d back",
};

/* ---- :messages: the status line's past messages ----------------------------------- */

struct messages_state {
	struct scroller sc;
	struct strbuf text; /* the log as page lines (owned; freed on close) */
};

static void messages_open(struct app *app)
{
	struct messages_state *ms = app_view_state(app, &view_messages);
	const char *s = sb_str(&app->vm.log);
	size_t room = app->layout.w > 8 ? (size_t)app->layout.w - 5 : 4;
	while (*s) { /* each wrapped whole, indented: the page draws them as text, not headings */
		size_t n = strcspn(s, "\n");
		bool first = true;
		for (size_t at = 0; at < n || first; first = false) {
			size_t take = utf8_prefix_for_columns(s + at, n - at, room, NULL);
			if (take == 0 && at < n)
				take = n - at;
			size_t space = take; /* a line that goes on breaks after a word, unless one word fills it */
			while (at + take < n && space > 0 && s[at + space - 1] != ' ')
				space--;
			if (at + take < n && space > take / 2)
				take = space;
			sb_puts(&ms->text, first ? " " : "   ");
			sb_append(&ms->text, s + at, take);
			sb_putc(&ms->text, '\n');
			at += take;
		}
		s += n + (s[n] == '\n');
	}
	ms->sc.top = (size_t)-1; /* the draw clamps it: the newest at the bottom */
}

static void messages_close(struct app *app)
{
	sb_fini(&((struct messages_state *)app_view_state(app, &view_messages))->text);
}

static void draw_messages(struct frame *f)
{
	struct messages_state *ms = app_view_state(f->app, &view_messages);
	app_draw_page(f, " messages: what the status line said, newest last  [Esc: back]", &ms->text, &ms->sc,
		      view_messages.hints);
}

static unsigned messages_key(struct app *app, int key, int act)
{
	(void)key;
	if (act == ACT_BACK) {
		app_view_remove(app, &view_messages);
		return VIEW_HANDLED | VIEW_REDRAW;
	}
	if (act == ACT_QUIT) /* q quits the program from any view (Esc backs out) */
		return 0;
	struct messages_state *ms = app_view_state(app, &view_messages);
	return scroller_key(&ms->sc, act, 0, false) ? VIEW_HANDLED | VIEW_REDRAW : VIEW_HANDLED;
}

static unsigned messages_mouse(struct app *app, int y, int x, int ev)
{
	(void)y, (void)x;
	return app_page_wheel(app, ev, messages_key);
}

const struct view_ops view_messages = {
	.name = "messages",
	.opaque = true,
	.state_size = sizeof(struct messages_state),
	.open = messages_open,
	.close = messages_close,
	.key = messages_key,
	.draw = draw_messages,
	.mouse = messages_mouse,
	.hints = " j/k scroll  PgUp/PgDn page  Esc back  q quit",
};

void app_open_messages(struct app *app)
{
	if (app_view_top(app) != &view_messages)
		app_view_push(app, &view_messages);
}

/* v and d: open the view (the other one of the two gives way), or close it. */
static void toggle(struct app *app, const struct view_ops *v, const struct view_ops *other)
{
	if (app_view_remove(app, v)) {
		vm_status(&app->vm, false, "back to the list");
		return;
	}
	app_view_remove(app, other);
	app_view_push(app, v);
}

void app_toggle_prompt_view(struct app *app)
{
	toggle(app, &view_prompt, &view_diff);
}

void app_toggle_diff_view(struct app *app)
{
	toggle(app, &view_diff, &view_prompt);
}
