/* app.c: the inspector screen (see app.h): layout, drawing through a
 * painter, keys to actions. Every string from the input goes through
 * utf8_fit/utf8_sanitize before it is painted. */
#include "app.h"

#include "kind.h"
#include "utf8.h"

#include <stdio.h>
#include <math.h>
#include <string.h>

/* ---- glyphs --------------------------------------------------------------- */

static const char *const eighths_utf8[9] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█" };
/* Without colour each layer gets its own glyph (the first keeps eighths). */
#define APP_BAR_GLYPHS 6
static const char *const distinct_utf8[APP_BAR_GLYPHS] = { "█", "▓", "▒", "░", "▞", "▪" };
static const char *const distinct_ascii[APP_BAR_GLYPHS] = { "#", "=", "%", "+", "*", "o" };

static const char *g_hline(const struct app *app) { return app->ascii ? "-" : "─"; }
static const char *g_vline(const struct app *app) { return app->ascii ? "|" : "│"; }
static const char *g_dash(const struct app *app) { return app->ascii ? "." : "┄"; }
static const char *g_minus(const struct app *app) { return app->ascii ? "-" : "−"; }
static const char *g_dot(const struct app *app) { return app->ascii ? "|" : "·"; }

/* ---- life ------------------------------------------------------------------ */

int app_init(struct app *app, struct source *src, bool ascii, struct cs_error *err)
{
	memset(app, 0, sizeof *app);
	theme_default(&app->theme);
	app->ascii = ascii;
	app->distinct_bars = !app->theme.has_color;
	int rc = vm_init(&app->vm, src, err);
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

/* ---- painting helpers ----------------------------------------------------------- */

struct frame {
	struct app *app;
	const struct painter *p;
};

/* Text (any bytes) fitted to exactly `width` columns. one_line: newlines
 * and tabs become a space and runs of spaces collapse (for input text in a
 * row); else spacing is kept and control characters get stand-ins. */
static void put_text(struct frame *f, int y, int x, int width, const char *s, size_t n, int role, bool one_line)
{
	if (width <= 0)
		return;
	struct strbuf *sc = &f->app->scratch;
	sb_reset(sc);
	unsigned flags = (one_line ? UTF8_ONE_LINE : 0) | (f->app->ascii ? UTF8_ASCII : 0);
	utf8_fit(sc, s, n, (size_t)width, flags, true);
	if (!sc->failed)
		f->p->ops->put(f->p->ctx, y, x, sb_str(sc), sc->len, role);
}

static void put_fit(struct frame *f, int y, int x, int width, const char *s, size_t n, int role)
{
	put_text(f, y, x, width, s, n, role, false);
}

static void put_str(struct frame *f, int y, int x, int width, const char *s, int role)
{
	put_text(f, y, x, width, s, strlen(s), role, false);
}

/* Our own glyph repeated `times` (display-safe by construction). */
static void put_repeat(struct frame *f, int y, int x, const char *glyph, int times, int role)
{
	if (times <= 0)
		return;
	struct strbuf *sc = &f->app->scratch;
	sb_reset(sc);
	sb_repeat(sc, glyph, (size_t)times);
	if (!sc->failed)
		f->p->ops->put(f->p->ctx, y, x, sb_str(sc), sc->len, role);
}

static int bar_role(size_t layer)
{
	return ROLE_BAR0 + (int)(layer % THEME_BAR_ROLES);
}

/* A bar of `cells` cells for value/max; returns nothing, paints. */
static void draw_bar(struct frame *f, int y, int x, int cells, long value, long max, size_t layer)
{
	struct app *app = f->app;
	size_t e = vm_bar_eighths(value, max, (size_t)cells);
	int role = bar_role(layer);
	bool fine = !app->ascii && (!app->distinct_bars || layer % APP_BAR_GLYPHS == 0);
	if (fine) {
		put_repeat(f, y, x, eighths_utf8[8], (int)(e / 8), role);
		if (e % 8)
			put_repeat(f, y, x + (int)(e / 8), eighths_utf8[e % 8], 1, role);
		return;
	}
	const char *glyph = app->ascii ? (app->distinct_bars ? distinct_ascii[layer % APP_BAR_GLYPHS] : "#")
				       : distinct_utf8[layer % APP_BAR_GLYPHS];
	int full = (int)((e + 4) / 8);
	if (full == 0 && e > 0)
		full = 1;
	put_repeat(f, y, x, glyph, full, role);
}

static void thousands(struct strbuf *sb, long v)
{
	sb_thousands(sb, v);
}

static int percent(long part, long whole)
{
	if (whole <= 0)
		return 0;
	return (int)((part * 100 + whole / 2) / whole);
}

/* ---- header ---------------------------------------------------------------------- */

static void draw_header(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	const struct assembly *a = &vm->cur;
	struct strbuf *ln = &app->line;

	sb_reset(ln);
	sb_printf(ln, "%s  %s", vm->src->path, vm->src->kind->name);
	for (size_t i = 0; i < a->nfacts; i++)
		sb_printf(ln, "  %s %s", a->facts[i].key, a->facts[i].value);
	const char *help = "? help";
	int title_w = 10;
	put_str(f, 0, 0, title_w, " ctxscope", ROLE_TITLE);
	int rest = L->w - title_w - 8;
	put_fit(f, 0, title_w, rest, sb_str(ln), ln->len, ROLE_HEADER);
	put_str(f, 0, L->w - 8, 8, help, ROLE_HEADER);

	size_t dropped, cut;
	vm_counts(vm, &dropped, &cut);
	sb_reset(ln);
	if (L->w < 80) {
		/* narrow: the figures that matter, shortest first */
		sb_puts(ln, " used ");
		thousands(ln, a->budget.used);
		sb_putc(ln, '/');
		thousands(ln, a->budget.usable);
		sb_printf(ln, " (%d%%) dropped %zu cut %zu", percent(a->budget.used, a->budget.usable), dropped,
			  cut);
	} else {
		sb_puts(ln, " budget ");
		thousands(ln, a->budget.usable);
		sb_puts(ln, " = ");
		thousands(ln, a->budget.limit);
		sb_printf(ln, " %s ", g_minus(app));
		thousands(ln, a->budget.reserve);
		sb_puts(ln, " reserve   used ");
		thousands(ln, a->budget.used);
		sb_printf(ln, " (%d%%)   dropped %zu  cut %zu", percent(a->budget.used, a->budget.usable), dropped, cut);
	}
	bool over = (a->flags & (ASM_OVER_LIMIT | ASM_ERROR)) != 0;
	if (over && a->state)
		sb_printf(ln, "   %s", a->state);
	put_fit(f, 1, 0, L->w, sb_str(ln), ln->len, over ? ROLE_OVER : ROLE_BUDGET);

	sb_reset(ln);
	const struct vm_cache *c = &vm->cache;
	const struct cache_cost *now = &vm->an.now;
	sb_printf(ln, " cache %s %s ", vm->profile ? vm->profile->name : "-", g_dot(app));
	if (now->read == 0)
		sb_puts(ln, "cold: nothing read");
	else {
		thousands(ln, now->read);
		sb_puts(ln, " read");
	}
	sb_printf(ln, " %s ", g_dot(app));
	thousands(ln, now->written);
	sb_printf(ln, " written %s ", g_dot(app));
	thousands(ln, now->uncached);
	sb_printf(ln, " uncached %s %s", g_dot(app),
		  c->identical ? "prompt same as the baseline" : "prompt differs from the baseline");
	sb_printf(ln, " %s ", g_dot(app));
	thousands(ln, llround(now->cost));
	sb_puts(ln, " vs ");
	thousands(ln, llround(vm->an.steady.cost));
	sb_puts(ln, " base-price tokens");
	put_fit(f, 2, 0, L->w, sb_str(ln), ln->len, c->identical ? ROLE_CACHED : ROLE_NEW);
}

static void draw_bars(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	const struct grouping *g = vm_grouping(&app->vm);
	if (!g)
		return;
	bool wide = L->w >= 80;
	int name_w = L->w >= 100 ? 18 : 10, tok_w = 8, pct_w = 5, state_w = wide ? 20 : 7;
	int bar_w = L->w - 1 - name_w - tok_w - pct_w - 1 - state_w - 1;
	long usable = app->vm.cur.budget.usable;
	for (int i = 0; i < L->nbars; i++) {
		size_t li = (size_t)L->bar_layer[i];
		const struct layer *ly = &g->layers[li];
		int y = L->bars_y + i;
		int x = 1;
		put_str(f, y, x, name_w - 1, ly->name, ROLE_NORMAL); /* a blank column before the bar */
		x += name_w;
		draw_bar(f, y, x, bar_w, ly->budget_tokens, usable, li);
		x += bar_w;
		char num[32];
		char buf[48];
		snprintf(buf, sizeof buf, "%*s", tok_w, fmt_thousands(num, ly->budget_tokens));
		put_str(f, y, x, tok_w, buf, ROLE_NORMAL);
		x += tok_w;
		snprintf(buf, sizeof buf, "%4d%%", percent(ly->budget_tokens, usable));
		put_str(f, y, x, pct_w, buf, ROLE_NORMAL);
		x += pct_w + 1;
		long cached;
		enum vm_layer_state st = vm_layer_state(&app->vm, li, &cached);
		const char *word = "";
		int role = ROLE_NORMAL;
		switch (st) {
		case VM_LAYER_CACHED: word = "cached"; role = ROLE_CACHED; break;
		case VM_LAYER_NEW: word = "new"; role = ROLE_NEW; break;
		case VM_LAYER_EMPTY: word = "-"; break;
		case VM_LAYER_PARTIAL:
			role = ROLE_NEW;
			if (wide) {
				snprintf(buf, sizeof buf, "cached to %s", fmt_thousands(num, cached));
				word = buf;
			} else {
				word = "part";
			}
			break;
		}
		put_str(f, y, x, state_w, word, role);
	}
}

/* ---- the list ---------------------------------------------------------------------- */

struct columns {
	int flag, tokens, bar, role, label, content; /* x of each; bar -1 when none */
	int bar_w, role_w, label_w, content_w;
};

static struct columns list_columns(const struct app_layout *L)
{
	struct columns c = { 0 };
	int w = L->list_w;
	c.flag = L->list_x + 1;
	c.tokens = c.flag + 2;
	int x = c.tokens + 8;
	c.bar_w = w >= 60 ? 6 : 0;
	c.bar = c.bar_w ? x : -1;
	x += c.bar_w ? c.bar_w + 1 : 0;
	c.role = x;
	c.role_w = w >= 60 ? 9 : 6;
	x += c.role_w + 1;
	c.label = x;
	c.label_w = w >= 100 ? 24 : w >= 60 ? 16 : 10;
	x += c.label_w + 1;
	c.content = x;
	c.content_w = L->list_x + w - x;
	return c;
}

static void draw_marker(struct frame *f, int y, const struct vm_row *r)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	const struct vm *vm = &app->vm;
	struct strbuf *ln = &app->line;
	sb_reset(ln);
	sb_repeat(ln, g_dash(app), 2);
	int role = ROLE_MARKER;
	bool is_break = !vm->cache.identical && (r->block == -1 || (size_t)r->block + 1 == vm->cache.same_blocks);
	if (r->block == VM_MARKER_CUTOFF) {
		role = ROLE_BREAK;
		const char *cut = vm_cutoff(vm);
		sb_printf(ln, " cutoff %s ", cut ? cut : "");
	} else if (is_break) {
		role = ROLE_BREAK;
		sb_puts(ln, " cache breaks here ");
		sb_puts(ln, g_dot(app));
		sb_putc(ln, ' ');
		thousands(ln, vm->cache.cached_tokens);
		sb_puts(ln, " cached ");
		sb_puts(ln, g_dot(app));
		sb_putc(ln, ' ');
		thousands(ln, vm->cache.rewrite_tokens);
		sb_puts(ln, " to rewrite ");
	} else {
		const struct cache_breakpoint *bp = vm_breakpoint(vm, r->block);
		sb_puts(ln, " cache breakpoint ");
		sb_puts(ln, g_dot(app));
		sb_putc(ln, ' ');
		thousands(ln, vm_row_tokens(vm, r));
		sb_puts(ln, " tokens ");
		sb_puts(ln, g_dot(app));
		sb_printf(ln, " %s ", bp ? vm_breakpoint_state(vm, bp) : "none");
	}
	int used = (int)utf8_columns(sb_str(ln), ln->len);
	if (used < L->list_w)
		sb_repeat(ln, g_dash(app), (size_t)(L->list_w - used));
	put_fit(f, y, L->list_x, L->list_w, sb_str(ln), ln->len, role);
}

static void draw_row(struct frame *f, int y, size_t index)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	const struct vm_row *r = &vm->rows[index];
	if (r->type == VM_ROW_MARKER) {
		draw_marker(f, y, r);
		return;
	}
	bool selected = index == vm->cursor;
	const struct piece *p = r->piece >= 0 ? &vm->src->pieces[r->piece] : NULL;
	const struct piece_result *res = p ? &vm->cur.results[r->piece] : NULL;
	const struct block *b = r->block >= 0 ? &vm->cur.blocks[r->block] : NULL;
	int role = ROLE_ROW;
	if (!p)
		role = ROLE_MADE;
	else if (res->outcome == OUTCOME_DROPPED)
		role = ROLE_DROPPED;
	else if (res->outcome == OUTCOME_TRUNCATED)
		role = ROLE_TRUNCATED;
	if (selected && !(vm->focus == VM_FOCUS_DETAIL))
		role = ROLE_CURSOR;
	struct columns c = list_columns(L);
	put_repeat(f, y, L->list_x, " ", L->list_w, role);
	if (selected)
		put_str(f, y, L->list_x, 1, app->ascii ? ">" : "▶", role);
	char flag[2] = { vm_row_flag(vm, r), '\0' };
	put_str(f, y, c.flag, 1, flag, role);
	long tokens = vm_row_tokens(vm, r);
	char num[32], buf[40];
	snprintf(buf, sizeof buf, "%7s", fmt_thousands(num, tokens));
	put_str(f, y, c.tokens, 7, buf, role);
	if (c.bar >= 0 && r->type == VM_ROW_BLOCK) {
		long max = vm->max_block_tokens; /* ncdu-style: against the largest row */
		size_t layer = (size_t)(b->layer[vm->grouping < vm->cur.ngroupings ? vm->grouping : 0]);
		draw_bar(f, y, c.bar, c.bar_w, tokens, max, layer);
	}
	const char *rolename = p && p->role ? p->role
			       : (b && vm->cur.nmessages) ? vm->cur.messages[b->message].role
							  : "made";
	put_str(f, y, c.role, c.role_w, rolename ? rolename : "", role);
	const char *label = p ? (p->label ? p->label : p->id) : (b && b->label ? b->label : "(made text)");
	put_text(f, y, c.label, c.label_w, label, strlen(label), role, true);

	struct strbuf *ln = &app->line;
	sb_reset(ln);
	if (p && res->outcome == OUTCOME_DROPPED) {
		sb_printf(ln, "(%s) ", res->reason == REASON_EXCLUDED_BY_USER ? reason_sentence(res->reason)
				       : res->sentence ? res->sentence : reason_sentence(res->reason));
	} else if (p && res->outcome == OUTCOME_TRUNCATED) {
		sb_puts(ln, "(truncated ");
		thousands(ln, res->original_tokens);
		sb_puts(ln, " -> ");
		thousands(ln, res->tokens);
		sb_puts(ln, ") ");
	}
	if (p) {
		size_t take = p->text_bytes < 512 ? p->text_bytes : utf8_bytes_for_code_points(p->text, p->text_bytes, 400);
		sb_append(ln, p->text, take);
	} else if (b) {
		/* made text: its first spans are enough for a row */
		for (size_t s = b->first_span; s < b->first_span + b->nspans && ln->len < 400; s++)
			sb_append(ln, vm->cur.spans[s].ptr, vm->cur.spans[s].len < 400 ? vm->cur.spans[s].len : 400);
	}
	put_text(f, y, c.content, c.content_w, sb_str(ln), ln->len, role, true);
}

static void draw_list(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	struct columns c = list_columns(L);
	int y = L->list_y - 1;
	put_repeat(f, y, L->list_x, " ", L->list_w, ROLE_COLUMNS);
	put_str(f, y, c.flag, 1, "f", ROLE_COLUMNS);
	put_str(f, y, c.tokens, 7, " tokens", ROLE_COLUMNS);
	put_str(f, y, c.role, c.role_w, "role", ROLE_COLUMNS);
	put_str(f, y, c.label, c.label_w, vm->src->kind->id_key, ROLE_COLUMNS);
	char head[64];
	snprintf(head, sizeof head, "content  [sort: %s%s]", vm_sort_name(vm->sort),
		 vm->hide_dropped ? ", dropped hidden" : "");
	put_str(f, y, c.content, c.content_w, head, ROLE_COLUMNS);
	vm_scroll_into_view(vm, (size_t)L->list_h);
	for (int i = 0; i < L->list_h; i++) {
		size_t index = vm->scroll + (size_t)i;
		if (index >= vm->nrows)
			break;
		draw_row(f, L->list_y + i, index);
	}
	if (vm->nrows == 0)
		put_str(f, L->list_y, L->list_x + 1, L->list_w - 1, "(nothing to show)", ROLE_DROPPED);
	if (vm->cursor >= vm->scroll && vm->cursor < vm->scroll + (size_t)L->list_h)
		f->p->ops->cursor(f->p->ctx, L->list_y + (int)(vm->cursor - vm->scroll), L->list_x);
}

/* ---- the settings panel (W) ------------------------------------------------------------ */

static void draw_panel(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	if (!app->panel || L->panel_h <= 0)
		return;
	struct vm_panel_entry e[VM_PANEL_MAX];
	size_t n = vm_panel_entries(&app->vm, e, VM_PANEL_MAX);
	struct strbuf *ln = &app->line;
	sb_reset(ln);
	sb_printf(ln, " %s%s%s Up/Down pick %s +/- change %s W or Esc closes ", g_dash(app), g_dash(app), " settings",
		  g_dot(app), g_dot(app));
	const char *cut = vm_cutoff(&app->vm);
	if (cut)
		sb_printf(ln, "%s cutoff %s ", g_dot(app), cut);
	int used = (int)utf8_columns(sb_str(ln), ln->len);
	if (used < L->list_w)
		sb_repeat(ln, g_dash(app), (size_t)(L->list_w - used));
	put_fit(f, L->panel_y, L->list_x, L->list_w, sb_str(ln), ln->len, ROLE_BORDER);
	int rows = L->panel_h - 1;
	size_t first = 0;
	if (rows > 0 && app->panel_sel >= (size_t)rows)
		first = app->panel_sel - (size_t)rows + 1;
	for (int i = 0; i < rows && first + (size_t)i < n; i++) {
		size_t k = first + (size_t)i;
		bool sel = k == app->panel_sel;
		sb_reset(ln);
		sb_printf(ln, "%s %-11s %-10s ", sel ? (app->ascii ? ">" : "▶") : " ", e[k].option, e[k].name);
		if (e[k].percent)
			sb_printf(ln, "%5.1f%%", e[k].value);
		else
			sb_printf(ln, "%6.2f", e[k].value);
		put_fit(f, L->panel_y + 1 + i, L->list_x, L->list_w, sb_str(ln), ln->len, sel ? ROLE_CURSOR : ROLE_NORMAL);
	}
}

/* ---- the detail pane ------------------------------------------------------------------ */

#define APP_TAB_SPACES 4 /* a tab in the detail shows as this many spaces */

static void draw_detail(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	if (!L->detail_shown)
		return;
	int title_y, x = L->detail_x, w = L->detail_w, y0, h;
	bool focus = vm->focus == VM_FOCUS_DETAIL;
	if (L->detail_right) {
		for (int y = L->detail_y; y < L->detail_y + L->detail_h; y++)
			put_repeat(f, y, x - 1, g_vline(app), 1, ROLE_BORDER);
		title_y = L->detail_y;
		x += 1;
		w -= 1;
	} else {
		title_y = L->detail_y - 1;
		put_repeat(f, title_y, 0, g_hline(app), L->w, ROLE_BORDER);
	}
	put_str(f, title_y, x, w, focus ? "detail (Tab: list, Esc: back, j/k scroll)" : "detail (Enter/Tab: focus)",
		focus ? ROLE_HEADING : ROLE_BORDER);
	y0 = title_y + 1;
	h = L->detail_y + L->detail_h - y0;
	if (h <= 0 || w <= 0)
		return;
	if (!vm_detail(vm)) {
		put_str(f, y0, x, w, "out of memory", ROLE_ERROR);
		return;
	}
	size_t row = 0, shown = 0;
	struct strbuf *ln = &app->line;
	app->detail_more = false;
	for (size_t i = 0; i < vm->detail.nlines && !app->detail_more; i++) {
		const struct vm_line *l = &vm->detail.lines[i];
		const char *s = vm->detail.text.data + l->off;
		sb_reset(ln);
		for (size_t k = 0; k < l->len; k++) {
			if (s[k] == '\t')
				sb_repeat(ln, " ", APP_TAB_SPACES);
			else
				sb_putc(ln, s[k]);
		}
		struct strbuf *sc = &app->scratch;
		sb_reset(sc);
		utf8_sanitize(sc, sb_str(ln), ln->len, app->ascii ? UTF8_ASCII : 0);
		if (sc->failed)
			return;
		const char *t = sb_str(sc);
		size_t n = sc->len, at = 0;
		do {
			size_t cols;
			size_t take = utf8_prefix_for_columns(t + at, n - at, (size_t)w, &cols);
			if (take == 0 && at < n) {
				int32_t cp;
				take = utf8_decode(t + at, n - at, &cp);
			} else if (at + take < n && t[at + take] != ' ') {
				/* word wrap: break after the last space, if it is not too far back */
				size_t sp = take;
				while (sp > 0 && t[at + sp - 1] != ' ')
					sp--;
				if (sp > take / 2)
					take = sp;
			}
			if (row >= vm->detail_scroll) {
				if (shown == (size_t)h) {
					app->detail_more = true; /* rows below: j may scroll */
					break;
				}
				f->p->ops->put(f->p->ctx, y0 + (int)shown, x, t + at, take, l->role);
				shown++;
			}
			row++;
			at += take;
		} while (at < n);
	}
	if (shown == 0 && vm->detail_scroll > 0) {
		/* scrolled past the end (a page key): show the last page */
		vm->detail_scroll = row > (size_t)h ? row - (size_t)h : 0;
		draw_detail(f);
	}
}

/* ---- hints, status, help, too small ---------------------------------------------------- */

static const int hint_actions[] = {
	ACT_EXCLUDE, ACT_PRIORITY_UP, ACT_PRIORITY_DOWN, ACT_STRATEGY, ACT_BUDGET, ACT_BASELINE,
	ACT_SORT, ACT_SHOW_DROPPED, ACT_OPEN, ACT_HELP, ACT_QUIT,
};

static void draw_hints(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	put_repeat(f, L->hint_y, 0, " ", L->w, ROLE_HINT);
	int x = 1;
	for (size_t i = 0; i < sizeof hint_actions / sizeof hint_actions[0]; i++) {
		const char *keys = action_keys(hint_actions[i]);
		char key[16];
		size_t kn = strcspn(keys, " ");
		if (kn >= sizeof key)
			kn = sizeof key - 1;
		memcpy(key, keys, kn);
		key[kn] = '\0';
		const char *name = action_name(hint_actions[i]);
		int need = (int)(kn + 1 + strlen(name) + 2);
		if (x + need > L->w)
			break;
		put_str(f, L->hint_y, x, (int)kn, key, ROLE_HINT_KEY);
		put_str(f, L->hint_y, x + (int)kn + 1, (int)strlen(name), name, ROLE_HINT);
		x += need;
	}
}

static void draw_status(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	if (app->mode == APP_PROMPT) {
		struct strbuf *ln = &app->line;
		sb_reset(ln);
		sb_printf(ln, " budget in tokens (100k, 128,000; empty: the input's): %.*s_", (int)app->prompt_len,
			  app->prompt);
		put_fit(f, L->status_y, 0, L->w, sb_str(ln), ln->len, ROLE_HEADING);
		return;
	}
	struct strbuf *ln = &app->line;
	sb_reset(ln);
	sb_putc(ln, ' ');
	sb_append(ln, sb_str(&app->vm.status), app->vm.status.len);
	put_fit(f, L->status_y, 0, L->w, sb_str(ln), ln->len, app->vm.status_error ? ROLE_ERROR : ROLE_STATUS);
}

static void draw_help(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct strbuf help = STRBUF_INIT;
	actions_help(&help);
	sb_puts(&help, "\nflags: x excluded  - dropped  ~ truncated  * changed since the baseline  ! unreadable\n");
	sb_puts(&help, "bars: tokens of each layer against the usable budget; cache state against the baseline under the profile (P)\n");
	const char *s = sb_str(&help);
	size_t lines = 0;
	for (const char *q = s; *q; q++)
		lines += *q == '\n';
	size_t room = L->h > 1 ? (size_t)L->h - 1 : 1; /* the last row says how to scroll */
	if (f->app->help_scroll + room > lines)
		f->app->help_scroll = lines > room ? lines - room : 0;
	size_t line = 0;
	int y = 0;
	while (*s && (size_t)y < room) {
		size_t n = strcspn(s, "\n");
		if (line >= f->app->help_scroll) {
			put_fit(f, y, 0, L->w, s, n, line == 0 ? ROLE_HEADING : ROLE_NORMAL);
			y++;
		}
		line++;
		s += n + (s[n] == '\n');
	}
	if (L->h > 1)
		put_str(f, L->h - 1, 0, L->w, lines > room ? " j/k scroll · Esc or ? closes · q quits" : " Esc or ? closes · q quits",
			ROLE_HINT);
	sb_fini(&help);
}

void app_draw(struct app *app, const struct painter *p)
{
	struct frame f = { .app = app, .p = p };
	const struct app_layout *L = &app->layout;
	p->ops->begin(p->ctx, L->w, L->h);
	if (L->too_small) {
		char msg[96];
		snprintf(msg, sizeof msg, "%dx%d, needs %dx%d", L->w, L->h, APP_MIN_WIDTH, APP_MIN_HEIGHT);
		if (L->w > 0 && L->h > 0)
			put_str(&f, L->h / 2 - (L->h > 1), 0, L->w, "terminal too small", ROLE_ERROR);
		if (L->w > 0 && L->h > 1)
			put_str(&f, L->h / 2, 0, L->w, msg, ROLE_ERROR);
		p->ops->end(p->ctx);
		return;
	}
	if (app->mode == APP_HELP) {
		draw_help(&f);
		p->ops->end(p->ctx);
		return;
	}
	draw_header(&f);
	draw_bars(&f);
	put_repeat(&f, L->bars_y + L->nbars, 0, g_hline(app), L->w, ROLE_BORDER);
	draw_list(&f);
	draw_panel(&f);
	draw_detail(&f);
	draw_hints(&f);
	draw_status(&f);
	p->ops->end(p->ctx);
}

/* ---- keys ---------------------------------------------------------------------------- */

static unsigned prompt_key(struct app *app, int key)
{
	if (key == CSK_ESC) {
		app->mode = APP_NORMAL;
		vm_status(&app->vm, false, "budget unchanged");
	} else if (key == CSK_ENTER) {
		app->prompt[app->prompt_len] = '\0';
		app->mode = APP_NORMAL;
		struct cs_error err;
		cs_error_clear(&err);
		vm_set_budget(&app->vm, app->prompt, &err);
		app_layout(app, app->layout.w, app->layout.h);
	} else if (key == CSK_BACKSPACE) {
		if (app->prompt_len)
			app->prompt_len--;
	} else if (key >= ' ' && key < 0x7f && app->prompt_len < APP_PROMPT_MAX) {
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
		long s = (long)vm->detail_scroll + delta;
		vm->detail_scroll = s < 0 ? 0 : (size_t)s;
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

unsigned app_key(struct app *app, int key)
{
	struct vm *vm = &app->vm;
	if (key == 3) /* Ctrl-C in raw mode: quits from anywhere */
		return APP_QUIT;
	if (app->mode == APP_PROMPT)
		return prompt_key(app, key);
	int act = keymap_lookup(&app->keymap, key);
	if (app->mode == APP_HELP) {
		if (act == ACT_QUIT)
			return APP_QUIT;
		help_key(app, act);
		return APP_REDRAW;
	}
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
	case ACT_BUDGET:
		app->mode = APP_PROMPT;
		app->prompt_len = 0;
		break;
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
	case ACT_PRESET: vm_cycle_option(vm, "archetype", &err); break;
	case ACT_LOOM_AWARE: vm_toggle_option(vm, "loom-aware", &err); break;
	default: {
		char name[32];
		if (cskey_name(key, name, sizeof name))
			vm_status(vm, false, "%s does nothing here; ? lists the keys", name);
		break;
	}
	}
	app_layout(app, app->layout.w, app->layout.h);
	return APP_REDRAW;
}
