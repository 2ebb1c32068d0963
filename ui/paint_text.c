/* paint_text.c: the plain text painter (see paint.h): a grid of cells, each
 * one character (with its zero-width companions); a wide character takes
 * two cells, the second a continuation. */
#include "paint.h"

#include "alloc.h"
#include "strbuf.h"
#include "utf8.h"

#include <stdint.h>
#include <string.h>

#define CELL_BYTES 16 /* one character plus a few combining marks */

struct cell {
	char bytes[CELL_BYTES];
	unsigned char n;
	bool continuation; /* right half of a wide character */
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
	}
}

static void grid_put(void *ctx, int y, int x, const char *s, size_t bytes, int role)
{
	struct text_grid *g = ctx;
	(void)role;
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
		if (cols == 2) {
			row[x + 1].n = 0;
			row[x + 1].continuation = true;
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
