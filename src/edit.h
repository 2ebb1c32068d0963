/* edit.h: the changes a user makes to a source (exclude a piece, move its
 * priority, change its or the whole assembly's strategy, the budget, chars per
 * token, a kind's option). The command line and the UI make the same edits
 * through this one module; every edit records what it replaced, so it can be
 * reverted exactly (undo) and described in a sentence (status line). */
#ifndef CTXSCOPE_EDIT_H
#define CTXSCOPE_EDIT_H

#include "base/error.h"
#include "setting.h"

#include <stdbool.h>

struct kind_ops;
struct source;
struct strbuf;

enum edit_type {
	EDIT_EXCLUDE,         /* piece: value 1 exclude, 0 include, -1 as the input says */
	EDIT_PRIORITY,        /* piece: value is the new priority */
	EDIT_PIECE_STRATEGY,  /* piece: value is an enum strategy */
	EDIT_STRATEGY,        /* whole assembly: value is an enum strategy (STRAT_NONE: the input's) */
	EDIT_BUDGET,          /* value is the usable budget in tokens (-1: the input's) */
	EDIT_CHARS_PER_TOKEN, /* value is chars per token */
	EDIT_OPTION,          /* a kind option, or a common setting with no edit of its own
	                         (tokenizer): option = text */
};

#define EDIT_TEXT_MAX SETTING_TEXT_MAX

struct edit {
	enum edit_type type;
	long piece;                       /* for piece edits */
	double value;                     /* the new value */
	double before;                    /* filled by edit_apply */
	char option[64];                  /* EDIT_OPTION: its name */
	char text[EDIT_TEXT_MAX];         /* EDIT_OPTION: the new value */
	char before_text[EDIT_TEXT_MAX];  /* EDIT_OPTION: filled by edit_apply */
};

/* Applies e to src and records the value it replaced in e. CS_EUSAGE with a
 * sentence when the value is not acceptable (nothing changes then). */
int edit_apply(struct source *src, struct edit *e, struct cs_error *err);
/* Whether a kind takes edits of `type` at all (a loom tree has no
 * priorities, a memory snapshot no strategies): what the inspector offers. */
bool edit_kind_takes(const struct kind_ops *kind, enum edit_type type);
/* Puts back what e replaced (e must have been applied). */
int edit_revert(struct source *src, const struct edit *e, struct cs_error *err);
/* "excluded src/main.c", "priority of src/main.c 0.80 -> 0.85". */
void edit_describe(const struct source *src, const struct edit *e, bool reverted, struct strbuf *out);

/* Builds an edit from a setting as typed on the command line or after ':'
 * ("exclude" "src/a.c", "priority" "src/a.c=0.9", "strategy" "rollingWindow"
 * or "src/a.c=middle", "budget" "100k", "chars-per-token" "3.5", "include" ID,
 * or a kind option). CS_EUSAGE with a sentence when it does not make sense. */
int edit_from_setting(struct source *src, const char *name, const char *value, struct edit *out,
		      struct cs_error *err);

/* The setting (name and value text) that edit_from_setting turns into e:
 * ("exclude", "src/a.c"), ("priority", "src/a.c=0.85"), ("budget", "24000").
 * The inverse of edit_from_setting, for what-if files. */
void edit_to_setting(const struct source *src, const struct edit *e, struct strbuf *name, struct strbuf *value);

#endif
