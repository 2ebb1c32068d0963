/* diff.h: what changed between a baseline assembly and the current one, for
 * the inspector's `d` view: pieces added to the prompt, removed from it,
 * truncated differently (tokens before and after), and moved (their place
 * among the prompt's pieces); and the cache figures of cache.h: the first
 * divergent token, the tokens still cached, to rewrite and new, and the cost
 * change under the active profile. Rendered as lines of text for the view
 * (display-safe) and through emit.h for reports.
 *
 * Decisions where the issue is silent:
 * - Pieces are matched by id, so a baseline loaded from another file (an
 *   older working set) compares too. Blocks the assembler made (system
 *   context, wrappers) are not pieces: a change in them shows in the first
 *   divergent token and the cache figures, not as a line.
 * - "Moved" is relative order: of the pieces in both prompts, those outside
 *   a longest run kept in the same order (a longest increasing subsequence)
 *   moved. A piece added before everything does not make every later piece
 *   "moved"; one piece pulled to the front is the one reported.
 * - "Truncated differently": in both prompts, with a different outcome
 *   (whole / cut) or a different count of budgeted tokens.
 * - Cache tokens (cache_cost): still cached = read; to rewrite = rewritten
 *   (the baseline had them cached; they are written again at the write
 *   price); new = every other token of the prompt (total - read - rewritten).
 *   The cost change is now.cost - steady.cost: this request after the
 *   baseline against the baseline repeated on its own warm cache, in
 *   base-price tokens, and in dollars when the profile has a price. */
#ifndef CTXSCOPE_DIFF_H
#define CTXSCOPE_DIFF_H

#include "cache/cache.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct assembly;
struct emitter;
struct strbuf;

enum diff_flag {
	DIFF_ADDED = 1u << 0,   /* out of the baseline's prompt, in the current one */
	DIFF_REMOVED = 1u << 1, /* in the baseline's prompt, out of the current one */
	DIFF_CUT = 1u << 2,     /* in both, truncated differently */
	DIFF_MOVED = 1u << 3,   /* in both, its place among the others changed */
};

struct diff_change {
	unsigned flags;        /* enum diff_flag, at least one */
	const char *id;        /* borrowed from a source */
	const char *name;      /* the label the list shows (piece_name) */
	long piece;            /* in the current source; -1 when only the baseline has it */
	long base_piece;       /* in the baseline's source; -1 when only the current one has it */
	long tokens_before;    /* budgeted tokens in the baseline (0 when out) */
	long tokens_after;     /* budgeted tokens now (0 when out) */
	long original_tokens;  /* its tokens before any cut (now's, else the baseline's) */
	long position_before;  /* 1-based place among the baseline prompt's pieces; 0 when out */
	long position_after;   /* 1-based place among the current prompt's pieces; 0 when out */
	long offset_before;    /* tokens before it in the baseline's prompt; -1 when out */
	long offset_after;     /* tokens before it in the current prompt; -1 when out */
	int reason_before;     /* enum reason: why it was out or cut in the baseline */
	int reason_after;      /* why it is out or cut now */
};

struct diff {
	const struct assembly *base;     /* borrowed */
	const struct assembly *now;      /* borrowed */
	struct diff_change *changes;     /* owned: current prompt order, then the removed
	                                    in the baseline's order */
	size_t n, cap;
	size_t added, removed, cut, moved; /* pieces with each flag */
	struct cache_analysis an;        /* owned: now against the baseline under the profile */
	long still_cached;               /* an.now.read */
	long to_rewrite;                 /* an.now.rewritten */
	long new_tokens;                 /* an.now.total - read - rewritten */
};

/* Compares now with base (both borrowed; they must outlive d) under profile p
 * (borrowed); user breakpoint overrides o_base, o_now may be NULL. Fills *d
 * (free with diff_fini, also after an error). CS_OK or CS_ENOMEM. */
int diff_build(const struct assembly *base, const struct cache_overrides *o_base, const struct assembly *now,
	       const struct cache_overrides *o_now, const struct cache_profile *p, struct diff *d,
	       struct cs_error *err);
/* NULL-safe. */
void diff_fini(struct diff *d);
/* Only the moves: one flag per piece of now's source, true when it is in
 * both prompts and moved (as diff_build's DIFF_MOVED); cs_calloc'd, NULL
 * on out of memory. */
bool *diff_moved(const struct assembly *base, const struct assembly *now);

/* The diff as lines of text for the view, each ending in '\n', every string
 * from an input sanitized (utf8_sanitize; flags UTF8_ASCII for a non-UTF-8
 * terminal). Returns false when out ran out of memory. */
bool diff_lines(const struct diff *d, unsigned flags, struct strbuf *out);

/* The diff as a map through em (report sections, export). CS_OK. */
int diff_emit(const struct diff *d, struct emitter *em);

/* "added", "removed", "truncated", "moved": the flag's code. */
const char *diff_flag_code(unsigned flag);

#endif
