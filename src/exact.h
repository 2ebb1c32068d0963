/* exact.h: exact token counts of an assembly (formats.md §8), beside the
 * systems' estimate: per block and piece, per layer, and the whole prompt
 * (each message counted on its own; the provider's per-message framing is
 * not counted). Says in words when the estimate fits the usable budget but
 * the exact count does not. The report's "exact_tokens" section. */
#ifndef CTXSCOPE_EXACT_H
#define CTXSCOPE_EXACT_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

struct assembly;
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

/* The encoding of the OpenAI model the assembly names (its "model" fact:
 * gpt-4o, openai:o3...); else NULL. */
const char *exact_auto_tokenizer(const struct assembly *a);

/* The report_section callback; ctx is the exact_counts. */
int exact_write(const struct assembly *a, void *ctx, struct emitter *em);

#endif
