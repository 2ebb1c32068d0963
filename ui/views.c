/* views.c: the prompt view and the diff view, their drawing and their keys. */
#include "app_priv.h"

#include "diff.h"
#include "utf8.h"

#include <stdio.h>
#include <string.h>

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

static void view_clamp(struct app *app, size_t nlines)
{
	size_t rows = view_rows(app);
	if (app->view == VIEW_PROMPT) {
		if (nlines && app->view_cursor >= nlines)
			app->view_cursor = nlines - 1;
		if (app->view_cursor < app->view_top)
			app->view_top = app->view_cursor;
		else if (app->view_cursor >= app->view_top + rows)
			app->view_top = app->view_cursor - rows + 1;
	}
	if (app->view_top + rows > nlines)
		app->view_top = nlines > rows ? nlines - rows : 0;
}

void app_draw_prompt_view(struct frame *f)
{
	struct app *app = f->app;
	struct vm *vm = &app->vm;
	const struct app_layout *L = &app->layout;
	char title[160], n1[32], n2[32];
	snprintf(title, sizeof title, " prompt as the model receives it: %zu blocks, %s tokens (estimated)  "
		 "[v/Esc: back to the list]", vm->cur.nblocks, fmt_thousands(n1, vm->cur.total_tokens));
	(void)n2;
	draw_view_title(f, title);
	if (!vm_prompt_lines(vm)) {
		app_put_str(f, 1, 0, L->w, "out of memory", ROLE_ERROR);
		return;
	}
	view_clamp(app, vm->prompt.nlines);
	size_t rows = view_rows(app);
	app->view_h = rows;
	for (size_t i = 0; i < rows && app->view_top + i < vm->prompt.nlines; i++) {
		size_t li = app->view_top + i;
		const struct vm_line *l = &vm->prompt.lines[li];
		int y = 1 + (int)i;
		bool cur = li == app->view_cursor;
		size_t hfirst = 0, hn = 0;
		if (l->src_off1 && l->block >= 0)
			vm_hits_of(vm, SEARCH_BLOCK, l->block, &hfirst, &hn);
		app_put_str(f, y, 0, 2, cur ? (app->ascii ? "> " : "▶ ") : "  ", cur ? ROLE_CURSOR : ROLE_NORMAL);
		if (!app_display_line(app, vm->prompt.text.data + l->off, l->len, l->role,
				  l->src_off1 ? l->src_off1 - 1 : 0, hfirst, hn))
			return;
		size_t room = (size_t)(L->w - 2);
		size_t take = utf8_prefix_for_columns(app->scratch.data, app->scratch.len, room, NULL);
		size_t cols = 0;
		bool cut = take < app->scratch.len && room > 1;
		if (cut) /* keep a cell for the ellipsis */
			take = utf8_prefix_for_columns(app->scratch.data, app->scratch.len, room - 1, &cols);
		app_put_runs(f, y, 2, 0, take);
		if (cut) /* after: put_str reuses the scratch buffer */
			app_put_str(f, y, 2 + (int)cols, 1, app->ascii ? "~" : "…", ROLE_BORDER);
	}
	if (app->view_cursor >= app->view_top && app->view_cursor < app->view_top + rows)
		f->p->ops->cursor(f->p->ctx, 1 + (int)(app->view_cursor - app->view_top), 0);
}

/* (Re)builds the diff view's text against the pinned baseline. */
void app_build_diff(struct app *app)
{
	struct vm *vm = &app->vm;
	struct diff d;
	struct cs_error err;
	cs_error_clear(&err);
	sb_reset(&app->view_text);
	/* under the active profile, with the user's breakpoints then and now */
	if (diff_build(&vm->base, &vm->bp_base, &vm->cur, &vm->bp_now, vm->profile, &d, &err) != CS_OK ||
	    !diff_lines(&d, app->ascii ? UTF8_ASCII : 0, &app->view_text))
		sb_puts(&app->view_text, "out of memory\n");
	diff_fini(&d);
}

void app_draw_diff_view(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	char title[160];
	snprintf(title, sizeof title, " changes since the baseline (profile %s; B pins a new one)  [d/Esc: back]",
		 app->vm.profile->name);
	draw_view_title(f, title);
	const char *s = sb_str(&app->view_text);
	size_t nlines = 0;
	for (const char *q = s; *q; q++)
		nlines += *q == '\n';
	view_clamp(app, nlines);
	size_t rows = view_rows(app);
	app->view_h = rows;
	size_t line = 0;
	int y = 1;
	while (*s && (size_t)y <= rows) {
		size_t n = strcspn(s, "\n");
		if (line >= app->view_top) {
			/* diff_lines made them display-safe already; headings are the unindented lines */
			app_put_fit(f, y, 1, L->w - 1, s, n, s[0] == ' ' ? ROLE_NORMAL : ROLE_HEADING);
			y++;
		}
		line++;
		s += n + (s[n] == '\n');
	}
}

/* Prompt view keys; false: not a view key (the normal handling runs). */
bool app_prompt_view_key(struct app *app, int act)
{
	struct vm *vm = &app->vm;
	if (!vm_prompt_lines(vm))
		return false;
	size_t n = vm->prompt.nlines, page = app->view_h > 1 ? app->view_h - 1 : 1;
	switch (act) {
	case ACT_DOWN: app->view_cursor += app->view_cursor + 1 < n; break;
	case ACT_UP: app->view_cursor -= app->view_cursor > 0; break;
	case ACT_PAGE_DOWN: app->view_cursor = app->view_cursor + page < n ? app->view_cursor + page : (n ? n - 1 : 0); break;
	case ACT_PAGE_UP: app->view_cursor = app->view_cursor > page ? app->view_cursor - page : 0; break;
	case ACT_FIRST: app->view_cursor = 0; break;
	case ACT_LAST: app->view_cursor = n ? n - 1 : 0; break;
	default: return false;
	}
	/* the list's selection follows the line under the cursor */
	for (size_t i = app->view_cursor + 1; i-- > 0 && n;)
		if (vm->prompt.lines[i].block >= 0) {
			vm_select_block(vm, vm->prompt.lines[i].block);
			break;
		}
	return true;
}

/* Puts the prompt view's cursor on the line of the current search hit. */
void app_prompt_view_follow_hit(struct app *app)
{
	struct vm *vm = &app->vm;
	if (!vm_prompt_lines(vm) || vm->found_at < 0 || (size_t)vm->found_at >= vm->found.nhits)
		return;
	const struct search_hit *h = &vm->found.hits[vm->found_at];
	if (h->target != SEARCH_BLOCK)
		return;
	for (size_t i = 0; i < vm->prompt.nlines; i++) {
		const struct vm_line *l = &vm->prompt.lines[i];
		if (l->block == h->index && l->src_off1 && h->start >= l->src_off1 - 1 &&
		    h->start <= l->src_off1 - 1 + l->len) {
			app->view_cursor = i;
			return;
		}
	}
}

bool app_diff_view_key(struct app *app, int act)
{
	size_t page = app->view_h > 1 ? app->view_h - 1 : 1;
	switch (act) {
	case ACT_DOWN: app->view_top++; break; /* the draw clamps it */
	case ACT_UP: app->view_top -= app->view_top > 0; break;
	case ACT_PAGE_DOWN: app->view_top += page; break;
	case ACT_PAGE_UP: app->view_top = app->view_top > page ? app->view_top - page : 0; break;
	case ACT_FIRST: app->view_top = 0; break;
	case ACT_LAST: app->view_top = (size_t)-1 / 2; break;
	default: return false;
	}
	return true;
}

void app_toggle_prompt_view(struct app *app)
{
	struct vm *vm = &app->vm;
	if (app->view == VIEW_PROMPT) {
		/* back with the piece under the cursor selected (done as it moved) */
		app->view = VIEW_LIST;
		vm_status(vm, false, "back to the list");
		return;
	}
	app->view = VIEW_PROMPT;
	if (!vm_prompt_lines(vm)) {
		vm_status(vm, true, "out of memory");
		return;
	}
	const struct vm_row *r = vm_selected(vm);
	app->view_cursor = r && r->block >= 0 ? vm_prompt_line_of_block(vm, r->block) : 0;
	app->view_top = app->view_cursor > 2 ? app->view_cursor - 2 : 0;
	vm_status(vm, false, "the prompt: j/k move, / searches, Space excludes the piece under the cursor, v returns");
}

void app_toggle_diff_view(struct app *app)
{
	if (app->view == VIEW_DIFF) {
		app->view = VIEW_LIST;
		vm_status(&app->vm, false, "back to the list");
		return;
	}
	app->view = VIEW_DIFF;
	app->view_top = 0;
	app_build_diff(app);
	vm_status(&app->vm, false, "changes since the baseline: j/k scroll, d returns");
}
