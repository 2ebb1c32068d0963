/* assemble.c (loom): seed 000's context assembly with the decisions of
 * ctxscope-formats(5) section 1:
 *   1. system context = trimmed, non-empty [agent systemPrompt,
 *      loomTree.systemContext, instruction sources] joined by a blank line;
 *   2. filter (excluded, pruned, annotation unless includeAnnotation, empty),
 *      then merge consecutive same-role messages (dialogue), each merged
 *      node a block of its own with the blank line at its start;
 *   3. buffer mode: node texts with no separator, then the working buffer;
 *      the system context only with bufferModeSystemContext;
 *   4. truncation over the usable budget (limit - tokenBuffer, or --budget)
 *      by truncateMiddle, rollingWindow or stopAtLimit, on whole messages
 *      (dialogue) or whole nodes (buffer).
 * Decisions where ctxscope-formats(5) is silent:
 *   - tokens are estimated per block (a node's text plus what this assembler
 *     adds to it: the blank line of a merge, a loom-aware header), and the
 *     budget charges the sum;
 *   - the truncation marker is a `user` message (a line of text in buffer
 *     mode); messages are not merged again across it;
 *   - the `current` layer is the last message (or the working buffer, else
 *     the last node, in buffer mode); the Loom Context block goes at the
 *     start of it and belongs to it;
 *   - truncateMiddle always keeps the last message (the working buffer in
 *     buffer mode), even with minimumRecentNodes 0;
 *   - when the system context alone is over the budget the result is an
 *     error state and nothing is removed;
 *   - in buffer mode loom-aware rendering adds only the Loom Context block
 *     (per-node headers would break the continuous text);
 *   - --include NODE overrides excluded, pruned and annotation, not empty.
 * In phases: decide (a reason per piece, state.why; the units the budget
 * removes, struct truncation); render the blocks; explain (the facts, then
 * a sentence per piece left out, in the order decided). */
#include "loom.h"
#include "loom_priv.h"

#include "base/alloc.h"
#include "assembly.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "base/utf8.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { LAYER_SYSTEM, LAYER_HISTORY, LAYER_CURRENT, LAYER_MEMORY };

struct unit {              /* small: truncation walks every one at each assembly */
	size_t first;         /* its pieces: seq[first .. first + n); their role is its first's */
	long tokens;          /* budget tokens of all its blocks */
	unsigned n;           /* (pieces are fewer than LOOM_MAX_NODES) */
	unsigned path_nodes;  /* primary (path) pieces in it */
	bool kept;
};

struct state {
	struct assembly *a;
	const struct source *src;
	const struct loom *m;
	const struct loom_prep *prep; /* the model's cache.prep */
	const long *tok;      /* per piece, its block's tokens alone and merged (loom_prep_tokens); NULL */
	const signed char *user; /* per piece, the user's exclusion (loom_prep_user) */
	bool dialogue;
	long *seq;            /* included conversation pieces, in order */
	long *btok;           /* per seq entry, its block's budget tokens (block_tokens) */
	size_t nseq;
	const char **header;  /* per piece: loom-aware header (arena), or NULL */
	size_t *header_cp;
	struct unit *units;
	size_t nunits;
	long conv_tokens;     /* budget tokens of every unit, summed as they are made */
	size_t gone_pieces;   /* pieces in the units the budget removed */
	const char *loom_block; /* arena; NULL when not loom-aware */
	size_t loom_block_cp;
	long loom_block_tokens;
	unsigned char *why;   /* per piece: the decision, enum reason (REASON_NONE: it goes in) */
	long sys;             /* budget tokens of the system context, 0 when none */
	size_t sys_parts;     /* texts joined into it */
	long mem;             /* budget tokens of the addendum and the operational memory block */
	bool addendum;        /* the system addendum goes in */
	const char *add_text; /* the addendum with its separator; arena; NULL none */
	size_t depth;         /* path nodes the request holds (all, or those before a replayed node) */
	long long latest_ms;  /* the latest createdAt among them, LOOM_NO_TIME when none */
	const char *mem_head, *mem_tail; /* the memory block around its pinned entries; arena; NULL none */
};

/* What the budget made of the conversation (decided before a sentence). */
enum fit {
	FIT_WHOLE,         /* everything fits */
	FIT_SYSTEM_OVER,   /* the system context alone is over: an error, nothing removed */
	FIT_STOP,          /* stopAtLimit refuses */
	FIT_MIDDLE,        /* truncateMiddle ran */
	FIT_ROLLING,       /* rollingWindow ran */
};

struct truncation {
	enum fit fit;
	long usable;
	long total;         /* tokens before any removal */
	long after;         /* tokens after it */
	size_t removed;     /* units removed */
	size_t first_removed; /* where the marker goes; nunits when none */
	size_t range_from, range_to; /* units the removal walked */
	long min_recent;
};

/* p's text without the white space around it. */
static void trimmed(const struct piece *p, const char **s, size_t *n)
{
	*s = p->text;
	*n = p->text_bytes;
	loom_trim(s, n);
}

/* Whether a replay (loom->replay_pos) leaves the item out: the path nodes
 * from the replayed one on, and the sources of edges leading past it. */
static bool after_replay(const struct loom *m, const struct loom_item *it)
{
	if (m->replay_pos == SIZE_MAX || it->use == LOOM_PINNED)
		return false;
	return it->use == LOOM_PRIMARY ? it->path_pos >= m->replay_pos : it->path_pos > m->replay_pos;
}

/* Decide: why piece i is left out (REASON_NONE: it goes in), from the
 * prep (prep.c) and the user's exclusion. */
static int filter(const struct state *st, long i)
{
	const struct loom_prep *pr = st->prep;
	enum loom_use use = pr->use[i];
	size_t replay = st->m->replay_pos;
	if (replay != SIZE_MAX && use != LOOM_PINNED && (use == LOOM_PRIMARY ? pr->pos[i] >= replay : pr->pos[i] > replay))
		return REASON_LATER; /* after_replay, from the prep */
	if (use == LOOM_PINNED && !st->m->loom_aware)
		return REASON_LOOM_AWARE_OFF;
	signed char user = st->user[i];
	if (user == 1)
		return REASON_EXCLUDED_BY_USER;
	unsigned bits = pr->bits[i];
	if (user != 0 && (bits & (LOOM_PREP_EXCLUDED | LOOM_PREP_PRUNED | LOOM_PREP_ANNOTATION)))
		return bits & LOOM_PREP_EXCLUDED ? REASON_EXCLUDED
		       : bits & LOOM_PREP_PRUNED ? REASON_PRUNED : REASON_ANNOTATION;
	bool empty = st->dialogue || use == LOOM_INSTRUCTION ? bits & LOOM_PREP_BLANK : bits & LOOM_PREP_NO_BYTES;
	return empty ? REASON_EMPTY : REASON_NONE;
}

/* The sentence of a piece left out by name (its id in it), written when
 * it is read (asm_drop_later): a tree may mark thousands of nodes excluded
 * or pruned, and a re-assembly writes none of them. */
static bool drop_sentence(const struct assembly *a, long piece, struct strbuf *out)
{
	const struct piece_result *r = &a->results[piece];
	const char *id = a->src->pieces[piece].id;
	sb_reset(out);
	switch (r->reason) {
	case REASON_EXCLUDED_BY_USER:
		sb_printf(out, "excluded by you (--include %s puts it back)", id);
		break;
	case REASON_EXCLUDED:
		sb_printf(out, "excluded: metadata.excluded is true in the tree (--include %s puts it back)", id);
		break;
	case REASON_PRUNED:
		sb_printf(out, "pruned: metadata.pruned is true (soft-deleted); --include %s puts it back", id);
		break;
	default:
		sb_puts(out, reason_sentence(r->reason));
		break;
	}
	return !out->failed;
}

/* Piece i's result as asm_init leaves it, written just before the asm_*
 * call that decides it: the assembly is made with asm_init_unset, so that
 * each result is written where its piece is decided, not once for every
 * piece first (a pass over 64 bytes a piece) and again then. */
static void result_base(struct assembly *a, long i)
{
	a->results[i] = (struct piece_result){ .outcome = OUTCOME_DROPPED, .block = -1, .score = NAN,
					       .original_tokens = a->src->pieces[i].tokens };
}

/* Explain: the sentence for a piece the filter left out. */
static void explain_filtered(struct state *st, long i)
{
	struct assembly *a = st->a;
	result_base(a, i);
	switch (st->why[i]) {
	case REASON_LATER:
		asm_drop_text(a, i, REASON_LATER, "comes after the replayed request");
		break;
	case REASON_LOOM_AWARE_OFF:
		asm_drop_text(a, i, REASON_LOOM_AWARE_OFF,
			      "loom-aware rendering is off: the operational memory is not sent (L or --loom-aware)");
		break;
	case REASON_NO_SYSTEM_CONTEXT:
		asm_drop_text(a, i, REASON_NO_SYSTEM_CONTEXT,
			      "not sent: an instruction source goes into the system context, which buffer mode leaves "
			      "out (bufferModeSystemContext is false)");
		break;
	case REASON_EXCLUDED_BY_USER:
	case REASON_EXCLUDED:
	case REASON_PRUNED:
		a->sentence_fn = drop_sentence;
		asm_drop_later(a, i, st->why[i], 0, 0);
		break;
	case REASON_ANNOTATION:
		asm_drop_text(a, i, REASON_ANNOTATION,
			      "annotation: reached through an annotation edge, which Aspen Grove leaves out unless "
			      "metadata.includeAnnotation is true");
		break;
	case REASON_EMPTY:
		asm_drop_text(a, i, REASON_EMPTY, st->dialogue || st->prep->use[i] == LOOM_INSTRUCTION
			      ? "empty: no text after trimming" : "empty: the node has no text");
		break;
	default:
		break;
	}
}

static const char *plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The loom-aware header of a node (seed 000 "Loom-Aware Extensions"). */
static void make_header(struct state *st, long i)
{
	const struct piece *p = &st->src->pieces[i];
	const struct loom_item *it = &st->m->items[p->kind_index];
	char when[48] = "";
	if (it->created_ms != LOOM_NO_TIME && st->latest_ms != LOOM_NO_TIME) {
		char rel[32];
		snprintf(when, sizeof when, " \xC2\xB7 %s", loom_relative_time(rel, it->created_ms, st->latest_ms));
	}
	const char *h = arena_printf(&st->a->arena, "[%s] %s%s\n%u %s \xC2\xB7 %u %s%s\n---\n", p->label,
				     it->author_type, when, it->continuations,
				     plural(it->continuations, "continuation", "continuations"), it->annotations,
				     plural(it->annotations, "annotation", "annotations"),
				     it->bookmarked ? " \xC2\xB7 bookmarked" : "");
	if (!h) {
		st->a->nomem = true;
		return;
	}
	st->header[i] = h;
	st->header_cp[i] = utf8_count_code_points(h, strlen(h));
}

static void make_loom_block(struct state *st)
{
	const struct source *src = st->src;
	const struct loom *m = st->m;
	struct strbuf sb = STRBUF_INIT;
	sb_puts(&sb, "=== Loom Context ===\n");
	sb_printf(&sb, "Tree: %s (%s mode)\n", m->title[0] ? m->title : m->tree_id,
		  m->mode == LOOM_DIALOGUE ? "dialogue" : "buffer");
	sb_printf(&sb, "Nodes: %zu \xC2\xB7 branch points: %zu \xC2\xB7 depth: %zu\n", m->nnodes, m->branch_points,
		  st->depth);
	sb_puts(&sb, "Position: ");
	bool first = true;
	for (size_t i = 0; i < src->npieces; i++) {
		const struct loom_item *it = &m->items[src->pieces[i].kind_index];
		if (it->use != LOOM_PRIMARY || after_replay(m, it))
			continue;
		sb_printf(&sb, "%s%s", first ? "" : " > ", src->pieces[i].label);
		first = false;
	}
	sb_printf(&sb, "\nPermissions: %s\n===\n\n", m->permissions ? m->permissions : "not given in the tree");
	st->loom_block = sb.failed ? NULL : arena_strndup(&st->a->arena, sb_str(&sb), sb.len);
	if (!st->loom_block)
		st->a->nomem = true;
	else
		st->loom_block_cp = utf8_count_code_points(st->loom_block, sb.len);
	st->loom_block_tokens = tokens_estimate(st->loom_block_cp, st->a->chars_per_token);
	sb_fini(&sb);
}

/* Code points of piece seq[k]'s block: separator, header, text. */
static size_t block_cp(const struct state *st, size_t k, bool first_in_unit)
{
	long i = st->seq[k];
	size_t cp = st->prep->cp[i];
	if (!first_in_unit)
		cp += 2; /* the blank line of a merge */
	if (st->header && st->header[i])
		cp += st->header_cp[i];
	return cp;
}

/* Budget tokens of piece seq[k]'s block (block_cp), from the prep's
 * counts at this chars_per_token when no header is added. */
static long block_tokens(const struct state *st, size_t k, bool first_in_unit)
{
	if (!st->header && st->tok)
		return st->tok[2 * (size_t)st->seq[k] + !first_in_unit];
	return tokens_estimate(block_cp(st, k, first_in_unit), st->a->chars_per_token);
}

/* Puts seq[k] in a unit: the last one when it merges (dialogue, the same
 * role, next in seq), else a new one. */
static void unit_add(struct state *st, size_t k)
{
	long i = st->seq[k];
	struct unit *u = st->nunits ? &st->units[st->nunits - 1] : NULL;
	const unsigned short *role = st->prep->role; /* loom_prep_same_role, its usual case inline */
	bool merge = st->dialogue && u && u->first + u->n == k && role[st->seq[u->first]] == role[i] &&
		     (role[i] < LOOM_PREP_ROLES || loom_prep_same_role(st->src, st->seq[u->first], i));
	if (!merge) {
		u = &st->units[st->nunits++];
		*u = (struct unit){ .first = k, .kept = true };
	}
	long tokens = block_tokens(st, k, !merge);
	st->btok[k] = tokens;
	u->tokens += tokens;
	st->conv_tokens += tokens;
	u->n++;
	if (st->prep->use[i] == LOOM_PRIMARY)
		u->path_nodes++;
}

/* The units after the pieces': the working buffer (buffer mode), and the
 * Loom Context block's tokens on the last. */
static void units_end(struct state *st)
{
	const struct loom *m = st->m;
	if (!st->dialogue && m->working_buffer_bytes) {
		struct unit *u = &st->units[st->nunits++];
		*u = (struct unit){ .first = st->nseq, .n = 0, .kept = true };
		u->tokens = tokens_estimate(utf8_count_code_points(m->working_buffer, m->working_buffer_bytes),
					    st->a->chars_per_token);
		st->conv_tokens += u->tokens;
	}
	if (st->loom_block && st->nunits) {
		st->units[st->nunits - 1].tokens += st->loom_block_tokens;
		st->conv_tokens += st->loom_block_tokens;
	}
}

static const char *marker_text(struct state *st, size_t removed)
{
	const char *t = st->dialogue
		? arena_printf(&st->a->arena, "[%zu earlier %s truncated]", removed, plural(removed, "message", "messages"))
		: arena_printf(&st->a->arena, "\n[%zu earlier %s truncated]\n", removed, plural(removed, "node", "nodes"));
	if (!t)
		st->a->nomem = true;
	return t ? t : "";
}

/* The marker's tokens without making it (it is ASCII: bytes = code points;
 * counted, not printed: truncateMiddle asks once per unit it removes):
 * "[N earlier messages truncated]", or "\n[N earlier nodes truncated]\n". */
static long marker_tokens(struct state *st, size_t removed)
{
	size_t digits = 1;
	for (size_t v = removed; v >= 10; v /= 10)
		digits++;
	const char *word = st->dialogue ? plural(removed, "message", "messages") : plural(removed, "node", "nodes");
	size_t n = (st->dialogue ? 0 : 2) + strlen("[") + digits + strlen(" earlier ") + strlen(word) + strlen(" truncated]");
	return tokens_estimate(n, st->a->chars_per_token);
}

/* The first and last labels of removed units, for sentences. */
static void removed_range(const struct state *st, size_t from, size_t to, const char **first, const char **last)
{
	*first = *last = "";
	size_t u = from, v = to;
	while (u < to && (st->units[u].kept || !st->units[u].n))
		u++;
	while (v > u && (st->units[v - 1].kept || !st->units[v - 1].n))
		v--;
	if (u < v) {
		*first = st->src->pieces[st->seq[st->units[u].first]].label;
		*last = st->src->pieces[st->seq[st->units[v - 1].first + st->units[v - 1].n - 1]].label;
	}
}

static void drop_units(struct state *st, int reason, const char *sentence)
{
	for (size_t u = 0; u < st->nunits; u++) {
		if (st->units[u].kept)
			continue;
		for (size_t k = st->units[u].first; k < st->units[u].first + st->units[u].n; k++) {
			result_base(st->a, st->seq[k]);
			asm_drop_text(st->a, st->seq[k], reason, sentence); /* one sentence, shared */
		}
	}
}

static const char *nodes_word(const struct state *st)
{
	return st->dialogue ? "messages" : "nodes";
}

/* Decide, truncateMiddle: removes units oldest first after the first
 * message, keeping the units that hold the last min_recent path nodes. */
static void truncate_middle(struct state *st, struct truncation *t)
{
	/* protection: the first message and the units holding the last min_recent path nodes */
	/* the last message (the working buffer in buffer mode) is always kept,
	 * even with minimumRecentNodes 0: it is the turn being answered */
	size_t protect_from = st->nunits, seen = 0;
	while (protect_from > 1 && ((long)seen < t->min_recent || protect_from == st->nunits)) {
		protect_from--;
		seen += st->units[protect_from].path_nodes;
	}
	t->first_removed = st->nunits;
	t->removed = 0;
	long now = t->total, gone = 0;
	for (size_t u = 1; u < protect_from && now > t->usable; u++) {
		if (t->first_removed == st->nunits)
			t->first_removed = u;
		st->units[u].kept = false;
		st->gone_pieces += st->units[u].n;
		t->removed++;
		gone += st->units[u].tokens;
		now = t->total - gone + marker_tokens(st, t->removed);
	}
	t->range_from = t->first_removed;
	t->range_to = protect_from;
	t->after = now;
}

/* Decide, rollingWindow: keeps the newest units that fit, the last always. */
static void rolling_window(struct state *st, long sys, struct truncation *t)
{
	long kept = sys + (st->nunits ? st->units[st->nunits - 1].tokens : 0);
	size_t u = st->nunits ? st->nunits - 1 : 0;
	while (u > 0 && kept + st->units[u - 1].tokens <= t->usable) {
		u--;
		kept += st->units[u].tokens;
	}
	t->removed = u;
	for (size_t v = 0; v < u; v++) {
		st->units[v].kept = false;
		st->gone_pieces += st->units[v].n;
	}
	t->first_removed = st->nunits; /* no marker */
	t->range_from = 0;
	t->range_to = u;
	t->after = kept;
}

/* Explain: the sentences of what the strategy removed, and the state. */
static void explain_truncation(struct state *st, const struct truncation *t)
{
	struct assembly *a = st->a;
	char n1[32], n2[32], n3[32];
	long usable = t->usable, over = t->total - usable, min_recent = t->min_recent;
	const char *f, *l, *s = NULL;
	if (t->removed)
		removed_range(st, t->range_from, t->range_to, &f, &l);
	if (t->fit == FIT_MIDDLE && t->removed)
		s = arena_printf(&a->arena,
				 "dropped by truncateMiddle: the conversation was over the budget by %s %s; "
				 "%zu %s (%s to %s) were removed oldest first, after the first message; "
				 "%ld recent path node%s %s protected",
				 fmt_thousands(n1, over), plural((size_t)over, "token", "tokens"), t->removed, nodes_word(st), f,
				 l, min_recent, min_recent == 1 ? "" : "s", min_recent == 1 ? "is" : "are");
	else if (t->fit == FIT_ROLLING && t->removed)
		s = arena_printf(&a->arena,
				 "dropped by rollingWindow: the conversation was over the budget by %s %s; "
				 "the %zu oldest %s (%s to %s) fell out of the window; the newest %zu %s fit",
				 fmt_thousands(n1, over), plural((size_t)over, "token", "tokens"), t->removed, nodes_word(st), f,
				 l, st->nunits - t->range_to, nodes_word(st));
	if (t->removed && !s)
		a->nomem = true;
	else if (t->removed)
		drop_units(st, t->fit == FIT_MIDDLE ? REASON_TRUNCATE_MIDDLE : REASON_ROLLING_WINDOW, s);
	long after = t->after;
	if (t->fit == FIT_MIDDLE && after > usable)
		asm_state(a, ASM_OVER_LIMIT,
			  "over limit by %s %s even after truncateMiddle removed every unprotected %s: the system "
			  "context, the first message and the last %ld path nodes alone take %s of %s tokens",
			  fmt_thousands(n1, after - usable), plural((size_t)(after - usable), "token", "tokens"),
			  st->dialogue ? "message" : "node", min_recent, fmt_thousands(n2, after), fmt_thousands(n3, usable));
	if (t->fit == FIT_ROLLING && after > usable)
		asm_state(a, ASM_OVER_LIMIT,
			  "over limit by %s %s: rollingWindow always keeps the last %s, and with the system context "
			  "it alone takes %s of %s tokens",
			  fmt_thousands(n1, after - usable), plural((size_t)(after - usable), "token", "tokens"),
			  st->dialogue ? "message" : "node or working buffer", fmt_thousands(n2, after),
			  fmt_thousands(n3, usable));
	if (t->fit == FIT_SYSTEM_OVER)
		asm_state(a, ASM_ERROR | ASM_OVER_LIMIT,
			  "error: the system context%s alone takes %s tokens, over the usable budget of %s by %s; "
			  "Aspen Grove never truncates it, so nothing was removed",
			  st->mem ? " with the loom-aware addendum and operational memory" : "",
			  fmt_thousands(n1, st->sys + st->mem), fmt_thousands(n2, usable),
			  fmt_thousands(n3, st->sys + st->mem - usable));
	if (t->fit == FIT_STOP)
		asm_state(a, ASM_ERROR | ASM_OVER_LIMIT,
			  "error: stopAtLimit refuses to truncate and the context is over the usable budget of %s "
			  "by %s %s; exclude nodes (--exclude NODE) or switch strategy or model",
			  fmt_thousands(n1, usable), fmt_thousands(n2, over), plural((size_t)over, "token", "tokens"));
}

/* Appends piece i's block (header, separator, text). */
static long emit_piece(struct state *st, size_t k, bool first_in_unit, int layer)
{
	struct assembly *a = st->a;
	long i = st->seq[k];
	const struct piece *p = &st->src->pieces[i];
	struct block *b = asm_block(a, i, layer, -1);
	long index = (long)a->nblocks - 1;
	if (!first_in_unit)
		asm_span(a, "\n\n", 2, 2);
	if (st->header && st->header[i])
		asm_span(a, st->header[i], strlen(st->header[i]), st->header_cp[i]);
	asm_span(a, p->text, p->text_bytes, p->code_points);
	b->budget_tokens = st->btok[k];
	b->keep_head = p->text_bytes;
	result_base(a, i);
	asm_whole(a, i, index, b->budget_tokens);
	return index;
}

static void emit_made(struct state *st, const char *label, const char *text, size_t cp, int layer, unsigned flags)
{
	struct block *b = asm_block(st->a, -1, layer, -1);
	b->label = label;
	b->flags |= BLOCK_MADE | flags;
	asm_span(st->a, text, strlen(text), cp);
	b->budget_tokens = tokens_estimate(cp == (size_t)-1 ? utf8_count_code_points(text, strlen(text)) : cp,
					   st->a->chars_per_token);
}

static void emit_all(struct state *st, size_t first_removed, size_t removed)
{
	struct assembly *a = st->a;
	const struct loom *m = st->m;
	const struct source *src = st->src;
	/* room made once: a stopAtLimit refusal emits every node */
	size_t pieces = st->nseq - st->gone_pieces, units = st->nunits - removed;
	asm_reserve(a, a->nblocks + pieces + units + 3, a->nspans + 3 * pieces + units + 3, a->nmessages + units + 1);
	long last_history = -1;
	for (size_t u = 0; u < st->nunits; u++) {
		const struct unit *un = &st->units[u];
		bool current = u + 1 == st->nunits;
		int layer = current ? LAYER_CURRENT : LAYER_HISTORY;
		if (u == first_removed && removed) {
			if (st->dialogue)
				asm_message(a, "user");
			emit_made(st, "truncation marker", marker_text(st, removed), (size_t)-1, LAYER_HISTORY, BLOCK_MARKER);
			last_history = (long)a->nblocks - 1;
		}
		if (!un->kept)
			continue;
		if (st->dialogue)
			asm_message(a, un->n ? src->pieces[st->seq[un->first]].role : "");
		if (current && st->loom_block)
			emit_made(st, "loom context", st->loom_block, st->loom_block_cp, LAYER_CURRENT, 0);
		if (un->n == 0) { /* the working buffer */
			emit_made(st, "working buffer", m->working_buffer, (size_t)-1, layer, 0);
		}
		for (size_t k = un->first; k < un->first + un->n; k++)
			emit_piece(st, k, k == un->first || !st->dialogue, layer);
		if (!current)
			last_history = (long)a->nblocks - 1;
	}
	if (last_history >= 0 && (size_t)last_history < a->nblocks)
		a->blocks[last_history].flags |= BLOCK_BREAKPOINT;
}

/* Decide, the system context: which instruction sources go in, and what
 * the joined text costs. */
static void decide_system(struct state *st)
{
	const struct source *src = st->src;
	const struct loom *m = st->m;
	bool use_system = st->dialogue || m->buffer_system_context;
	size_t sys_cp = 0, sys_parts = 0;
	const char *parts_text[2] = { m->agent_prompt, m->tree_context };
	for (int k = 0; k < 2; k++)
		if (parts_text[k][0]) {
			sys_cp += (sys_parts ? 2 : 0) + utf8_count_code_points(parts_text[k], strlen(parts_text[k]));
			sys_parts++;
		}
	for (size_t k = 0; k < st->prep->ninstr; k++) {
		long i = st->prep->instr[k];
		st->why[i] = (unsigned char)(use_system ? filter(st, i) : REASON_NO_SYSTEM_CONTEXT);
		if (st->why[i] != REASON_NONE)
			continue;
		const char *s;
		size_t n;
		trimmed(&src->pieces[i], &s, &n);
		sys_cp += (sys_parts ? 2 : 0) + utf8_count_code_points(s, n);
		sys_parts++;
	}
	if (!use_system)
		sys_parts = sys_cp = 0;
	st->sys_parts = sys_parts;
	st->sys = sys_parts ? tokens_estimate(sys_cp + (st->dialogue ? 0 : 2), st->a->chars_per_token) : 0;
}

/* Decide, the conversation: the pieces the filter lets through, their
 * headers, and the units the budget removes whole. */
static void decide_conversation(struct state *st)
{
	const struct source *src = st->src;
	const struct loom *m = st->m;
	for (size_t i = 0; i < src->npieces; i++) { /* one pass: filter, header, unit */
		enum loom_use use = st->prep->use[i];
		if (use == LOOM_INSTRUCTION || use == LOOM_PINNED)
			continue;
		st->why[i] = (unsigned char)filter(st, (long)i);
		if (st->why[i] != REASON_NONE)
			continue;
		st->seq[st->nseq] = (long)i;
		if (st->header)
			make_header(st, (long)i);
		unit_add(st, st->nseq++);
	}
	if (m->loom_aware)
		make_loom_block(st);
	units_end(st);
}

/* Decide, the budget: whether it all fits, and what the strategy removes. */
static void decide_budget(struct state *st, int strategy, struct truncation *t)
{
	t->total = st->sys + st->mem + st->conv_tokens;
	t->first_removed = st->nunits;
	if (st->sys + st->mem > t->usable)
		t->fit = FIT_SYSTEM_OVER;
	else if (t->total <= t->usable)
		t->fit = FIT_WHOLE;
	else if (strategy == STRAT_STOP_AT_LIMIT)
		t->fit = FIT_STOP;
	else if (strategy == STRAT_ROLLING_WINDOW)
		t->fit = FIT_ROLLING, rolling_window(st, st->sys + st->mem, t);
	else
		t->fit = FIT_MIDDLE, truncate_middle(st, t);
	if (t->removed)
		st->a->flags |= ASM_TRUNCATED;
}

static bool has_loom_aware_data(const struct loom *m)
{
	return m->addendum[0] || m->npinned || m->nrecent || m->nstashes;
}

static long text_tokens(const struct state *st, const char *s)
{
	return tokens_estimate(utf8_count_code_points(s, strlen(s)), st->a->chars_per_token);
}

/* A pinned entry's block: "- LABEL: TEXT\n". */
static long pinned_tokens(const struct state *st, long i)
{
	const struct piece *p = &st->src->pieces[i];
	size_t cp = 2 + utf8_count_code_points(p->label, strlen(p->label)) + 2 + p->code_points + 1;
	return tokens_estimate(cp, st->a->chars_per_token);
}

/* The memory block's text after its pinned entries: the recent actions,
 * the stash names, the closing line. */
static void memory_tail(const struct loom *m, bool dialogue, struct strbuf *sb)
{
	if (m->nrecent)
		sb_puts(sb, "Recent actions:\n");
	for (size_t k = 0; k < m->nrecent; k++)
		sb_printf(sb, "- %s\n", m->recent_actions[k]);
	if (m->nstashes)
		sb_puts(sb, "Stashed:\n");
	for (size_t k = 0; k < m->nstashes; k++)
		sb_printf(sb, "- %s\n", m->stashes[k]);
	sb_puts(sb, dialogue ? "===" : "===\n\n");
}

/* Decide, the loom-aware extensions (ctxscope-formats(5) section 1): the addendum
 * after the system context, then the operational memory block (pinned
 * entries, recent actions, stashed names; empty sections left out). Only
 * with loom-aware rendering on; their tokens are protected like the
 * system context's. */
static void decide_memory(struct state *st)
{
	const struct loom *m = st->m;
	struct assembly *a = st->a;
	size_t kept = 0;
	long pinned = 0;
	for (size_t k = 0; k < st->prep->npinned; k++) {
		long i = st->prep->pinned[k];
		st->why[i] = (unsigned char)filter(st, i);
		if (st->why[i] == REASON_NONE)
			kept++, pinned += pinned_tokens(st, i);
	}
	if (!m->loom_aware)
		return;
	if (m->addendum[0] && (st->dialogue || m->buffer_system_context)) {
		st->add_text = st->dialogue ? arena_printf(&a->arena, "%s%s", st->sys_parts ? "\n\n" : "", m->addendum)
					    : arena_printf(&a->arena, "%s\n\n", m->addendum);
		if (!st->add_text)
			a->nomem = true;
		else
			st->mem += text_tokens(st, st->add_text);
	}
	if (!kept && !m->nrecent && !m->nstashes)
		return;
	bool sep = st->dialogue && (st->sys_parts || st->add_text);
	st->mem_head = arena_printf(&a->arena, "%s=== Operational Memory ===\n%s", sep ? "\n\n" : "",
				    kept ? "Pinned:\n" : "");
	struct strbuf sb = STRBUF_INIT;
	memory_tail(m, st->dialogue, &sb);
	st->mem_tail = sb.failed ? NULL : arena_strndup(&a->arena, sb_str(&sb), sb.len);
	sb_fini(&sb);
	if (!st->mem_head || !st->mem_tail) {
		a->nomem = true;
		st->mem_head = st->mem_tail = NULL;
		return;
	}
	st->mem += text_tokens(st, st->mem_head) + pinned + text_tokens(st, st->mem_tail);
}

/* Render, the addendum and the operational memory block (system message
 * in dialogue mode; the document's start in buffer mode). */
static void render_memory(struct state *st)
{
	struct assembly *a = st->a;
	const struct source *src = st->src;
	if (st->add_text)
		emit_made(st, "system addendum", st->add_text, (size_t)-1, LAYER_MEMORY, 0);
	if (!st->mem_head)
		return;
	emit_made(st, "operational memory", st->mem_head, (size_t)-1, LAYER_MEMORY, 0);
	for (size_t k = 0; k < st->prep->npinned; k++) {
		long i = st->prep->pinned[k];
		if (st->why[i] != REASON_NONE)
			continue;
		const struct piece *p = &src->pieces[i];
		struct block *b = asm_block(a, i, LAYER_MEMORY, -1);
		long index = (long)a->nblocks - 1;
		asm_span(a, "- ", 2, 2);
		asm_span(a, p->label, strlen(p->label), (size_t)-1);
		asm_span(a, ": ", 2, 2);
		asm_span(a, p->text, p->text_bytes, p->code_points);
		asm_span(a, "\n", 1, 1);
		b->budget_tokens = pinned_tokens(st, i);
		result_base(a, i);
		asm_whole(a, i, index, b->budget_tokens);
	}
	emit_made(st, "operational memory end", st->mem_tail, (size_t)-1, LAYER_MEMORY, 0);
}

/* Render, the system context: one block, its texts joined by a blank line. */
static void render_system(struct state *st)
{
	struct assembly *a = st->a;
	const struct source *src = st->src;
	const struct loom *m = st->m;
	if (st->dialogue && (st->sys_parts || st->add_text || st->mem_head))
		asm_message(a, "system");
	if (!st->sys_parts)
		return;
	struct block *b = asm_block(a, -1, LAYER_SYSTEM, -1);
	long bi = (long)a->nblocks - 1;
	b->label = "system context";
	b->flags |= BLOCK_MADE | BLOCK_BREAKPOINT;
	b->budget_tokens = st->sys;
	size_t done = 0;
	const char *parts_text[2] = { m->agent_prompt, m->tree_context };
	for (int k = 0; k < 2; k++)
		if (parts_text[k][0]) {
			if (done++)
				asm_span(a, "\n\n", 2, 2);
			asm_span(a, parts_text[k], strlen(parts_text[k]), (size_t)-1);
		}
	for (size_t k = 0; k < st->prep->ninstr; k++) {
		long i = st->prep->instr[k];
		if (st->why[i] != REASON_NONE)
			continue;
		const char *s;
		size_t n;
		trimmed(&src->pieces[i], &s, &n);
		if (done++)
			asm_span(a, "\n\n", 2, 2);
		asm_span(a, s, n, (size_t)-1);
		result_base(a, i);
		asm_whole(a, i, bi, tokens_of_text(s, n, a->chars_per_token));
	}
	if (!st->dialogue)
		asm_span(a, "\n\n", 2, 2);
}

/* Explain, a replayed request (the replay setting): whose request it is
 * and what the provider recorded for it. */
static void explain_replayed(struct state *st)
{
	const struct source *src = st->src;
	const struct loom *m = st->m;
	const struct loom_prep *pr = st->prep;
	long i = m->replay_pos < pr->depth ? pr->at_pos[m->replay_pos] : -1; /* the primary there (prep) */
	if (i < 0)
		return;
	const struct loom_item *it = &m->items[src->pieces[i].kind_index];
	char n1[32];
	if (it->prompt_tokens != LOOM_NO_TOKENS)
		asm_fact(st->a, "request", "the one that produced %s, replayed: the path's first %zu nodes; the "
			 "provider recorded %s prompt tokens", src->pieces[i].label, st->depth,
			 fmt_thousands(n1, it->prompt_tokens));
	else
		asm_fact(st->a, "request", "the one that produced %s, replayed: the path's first %zu nodes; no "
			 "recorded usage", src->pieces[i].label, st->depth);
}

/* Decide, the request's extent: the whole path, or the nodes before the
 * replayed one (with the latest time among them, for relative times). */
static void decide_extent(struct state *st)
{
	const struct source *src = st->src;
	const struct loom *m = st->m;
	st->depth = m->depth;
	st->latest_ms = m->latest_ms;
	if (m->replay_pos == SIZE_MAX)
		return;
	st->depth = m->replay_pos;
	st->latest_ms = LOOM_NO_TIME;
	if (m->replay_pos <= st->prep->depth) { /* the running latest (prep) */
		st->latest_ms = st->prep->latest[m->replay_pos];
		return;
	}
	for (size_t i = 0; i < src->npieces; i++) {
		const struct loom_item *it = &m->items[src->pieces[i].kind_index];
		if (it->use == LOOM_PRIMARY && it->path_pos < m->replay_pos && it->created_ms != LOOM_NO_TIME &&
		    (st->latest_ms == LOOM_NO_TIME || it->created_ms > st->latest_ms))
			st->latest_ms = it->created_ms;
	}
}

/* Explain, the header facts: the mode, the tree, the model and settings. */
static void explain_settings(struct state *st, int strategy, long min_recent)
{
	struct assembly *a = st->a;
	const struct source *src = st->src;
	const struct loom *m = st->m;
	char n1[32];
	asm_fact(a, "mode", "%s", st->dialogue ? "dialogue (a messages array)"
			   : m->buffer_system_context ? "buffer (one document; bufferModeSystemContext: true)"
			   : "buffer (one document; no system context: bufferModeSystemContext is false)");
	asm_fact(a, "tree", "%s%s%s%s", m->title[0] ? m->title : "(untitled)", m->tree_id[0] ? " (" : "", m->tree_id,
		 m->tree_id[0] ? ")" : "");
	asm_fact(a, "model", "%s, limit %s from %s", m->model_ref ? m->model_ref : "(none)",
		 fmt_thousands(n1, m->limit), m->limit_source);
	if (m->agent_name)
		asm_fact(a, "agent", "%s (%s)", m->agent_name,
			 m->agent_prompt[0] ? "its systemPrompt opens the system context" : "no systemPrompt");
	asm_fact(a, "budget", "%s", src->settings.budget >= 0 ? "set with b or --budget, instead of limit - tokenBuffer"
				    : "limit - preferences.tokenBuffer");
	if (src->settings.strategy != STRAT_NONE && src->settings.strategy != m->strategy)
		asm_fact(a, "strategy", "%s (--strategy; the tree says %s)", strategy_name(strategy),
			 strategy_name(m->strategy));
	else
		asm_fact(a, "strategy", "%s", strategy_name(strategy));
	asm_fact(a, "min_recent", "%ld path nodes%s", min_recent, m->min_recent_override >= 0 ? " (--min-recent)" : "");
	asm_fact(a, "path", "%s, %zu nodes", m->path_source, m->depth);
	if (m->replay_pos != SIZE_MAX)
		explain_replayed(st);
	asm_fact(a, "loom_aware", "%s", !m->loom_aware ? "off"
			 : has_loom_aware_data(m) ? "on (headers, the Loom Context block, the addendum and the operational "
						    "memory are counted)"
						  : "on (headers and the Loom Context block are counted)");
}

/* Explain, the pieces the filter left out: instruction sources first, then
 * the conversation, each in tree order (the order they were decided). */
static void explain_filters(struct state *st)
{
	const struct loom_prep *pr = st->prep;
	for (size_t k = 0; k < pr->ninstr; k++)
		if (st->why[pr->instr[k]] != REASON_NONE)
			explain_filtered(st, pr->instr[k]);
	size_t n = st->src->npieces;
	for (size_t i = 0; i < n; i++) {
		uint64_t word;
		if ((i & 7) == 0 && i + 8 <= n && (memcpy(&word, st->why + i, 8), word == 0)) {
			i += 7; /* eight that go in */
			continue;
		}
		if (st->why[i] != REASON_NONE && pr->use[i] != LOOM_INSTRUCTION)
			explain_filtered(st, (long)i);
	}
}

/* Explain, seed 000's guarantee of at least one message: a path whose
 * every node the filters dropped (and, in buffer mode, no working buffer)
 * is a request the app would not send. */
static void explain_empty(struct state *st)
{
	if (st->nunits)
		return;
	asm_state(st->a, ASM_ERROR,
		  "error: every node on the path is filtered out: the request would have no message "
		  "(seed 000 always keeps at least one); include a node (--include NODE)");
}

/* The run's working arrays (units, seq, btok, why), carved from one block
 * the prep keeps from one run to the next: an assembly of a big tree
 * otherwise took and gave back 10 MB, and the heap, cut up by them, grew
 * fresh pages (page faults) for the assembly's own arrays. Left NULL on
 * out of memory. */
static void working_arrays(struct state *st)
{
	struct loom_prep *pr = loom_cache(st->src)->prep;
	size_t n = st->src->npieces, np = n ? n : 1;
	if (!pr->scratch)
		pr->scratch = cs_malloc((n + 2) * sizeof *st->units + np * (sizeof *st->seq + sizeof *st->btok) + np);
	if (!pr->scratch)
		return;
	char *at = pr->scratch; /* units, then the longs, then the bytes: each aligned */
	st->units = (struct unit *)(void *)at;
	at += (n + 2) * sizeof *st->units;
	st->seq = (long *)(void *)at;
	at += np * sizeof *st->seq;
	st->btok = (long *)(void *)at;
	at += np * sizeof *st->btok;
	st->why = (unsigned char *)at;
	memset(st->why, 0, np); /* REASON_NONE until decided */
}

/* decide (system, conversation, budget) → render → explain. */
int loom_assemble(struct asm_run *run, struct assembly *a, struct cs_error *err)
{
	const struct source *src = run->src;
	const struct loom *m = src->model;
	struct state st = { .a = a, .src = src, .m = m, .dialogue = m->mode == LOOM_DIALOGUE };
	int rc = asm_init_unset(a, run, st.dialogue ? ASM_MESSAGES : ASM_DOCUMENT); /* result_base */
	if (rc == CS_OK)
		rc = loom_prepare(src); /* once per source: what no edit changes */
	st.prep = m->cache.prep;
	if (rc != CS_OK)
		return cs_error_nomem(err);
	static const char *const layers[] = { "system", "history", "current", "memory" };
	asm_grouping(a, "physical", layers, has_loom_aware_data(m) ? 4 : 3);

	int strategy = src->settings.strategy != STRAT_NONE ? src->settings.strategy : m->strategy;
	struct truncation t = { .min_recent = m->min_recent_override >= 0 ? m->min_recent_override : m->min_recent };
	t.usable = src->settings.budget >= 0 ? src->settings.budget : m->limit - m->token_buffer;
	a->budget.limit = src->settings.budget >= 0 ? t.usable + m->token_buffer : m->limit;
	a->budget.reserve = m->token_buffer;
	a->budget.usable = t.usable;

	size_t np = src->npieces ? src->npieces : 1;
	working_arrays(&st);
	if (m->loom_aware && st.dialogue) {
		st.header = cs_calloc(np, sizeof *st.header);
		st.header_cp = cs_calloc(np, sizeof *st.header_cp);
	}
	if (!st.seq || !st.btok || !st.units || !st.why || (m->loom_aware && st.dialogue && (!st.header || !st.header_cp))) {
		rc = cs_error_nomem(err);
		goto out;
	}

	st.tok = loom_prep_tokens(src, a->chars_per_token);
	st.user = loom_prep_user(src, run->lazy);
	if (!st.user) {
		rc = cs_error_nomem(err);
		goto out;
	}
	decide_extent(&st);
	decide_system(&st);
	decide_memory(&st);
	decide_conversation(&st);
	decide_budget(&st, strategy, &t);
	render_system(&st);
	render_memory(&st);
	emit_all(&st, t.first_removed, t.removed);
	explain_settings(&st, strategy, t.min_recent);
	explain_filters(&st);
	explain_truncation(&st, &t);
	explain_empty(&st);

	rc = asm_finish(a, err);
	if (a->flags & ASM_OVER_LIMIT)
		a->over_by = a->budget.used - t.usable;
out:
	cs_free(st.header);
	cs_free(st.header_cp);
	return rc;
}
