/* theme.h: the inspector's semantic roles (what a piece of the screen IS:
 * a cached bar, a dropped row, the status line) and themes that map each
 * role to a foreground, a background and attributes. A theme file has one
 * line per role, "ROLE FG BG [ATTR...]", '#' starts a comment; roles a
 * file leaves out keep the built-in default. Parsing is pure (no curses):
 * ui/ turns a theme into colour pairs. */
#ifndef CTXSCOPE_THEME_H
#define CTXSCOPE_THEME_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

/* X(enum, name in theme files, fg, bg, attrs) of the built-in default. */
#define THEME_ROLES(X)                                                          \
	X(ROLE_NORMAL, "normal", COLOR_DEFAULT, COLOR_DEFAULT, 0)               \
	X(ROLE_TITLE, "title", 6, COLOR_DEFAULT, ATTR_BOLD)                    \
	X(ROLE_HEADER, "header", COLOR_DEFAULT, COLOR_DEFAULT, 0)               \
	X(ROLE_BUDGET, "budget", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_BOLD)       \
	X(ROLE_OVER, "over", 1, COLOR_DEFAULT, ATTR_BOLD)                       \
	X(ROLE_BAR0, "bar-0", 4, COLOR_DEFAULT, 0)                              \
	X(ROLE_BAR1, "bar-1", 2, COLOR_DEFAULT, 0)                              \
	X(ROLE_BAR2, "bar-2", 5, COLOR_DEFAULT, 0)                              \
	X(ROLE_BAR3, "bar-3", 3, COLOR_DEFAULT, 0)                              \
	X(ROLE_CACHED, "cached", 2, COLOR_DEFAULT, 0)                           \
	X(ROLE_NEW, "new", 3, COLOR_DEFAULT, 0)                                 \
	X(ROLE_COLUMNS, "columns", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_UNDERLINE) \
	X(ROLE_ROW, "row", COLOR_DEFAULT, COLOR_DEFAULT, 0)                     \
	X(ROLE_MADE, "made", 6, COLOR_DEFAULT, 0)                               \
	X(ROLE_DROPPED, "dropped", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_DIM)      \
	X(ROLE_TRUNCATED, "truncated", 3, COLOR_DEFAULT, 0)                     \
	X(ROLE_CURSOR, "cursor", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_REVERSE)    \
	X(ROLE_MARKER, "marker", 6, COLOR_DEFAULT, ATTR_DIM)                    \
	X(ROLE_BREAK, "cache-break", 1, COLOR_DEFAULT, ATTR_BOLD)               \
	X(ROLE_BORDER, "border", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_DIM)        \
	X(ROLE_DETAIL, "detail", COLOR_DEFAULT, COLOR_DEFAULT, 0)               \
	X(ROLE_HEADING, "heading", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_BOLD)     \
	X(ROLE_CUT, "cut-marker", 1, COLOR_DEFAULT, ATTR_REVERSE)               \
	X(ROLE_HINT, "hint", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_REVERSE)        \
	X(ROLE_HINT_KEY, "hint-key", COLOR_DEFAULT, COLOR_DEFAULT, ATTR_REVERSE | ATTR_BOLD) \
	X(ROLE_STATUS, "status", COLOR_DEFAULT, COLOR_DEFAULT, 0)               \
	X(ROLE_ERROR, "error", 1, COLOR_DEFAULT, ATTR_BOLD)

#define COLOR_DEFAULT (-1) /* the terminal's own colour */
#define THEME_MAX_COLOR 255 /* 256-colour terminals; fewer colours fold down in ui/ */

enum theme_attr {
	ATTR_BOLD = 1u << 0,
	ATTR_DIM = 1u << 1,
	ATTR_UNDERLINE = 1u << 2,
	ATTR_REVERSE = 1u << 3,
	ATTR_ITALIC = 1u << 4,
	ATTR_STANDOUT = 1u << 5,
};

enum theme_role {
#define ROLE_X_ENUM(e, name, fg, bg, attrs) e,
	THEME_ROLES(ROLE_X_ENUM)
#undef ROLE_X_ENUM
	ROLE_COUNT
};

#define THEME_BAR_ROLES 4 /* bar-0 .. bar-3, used in turn by the layers */

struct theme_style {
	int fg, bg;      /* COLOR_DEFAULT or 0..255 */
	unsigned attrs;  /* enum theme_attr */
};

struct theme {
	struct theme_style styles[ROLE_COUNT];
	bool has_color;  /* some role sets a colour (else: attributes only, distinct bar glyphs) */
	char name[64];   /* "default", or the file's name without .theme */
};

/* The compiled-in default. */
void theme_default(struct theme *out);
/* Parses a theme file's text over the default. On a mistake returns
 * CS_ESYNTAX with err's line, column and a sentence, and leaves *out the
 * plain default (a broken theme never half-applies). */
int theme_parse(const char *text, size_t len, struct theme *out, struct cs_error *err);
/* Loads a theme by NAME or PATH: a PATH (holds '/' or ends in .theme) is
 * read as is; a NAME is looked up as NAME.theme in each of `dirs` (a
 * NULL-terminated list, searched in order; NULL entries skipped by count).
 * On failure *out is the default and err says why. */
int theme_load(const char *name_or_path, const char *const *dirs, size_t ndirs, struct theme *out,
	       struct cs_error *err);
/* theme_load over the usual folders, in order: the user's
 * ($XDG_CONFIG_HOME/ctxscope/themes, else ~/.config/ctxscope/themes), the
 * install folder (CTXSCOPE_DATADIR/themes), then ./themes. */
int theme_load_named(const char *name_or_path, struct theme *out, struct cs_error *err);

#endif
