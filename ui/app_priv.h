/* app_priv.h: internal to the inspector screen's files (app.c, draw.c,
 * views.c, app_commands.c); what they share, everything else stays static.
 * Nothing here is for other modules. */
#ifndef CTXSCOPE_APP_PRIV_H
#define CTXSCOPE_APP_PRIV_H

#include "app.h"
#include "paint.h"

#include <stdbool.h>
#include <stddef.h>

/* What the input line is for (app.input), and which view shows (app.view). */
enum app_input { INPUT_BUDGET, INPUT_SEARCH, INPUT_FILTER, INPUT_COMMAND, INPUT_SAVE_AS, INPUT_WHATIF, INPUT_EXPORT,
		 INPUT_REPLACE, INPUT_REPLACE_READONLY };
enum app_view { VIEW_LIST, VIEW_PROMPT, VIEW_DIFF };

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
 * inside the hits [first, first+nhits) of vm->found whose byte ranges (in
 * the text s starts `base` bytes into) overlap it. Both buffers stay owned
 * by app. false on out of memory. */
bool app_display_line(struct app *app, const char *s, size_t n, int role, size_t base, size_t first, size_t nhits);

/* Paints scratch[at, at+take) at (y, x), run by run of the same role. */
void app_put_runs(struct frame *f, int y, int x, size_t at, size_t take);

/* ---- views.c: the prompt view and the diff view ---- */

void app_draw_prompt_view(struct frame *f);
void app_draw_diff_view(struct frame *f);

/* (Re)builds the diff view's text (app->view_text, owned by app) against
 * the pinned baseline. */
void app_build_diff(struct app *app);

/* Prompt view keys; false: not a view key (the normal handling runs). */
bool app_prompt_view_key(struct app *app, int act);

/* Puts the prompt view's cursor on the line of the current search hit. */
void app_prompt_view_follow_hit(struct app *app);

/* Diff view keys; false: not a view key. */
bool app_diff_view_key(struct app *app, int act);

void app_toggle_prompt_view(struct app *app);
void app_toggle_diff_view(struct app *app);

/* ---- app.c: keys ---- */

/* Opens the input line for `input` (enum app_input), prefilled with a copy
 * of prefill (may be NULL). */
void app_input_start(struct app *app, int input, const char *prefill);

/* ---- app_commands.c: save, export, commands ---- */

/* Saves the manifest, or the what-if edits for other kinds; as: another
 * path, or NULL. The outcome goes to the status line. */
void app_save(struct app *app, const char *as);

/* Acts on the accepted input line; returns enum app_result flags (a :q). */
unsigned app_input_accept(struct app *app);

/* Tab on the command line: completes the word under the cursor. */
void app_input_complete(struct app *app);

#endif
