/* exact.h: exact token counts of an assembly (ctxscope-formats(5) §8), beside the
 * systems' estimate (or approximate ones, for Claude's claude encoding:
 * the same figures, said to be approximate): per block and piece, per layer, and the whole prompt
 * (each message counted on its own; the provider's per-message framing is
 * not counted). Says in words when the estimate fits the usable budget but
 * the exact count does not. The report's "exact_tokens" section. */
#ifndef CTXSCOPE_EXACT_H
#define CTXSCOPE_EXACT_H

#include "assembly.h"
#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

struct emitter;
struct tokenizer;

struct exact_counts {
	const struct assembly *a;  /* borrowed */
	char encoding[64];
	long *piece_tokens;        /* per source piece; -1 when not in the prompt */
	long *layer_tokens;        /* per layer of the first grouping */
	size_t nlayers;
	long total;                /* the whole prompt, exactly */
	bool over;                 /* the estimate fits the usable budget, the exact count does not */
	bool unavailable;          /* an optional encoding's rank file is not there: note says how to get it */
	char note[CS_ERROR_MSG_MAX]; /* that, in words; "" when neither */
};

/* Counts a's prompt with t (borrowed, used only here). CS_ENOMEM or the
 * tokenizer's error; x is then empty but safe to fini. */
int exact_count(struct exact_counts *x, struct tokenizer *t, const struct assembly *a, struct cs_error *err);
/* exact_count with the tokenizer named (tokenizer_open), opened and closed
 * here. optional (chosen by the model's name, not asked for): a rank file
 * that is not there is no error but x->unavailable, with the sentence. */
int exact_prepare(struct exact_counts *x, const char *tokenizer, const struct assembly *a, bool optional,
		  struct cs_error *err);
void exact_fini(struct exact_counts *x);
/* x from live counts of a (copied: x owns its arrays), as exact_count would
 * give them. CS_OK or CS_ENOMEM. */
struct exact_live;
int exact_from_live(struct exact_counts *x, const struct exact_live *L, const struct assembly *a, const char *encoding,
		    struct cs_error *err);

/* The encoding of the model the assembly names (its "model" fact: gpt-4o,
 * openai:o3..., or a Claude model: claude); else NULL. */
const char *exact_auto_tokenizer(const struct assembly *a);

/* The report_section callback; ctx is the exact_counts. */
int exact_write(const struct assembly *a, void *ctx, struct emitter *em);

/* Whether the estimate fits the budget b but `total` tokens counted by
 * `encoding` do not; then note (size bytes) gets the sentence ("the system
 * thinks this fits: 118,200 of 126,976 estimated; exactly 131,540, 4,564
 * over"; "approximately 131,540 (claude)" for an approximate encoding),
 * else "". */
bool exact_judge(const struct budget *b, long total, const char *encoding, char *note, size_t size);

/* ---- live counts (exact_live.c) --------------------------------------------
 * The inspector's counts, remembered by text so that an edit recounts only
 * what it changed: each block's text is counted once (a cut block is new
 * text, counted then), and the whole prompt is summed from parts that split
 * at line starts (tokenizer_splits_at_lines): the lines inside a block are
 * counted with it, only the few lines around each seam between blocks are
 * counted again when a neighbour changes. The figures equal exact_count's. */
struct exact_memo;

struct exact_live {
	struct exact_memo *memo;      /* owned: counts by text */
	long *piece_tokens;           /* per source piece; -1 when not in the prompt */
	size_t npieces;
	long *layer_tokens[ASM_MAX_GROUPINGS]; /* per grouping, per layer */
	size_t nlayers[ASM_MAX_GROUPINGS];
	long *block_tokens;           /* per block of the assembly counted */
	size_t nblocks;
	long total;                   /* the whole prompt, exactly */
	bool over;                    /* see exact_judge */
	char note[CS_ERROR_MSG_MAX];
	size_t counted_bytes;         /* bytes the last exact_live_count tokenized (what changed) */
	void *scratch;                /* owned: per-block parts, seams, text */
	bool memo_borrowed;           /* memo is another exact_live's (exact_live_share) */
};

/* Counts a (borrowed) with t (borrowed; the same tokenizer at every call,
 * else exact_live_fini first). CS_OK, CS_ENOMEM or the tokenizer's error;
 * on failure the figures are -1 and L stays safe to use and fini. */
int exact_live_count(struct exact_live *L, struct tokenizer *t, const struct assembly *a, struct cs_error *err);
/* The exact count of any text (a dropped piece's, for the detail),
 * remembered like the rest. -1 on failure (err says why). */
long exact_live_text(struct exact_live *L, struct tokenizer *t, const char *s, size_t n, struct cs_error *err);
/* L remembers in from's memo from now on (a baseline beside the current
 * prompt: their texts are mostly the same). from must have counted, and be
 * finied after L. */
void exact_live_share(struct exact_live *L, const struct exact_live *from);
/* Frees everything; L is then zeroed (ready for another tokenizer). */
void exact_live_fini(struct exact_live *L);

#endif
