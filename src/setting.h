/* setting.h: a setting a user can change, described once: its name, its type
 * (a switch, one of some choices, a whole number or a number within bounds, a
 * token count, a list of named weights or percentages, text), where it lives,
 * its default and its help line. Every setting is parsed from text and printed
 * back to text here, by one function per type; the command line (--NAME),
 * `:set NAME VALUE` and the `:` commands, edits and their undo, --help, the
 * settings panel and completion all read the same descriptor.
 *
 * The settings every kind understands are setting_common[] (budget, strategy,
 * chars-per-token, exclude, include, priority, tokenizer); a kind adds its own
 * (kind_ops.settings). */
#ifndef CTXSCOPE_SETTING_H
#define CTXSCOPE_SETTING_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct kind_ops;
struct source;
struct strbuf;

#define SETTING_TEXT_MAX 256 /* a setting's value as text, at most (an edit keeps it) */

enum setting_type {
	SETTING_BOOL,    /* true|on, false|off; printed as words[0]/words[1] (true/false) */
	SETTING_ENUM,    /* one of choices; stored as the choice's index */
	SETTING_INT,     /* a whole number from min to max; `unset` (or nothing): -1, the input's */
	SETTING_NUMBER,  /* a number from min to max */
	SETTING_TOKENS,  /* a token count (24000, 128,000, 100k, 1.5M); nothing: -1, the input's */
	SETTING_WEIGHTS, /* NAME=V,NAME=V: choices name the entries, each from min to max */
	SETTING_PERCENT, /* the same with percentages (shares), each from min to max */
	SETTING_TEXT,    /* free text (a label, an id), checked by the setting's hook */
	SETTING_PIECE,   /* a piece id: a change to one piece, not a stored value */
};

/* Where a setting lives: a field of the source's settings (struct settings),
 * of the kind's model (src->model), or nowhere (a piece edit, or a hook). */
enum setting_home { SETTING_NOWHERE, SETTING_IN_SOURCE, SETTING_IN_MODEL };

struct setting;

/* A hook for what the type cannot say alone. set: checks value (already
 * parsed and in range for its type) against the input and stores it, or
 * CS_EUSAGE with a sentence (nothing changes then). get: prints the current
 * value (text that set takes back exactly, for undo). */
typedef int (*setting_set_fn)(struct source *src, const struct setting *s, const char *text,
			      struct cs_error *err);
typedef void (*setting_get_fn)(const struct source *src, const struct setting *s, struct strbuf *out);

struct setting {
	const char *name;          /* "min-recent": --min-recent, :set min-recent */
	enum setting_type type;
	const char *arg;           /* the help's placeholder; NULL: the type's ("N", "on|off"...) */
	const char *help;          /* one line */
	const char *def;           /* the default, as text, for the help; NULL: the input's */
	const char *const *choices; /* ENUM: the values; WEIGHTS/PERCENT: the entries' names */
	const char *const *words;  /* BOOL: how true and false are printed; NULL: true, false */
	double min, max;           /* INT, NUMBER, WEIGHTS, PERCENT */
	const char *unset;         /* INT: the word for "the input's" ("input"), printed for -1 */
	enum setting_home home;
	size_t offset, size;       /* where in its home, and the field's size (SETTING_FIELD) */
	setting_set_fn set;        /* optional: replaces the store (TEXT, or a check) */
	setting_get_fn get;        /* optional: replaces the print from the field */
};

/* .home, .offset and .size of a field: SETTING_FIELD(SETTING_IN_MODEL, struct loom, loom_aware). */
#define SETTING_FIELD(where, type, member) \
	.home = (where), .offset = offsetof(type, member), .size = sizeof(((type *)0)->member)

/* The settings every kind understands, terminated by a NULL name. */
extern const struct setting setting_common[];
/* Their indexes in setting_common[] (one spelling of each name). */
enum {
	SETTING_BUDGET,
	SETTING_STRATEGY,
	SETTING_CHARS_PER_TOKEN,
	SETTING_EXCLUDE,
	SETTING_INCLUDE,
	SETTING_PRIORITY,
	SETTING_TOKENIZER,
	SETTING_COMMON_COUNT
};

#define SETTING_LIST_MAX 16 /* entries of a WEIGHTS or PERCENT list */

/* A parsed value: what the text of a setting stands for. */
struct setting_value {
	bool on;                        /* BOOL */
	int choice;                     /* ENUM */
	double number;                  /* INT, NUMBER, TOKENS (-1: the input's) */
	double list[SETTING_LIST_MAX];  /* WEIGHTS, PERCENT: every entry, those not named kept from `base` */
};

/* Parses text as s's type into out. For a list, out->list starts as base
 * (may be NULL: zeros) and the entries named replace theirs. CS_EUSAGE with
 * a sentence naming the setting and what it takes. */
int setting_parse(const struct setting *s, const char *text, const double *base, struct setting_value *out,
		  struct cs_error *err);
/* Prints v as s's type (the text setting_parse reads back exactly). */
void setting_print(const struct setting *s, const struct setting_value *v, struct strbuf *out);
/* The help's placeholder: s->arg, else the type's ("N", "on|off", "A|B"). */
const char *setting_arg(const struct setting *s);
/* True for a switch (a BOOL without its own placeholder): --NAME alone and
 * `:set NAME` mean on. A BOOL with an arg ("on|off") takes its value. */
bool setting_is_switch(const struct setting *s);
/* The number of entries of a list (WEIGHTS, PERCENT); 0 for others. */
size_t setting_list_len(const struct setting *s);

/* The setting named `name` among the common ones and src's kind's (src
 * may be NULL: the common ones and every kind's), or NULL. */
const struct setting *setting_find(const struct source *src, const char *name);
/* The kind's setting named `name` (not a common one), or NULL. */
const struct setting *setting_of_kind(const struct source *src, const char *name);

/* Sets s (a kind's setting) on src from text: parse, then store (or the hook).
 * CS_EUSAGE with a sentence; nothing changes then. */
int setting_set(struct source *src, const struct setting *s, const char *text, struct cs_error *err);
/* The current value of s on src as text (what setting_set takes back). */
void setting_get(const struct source *src, const struct setting *s, struct strbuf *out);

/* The current value of s on src, parsed (for a panel or a toggle). */
void setting_current(const struct source *src, const struct setting *s, struct setting_value *out);

/* "  --NAME ARG    help (default: D)" lines for --help, one per setting. */
void setting_help_lines(const struct setting *list, struct strbuf *out);
/* The roff lines of the man page's OPTIONS for list (".TP\n.BI \-\-NAME " ARG"\nHelp."). */
void setting_man_lines(const struct setting *list, const char *prefix, struct strbuf *out);

/* The kind's first setting with choices (an enum: what `A` cycles), NULL when none. */
const struct setting *kind_choice_setting(const struct kind_ops *kind);

#endif
