/* paint_text.c: the plain text painter (see paint.h): a grid of cells, each
 * one character (with its zero-width companions); a wide character takes
 * two cells, the second a continuation. */
#include "paint.h"

#include "theme.h"

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/utf8.h"

#include <stdint.h>
#include <string.h>

#define CELL_BYTES 16 /* one character plus a few combining marks */

struct cell {
	char bytes[CELL_BYTES];
	unsigned char n;
	bool continuation; /* right half of a wide character */
	unsigned char role; /* enum theme_role it was painted in (the SVG's colours) */
};

struct text_grid {
	int w, h;
	struct cell *cells;
};

struct text_grid *text_grid_new(int w, int h)
{
	if (w <= 0 || h <= 0)
		return NULL;
	struct text_grid *g = cs_calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->cells = cs_calloc((size_t)w * (size_t)h, sizeof *g->cells);
	if (!g->cells) {
		cs_free(g);
		return NULL;
	}
	g->w = w;
	g->h = h;
	return g;
}

void text_grid_free(struct text_grid *g)
{
	if (!g)
		return;
	cs_free(g->cells);
	cs_free(g);
}

static void grid_begin(void *ctx, int w, int h)
{
	struct text_grid *g = ctx;
	(void)w;
	(void)h;
	for (size_t i = 0; i < (size_t)g->w * (size_t)g->h; i++) {
		g->cells[i].bytes[0] = ' ';
		g->cells[i].n = 1;
		g->cells[i].continuation = false;
		g->cells[i].role = ROLE_NORMAL;
	}
}

static void grid_put(void *ctx, int y, int x, const char *s, size_t bytes, int role)
{
	struct text_grid *g = ctx;
	if (y < 0 || y >= g->h)
		return;
	struct cell *row = &g->cells[(size_t)y * (size_t)g->w];
	size_t i = 0;
	int last = -1;
	while (i < bytes && x <= g->w) {
		int32_t cp;
		size_t n = utf8_decode(s + i, bytes - i, &cp);
		int cols = cp == UTF8_INVALID ? 1 : utf8_columns_of_code_point(cp);
		if (cols == 0) {
			if (last >= 0 && row[last].n + n <= CELL_BYTES) {
				memcpy(row[last].bytes + row[last].n, s + i, n);
				row[last].n = (unsigned char)(row[last].n + n);
			}
			i += n;
			continue;
		}
		if (x + cols > g->w)
			break;
		if (x < 0) {
			x += cols;
			i += n;
			continue;
		}
		memcpy(row[x].bytes, s + i, n);
		row[x].n = (unsigned char)n;
		row[x].continuation = false;
		row[x].role = (unsigned char)(role >= 0 && role < ROLE_COUNT ? role : ROLE_NORMAL);
		if (cols == 2) {
			row[x + 1].n = 0;
			row[x + 1].continuation = true;
			row[x + 1].role = row[x].role;
		}
		last = x;
		x += cols;
		i += n;
	}
}

static void grid_cursor(void *ctx, int y, int x)
{
	(void)ctx;
	(void)y;
	(void)x;
}

static void grid_end(void *ctx)
{
	(void)ctx;
}

static const struct painter_ops text_grid_ops = {
	.begin = grid_begin,
	.put = grid_put,
	.cursor = grid_cursor,
	.end = grid_end,
};

struct painter text_grid_painter(struct text_grid *g)
{
	return (struct painter){ .ops = &text_grid_ops, .ctx = g };
}

bool text_grid_dump(const struct text_grid *g, struct strbuf *out)
{
	for (int y = 0; y < g->h; y++) {
		size_t start = out->len;
		size_t keep = start;
		for (int x = 0; x < g->w; x++) {
			const struct cell *c = &g->cells[(size_t)y * (size_t)g->w + (size_t)x];
			if (c->continuation)
				continue;
			sb_append(out, c->bytes, c->n);
			if (!(c->n == 1 && c->bytes[0] == ' '))
				keep = out->len;
		}
		out->len = keep; /* trim trailing blanks */
		if (out->data)
			out->data[out->len] = '\0';
		sb_putc(out, '\n');
	}
	return !out->failed;
}

/* ---- the grid as an SVG image, in a theme's colours ------------------------------ */

#define SVG_CELL_W 8.4 /* a 14px monospace cell */
#define SVG_CELL_H 18
#define SVG_FG "#d0d0d0" /* the terminal's default colours: a dark theme */
#define SVG_BG "#1c1c1c"

/* An xterm colour (0..255) as #rrggbb; COLOR_DEFAULT: def. */
static void svg_colour(struct strbuf *out, int c, const char *def)
{
	static const char *const base[16] = { "#000000", "#cd3131", "#0dbc79", "#e5e510", "#2472c8", "#bc3fbc",
					      "#11a8cd", "#e5e5e5", "#666666", "#f14c4c", "#23d18b", "#f5f543",
					      "#3b8eea", "#d670d6", "#29b8db", "#ffffff" };
	if (c < 0 || c > 255) {
		sb_puts(out, def);
	} else if (c < 16) {
		sb_puts(out, base[c]);
	} else if (c < 232) {
		static const int level[6] = { 0, 95, 135, 175, 215, 255 };
		int i = c - 16;
		sb_printf(out, "#%02x%02x%02x", level[i / 36], level[i / 6 % 6], level[i % 6]);
	} else {
		int v = 8 + 10 * (c - 232);
		sb_printf(out, "#%02x%02x%02x", v, v, v);
	}
}

static void svg_escape(struct strbuf *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '&': sb_puts(out, "&amp;"); break;
		case '<': sb_puts(out, "&lt;"); break;
		case '>': sb_puts(out, "&gt;"); break;
		default: sb_putc(out, s[i]); break;
		}
	}
}

/* One run of cells [x0, x1) of row y in one role: its background (when the
 * role has one or is reversed), then its text. */
static void svg_run(const struct text_grid *g, const struct theme *t, int y, int x0, int x1, struct strbuf *out)
{
	const struct cell *row = &g->cells[(size_t)y * (size_t)g->w];
	const struct theme_style *st = &t->styles[row[x0].role];
	bool rev = (st->attrs & (ATTR_REVERSE | ATTR_STANDOUT)) != 0;
	int fg = rev ? st->bg : st->fg, bg = rev ? st->fg : st->bg;
	if (bg >= 0 || rev) {
		sb_printf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"", x0 * SVG_CELL_W,
			  y * SVG_CELL_H, (x1 - x0) * SVG_CELL_W, SVG_CELL_H);
		svg_colour(out, bg, rev ? SVG_FG : SVG_BG);
		sb_puts(out, "\"/>\n");
	}
	while (x1 > x0 && !row[x1 - 1].continuation && row[x1 - 1].n == 1 && row[x1 - 1].bytes[0] == ' ')
		x1--; /* trailing blanks: the background shows */
	if (x1 == x0)
		return;
	sb_printf(out, "<text x=\"%.1f\" y=\"%d\" textLength=\"%.1f\" fill=\"", x0 * SVG_CELL_W,
		  y * SVG_CELL_H + 13, (x1 - x0) * SVG_CELL_W);
	svg_colour(out, fg, rev ? SVG_BG : SVG_FG);
	sb_putc(out, '"');
	if (st->attrs & ATTR_BOLD)
		sb_puts(out, " font-weight=\"bold\"");
	if (st->attrs & ATTR_DIM)
		sb_puts(out, " opacity=\"0.6\"");
	if (st->attrs & ATTR_UNDERLINE)
		sb_puts(out, " text-decoration=\"underline\"");
	sb_putc(out, '>');
	for (int x = x0; x < x1; x++)
		if (!row[x].continuation)
			svg_escape(out, row[x].bytes, row[x].n);
	sb_puts(out, "</text>\n");
}

bool text_grid_svg(const struct text_grid *g, const struct theme *t, struct strbuf *out)
{
	sb_printf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.1f\" height=\"%d\" "
		       "font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" font-size=\"14\" "
		       "xml:space=\"preserve\">\n",
		  g->w * SVG_CELL_W, g->h * SVG_CELL_H);
	sb_printf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"%s\"/>\n", SVG_BG);
	for (int y = 0; y < g->h; y++) {
		const struct cell *row = &g->cells[(size_t)y * (size_t)g->w];
		for (int x0 = 0, x1; x0 < g->w; x0 = x1) {
			for (x1 = x0 + 1; x1 < g->w && row[x1].role == row[x0].role; x1++)
				;
			svg_run(g, t, y, x0, x1, out);
		}
	}
	sb_puts(out, "</svg>\n");
	return !out->failed;
}
