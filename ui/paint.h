/* paint.h: where the inspector draws. A painter is a const ops table and a
 * context; the screen code (draw.c, view_*.c) draws through it and never touches a
 * terminal itself. Two backends: curses (term.c) and a plain text grid
 * (paint_text.c) used by --screen and the tests. Everything handed to put()
 * is already display-safe (sanitized, fitted) and lies inside the screen. */
#ifndef CTXSCOPE_PAINT_H
#define CTXSCOPE_PAINT_H

#include <stdbool.h>
#include <stddef.h>

struct painter_ops {
	/* Starts a frame of w x h cells: everything blank. */
	void (*begin)(void *ctx, int w, int h);
	/* Text at row y, column x in a role (enum theme_role); clipped at the
	 * right edge. */
	void (*put)(void *ctx, int y, int x, const char *s, size_t bytes, int role);
	/* Where the terminal cursor should rest (for screen readers). */
	void (*cursor)(void *ctx, int y, int x);
	/* Ends the frame (shows it). */
	void (*end)(void *ctx);
};

struct painter {
	const struct painter_ops *ops;
	void *ctx; /* borrowed */
};

/* The text grid: a screen in memory. */
struct text_grid;
/* A new w x h grid (NULL on out of memory); free with text_grid_free. */
struct text_grid *text_grid_new(int w, int h);
void text_grid_free(struct text_grid *g);
/* A painter that draws into g (g borrowed). */
struct painter text_grid_painter(struct text_grid *g);
/* Appends the grid as text, one line per row, trailing blanks trimmed, to
 * out (a strbuf). false on out of memory. */
struct strbuf;
bool text_grid_dump(const struct text_grid *g, struct strbuf *out);
/* Appends the grid as an SVG image, each cell in the colours theme t gives
 * the role it was painted in (a dark terminal's default colours where the
 * theme says "default"). false on out of memory. */
struct theme;
bool text_grid_svg(const struct text_grid *g, const struct theme *t, struct strbuf *out);

#endif
