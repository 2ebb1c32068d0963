/* command.h: the inspector's `:` command line, for what has no key:
 * `:budget 100k`, `:strategy rollingWindow`, `:strategy src/a.c=middle`,
 * `:exclude ID`, `:include ID`, `:priority ID=0.9`, `:chars-per-token 3.5`,
 * `:set NAME VALUE` (any kind option: `:set min-recent 8`), `:profile openai`,
 * `:sort tokens`, `:theme light`, `:save`, `:save-as FILE`,
 * `:export FILE [text|yaml|json|screen]`, `:undo`, `:redo`, `:q`.
 *
 * Parsing only: a command that changes the source comes back as an edit
 * (edit_from_setting, not applied: the caller hands it to history_apply);
 * the others come back as a code and their argument for the UI to act on.
 * Completion (Tab) lists what may follow a prefix: command names, then the
 * argument's candidates (strategies the kind allows, profiles, sort keys,
 * themes, kind options, piece ids).
 *
 * Decisions: a command name is matched exactly, or by a prefix that only one
 * command has (`:bud 100k`, as in vim); `q`, `quit` and `w`, `write` are
 * aliases; a leading ':' and surrounding spaces are ignored; `:set NAME=VALUE`
 * works too. */
#ifndef CTXSCOPE_COMMAND_H
#define CTXSCOPE_COMMAND_H

#include "edit.h"
#include "base/error.h"
#include "setting.h"

#include <stdbool.h>
#include <stddef.h>

struct source;

/* X(enum, setting, name, argument, help). The order is the help's and
 * completion's. A command that changes a common setting (setting.h) names it
 * (SETTING_BUDGET) and takes its name, placeholder and help from there; the
 * others say their own (setting -1). */
#define COMMANDS(X)                                                                               \
	X(CMD_BUDGET, SETTING_BUDGET, NULL, NULL, NULL)                                           \
	X(CMD_STRATEGY, SETTING_STRATEGY, NULL, NULL, NULL)                                       \
	X(CMD_EXCLUDE, SETTING_EXCLUDE, NULL, NULL, NULL)                                         \
	X(CMD_INCLUDE, SETTING_INCLUDE, NULL, NULL, NULL)                                         \
	X(CMD_PRIORITY, SETTING_PRIORITY, NULL, NULL, NULL)                                       \
	X(CMD_CHARS_PER_TOKEN, SETTING_CHARS_PER_TOKEN, NULL, NULL, NULL)                         \
	X(CMD_SET, -1, "set", "NAME VALUE", "a setting of this kind of input (Tab lists them)")    \
	X(CMD_PROFILE, -1, "profile", "NAME", "the cache profile prices are computed under")      \
	X(CMD_SORT, -1, "sort", "KEY", "order of the piece list: the kind's keys, those s cycles through") \
	X(CMD_THEME, -1, "theme", "NAME", "the inspector's colours")                              \
	X(CMD_SAVE, -1, "save", NULL, "write the edits back (manifest) or to a what-if file")     \
	X(CMD_SAVE_AS, -1, "save-as", "FILE", "save to another file")                             \
	X(CMD_EXPORT, -1, "export", "FILE [FORMAT]", "write the report (text, yaml, json) or the screen") \
	X(CMD_UNDO, -1, "undo", NULL, "undo the last edit")                                       \
	X(CMD_REDO, -1, "redo", NULL, "redo the last undone edit")                                \
	X(CMD_MESSAGES, -1, "messages", NULL, "the status line's last messages, whole")            \
	X(CMD_QUIT, -1, "quit", NULL, "leave the inspector")

enum command_code {
	CMD_NONE = -1, /* an empty line: nothing to do */
#define CMD_X_ENUM(e, setting, name, arg, help) e,
	COMMANDS(CMD_X_ENUM)
#undef CMD_X_ENUM
	CMD_COUNT
};

#define COMMAND_ARG_MAX 1024 /* a file path or a piece id with its value */
#define COMMAND_LINE_MAX 4096 /* longer lines are refused, not cut */

struct command {
	enum command_code code;
	bool is_edit;              /* edit holds the change (budget .. set) */
	struct edit edit;          /* is_edit: built by edit_from_setting, not applied */
	char arg[COMMAND_ARG_MAX]; /* the argument as typed, trimmed ("" when none);
	                              export: the file only */
	char format[16];           /* export: "text", "yaml", "json", "screen", or "" (by extension) */
};

/* "budget" for CMD_BUDGET; "" out of range. Never NULL. */
const char *command_name(int code);
const char *command_arg(int code);  /* "N"; NULL for none */
const char *command_help(int code);

/* Parses one command line into *out. src (borrowed) is what edits are built
 * against. CS_OK (code CMD_NONE for an empty line); CS_EUSAGE with a
 * sentence for an unknown or ambiguous command, a missing or extra argument
 * or a value the edit refuses. */
int command_parse(struct source *src, const char *line, struct command *out, struct cs_error *err);

/* ---- completion ----------------------------------------------------------- */

/* Names the UI knows that the core does not: NULL-terminated lists, each
 * may be NULL (profiles then are the built-in cache profiles; themes none). */
struct command_names {
	const char *const *profiles;
	const char *const *themes;
};

struct command_completion {
	const char **items;   /* owned array; the strings are borrowed from static tables, the
	                         source (valid while it lives) or the command_names lists */
	size_t n, cap;
	size_t word_start;    /* byte offset in the line of the word being completed */
	size_t common_bytes;  /* bytes of the longest prefix all items share (0 when none) */
};

/* The candidates for the word under completion at the end of `line`: a
 * command name, or its argument. src and names may be NULL (no piece ids,
 * strategies or options then). Fills *out (free with
 * command_completion_fini). CS_OK or CS_ENOMEM. */
int command_complete(const struct source *src, const struct command_names *names, const char *line,
		     struct command_completion *out, struct cs_error *err);
void command_completion_fini(struct command_completion *c);

#endif
