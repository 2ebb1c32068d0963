/* exact.c: exact counts of an assembly (see exact.h). */
#include "tokens/exact.h"

#include "base/alloc.h"
#include "assembly.h"
#include "emit.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"

#include <stdio.h>
#include <string.h>

/* A block's count: its text's, and its images' and documents' by their
 * rule (an image's own text only names it: not counted). */
static int count_blocks(struct exact_counts *x, struct tokenizer *t, struct strbuf *text, struct cs_error *err)
{
	const struct assembly *a = x->a;
	for (size_t b = 0; b < a->nblocks; b++) {
		const struct block *bl = &a->blocks[b];
		long n = 0;
		if (!(bl->flags & BLOCK_MEDIA)) {
			sb_reset(text);
			if (!asm_block_text(a, b, text) || text->failed)
				return cs_error_nomem(err);
			int rc = tokenizer_count(t, sb_str(text), text->len, &n, err);
			if (rc != CS_OK)
				return rc;
		}
		n += bl->media_tokens;
		if (bl->piece >= 0)
			x->piece_tokens[bl->piece] += n;
		if (a->ngroupings && bl->layer[0] >= 0 && (size_t)bl->layer[0] < x->nlayers)
			x->layer_tokens[bl->layer[0]] += n;
	}
	return CS_OK;
}

/* The whole prompt: a document at once, messages one by one, and the
 * images and documents by their rule (only messages hold them: their
 * text, which only names them, is left out). */
static int count_total(struct exact_counts *x, struct tokenizer *t, struct strbuf *text, struct cs_error *err)
{
	const struct assembly *a = x->a;
	for (size_t b = 0; b < a->nblocks; b++)
		x->total += a->blocks[b].media_tokens;
	size_t parts = a->shape == ASM_MESSAGES ? a->nmessages : 1;
	for (size_t m = 0; m < parts; m++) {
		sb_reset(text);
		bool ok = true;
		if (a->shape == ASM_MESSAGES)
			for (size_t b = a->messages[m].first_block; ok && b < a->messages[m].first_block + a->messages[m].nblocks; b++)
				ok = (a->blocks[b].flags & BLOCK_MEDIA) || asm_block_text(a, b, text);
		else
			ok = asm_prompt_text(a, text);
		if (!ok || text->failed)
			return cs_error_nomem(err);
		long n = 0;
		int rc = tokenizer_count(t, sb_str(text), text->len, &n, err);
		if (rc != CS_OK)
			return rc;
		x->total += n;
	}
	return CS_OK;
}

int exact_count(struct exact_counts *x, struct tokenizer *t, const struct assembly *a, struct cs_error *err)
{
	memset(x, 0, sizeof *x);
	x->a = a;
	snprintf(x->encoding, sizeof x->encoding, "%s", tokenizer_name(t));
	size_t np = a->src->npieces;
	x->nlayers = a->ngroupings ? a->groupings[0].nlayers : 0;
	x->piece_tokens = cs_calloc(np ? np : 1, sizeof *x->piece_tokens);
	x->layer_tokens = cs_calloc(x->nlayers ? x->nlayers : 1, sizeof *x->layer_tokens);
	if (!x->piece_tokens || !x->layer_tokens) {
		exact_fini(x);
		return cs_error_nomem(err);
	}
	struct strbuf text = STRBUF_INIT;
	int rc = count_blocks(x, t, &text, err);
	if (rc == CS_OK)
		rc = count_total(x, t, &text, err);
	sb_fini(&text);
	if (rc != CS_OK) {
		exact_fini(x);
		return rc;
	}
	for (size_t i = 0; i < np; i++)
		if (a->results[i].outcome == OUTCOME_DROPPED)
			x->piece_tokens[i] = -1;
	x->over = exact_judge(&a->budget, x->total, x->encoding, x->note, sizeof x->note);
	return CS_OK;
}

int exact_from_live(struct exact_counts *x, const struct exact_live *L, const struct assembly *a, const char *encoding,
		    struct cs_error *err)
{
	memset(x, 0, sizeof *x);
	x->a = a;
	snprintf(x->encoding, sizeof x->encoding, "%s", encoding);
	size_t np = a->src->npieces;
	x->nlayers = L->nlayers[0];
	x->piece_tokens = cs_calloc(np ? np : 1, sizeof *x->piece_tokens);
	x->layer_tokens = cs_calloc(x->nlayers ? x->nlayers : 1, sizeof *x->layer_tokens);
	if (!x->piece_tokens || !x->layer_tokens) {
		exact_fini(x);
		return cs_error_nomem(err);
	}
	if (np)
		memcpy(x->piece_tokens, L->piece_tokens, np * sizeof *x->piece_tokens);
	if (x->nlayers)
		memcpy(x->layer_tokens, L->layer_tokens[0], x->nlayers * sizeof *x->layer_tokens);
	x->total = L->total;
	x->over = L->over;
	snprintf(x->note, sizeof x->note, "%s", L->note);
	return CS_OK;
}

bool exact_judge(const struct budget *bg, long total, const char *encoding, char *note, size_t size)
{
	if (size)
		note[0] = '\0';
	if (!(bg->usable > 0 && bg->used <= bg->usable && total > bg->usable))
		return false;
	char u[32], e[32], t[32], o[32];
	if (tokenizer_name_approximate(encoding))
		snprintf(note, size, "the system thinks this fits: %s of %s estimated; approximately %s (%s), %s over",
			 fmt_thousands(e, bg->used), fmt_thousands(u, bg->usable), fmt_thousands(t, total), encoding,
			 fmt_thousands(o, total - bg->usable));
	else
		snprintf(note, size, "the system thinks this fits: %s of %s estimated; exactly %s, %s over",
			 fmt_thousands(e, bg->used), fmt_thousands(u, bg->usable), fmt_thousands(t, total),
			 fmt_thousands(o, total - bg->usable));
	return true;
}

int exact_prepare(struct exact_counts *x, const char *tokenizer, const struct assembly *a, bool optional,
		  struct cs_error *err)
{
	memset(x, 0, sizeof *x);
	struct tokenizer *t = NULL;
	int rc = tokenizer_open(tokenizer, &t, err);
	if (rc == CS_EIO && optional) {
		x->a = a;
		x->unavailable = true;
		snprintf(x->encoding, sizeof x->encoding, "%s", tokenizer);
		cs_error_format(err, x->note, sizeof x->note);
		cs_error_clear(err);
		return CS_OK;
	}
	if (rc == CS_OK)
		rc = exact_count(x, t, a, err);
	tokenizer_close(t);
	return rc;
}

const char *exact_auto_tokenizer(const struct assembly *a)
{
	for (size_t i = 0; i < a->nfacts; i++) {
		if (strcmp(a->facts[i].key, "model") != 0)
			continue;
		const char *enc = tokenizer_for_model(a->facts[i].value);
		if (enc)
			return enc;
	}
	return NULL;
}

void exact_fini(struct exact_counts *x)
{
	cs_free(x->piece_tokens);
	cs_free(x->layer_tokens);
	x->piece_tokens = x->layer_tokens = NULL;
	x->nlayers = 0;
}

static void emit_ratio(struct emitter *em, long exact, long estimated)
{
	emit_key_num(em, "ratio", estimated > 0 ? (double)(long)(100.0 * (double)exact / (double)estimated + 0.5) / 100.0 : 0.0);
}

int exact_write(const struct assembly *a, void *ctx, struct emitter *em)
{
	const struct exact_counts *x = ctx;
	/* an approximate encoding's figures are under "approximate", never "exact" */
	const char *w = tokenizer_kind(x->encoding);
	bool approx = tokenizer_name_approximate(x->encoding);
	emit_map_begin(em);
	emit_key_str(em, "encoding", x->encoding);
	emit_key_str(em, "kind", x->unavailable ? "estimated" : w);
	if (x->unavailable) {
		emit_key_str(em, "unavailable", x->note);
		emit_key_str(em, "counts", "the estimate (the system's own rule) only");
		emit_map_end(em);
		return CS_OK;
	}
	emit_key_str(em, "label", approx ? "approximate counts by ai-tokenizer's claude encoding (not Anthropic's own "
					   "tokenizer); estimated: the system's own rule"
					 : "exact counts by the encoding; estimated: the system's own rule");
	emit_key_int(em, w, x->total);
	emit_key_int(em, "estimated", a->total_tokens);
	emit_ratio(em, x->total, a->total_tokens);
	emit_key_int(em, "usable", a->budget.usable);
	emit_key_bool(em, approx ? "approximate_fits" : "exact_fits", a->budget.usable <= 0 || x->total <= a->budget.usable);
	if (x->over)
		emit_key_str(em, "warning", x->note);
	if (x->nlayers) {
		emit_key(em, "layers");
		emit_list_begin(em);
		for (size_t l = 0; l < x->nlayers; l++) {
			emit_map_begin(em);
			emit_key_str(em, "layer", a->groupings[0].layers[l].name);
			emit_key_int(em, "estimated", a->groupings[0].layers[l].tokens);
			emit_key_int(em, w, x->layer_tokens[l]);
			emit_map_end(em);
		}
		emit_list_end(em);
	}
	emit_key(em, "pieces");
	emit_list_begin(em);
	for (size_t b = 0; b < a->nblocks; b++) {
		long p = a->blocks[b].piece;
		if (p < 0 || x->piece_tokens[p] < 0 || a->results[p].block != (long)b)
			continue; /* once per piece, at its first block */
		emit_map_begin(em);
		emit_key_str(em, "id", a->src->pieces[p].id);
		emit_key_int(em, "estimated", a->blocks[b].tokens);
		emit_key_int(em, w, x->piece_tokens[p]);
		emit_map_end(em);
	}
	emit_list_end(em);
	emit_map_end(em);
	return CS_OK;
}
