/* term.h: the real terminal: curses set up and torn down on every exit path
 * (normal return, error, SIGINT, SIGTERM, SIGHUP, a crash), colours from the
 * theme, the key loop. Also the --screen runner, which drives the same app
 * code against a text grid instead. */
#ifndef CTXSCOPE_TERM_H
#define CTXSCOPE_TERM_H

#include "app.h"
#include "base/error.h"

struct strbuf;

/* Runs the inspector on the terminal until the user quits. Returns CS_OK,
 * or CS_EIO when the terminal cannot be set up. The terminal is restored
 * before it returns. */
int term_run(struct app *app, struct cs_error *err);

#define SCREEN_MAX_SIDE 1000 /* --screen WxH: columns or rows past this are a typo */

/* Parses "100x30" (both sides from 1 to SCREEN_MAX_SIDE). */
bool screen_parse_size(const char *text, int *w, int *h);
/* Replays keys ("j j Space", separated by spaces or commas; key names as in
 * actions.h; "@WxH" resizes the virtual screen) on a w x h virtual screen,
 * then appends the final screen as text to out. CS_EUSAGE for an unknown
 * key name. */
int screen_run(struct app *app, int w, int h, const char *keys, struct strbuf *out, struct cs_error *err);

#endif
