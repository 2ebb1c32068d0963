/* view.h: the inspector's views as const tables on a stack, and the one
 * scroller every list and text view moves with.
 *
 * A view is a const struct view_ops with designated initializers. The app
 * keeps a stack of them: the list screen at the bottom, then what was opened
 * over it (the settings panel, the prompt or diff view, the help, the input
 * line). A key goes to the top view first and down the stack until one says
 * VIEW_HANDLED; the frame is painted from the topmost opaque view upward; a
 * mouse event goes to the topmost view with a mouse hook. A view's state is
 * its own (state_size, app_view_state). Adding a view is one table and one
 * line where it is opened (app_view_push). A key no view takes goes to the
 * table of global actions (app_actions.c). The stack is the app's (app.h):
 * this header knows nothing of it, so a view's table never needs the app's
 * insides to be declared. */
#ifndef CTXSCOPE_VIEW_H
#define CTXSCOPE_VIEW_H

#include <stdbool.h>
#include <stddef.h>

struct app;
struct app_layout;
struct frame;

/* What a key did: the loop acts on the flags. */
enum view_result {
	VIEW_HANDLED = 1u << 0,  /* the key was this view's: the views below do not see it */
	VIEW_REDRAW = 1u << 1,   /* paint a new frame */
	VIEW_RELAYOUT = 1u << 2, /* recompute the layout first (rows came or went) */
	VIEW_QUIT = 1u << 3,     /* leave the inspector */
};

struct view_ops {
	const char *name; /* for people and tests: "list", "help" */
	/* Draws over the whole screen: the views below it are not painted. */
	bool opaque;
	/* Bytes of private state the stack allocates zeroed before open and
	 * frees after close (app_view_state); 0: none. */
	size_t state_size;
	/* Called when pushed on the stack and when taken off it (the state is
	 * still there: close frees what it owns); may be NULL. */
	void (*open)(struct app *app);
	void (*close)(struct app *app);
	/* A key: the raw key (actions.h codes) and the action it is bound to
	 * (ACT_NONE when none). Returns enum view_result flags; 0 passes the
	 * key to the view below. May be NULL (every key passes). */
	unsigned (*key)(struct app *app, int key, int act);
	/* Paints the view (over what the views below it painted). */
	void (*draw)(struct frame *f);
	/* A mouse event at (y, x) (enum app_mouse_event); returns
	 * enum view_result flags. NULL: the view below gets it. */
	unsigned (*mouse)(struct app *app, int y, int x, int ev);
	/* Takes the rows it needs from the layout being computed; may be NULL. */
	void (*layout)(struct app *app, struct app_layout *L);
	/* After every key or mouse event, before the layout: catches up with a
	 * model that changed under it (a new assembly, a new search hit); may
	 * be NULL. */
	void (*sync)(struct app *app);
	/* The footer of an opaque view (NULL: the view paints its own). */
	const char *hints;
};

/* ---- the scroller ---- */

#define SCROLL_END ((size_t)-1 / 2) /* "the last line": the draw, knowing the length, settles it */

/* A window of `rows` lines over a text or a list, with an optional cursor. */
struct scroller {
	size_t top;    /* the first line shown */
	size_t cursor; /* the line under the cursor (views with one) */
	size_t rows;   /* lines the last frame showed: a page is rows - 1 */
};

/* What a motion key asks: a step of `delta` lines, or a jump to the first
 * (jump < 0) or the last (jump > 0) line. */
struct scroll_motion {
	long delta;
	int jump;
};

/* The motion of action `act` (down, up, page down/up, first, last), a
 * page being `page` lines (at least 1); false when act is no motion. */
bool scroll_motion(int act, size_t page, struct scroll_motion *out);
/* pos moved by m inside [0, last]: never below 0 nor past last, whatever
 * the sizes (saturating arithmetic). */
size_t scroll_apply(size_t pos, const struct scroll_motion *m, size_t last);
/* A motion key on a scroller: moves the cursor (with_cursor: clamped to
 * the n lines) or the top (clamped to SCROLL_END: the draw settles it).
 * The page is the last frame's rows - 1. false: act is no motion. */
bool scroller_key(struct scroller *s, int act, size_t n, bool with_cursor);
/* Fits the window to n lines of which `rows` show: the cursor inside the
 * text and on screen (with_cursor), the top no further than a last full
 * page. Records rows for the next page key. */
void scroller_fit(struct scroller *s, size_t n, size_t rows, bool with_cursor);

#endif
