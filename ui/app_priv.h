/* app_priv.h: internal to the inspector screen's files (app.c, draw.c,
 * view*.c, app_commands.c); what they share, everything else stays static.
 * Nothing here is for other modules. */
#ifndef CTXSCOPE_APP_PRIV_H
#define CTXSCOPE_APP_PRIV_H

#include "app.h"
#include "paint.h"

#include <stdbool.h>
#include <stddef.h>

/* What the input line is for (app.input). */
enum app_input { INPUT_BUDGET, INPUT_SEARCH, INPUT_FILTER, INPUT_COMMAND, INPUT_SAVE_AS, INPUT_WHATIF, INPUT_EXPORT,
		 INPUT_REPLACE, INPUT_REPLACE_READONLY };

/* The views (view.h), each a const table in the file that draws it. */
extern const struct view_ops view_list;   /* view_list.c: the list screen (header, bars, rows) */
extern const struct view_ops view_detail; /* view_list.c: the detail pane of the selected row */
extern const struct view_ops view_panel;  /* view_list.c: the settings panel under the list (W) */
extern const struct view_ops view_help;   /* view_help.c: the keys (?) */
extern const struct view_ops view_input;  /* view_input.c: the input line (b / \ : ...) */
extern const struct view_ops view_prompt; /* view_pages.c: the prompt as the model receives it (v) */
extern const struct view_ops view_diff;   /* view_pages.c: changes since the baseline (d) */
extern const struct view_ops view_messages; /* view_pages.c: the status line's past messages (:messages) */
extern const struct view_ops view_timeline; /* view_timeline.c: predicted beside recorded, per turn (i) */

/* One frame being painted: the screen's state and the painter (borrowed). */
struct frame {
	struct app *app;
	const struct painter *p;
};

/* ---- draw.c: painting helpers ---- */

/* Input text s[0..n) fitted to exactly `width` columns, spacing kept and
 * control characters given stand-ins. */
void app_put_fit(struct frame *f, int y, int x, int width, const char *s, size_t n, int role);

/* A NUL-terminated string, as app_put_fit. */
void app_put_str(struct frame *f, int y, int x, int width, const char *s, int role);

/* Our own glyph repeated `times` (display-safe by construction). */
void app_put_repeat(struct frame *f, int y, int x, const char *glyph, int times, int role);

/* Input text s[0..n) made display-safe into app->scratch (tabs expanded),
 * with app->roles holding a role per byte of it: `role`, or the match role
 * inside the hits [first, first+nhits) of vm->search.found whose byte ranges (in
 * the text s starts `base` bytes into) overlap it. Both buffers stay owned
 * by app. false on out of memory. */
bool app_display_line(struct app *app, const char *s, size_t n, int role, size_t base, size_t first, size_t nhits);

/* Paints scratch[at, at+take) at (y, x), run by run of the same role. */
void app_put_runs(struct frame *f, int y, int x, size_t at, size_t take);

/* ---- draw.c: the list screen's parts ---- */

/* Header, bars, the list, hints and status (the list view). */
void app_draw_list_screen(struct frame *f);
/* The detail pane, when the layout shows one (the detail view). */
void app_draw_detail(struct frame *f);
/* The settings panel's rows (the panel view). */
void app_draw_panel(struct frame *f);
/* The footer row with the text `hints` (a view's keys). */
void app_draw_hint_text(struct frame *f, const char *hints);
/* The status row: the view-model's status line. */
void app_draw_status(struct frame *f);

/* ---- view_pages.c: the prompt view and the diff view ---- */

/* Opens (or closes, when shown) the prompt view / the diff view; the other
 * one of the two gives way. */
void app_toggle_prompt_view(struct app *app);
void app_toggle_diff_view(struct app *app);
/* :messages: the status line's last messages, whole, newest last. */
void app_open_messages(struct app *app);
/* A page of text lines (display-safe; unindented lines are headings) under
 * a title, scrolled by sc, with the view's hints and the status line. */
void app_draw_page(struct frame *f, const char *title, const struct strbuf *text, struct scroller *sc,
		   const char *hints);
/* The same with line `mark` (0-based; SIZE_MAX: none) under the cursor,
 * kept on screen. */
void app_draw_page_at(struct frame *f, const char *title, const struct strbuf *text, struct scroller *sc,
		      const char *hints, size_t mark);
/* The mouse wheel on a page: three lines, as three keys would. */
unsigned app_page_wheel(struct app *app, int ev, unsigned (*key)(struct app *, int, int));

/* ---- view_timeline.c ---- */
/* i: opens the timeline view, or closes it. */
void app_toggle_timeline_view(struct app *app);

/* ---- view_input.c: the input line ---- */

/* Opens the input line for `input` (enum app_input), prefilled with a copy
 * of prefill (may be NULL). */
void app_input_start(struct app *app, int input, const char *prefill);

/* ---- view_list.c ---- */

/* Opens or closes the settings panel (a kind without weights says so). */
void app_toggle_panel(struct app *app);
/* Whether the kind loaded takes what action `act` does (a loom tree has
 * no priorities): the footer and the help offer only those. */
bool app_action_offered(const struct app *app, int act);

/* ---- app_actions.c: the actions every view shares ---- */

/* A key no view on the stack took: the global action it is bound to, else
 * a key of the kind's own, else a word on the status line. Returns
 * enum view_result flags (always VIEW_HANDLED). */
unsigned app_global_action(struct app *app, int key, int act);

/* ---- app_commands.c: save, export, commands ---- */

/* Saves the manifest, or the what-if edits for other kinds; as: another
 * path, or NULL. The outcome goes to the status line. */
void app_save(struct app *app, const char *as);

/* Acts on the accepted input line; returns enum view_result flags (a :q). */
unsigned app_input_accept(struct app *app);

/* Tab on the command line: completes the word under the cursor. */
void app_input_complete(struct app *app);

#endif
