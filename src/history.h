/* history.h: undo and redo over a source's edits (edit.h), for the
 * inspector's u / Ctrl-r and the `:undo` / `:redo` commands. Every edit the
 * user makes goes through history_apply, which applies it and pushes it on
 * the undo stack; history_undo reverts the newest (edit_revert puts back the
 * exact value it replaced) and moves it to the redo stack; history_redo
 * applies it again; a new edit clears the redo stack. Each call says what it
 * did in a sentence for the status line ("undone: excluded src/a.c").
 *
 * Re-assembling after an undo gives the exact assembly from before the edit:
 * the source's settings are all an assembly depends on, and they are put
 * back bit for bit (tests/unit/test_history.c compares whole reports).
 *
 * The history owns its edits (copies); it borrows nothing between calls.
 * The source passed must be the one the edits were made on. */
#ifndef CTXSCOPE_HISTORY_H
#define CTXSCOPE_HISTORY_H

#include "edit.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct source;
struct strbuf;

#define HISTORY_MAX_EDITS 10000 /* edits kept for undo (~6 MB); past it the oldest is
                                   forgotten: an afternoon of tuning is a few hundred */

struct history {
	struct edit *done;   /* owned: applied edits, oldest first */
	size_t ndone, cap_done;
	struct edit *undone; /* owned: undone edits, the next to redo last */
	size_t nundone, cap_undone;
	size_t forgotten;    /* edits dropped off the bottom at HISTORY_MAX_EDITS */
	size_t kept_undone;  /* the redo stack the last history_apply cleared, for history_retract */
	bool retractable;    /* the last call was history_apply */
};

/* Empty history; zero-initializing is the same. */
void history_init(struct history *h);
/* Frees the stacks (not the source's state). NULL-safe. */
void history_fini(struct history *h);

/* Applies a copy of e to src (edit_apply) and pushes it; clears the redo
 * stack. said (may be NULL) gets edit_describe's sentence. On an error
 * (CS_EUSAGE from the edit, CS_ENOMEM) nothing changes: neither src nor the
 * stacks. */
int history_apply(struct history *h, struct source *src, const struct edit *e, struct strbuf *said,
		  struct cs_error *err);
/* Reverts the newest applied edit and moves it to the redo stack. said (may
 * be NULL) gets "undone: " and the edit's own sentence. CS_EUSAGE "nothing
 * to undo" when the stack is empty; CS_ENOMEM. */
int history_undo(struct history *h, struct source *src, struct strbuf *said, struct cs_error *err);
/* Applies the newest undone edit again. said gets "redone: ..." CS_EUSAGE
 * "nothing to redo" when there is none; CS_ENOMEM. */
int history_redo(struct history *h, struct source *src, struct strbuf *said, struct cs_error *err);

/* Takes back the edit history_apply just made, when what follows it failed
 * (the source would not assemble): reverts it, forgets it, and gives back
 * the redo stack the apply cleared. Only right after history_apply
 * (CS_EUSAGE otherwise). */
int history_retract(struct history *h, struct source *src, struct cs_error *err);

/* Forgets the redo stack: a step made outside the history (the
 * inspector's breakpoint moves, vm/cache.c) is new, so nothing undone
 * before it can be redone after it. */
void history_drop_redo(struct history *h);
/* How many edits were ever applied and not undone (the oldest forgotten at
 * HISTORY_MAX_EDITS still count): steps kept beside the history say where
 * they fall between its edits by it. */
size_t history_depth(const struct history *h);

bool history_can_undo(const struct history *h);
bool history_can_redo(const struct history *h);

/* The applied edits, oldest first (borrowed; valid until the next call
 * that changes h): what a what-if file records. */
const struct edit *history_edits(const struct history *h, size_t *n);

#endif
