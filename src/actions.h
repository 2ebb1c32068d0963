/* actions.h: everything a person can ask the inspector to do, in ONE table.
 * The X-macro below generates the action enum, the action names (for a
 * future config file and ':' commands), the default keymap and the help
 * screen; a unit test checks that the keymap and the help agree with it.
 * A key only one kind has is that kind's (kind_ops.actions, kind.h).
 * Key codes here are ctxscope's own (printable characters are themselves,
 * special keys are the CSK_* values): ui/ maps curses' KEY_* to them, so
 * nothing in src/ knows curses. */
#ifndef CTXSCOPE_ACTIONS_H
#define CTXSCOPE_ACTIONS_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf;

/* X(enum, name, default keys separated by spaces, help text) */
#define ACTIONS(X)                                                                           \
	X(ACT_DOWN, "down", "j Down", "move to the next row (or scroll the detail down)")    \
	X(ACT_UP, "up", "k Up", "previous row, then the header (Enter: all of it); scrolls detail")        \
	X(ACT_PAGE_DOWN, "page-down", "PgDn", "move one page down")                         \
	X(ACT_PAGE_UP, "page-up", "PgUp", "move one page up")                               \
	X(ACT_FIRST, "first", "g Home", "go to the first row")                              \
	X(ACT_LAST, "last", "G End", "go to the last row")                                  \
	X(ACT_OPEN, "open", "Enter", "open the detail pane on the selected piece")          \
	X(ACT_NEXT_PANE, "next-pane", "Tab", "move the focus between the list and the detail") \
	X(ACT_BACK, "back", "Esc", "close the help, the prompt or the detail; never quits")  \
	X(ACT_EXCLUDE, "exclude", "Space", "exclude or include the selected piece, re-assemble") \
	X(ACT_PRIORITY_UP, "priority-up", "+ =", "raise the piece's priority by 0.05, re-assemble") \
	X(ACT_PRIORITY_DOWN, "priority-down", "-", "lower the piece's priority by 0.05, re-assemble") \
	X(ACT_STRATEGY, "strategy", "t", "cycle the truncation strategy (the piece's, else the assembly's)") \
	X(ACT_GLOBAL_STRATEGY, "assembly-strategy", "T", "cycle the whole assembly's strategy") \
	X(ACT_BUDGET, "budget", "b", "type a new usable budget (100k, 128,000; empty: the input's)") \
	X(ACT_BASELINE, "baseline", "B", "pin the current assembly as the cache baseline")    \
	X(ACT_SORT, "sort", "s", "sort rows by the kind's next sort key (:sort KEY picks one)") \
	X(ACT_SHOW_DROPPED, "show-dropped", "e", "show or hide dropped pieces")             \
	X(ACT_LAYERS, "layers", "l", "switch the bars between layer groupings (physical, conceptual)") \
	X(ACT_BAR_SCALE, "bar-scale", "%", "bars and percents of the budget, of what is used, of the largest layer (ncdu: g)") \
	X(ACT_HELP, "help", "?", "show this help")                                          \
	X(ACT_QUIT, "quit", "q", "quit")                                                    \
	X(ACT_PROFILE, "profile", "P", "cycle the cache profile (anthropic, openai, gemini, ...)") \
	X(ACT_BREAKPOINT, "breakpoint", "M", "set or remove a cache breakpoint after the selected block") \
	X(ACT_SETTINGS, "settings", "W", "open the panel of the kind's weights and shares (Up/Down pick, +/- change)") \
	X(ACT_SEARCH, "search", "/", "search the prompt and the pieces (a pcre2 regex; smart case)") \
	X(ACT_SEARCH_NEXT, "search-next", "n", "go to the next match")                     \
	X(ACT_SEARCH_PREV, "search-prev", "N", "go to the previous match")                 \
	X(ACT_FILTER, "filter", "\\", "show only pieces whose label or text matches a regex") \
	X(ACT_FILTER_INVERT, "filter-invert", "!", "invert the filter (pieces that do not match)") \
	X(ACT_PROMPT_VIEW, "prompt-view", "v", "the prompt as the model receives it (v again: back)") \
	X(ACT_DIFF, "diff", "d", "what changed since the baseline (pieces, cache, cost)")  \
	X(ACT_TIMELINE, "timeline", "i", "each turn or request: the cache predicted beside the usage recorded") \
	X(ACT_SEQ_PREV, "previous-step", "[", "the request (turn, update) before; of the same model in a mixed log") \
	X(ACT_SEQ_NEXT, "next-step", "]", "the request (turn, update) after; of the same model in a mixed log") \
	X(ACT_SEQ_PREV_ANY, "previous-step-any", "{", "the request before, whatever its model") \
	X(ACT_SEQ_NEXT_ANY, "next-step-any", "}", "the request after, whatever its model") \
	X(ACT_UNDO, "undo", "u", "undo the last edit")                                      \
	X(ACT_RELOAD, "reload", "R", "load the file again: new turns appear; edits, selection and baseline stay") \
	X(ACT_REDO, "redo", "C-r", "redo the last undone edit")                             \
	X(ACT_SAVE, "save", "w", "save: a manifest in place (.bak kept); others a what-if file") \
	X(ACT_EXPORT, "export", "x", "export the report (.txt .yaml .json) or the screen (.screen)") \
	X(ACT_COMMAND, "command", ":", "a command line (:budget 100k, :sort tokens; Tab completes)")

enum action {
	ACT_NONE = -1,
#define ACT_X_ENUM(e, name, keys, help) e,
	ACTIONS(ACT_X_ENUM)
#undef ACT_X_ENUM
	ACT_COUNT
};

/* Special keys, outside Unicode so they never clash with a character. */
enum cs_key {
	CSK_BASE = 0x110000,
	CSK_UP,
	CSK_DOWN,
	CSK_LEFT,
	CSK_RIGHT,
	CSK_PGUP,
	CSK_PGDN,
	CSK_HOME,
	CSK_END,
	CSK_ENTER,
	CSK_TAB,
	CSK_ESC,
	CSK_BACKSPACE,
	CSK_SPACE = ' ',
	CSK_CTRL_C = 3,  /* quit (raw mode: a key, not a signal) */
	CSK_CTRL_R = 18, /* redo */
	CSK_CTRL_U = 21, /* the input line: erase it */
};

#define ACTION_MAX_KEYS 4 /* default keys per action; the table never lists more */

/* "exclude" for ACT_EXCLUDE; "" out of range. Never NULL; static storage. */
const char *action_name(int action);
/* The default keys as written in the table ("j Down"); "" out of range. */
const char *action_keys(int action);
const char *action_help(int action);
/* The action named `name`, or ACT_NONE. */
int action_from_name(const char *name);

/* A key's name as the table and --keys write it: "j", "Space", "Enter",
 * "Down", "PgDn", "Esc", "Comma"... Returns false for a key with no name. */
bool cskey_name(int key, char *buf, size_t cap);
/* The key called `name` (exact): a single printable ASCII character is
 * itself; otherwise one of the names above. false when unknown. */
bool cskey_from_name(const char *name, int *key);

/* The keymap: key -> action. Built from the table; owns nothing. */
#define KEYMAP_MAX 64 /* room for every default key of every action */
struct keymap {
	int keys[KEYMAP_MAX];
	int actions[KEYMAP_MAX];
	size_t n;
};
/* Fills km with the table's default keys. false when the table holds an
 * unknown key name or more keys than KEYMAP_MAX (a bug the test catches). */
bool keymap_default(struct keymap *km);
/* The action bound to key, or ACT_NONE. */
int keymap_lookup(const struct keymap *km, int key);

/* The help screen, one line per action: "  KEYS  name  help", generated from
 * the table. Appends to out (check out->failed). */
void actions_help(struct strbuf *out);
/* As actions_help, with only the actions offered(action, ctx) says yes to
 * (offered NULL: all of them); with kind, the sort line names the kind's
 * keys ("sort rows by order, tokens or priority"), those `s` and `:sort` take. */
struct kind_ops;
void actions_help_offered(struct strbuf *out, const struct kind_ops *kind, bool (*offered)(int action, const void *ctx),
			  const void *ctx);
/* One help line in the table's layout: "  KEYS  name  help". */
void actions_help_line(struct strbuf *out, const char *keys, const char *name, const char *help);

/* The man page's KEYS entries are tagged from the tables (ui/doc/ctxscope.1,
 * checked by test_keys_themes): one tag line per action, in the table's
 * order, then each kind's own keys ('.BR j ", " Down "  (down)"'; a kind's
 * '.BR L "  (loom-aware; loom tree)"'). Appends to out. */
void actions_man_tag(struct strbuf *out, const char *keys, const char *name, const char *kind);
/* Every tag: the table's, then those of each kind in kinds (NULL-ended). */
void actions_man_tags(struct strbuf *out, const struct kind_ops *const *kinds);

struct kind_action;
/* The kind's own action bound to `key` (actions.h codes), or NULL. */
const struct kind_action *kind_action_for_key(const struct kind_ops *kind, int key);

#endif
