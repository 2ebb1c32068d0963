/* drops.c (ledger): how the assembler leaves a piece out. Each drop
 * records why in the piece's result (asm_drop_later: why[0] the turn the
 * sentence names, enum why and a note, why[1] a second turn or message);
 * its sentence is written from them when read (drop_sentence: a compacted
 * history at 500 MB drops hundreds of thousands of messages, and the
 * inspector shows a screenful). */
#include "drops.h"

#include "ledger.h"

#include "base/arena.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"

#include <string.h>

static const unsigned char WHY_REASON[] = {
	[WHY_USER] = REASON_EXCLUDED_BY_USER, [WHY_SYS_SECTIONS] = REASON_SUPERSEDED,
	[WHY_SYS_EARLIER] = REASON_SUPERSEDED, [WHY_EMPTY] = REASON_EMPTY,
	[WHY_COMP_EARLIER] = REASON_SUPERSEDED, [WHY_COMP_LATER] = REASON_LATER,
	[WHY_OWN_EXCHANGE] = REASON_COMPACTED, [WHY_SUMMARIZED] = REASON_COMPACTED,
	[WHY_MEMORY_UNUSED] = REASON_OFF_PATH,
	[WHY_EVENT_UNUSED] = REASON_OFF_PATH, [WHY_PRODUCED_LATER] = REASON_LATER,
	[WHY_TURN_LATER] = REASON_LATER, [WHY_OFF_THREAD] = REASON_OFF_PATH,
	[WHY_COMP_OFF_THREAD] = REASON_OFF_PATH,
};

void ledger_drop_run(struct assembly *a, const long *pieces, size_t n, enum why why, long turn, long arg, bool note)
{
	if (((const struct ledger *)a->src->model)->bare)
		return; /* nobody reads a replay's drops */
	int reason = WHY_REASON[why];
	long code = (turn + 1) * 64 + (long)why * 2 + note; /* read back by drop_sentence */
	for (size_t k = 0; k < n; k++)
		asm_drop_later(a, pieces[k], reason, code, arg);
}

void ledger_drop(struct assembly *a, long piece, enum why why, long turn, long arg)
{
	ledger_drop_run(a, &piece, 1, why, turn, arg, false);
}

void ledger_drop_kept(struct assembly *a, const long *pieces, size_t n, long arg, bool note)
{
	/* no room reserved (out of memory), or the list left for later: as any run */
	if (!asm_list_deferred(a, pieces, n))
		ledger_drop_run(a, pieces, n, WHY_SUMMARIZED, -1, arg, note);
}

/* What a deferred sentence reads beside the drop: the view's session and head. */
struct said_view {
	long session, head;
};

/* A piece's drop sentence, written when read (asm_sentence): results[].why
 * holds the drop, why[0] its turn, enum why and note, why[1] its arg. */
static bool drop_sentence(const struct assembly *a, long piece, struct strbuf *out)
{
	const struct ledger *l = a->src->model;
	const struct said_view *v = a->sentence_ctx;
	long code = a->results[piece].why[0], arg = a->results[piece].why[1];
	long t = code / 64 - 1, why = code % 64 / 2; /* the turn the sentence names, -1 none */
	bool note = code % 2;
	const struct ledger_session *s = v->session >= 0 ? &l->sessions[v->session] : NULL;
	const char *turn = t >= 0 ? l->turns[t].id : "";
	static const char *const fixed[] = {
		[WHY_USER] = "excluded by you",
		[WHY_SYS_SECTIONS] = "superseded: the system prompt comes from assembly.systemPrompt",
		[WHY_MEMORY_UNUSED] = "not used: memory goes into the next event (--next)",
		[WHY_EVENT_UNUSED] = "not used: assembly.event is the next turn's (--next)",
	};
	sb_reset(out);
	if (why < (long)(sizeof fixed / sizeof fixed[0]) && fixed[why])
		return sb_puts(out, fixed[why]);
	switch (why) {
	case WHY_SYS_EARLIER:
		return sb_printf(out, "superseded: an earlier system prompt; the latest (message %s, turn %s) applies",
				 l->messages[arg].id, l->turns[l->messages[arg].turn].id);
	case WHY_EMPTY:
		return sb_printf(out, "dropped: empty content (turn %s)", turn);
	case WHY_COMP_EARLIER:
		return sb_printf(out, "superseded: an earlier compaction; only the latest (turn %s) applies", l->turns[arg].id);
	case WHY_COMP_LATER:
		return sb_printf(out, "later: compaction turn %s comes after the replayed turn", turn);
	case WHY_OWN_EXCHANGE:
		return sb_printf(out, "compacted: compaction turn %s's own exchange; the summary stands in for it", turn);
	case WHY_SUMMARIZED:
		return sb_printf(out, "compacted: summarized by the compaction at turn %s%s", l->turns[arg].id,
				 note ? " (the after-only rule; first_kept_turn_id would keep it)" : "");
	case WHY_PRODUCED_LATER:
		return sb_printf(out, "later: produced by the replayed turn %s after this prompt was sent", turn);
	case WHY_TURN_LATER:
		return sb_printf(out, "later: turn %s comes after the replayed turn %s", turn, l->turns[arg].id);
	case WHY_OFF_THREAD:
		return sb_printf(out, "off-path: turn %s is not on the thread of %s%s (head %s)", turn, s ? "session " : "",
				 s ? s->label : "the last turn", l->turns[v->head].id);
	default: /* WHY_COMP_OFF_THREAD */
		return sb_printf(out, "off-path: compaction turn %s is not on the thread", turn);
	}
}

void ledger_drops_defer(struct assembly *a, long session, long head)
{
	if (((const struct ledger *)a->src->model)->bare)
		return;
	struct said_view *said = arena_alloc(&a->arena, sizeof *said);
	if (!said) {
		a->nomem = true;
		return;
	}
	*said = (struct said_view){ session, head };
	a->sentence_ctx = said;
	a->sentence_fn = drop_sentence;
	a->sentence_by_why = true;
}

