/* app.h: the inspector screen: draws the view-model through a painter and
 * turns keys into actions (actions.h) through a stack of views (view.h).
 * The same code runs on a real terminal (term.c) and on a virtual screen
 * (--screen, screen.c). The one place that decides the layout for a size is
 * app_layout (resize is handled there and nowhere else). */
#ifndef CTXSCOPE_APP_H
#define CTXSCOPE_APP_H

#include "actions.h"
#include "load.h"
#include "paint.h"
#include "base/strbuf.h"
#include "theme.h"
#include "view.h"
#include "vm/viewmodel.h"

#include <stdbool.h>

#define APP_MIN_WIDTH 40  /* narrower and the list has no room for a label */
#define APP_MIN_HEIGHT 10 /* shorter and header + one list row + hints do not fit */
#define APP_WIDE 120      /* from here the detail pane sits on the right */
#define APP_FOLLOW_MS 500   /* --follow: how often the file is checked */
#define APP_PROMPT_MAX 1024 /* the input line: a budget, a pattern, a command, a file path */

struct cli;

/* ---- the stack of views (view.h), bottom first ---- */
#define APP_VIEW_MAX 8 /* list, panel, a view, help, input: room to spare */

/* One view on the stack: its table and its private state (owned). */
struct app_view {
	const struct view_ops *ops;
	void *state;
};

/* Pushes v on top (opening it); false when the stack is full or its state
 * cannot be allocated (the status says so). */
bool app_view_push(struct app *app, const struct view_ops *v);
/* Puts v at stack position `at` (0 is the bottom), opening it. */
bool app_view_insert(struct app *app, size_t at, const struct view_ops *v);
/* Takes v off the stack wherever it is (closing it); false when absent. */
bool app_view_remove(struct app *app, const struct view_ops *v);
/* The top view. */
const struct view_ops *app_view_top(const struct app *app);
/* Whether v is on the stack. */
bool app_view_shown(const struct app *app, const struct view_ops *v);
/* v's private state (the topmost v on the stack), NULL when v is not on it
 * or has none. Owned by the stack. */
void *app_view_state(const struct app *app, const struct view_ops *v);
/* Takes every view off the stack, top first (app_fini). */
void app_view_clear(struct app *app);


/* What the top of the view stack is, as the tests ask it. */
enum app_mode { APP_NORMAL, APP_HELP, APP_PROMPT };

/* What the loop must do after a key. */
enum app_result { APP_REDRAW = 1u << 0, APP_QUIT = 1u << 1 };

struct app_layout {
	int w, h;
	bool too_small;
	int nbars;          /* layer bars shown */
	bool bars_stacked;  /* too few rows for a bar per layer: one bar of them all */
	int bar_layer[12];  /* which layer each bar shows (APP_MAX_BARS) */
	int bars_y;
	int list_y, list_h, list_x, list_w;
	bool detail_shown, detail_right;
	int detail_y, detail_h, detail_x, detail_w;
	int hint_y, status_y;
	int panel_y, panel_h;  /* the settings panel under the list (0 rows: closed) */
};

struct app {
	struct vm vm;            /* owned */
	struct keymap keymap;
	struct theme theme;
	struct app_view views[APP_VIEW_MAX]; /* the view stack, bottom first (view.h) */
	size_t nviews;
	char prompt[APP_PROMPT_MAX + 1]; /* the input line's text */
	size_t prompt_len;
	int input;               /* enum app_input: what the input line is for */
	bool ascii;              /* ASCII glyphs (no UTF-8 locale, or --ascii) */
	bool distinct_bars;      /* no colour: each layer its own bar glyph */
	struct app_layout layout;
	bool detail_more;        /* the last frame's detail had rows below its bottom */
	struct strbuf scratch;   /* per-draw text */
	struct strbuf line;      /* per-draw text */
	unsigned diff_builds;    /* how many times the diff view built its text (tests) */
	struct strbuf roles;     /* per-draw: a role per byte of scratch (highlights) */
	bool mouse;              /* mouse events on (--no-mouse: off) */
	bool theme_changed;      /* :theme loaded another theme: the terminal re-reads colours */
	const struct cli *cli;   /* borrowed: the edits the command line made, made again on a reload */
	bool follow;             /* --follow: reload when the file changes */
	struct load_stamp stamp; /* the file as last loaded, to tell that it changed */
	/* a write waiting for the answer to "replace it?" (app_commands.c) */
	struct { char path[APP_PROMPT_MAX + 1]; char format[16]; int input; bool named; unsigned flags; } pending;
	bool quit_asking;        /* this key asked "quit without saving?" */
	bool quit_asked;         /* the key before asked it: a quit now quits */
	bool interrupted;        /* quit by Ctrl-C (the exit status says so: 130) */
};

enum app_mouse_event { APP_MOUSE_CLICK, APP_MOUSE_WHEEL_UP, APP_MOUSE_WHEEL_DOWN };
/* A mouse event at cell (y, x): a click selects a row or, on a layer's bar,
 * limits the list to that layer (again: all); the wheel scrolls. Returns
 * enum app_result flags. */
unsigned app_mouse(struct app *app, int y, int x, enum app_mouse_event ev);

/* Takes ownership of src (also on failure: call app_fini either way).
 * CS_OK or the error. */
int app_init(struct app *app, struct source *src, bool ascii, struct cs_error *err);
/* Uses theme t (copied): bars get distinct glyphs without colour or under
 * NO_COLOR; a running terminal re-reads its colours. */
void app_set_theme(struct app *app, const struct theme *t);
void app_fini(struct app *app);
/* Loads the file again (R; --follow when it changed: only_if_changed) and
 * makes the view-model adopt it. Returns enum view_result flags (view.h). */
unsigned app_reload(struct app *app, bool only_if_changed);
/* With --follow, between keys: reloads the file when it changed, and the
 * views catch up. Returns enum app_result flags. */
unsigned app_tick(struct app *app);
/* Recomputes the layout for w x h (call on start and on every resize). */
void app_layout(struct app *app, int w, int h);
/* A quit (q, :q, Ctrl-C: interrupt): true to quit now; false when a kind
 * whose file w rewrites (a manifest) has unsaved edits and this is the first
 * ask (the status line says how to save, or to quit anyway with the same key
 * again). */
bool app_quit(struct app *app, bool interrupt);
/* Handles one key (actions.h codes); returns enum app_result flags. */
unsigned app_key(struct app *app, int key);
/* APP_PROMPT while the input line is open, APP_HELP while the help is,
 * else APP_NORMAL. */
enum app_mode app_mode(const struct app *app);
/* Draws the whole screen through p. */
void app_draw(struct app *app, const struct painter *p);

#endif
