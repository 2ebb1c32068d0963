/* draw.c: paints the inspector's list screen through a painter: header,
 * bars, list, settings panel, detail pane, hints, status, each part for the
 * view that shows it (view.h); and app_draw, which paints the view stack.
 * Every string from the input goes through utf8_fit/utf8_sanitize before
 * it is painted. */
#include "app_priv.h"

#include "cache/cache.h"
#include "kind.h"
#include "tokens/tokenizer.h"
#include "base/utf8.h"

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
static const char *g_dot(const struct app *app) { return app->ascii ? "|" : "·"; }

#define APP_TAB_SPACES 4 /* a tab in the detail shows as this many spaces */

/* ---- painting helpers ----------------------------------------------------------- */

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

/* A file name too wide for `width` columns, cut in its middle so that its
 * extension stays (`pytes…st.log`); false when it has none worth keeping. */
static bool put_name_middle(struct frame *f, int y, int x, int width, const char *name, size_t n, int role)
{
	unsigned flags = f->app->ascii ? UTF8_ASCII : 0;
	const char *dot = NULL;
	for (size_t i = n; i-- > 1;)
		if (name[i] == '.') {
			dot = name + i;
			break;
		}
	size_t ell = utf8_ellipsis_columns(flags, (size_t)width);
	size_t ext = dot ? utf8_columns(dot, n - (size_t)(dot - name)) : 0;
	if (!dot || ext + ell + 2 > (size_t)width) /* no extension, or no room for the name's start beside it */
		return false;
	size_t head = utf8_prefix_for_columns(name, (size_t)(dot - name), (size_t)width - ext - ell, NULL);
	struct strbuf *sc = &f->app->scratch;
	sb_reset(sc);
	sb_append(sc, name, head);
	sb_puts(sc, utf8_ellipsis(flags, (size_t)width));
	sb_append(sc, dot, n - (size_t)(dot - name));
	if (!sc->failed)
		f->p->ops->put(f->p->ctx, y, x, sb_str(sc), sc->len, role);
	return true;
}

/* A label that may be a path (a '/', no space), in `width` columns: cut in the middle (as
 * ncdu does) so that the file name stays whole: `docs/po…/postmortem.md`;
 * a name too long for that loses its middle and keeps its extension: `pytes…st.log`. */
static void put_path(struct frame *f, int y, int x, int width, const char *s, int role)
{
	struct strbuf *pb = &f->app->line;
	sb_reset(pb);
	unsigned flags = f->app->ascii ? UTF8_ASCII : 0;
	utf8_sanitize(pb, s, strlen(s), UTF8_ONE_LINE | flags);
	const char *t = sb_str(pb), *slash = strrchr(t, '/');
	size_t cols = utf8_columns(t, pb->len);
	/* a path: a '/' and no space (a request's "messages[0] image/png" is no path) */
	if (width <= 0 || pb->failed || cols <= (size_t)width || !slash || slash == t || strchr(t, ' ')) {
		put_text(f, y, x, width, s, strlen(s), role, true);
		return;
	}
	/* the folders' ellipsis: "…", or "..." in ASCII ("src/../x" would read as a real path) */
	const char *dots = f->app->ascii ? "..." : "\xe2\x80\xa6";
	size_t ell = f->app->ascii ? 3 : 1;
	size_t tail = utf8_columns(slash, pb->len - (size_t)(slash - t));
	if (tail + ell > (size_t)width + 1) { /* the name alone does not fit (with the ellipsis for the folders) */
		if (!put_name_middle(f, y, x, width, slash + 1, pb->len - (size_t)(slash + 1 - t), role))
			put_text(f, y, x, width, s, strlen(s), role, true);
		return;
	}
	size_t head = tail + ell + 1 > (size_t)width ? 0
		      : utf8_prefix_for_columns(t, (size_t)(slash - t), (size_t)width - tail - ell, NULL);
	if (head == 0) /* "…name": the ellipsis stands for the folders and the '/' */
		slash++;
	struct strbuf *sc = &f->app->scratch;
	sb_reset(sc);
	sb_append(sc, t, head);
	sb_puts(sc, dots);
	sb_append(sc, slash, pb->len - (size_t)(slash - t));
	if (!sc->failed)
		f->p->ops->put(f->p->ctx, y, x, sb_str(sc), sc->len, role);
}

void app_put_fit(struct frame *f, int y, int x, int width, const char *s, size_t n, int role)
{
	put_text(f, y, x, width, s, n, role, false);
}

void app_put_str(struct frame *f, int y, int x, int width, const char *s, int role)
{
	put_text(f, y, x, width, s, strlen(s), role, false);
}

/* Our own glyph repeated `times` (display-safe by construction). */
void app_put_repeat(struct frame *f, int y, int x, const char *glyph, int times, int role)
{
	if (times <= 0)
		return;
	struct strbuf *sc = &f->app->scratch;
	sb_reset(sc);
	sb_repeat(sc, glyph, (size_t)times);
	if (!sc->failed)
		f->p->ops->put(f->p->ctx, y, x, sb_str(sc), sc->len, role);
}

/* The role a search match is painted in (reverse bold: visible without colour). */
#define APP_MATCH_ROLE ROLE_HINT_KEY

/* Input text s[0..n) made display-safe into app->scratch (tabs expanded),
 * with app->roles holding a role per byte of it: `role`, or the match role
 * inside the hits [first, first+nhits) of vm->search.found whose byte ranges (in
 * the text s starts `base` bytes into) overlap it. false on out of memory. */
bool app_display_line(struct app *app, const char *s, size_t n, int role, size_t base, size_t first, size_t nhits)
{
	struct strbuf *sc = &app->scratch, *rl = &app->roles;
	sb_reset(sc);
	sb_reset(rl);
	const struct search_hit *hits = app->vm.search.found.hits;
	/* only the hits that reach into this line (they are sorted and disjoint) */
	size_t lo = first, hi = first + nhits;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (hits[mid].end <= base)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t last = lo;
	while (last < first + nhits && hits[last].start < base + n)
		last++;
	first = lo;
	nhits = last - lo;
	size_t i = 0;
	while (i < n) {
		/* the chunk up to the next hit boundary */
		size_t end = n;
		bool in = false;
		for (size_t h = first; h < first + nhits; h++) {
			size_t hs = hits[h].start > base ? hits[h].start - base : 0;
			size_t he = hits[h].end > base ? hits[h].end - base : 0;
			if (he <= i || hs >= n)
				continue;
			if (hs <= i) {
				in = true;
				if (he < end)
					end = he;
			} else if (hs < end) {
				end = hs;
			}
		}
		size_t from = sc->len;
		for (size_t k = i; k < end; k++) {
			size_t run = k;
			while (run < end && s[run] != '\t')
				run++;
			if (run > k)
				utf8_sanitize(sc, s + k, run - k, app->ascii ? UTF8_ASCII : 0);
			if (run < end)
				sb_repeat(sc, " ", APP_TAB_SPACES);
			k = run;
		}
		char r = (char)(in ? APP_MATCH_ROLE : role);
		for (size_t k = from; k < sc->len; k++)
			sb_putc(rl, r);
		i = end;
	}
	return !sc->failed && !rl->failed;
}

/* Paints scratch[at, at+take) at (y, x), run by run of the same role. */
void app_put_runs(struct frame *f, int y, int x, size_t at, size_t take)
{
	const char *t = f->app->scratch.data, *r = f->app->roles.data;
	size_t end = at + take;
	while (at < end) {
		size_t k = at;
		while (k < end && r[k] == r[at])
			k++;
		f->p->ops->put(f->p->ctx, y, x, t + at, k - at, r[at]);
		x += (int)utf8_columns(t + at, k - at);
		at = k;
	}
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
		app_put_repeat(f, y, x, eighths_utf8[8], (int)(e / 8), role);
		if (e % 8)
			app_put_repeat(f, y, x + (int)(e / 8), eighths_utf8[e % 8], 1, role);
		return;
	}
	const char *glyph = app->ascii ? (app->distinct_bars ? distinct_ascii[layer % APP_BAR_GLYPHS] : "#")
				       : distinct_utf8[layer % APP_BAR_GLYPHS];
	int full = (int)((e + 4) / 8);
	if (full == 0 && e > 0)
		full = 1;
	app_put_repeat(f, y, x, glyph, full, role);
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

/* One header row: its items whole, in order, separated by dots; an item
 * that does not fit is left out (the header's detail has it) and a later,
 * shorter one may still go in. Returns how many were left out. */
static int draw_head_row(struct frame *f, int y, int x, int width, int row, int role)
{
	struct app *app = f->app;
	const struct vm *vm = &app->vm;
	const char *dot = g_dot(app);
	int left_out = 0, end = x + width;
	bool first = true;
	for (size_t i = 0; i < vm->head.nitems; i++) {
		const struct vm_head_item *it = &vm->head.items[i];
		if (it->row != row)
			continue;
		const char *text = vm_head_text(vm, i);
		int w = (int)utf8_columns(text, it->len), sep = first ? 1 : 3;
		if (x + sep + w > end - (left_out ? 0 : 2)) {
			left_out++;
			continue;
		}
		if (!first)
			app_put_str(f, y, x + 1, 1, dot, role);
		x += sep;
		app_put_fit(f, y, x, w, text, it->len, it->alert ? ROLE_OVER : role);
		x += w;
		first = false;
	}
	if (left_out && x + 2 <= end)
		app_put_str(f, y, x + 1, 1, app->ascii ? "+" : "…", role);
	return left_out;
}

static void draw_header(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	if (!vm_header(vm)) {
		app_put_str(f, 0, 0, L->w, " ctxscope: out of memory", ROLE_OVER);
		return;
	}
	int title_w = 9;
	bool sel = vm->on_header;
	app_put_str(f, 0, 0, title_w, " ctxscope", ROLE_TITLE);
	app_put_str(f, 0, title_w, L->w - title_w, "", ROLE_HEADER);
	draw_head_row(f, 0, title_w, L->w - title_w, VM_HEAD_WHO, sel ? ROLE_CURSOR : ROLE_HEADER);
	const struct assembly *a = &vm->session.cur;
	bool over = (a->flags & (ASM_OVER_LIMIT | ASM_ERROR)) != 0 || vm->exact.over;
	app_put_str(f, 1, 0, L->w, "", ROLE_BUDGET);
	draw_head_row(f, 1, 0, L->w, VM_HEAD_TOTALS, over ? ROLE_OVER : ROLE_BUDGET);
	int cache_role = vm->cache.identical ? ROLE_CACHED : ROLE_NEW;
	app_put_str(f, 2, 0, L->w, "", cache_role);
	draw_head_row(f, 2, 0, L->w, VM_HEAD_CACHE, cache_role);
}

/* The layer names' column: as wide as the longest name shown (and a blank
 * column), up to a limit that leaves the bar room; names past it are cut. */
static int bar_name_width(const struct app *app, const struct grouping *g)
{
	const struct app_layout *L = &app->layout;
	int limit = L->w >= 100 ? 26 : L->w >= 80 ? 22 : 14, w = 8;
	for (int i = 0; i < L->nbars; i++) {
		const char *name = g->layers[L->bar_layer[i]].name;
		int n = (int)utf8_columns(name, strlen(name)) + 1;
		if (n > w)
			w = n;
	}
	return w < limit ? w : limit;
}

/* Each layer's own glyph in the one bar (colour or not), and beside its name. */
static const char *stacked_glyph(const struct app *app, size_t layer)
{
	return app->ascii ? distinct_ascii[layer % APP_BAR_GLYPHS] : distinct_utf8[layer % APP_BAR_GLYPHS];
}

/* A terminal too short for a bar per layer: one bar of every layer end to
 * end, each in its own colour (and glyph without colour), the names in
 * order after it as far as they fit. */
static void draw_stacked_bar(struct frame *f, const struct grouping *g)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	int y = L->bars_y, bar_w = L->w / 2;
	long whole = app->vm.session.cur.budget.usable, used = app->vm.session.cur.budget.used;
	if (whole < used)
		whole = used;
	long acc = 0;
	int x0 = 1;
	for (size_t li = 0; li < g->nlayers; li++) {
		if (g->layers[li].budget_tokens <= 0)
			continue;
		int from = (int)((size_t)x0 + vm_bar_eighths(acc, whole, (size_t)bar_w) / 8);
		acc += g->layers[li].budget_tokens;
		int to = (int)((size_t)x0 + (vm_bar_eighths(acc, whole, (size_t)bar_w) + 4) / 8);
		if (to <= from)
			to = from + 1;
		app_put_repeat(f, y, from, stacked_glyph(app, li), to - from, bar_role(li));
	}
	struct strbuf *ln = &app->line;
	sb_reset(ln);
	/* the names, the largest layer first (what a narrow screen must not hide) */
	bool said[64] = { false };
	for (size_t k = 0; k < g->nlayers && k < 64; k++) {
		size_t best = g->nlayers;
		for (size_t li = 0; li < g->nlayers && li < 64; li++)
			if (!said[li] && g->layers[li].budget_tokens > 0 &&
			    (best == g->nlayers || g->layers[li].budget_tokens > g->layers[best].budget_tokens))
				best = li;
		if (best == g->nlayers)
			break;
		said[best] = true;
		sb_printf(ln, "%s%s %s %d%%", k ? " " : "", stacked_glyph(app, best), g->layers[best].name,
			  percent(g->layers[best].budget_tokens, app->vm.session.cur.budget.usable));
	}
	app_put_fit(f, y, x0 + bar_w + 1, L->w - bar_w - 2, sb_str(ln), ln->len, ROLE_NORMAL);
}

static void draw_bars(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	const struct grouping *g = vm_grouping(&app->vm);
	if (!g)
		return;
	if (L->bars_stacked) {
		draw_stacked_bar(f, g);
		return;
	}
	bool wide = L->w >= 80;
	int name_w = bar_name_width(app, g), tok_w = 8, pct_w = 5, state_w = wide ? 20 : 7;
	int exact_w = wide && app->vm.exact.total >= 0 ? 15 : 0; /* "exact 131,540" beside the estimate */
	int bar_w = L->w - 1 - name_w - tok_w - exact_w - pct_w - 1 - state_w - 1;
	long usable = vm_bar_whole(&app->vm);
	for (int i = 0; i < L->nbars; i++) {
		size_t li = (size_t)L->bar_layer[i];
		const struct layer *ly = &g->layers[li];
		int y = L->bars_y + i;
		int x = 1;
		app_put_str(f, y, x, name_w - 1, ly->name, ROLE_NORMAL); /* a blank column before the bar */
		x += name_w;
		draw_bar(f, y, x, bar_w, ly->budget_tokens, usable, li);
		x += bar_w;
		char num[32];
		char buf[48];
		snprintf(buf, sizeof buf, "%*s", tok_w, fmt_thousands(num, ly->budget_tokens));
		app_put_str(f, y, x, tok_w, buf, ROLE_NORMAL);
		x += tok_w;
		long exact = exact_w ? vm_layer_exact(&app->vm, li) : -1;
		if (exact >= 0) {
			fmt_thousands(num, exact);
			if (tokenizer_approximate(app->vm.exact.tok)) /* "≈131,540" right-aligned */
				snprintf(buf, sizeof buf, "%*s%s%s", 14 - (int)strlen(num), "", app->vm.ascii ? "~" : "\u2248",
					 num);
			else
				snprintf(buf, sizeof buf, " exact %8s", num);
			app_put_str(f, y, x, exact_w, buf, ROLE_NORMAL);
		}
		x += exact_w;
		snprintf(buf, sizeof buf, "%4d%%", percent(ly->budget_tokens, usable));
		app_put_str(f, y, x, pct_w, buf, ROLE_NORMAL);
		x += pct_w + 1;
		long cached;
		enum vm_layer_state st = vm_layer_state(&app->vm, li, &cached);
		const char *word = "";
		int role = ROLE_NORMAL;
		switch (st) {
		case VM_LAYER_CACHED: word = "read"; role = ROLE_CACHED; break;
		case VM_LAYER_NEW: word = "not read"; role = ROLE_NEW; break;
		case VM_LAYER_EMPTY: word = "-"; break;
		case VM_LAYER_PARTIAL:
			role = ROLE_NEW;
			if (wide) {
				snprintf(buf, sizeof buf, "read to %s", fmt_thousands(num, cached));
				word = buf;
			} else {
				word = "part";
			}
			break;
		}
		app_put_str(f, y, x, state_w, word, role);
	}
}

/* ---- the list ---------------------------------------------------------------------- */

struct columns {
	int flag, tokens, exact, bar, role, label, kind, content; /* x of each; bar, exact, kind -1 when none */
	int bar_w, role_w, label_w, kind_w, content_w;
};

/* exact: a column of exact counts beside the estimate; kind: the kind's
 * own column (kind_ops.piece_column) when it has one. */
static struct columns list_columns(const struct app_layout *L, bool exact, const struct kind_ops *kind)
{
	struct columns c = { 0 };
	int w = L->list_w;
	c.flag = L->list_x + 1;
	c.tokens = c.flag + 2;
	int x = c.tokens + 8;
	c.exact = exact && w >= 60 ? x : -1;
	x += c.exact >= 0 ? 8 : 0;
	c.bar_w = w >= 60 ? 6 : 0;
	c.bar = c.bar_w ? x : -1;
	x += c.bar_w ? c.bar_w + 1 : 0;
	c.role = x;
	c.role_w = w >= 60 ? 9 : 6;
	x += c.role_w + 1;
	c.label = x;
	c.label_w = w >= 100 ? 24 : w >= 60 ? 16 : 10;
	x += c.label_w + 1;
	/* the kind's column (a manifest's prio and strategy: what is tuned) wins
	 * over the content's preview while 8 columns of preview remain */
	c.kind_w = kind->piece_column && L->list_x + w - (x + KIND_COLUMN_WIDTH + 1) >= 8 ? KIND_COLUMN_WIDTH : 0;
	c.kind = c.kind_w ? x : -1;
	x += c.kind_w ? c.kind_w + 1 : 0;
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
		sb_putc(ln, ' ');
		char sep[8];
		snprintf(sep, sizeof sep, " %s ", g_dot(app));
		vm_break_words(vm, sep, ln);
		sb_putc(ln, ' ');
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
	app_put_fit(f, y, L->list_x, L->list_w, sb_str(ln), ln->len, role);
}

static void draw_row(struct frame *f, int y, size_t index)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	const struct vm_row row = vm_row_at(vm, index), *r = &row;
	if (r->type == VM_ROW_MARKER) {
		draw_marker(f, y, r);
		return;
	}
	bool selected = index == vm->cursor && !vm->on_header;
	const struct piece *p = r->piece >= 0 ? &vm->session.src->pieces[r->piece] : NULL;
	const struct piece_result *res = p ? &vm->session.cur.results[r->piece] : NULL;
	const struct block *b = r->block >= 0 ? &vm->session.cur.blocks[r->block] : NULL;
	int role = ROLE_ROW;
	if (!p)
		role = ROLE_MADE;
	else if (res->outcome == OUTCOME_DROPPED)
		role = ROLE_DROPPED;
	else if (res->outcome == OUTCOME_TRUNCATED)
		role = ROLE_TRUNCATED;
	/* the keys go to the settings panel while it is open: the list's row
	 * keeps a hollow mark, not the cursor's colours */
	bool panel = L->panel_h > 0;
	if (selected && !(vm->focus == VM_FOCUS_DETAIL) && !panel)
		role = ROLE_CURSOR;
	struct columns c = list_columns(L, vm->exact.total >= 0, vm->session.src->kind);
	app_put_repeat(f, y, L->list_x, " ", L->list_w, role);
	if (selected)
		app_put_str(f, y, L->list_x, 1, panel ? (app->ascii ? ":" : "▷") : app->ascii ? ">" : "▶", role);
	char flag[2] = { vm_row_flag(vm, r), '\0' };
	app_put_str(f, y, c.flag, 1, flag, role);
	long tokens = vm_row_tokens(vm, r);
	char num[32], buf[40];
	snprintf(buf, sizeof buf, "%7s", fmt_thousands(num, tokens));
	app_put_str(f, y, c.tokens, 7, buf, role);
	long exact = c.exact >= 0 ? vm_row_exact(vm, r) : -1;
	if (exact >= 0) {
		snprintf(buf, sizeof buf, "%7s", fmt_thousands(num, exact));
		app_put_str(f, y, c.exact, 7, buf, role);
	}
	if (c.bar >= 0 && r->type == VM_ROW_BLOCK) {
		long max = vm->max_block_tokens; /* ncdu-style: against the largest row */
		size_t layer = (size_t)(b->layer[vm->grouping < vm->session.cur.ngroupings ? vm->grouping : 0]);
		draw_bar(f, y, c.bar, c.bar_w, tokens, max, layer);
	}
	const char *rolename = p && p->role ? p->role
			       : b && (b->flags & BLOCK_HEADING) ? "heading"
			       : (b && vm->session.cur.nmessages) ? vm->session.cur.messages[b->message].role
							  : "made";
	app_put_str(f, y, c.role, c.role_w, rolename ? rolename : "", role);
	const char *label = p ? (p->label ? p->label : p->id) : (b && b->label ? b->label : "(made text)");
	put_path(f, y, c.label, c.label_w, label, role != ROLE_CURSOR && vm_row_matches(vm, r) ? APP_MATCH_ROLE : role);
	char kcell[KIND_COLUMN_WIDTH + 1];
	if (c.kind >= 0 && p && vm->session.src->kind->piece_column(vm->session.src, &vm->session.cur, r->piece, kcell))
		app_put_str(f, y, c.kind, c.kind_w, kcell, role);

	struct strbuf *ln = &app->line;
	sb_reset(ln);
	if (p && res->outcome == OUTCOME_DROPPED) {
		struct strbuf said = STRBUF_INIT; /* a sentence the assembler deferred */
		const char *why = res->reason == REASON_EXCLUDED_BY_USER ? NULL : asm_sentence(&vm->session.cur, r->piece, &said);
		sb_printf(ln, "(%s) ", why ? why : reason_sentence(res->reason));
		sb_fini(&said);
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
			sb_append(ln, vm->session.cur.spans[s].ptr, vm->session.cur.spans[s].len < 400 ? vm->session.cur.spans[s].len : 400);
	}
	put_text(f, y, c.content, c.content_w, sb_str(ln), ln->len, role, true);
}

/* What limits or places the list, kept in sight (not only said once on the
 * status line): the filter and its pattern, the layer shown alone, and the
 * position like less and tig ("12/201"), right-aligned on the column header. */
static int draw_list_state(struct frame *f, int y)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	const struct vm *vm = &app->vm;
	struct strbuf *ln = &app->line;
	sb_reset(ln);
	if (vm->search.filter) {
		const char *pat = search_pattern_text(vm->search.filter);
		sb_printf(ln, " %s%s %zu ", vm->search.filter_invert ? "!\\" : "\\", pat ? pat : "", vm->search.nkept);
		sb_puts(ln, vm->search.nkept == 1 ? "piece " : "pieces ");
	}
	const struct grouping *g = vm_grouping(vm);
	if (vm->layer_filter >= 0 && g && (size_t)vm->layer_filter < g->nlayers)
		sb_printf(ln, " layer %s ", g->layers[vm->layer_filter].name);
	struct vm_row at = vm->cursor < vm->nrows ? vm_row_at(vm, vm->cursor) : (struct vm_row){ .type = VM_ROW_MARKER };
	const struct vm_row *sel = vm->cursor < vm->nrows ? &at : NULL;
	if (vm_unsaved_edits(vm))
		sb_puts(ln, " unsaved (w) ");
	sb_printf(ln, " %zu/%zu ", sel && sel->item && !vm->on_header ? sel->item : 0, vm->nitems);
	int n = (int)utf8_columns(sb_str(ln), ln->len);
	if (n > L->list_w / 2) { /* the pattern cut from its start: its end and the position stay */
		size_t skip = utf8_prefix_for_columns(sb_str(ln), ln->len, (size_t)(n - L->list_w / 2), NULL);
		n = (int)utf8_columns(sb_str(ln) + skip, ln->len - skip);
		app_put_fit(f, y, L->list_x + L->list_w - n, n, sb_str(ln) + skip, ln->len - skip, ROLE_COLUMNS);
		return n;
	}
	app_put_fit(f, y, L->list_x + L->list_w - n, n, sb_str(ln), ln->len, ROLE_COLUMNS);
	return n;
}

static void draw_list(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct vm *vm = &app->vm;
	struct columns c = list_columns(L, vm->exact.total >= 0, vm->session.src->kind);
	int y = L->list_y - 1;
	app_put_repeat(f, y, L->list_x, " ", L->list_w, ROLE_COLUMNS);
	app_put_str(f, y, c.flag, 1, "f", ROLE_COLUMNS);
	/* the column the list is sorted by stands out (htop): the tokens, or
	 * the kind's column when it shows the sort key's values */
	const struct kind_ops *kind = vm->session.src->kind;
	const char *sort = vm_sort_name(vm->sort);
	int sorted_tokens = vm->sort == VM_SORT_TOKENS ? ROLE_CURSOR : ROLE_COLUMNS;
	int sorted_kind = kind->column_sort && strcmp(kind->column_sort, sort) == 0 ? ROLE_CURSOR : ROLE_COLUMNS;
	app_put_str(f, y, c.tokens, 7, c.exact >= 0 ? "   est." : " tokens", sorted_tokens);
	if (c.exact >= 0)
		app_put_str(f, y, c.exact, 7, !tokenizer_approximate(vm->exact.tok) ? "  exact" : vm->ascii ? "~claude" : "\u2248claude",
			    ROLE_COLUMNS);
	app_put_str(f, y, c.role, c.role_w, "role", ROLE_COLUMNS);
	app_put_str(f, y, c.label, c.label_w, vm->session.src->kind->id_key, ROLE_COLUMNS);
	if (c.kind >= 0)
		app_put_str(f, y, c.kind, c.kind_w, kind->column_title, sorted_kind);
	char head[64];
	snprintf(head, sizeof head, "content  [sort: %s%s]", vm_sort_name(vm->sort),
		 vm->hide_dropped ? ", dropped hidden" : "");
	int state = draw_list_state(f, y);
	int head_w = L->list_x + L->list_w - state - c.content;
	app_put_str(f, y, c.content, head_w < c.content_w ? head_w : c.content_w, head, ROLE_COLUMNS);
	vm_scroll_into_view(vm, (size_t)L->list_h);
	for (int i = 0; i < L->list_h; i++) {
		size_t index = vm->scroll + (size_t)i;
		if (index >= vm->nrows)
			break;
		draw_row(f, L->list_y + i, index);
	}
	if (vm->nrows == 0)
		app_put_str(f, L->list_y, L->list_x + 1, L->list_w - 1, "(nothing to show)", ROLE_DROPPED);
	if (vm->on_header)
		f->p->ops->cursor(f->p->ctx, 0, 0);
	else if (vm->cursor >= vm->scroll && vm->cursor < vm->scroll + (size_t)L->list_h)
		f->p->ops->cursor(f->p->ctx, L->list_y + (int)(vm->cursor - vm->scroll), L->list_x);
}

/* ---- the settings panel (W) ------------------------------------------------------------ */

void app_draw_panel(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	if (L->panel_h <= 0)
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
	app_put_fit(f, L->panel_y, L->list_x, L->list_w, sb_str(ln), ln->len, ROLE_BORDER);
	int rows = L->panel_h - 1;
	struct scroller *sc = app_view_state(app, &view_panel);
	scroller_fit(sc, n, rows > 0 ? (size_t)rows : 0, true);
	size_t first = sc->top;
	for (int i = 0; i < rows && first + (size_t)i < n; i++) {
		size_t k = first + (size_t)i;
		bool sel = k == sc->cursor;
		sb_reset(ln);
		sb_printf(ln, "%s %-11s %-10s ", sel ? (app->ascii ? ">" : "▶") : " ", e[k].option, e[k].name);
		if (e[k].percent)
			sb_printf(ln, "%5.1f%%", e[k].value);
		else
			sb_printf(ln, "%6.2f", e[k].value);
		app_put_fit(f, L->panel_y + 1 + i, L->list_x, L->list_w, sb_str(ln), ln->len, sel ? ROLE_CURSOR : ROLE_NORMAL);
	}
}

/* ---- the detail pane ------------------------------------------------------------------ */

void app_draw_detail(struct frame *f)
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
			app_put_repeat(f, y, x - 1, g_vline(app), 1, ROLE_BORDER);
		title_y = L->detail_y;
		x += 1;
		w -= 1;
	} else {
		title_y = L->detail_y - 1;
		app_put_repeat(f, title_y, 0, g_hline(app), L->w, ROLE_BORDER);
	}
	app_put_str(f, title_y, x, w, focus ? "detail (Tab: list, Esc: back, j/k scroll)" : "detail (Enter/Tab: focus)",
		focus ? ROLE_HEADING : ROLE_BORDER);
	y0 = title_y + 1;
	h = L->detail_y + L->detail_h - y0;
	if (h <= 0 || w <= 0)
		return;
	if (!vm_detail(vm)) {
		app_put_str(f, y0, x, w, "out of memory", ROLE_ERROR);
		return;
	}
	size_t row = 0, shown = 0;
	size_t hfirst = 0, hn = 0;
	if (vm->detail.piece >= 0)
		vm_hits_of(vm, SEARCH_TEXT, vm->detail.piece, &hfirst, &hn);
	app->detail_more = false;
	for (size_t i = 0; i < vm->detail.nlines && !app->detail_more; i++) {
		const struct vm_line *l = &vm->detail.lines[i];
		const char *s = vm->detail.text.data + l->off;
		struct strbuf *sc = &app->scratch;
		if (!app_display_line(app, s, l->len, l->role, l->src_off1 ? l->src_off1 - 1 : 0, hfirst,
				  l->src_off1 ? hn : 0))
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
				app_put_runs(f, y0 + (int)shown, x, at, take);
				shown++;
			}
			row++;
			at += take;
		} while (at < n);
	}
	if (shown == 0 && vm->detail_scroll > 0) {
		/* scrolled past the end (a page key): show the last page */
		vm_detail_scroll_to(vm, row > (size_t)h ? row - (size_t)h : 0);
		app_draw_detail(f);
	}
}

/* ---- hints, status, help, too small ---------------------------------------------------- */

static const int hint_actions[] = {
	ACT_EXCLUDE, ACT_PRIORITY_UP, ACT_PRIORITY_DOWN, ACT_STRATEGY, ACT_BUDGET, ACT_BASELINE,
	ACT_SORT, ACT_SHOW_DROPPED, ACT_OPEN, ACT_HELP, ACT_QUIT,
};

void app_draw_hint_text(struct frame *f, const char *hints)
{
	const struct app_layout *L = &f->app->layout;
	app_put_repeat(f, L->hint_y, 0, " ", L->w, ROLE_HINT);
	app_put_fit(f, L->hint_y, 0, L->w, hints, strlen(hints), ROLE_HINT);
}

/* One hint, "KEY name", at x if it fits before `end`; its width (0 if not). */
static int draw_hint(struct frame *f, int x, int end, int act)
{
	const char *keys = action_keys(act);
	char key[16];
	size_t kn = strcspn(keys, " ");
	if (kn >= sizeof key)
		kn = sizeof key - 1;
	memcpy(key, keys, kn);
	key[kn] = '\0';
	const char *name = action_name(act);
	int need = (int)(kn + 1 + strlen(name) + 2);
	if (x + need > end)
		return 0;
	int y = f->app->layout.hint_y;
	app_put_str(f, y, x, (int)kn, key, ROLE_HINT_KEY);
	app_put_str(f, y, x + (int)kn + 1, (int)strlen(name), name, ROLE_HINT);
	return need;
}

/* The list's footer: the first key and the name of the main actions; `?
 * help` and `q quit` always, at its end (the others give way to them). */
static void draw_hints(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	app_put_repeat(f, L->hint_y, 0, " ", L->w, ROLE_HINT);
	static const int tail[] = { ACT_HELP, ACT_QUIT };
	int tail_w = 0;
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		tail_w += (int)(strcspn(action_keys(tail[i]), " ") + 1 + strlen(action_name(tail[i])) + 2);
	int x = 1, end = L->w - tail_w > 1 ? L->w - tail_w : L->w;
	for (size_t i = 0; i < sizeof hint_actions / sizeof hint_actions[0]; i++) {
		if (hint_actions[i] == ACT_HELP || hint_actions[i] == ACT_QUIT || !app_action_offered(app, hint_actions[i]))
			continue;
		int w = draw_hint(f, x, end, hint_actions[i]);
		if (!w)
			break;
		x += w;
	}
	for (size_t i = 0; i < sizeof tail / sizeof tail[0]; i++)
		x += draw_hint(f, x, L->w, tail[i]);
}


void app_draw_status(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	struct strbuf *ln = &app->line;
	sb_reset(ln);
	sb_putc(ln, ' ');
	sb_append(ln, sb_str(&app->vm.status), app->vm.status.len);
	app_put_fit(f, L->status_y, 0, L->w, sb_str(ln), ln->len, app->vm.status_error ? ROLE_ERROR : ROLE_STATUS);
}

/* The list view's frame: the header, the bars, the list and the footer
 * (the detail pane and the panel are views of their own, over it). */
void app_draw_list_screen(struct frame *f)
{
	struct app *app = f->app;
	const struct app_layout *L = &app->layout;
	draw_header(f);
	draw_bars(f);
	app_put_repeat(f, L->bars_y + L->nbars, 0, g_hline(app), L->w, ROLE_BORDER);
	if (L->nbars > 0 && !L->bars_stacked && L->w >= 60) { /* what the bars are of, on the rule under them */
		char what[64];
		int n = snprintf(what, sizeof what, " bars %s (%%) ", vm_bar_scale_name(app->vm.bar_scale));
		if (n > 0 && n < L->w - 4)
			app_put_str(f, L->bars_y + L->nbars, L->w - n - 2, n, what, ROLE_BORDER);
	}
	draw_list(f);
	draw_hints(f);
	app_draw_status(f);
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
			app_put_str(&f, L->h / 2 - (L->h > 1), 0, L->w, "terminal too small", ROLE_ERROR);
		if (L->w > 0 && L->h > 1)
			app_put_str(&f, L->h / 2, 0, L->w, msg, ROLE_ERROR);
		p->ops->end(p->ctx);
		return;
	}
	/* from the topmost view that covers the screen, upward */
	size_t from = app->nviews;
	while (from > 0 && !app->views[from - 1].ops->opaque)
		from--;
	from -= from > 0;
	for (size_t i = from; i < app->nviews; i++)
		app->views[i].ops->draw(&f);
	p->ops->end(p->ctx);
}
