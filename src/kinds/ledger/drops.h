/* drops.h (ledger): how the assembler leaves a piece out (drops.c): why, in
 * runs, and the sentence each gets, written only when read. */
#ifndef CTXSCOPE_LEDGER_DROPS_H
#define CTXSCOPE_LEDGER_DROPS_H

#include "assembly.h"

#include <stdbool.h>
#include <stddef.h>

/* Why a piece stayed out, decided as the layers walk the thread. */
enum why {
	WHY_USER,            /* excluded by you */
	WHY_SYS_SECTIONS,    /* a system message, superseded by assembly.systemPrompt */
	WHY_SYS_EARLIER,     /* a system message before the latest (arg: the latest) */
	WHY_EMPTY,           /* empty content (turn) */
	WHY_COMP_EARLIER,    /* a compaction before the one that applies (arg: that one's turn) */
	WHY_COMP_LATER,      /* a compaction after the replayed turn (turn) */
	WHY_OWN_EXCHANGE,    /* the applied compaction turn's own exchange (turn) */
	WHY_SUMMARIZED,      /* summarized by the compaction (arg: its turn; note: the after-only rule dropped it) */
	WHY_MEMORY_UNUSED,   /* memory, without --next */
	WHY_EVENT_UNUSED,    /* assembly.event, without --next */
	WHY_PRODUCED_LATER,  /* produced by the replayed turn (turn) */
	WHY_TURN_LATER,      /* a turn after the replayed one (turn; arg: the replayed turn) */
	WHY_OFF_THREAD,      /* a message off the thread (turn) */
	WHY_COMP_OFF_THREAD, /* a compaction off the thread (turn) */
};

/* n pieces left out alike, in the order decided: why, the turn the
 * sentence names (-1 none: then pieces of many turns share one sentence),
 * a second turn or message as enum why says, and for WHY_SUMMARIZED
 * whether first_kept_turn_id would have kept them. Their sentences are
 * written when read (ledger_drops_defer); a bare replay records none
 * (nobody reads them). */
void ledger_drop_run(struct assembly *a, const long *pieces, size_t n, enum why why, long turn, long arg, bool note);
/* One piece left out. */
void ledger_drop(struct assembly *a, long piece, enum why why, long turn, long arg);
/* n summarized pieces whose results (taken over from the previous
 * assembly) already say what ledger_drop_run(WHY_SUMMARIZED, -1, arg,
 * note) would: listed, not written again. */
void ledger_drop_kept(struct assembly *a, const long *pieces, size_t n, long arg, bool note);
/* The drops' sentences written when read, naming the view's session (-1:
 * none, the last turn's thread) and head; a bare replay writes none. */
void ledger_drops_defer(struct assembly *a, long session, long head);

#endif
