/* report.c: the assembly report in text, YAML and JSON (see report.h). */
#include "report.h"

#include "assembly.h"
#include "emit.h"
#include "text/hidden_report.h"
#include "kind.h"
#include "source.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool report_format_from_name(const char *name, enum report_format *out)
{
	if (!strcmp(name, "text"))
		*out = REPORT_TEXT;
	else if (!strcmp(name, "yaml"))
		*out = REPORT_YAML;
	else if (!strcmp(name, "json"))
		*out = REPORT_JSON;
	else
		return false;
	return true;
}

int report_exit_status(const struct assembly *a)
{
	return a->flags & (ASM_OVER_LIMIT | ASM_ERROR | ASM_MUST_MISSING) ? 3 : 0;
}

static long pct(long part, long whole)
{
	return whole > 0 ? (long)floor(100.0 * (double)part / (double)whole + 0.5) : 0;
}

static bool has_priorities(const struct source *src)
{
	return src->kind->piece_strategies != NULL;
}

static bool has_scores(const struct assembly *a)
{
	for (size_t i = 0; i < a->src->npieces; i++)
		if (isfinite(a->results[i].score))
			return true;
	return false;
}

static bool has_recorded(const struct source *src)
{
	for (size_t i = 0; i < src->npieces; i++)
		if (src->pieces[i].flags & PIECE_RECORDED)
			return true;
	return false;
}

/* The kind's own sections, then the caller's (cache analysis...), into the
 * open map of em. Returns the first writer's error, or CS_OK. */
static int extra_sections(const struct assembly *a, const struct report_options *opt, struct emitter *em)
{
	int rc = CS_OK;
	if (a->src->kind->report_extra)
		rc = a->src->kind->report_extra(a->src, a, em);
	for (const struct report_section *s = opt->extra; s && s->name; s++) {
		emit_key(em, s->name);
		int r = s->write(a, s->ctx, em);
		if (rc == CS_OK)
			rc = r;
	}
	return rc;
}

/* The rows take pieces in the order decided, scattered over memory: piece
 * i's row is due a few rows on, so its piece and result are asked for now
 * (near) and the texts they point to a few rows later (soon). Always
 * inlined: GCC 12 finds a helper that only prefetches pure, and drops
 * its calls as unused (no prefetch was left in the object). */
#define PREFETCH_NEAR 4
#define PREFETCH_FAR 8

static inline __attribute__((always_inline)) void prefetch_piece(const struct assembly *a, long i)
{
	const struct piece *p = &a->src->pieces[i];
	const struct piece_result *r = &a->results[i];
	/* both ends: a piece spans two or three cache lines, a result two */
	__builtin_prefetch(p);
	__builtin_prefetch((const char *)(p + 1) - 1);
	__builtin_prefetch(r);
	__builtin_prefetch((const char *)(r + 1) - 1);
}

static inline __attribute__((always_inline)) void prefetch_texts(const struct assembly *a, long i)
{
	const struct piece *p = &a->src->pieces[i];
	__builtin_prefetch(p->id);
	__builtin_prefetch(p->label);
	if (a->results[i].sentence)
		__builtin_prefetch(a->results[i].sentence);
}

/* Before not_whole[k]'s row. */
static inline __attribute__((always_inline)) void prefetch_not_whole(const struct assembly *a, size_t k)
{
	if (k + PREFETCH_FAR < a->nnot_whole)
		prefetch_piece(a, a->not_whole[k + PREFETCH_FAR]);
	if (k + PREFETCH_NEAR < a->nnot_whole)
		prefetch_texts(a, a->not_whole[k + PREFETCH_NEAR]);
}

/* Before block b's row. */
static inline __attribute__((always_inline)) void prefetch_block(const struct assembly *a, size_t b)
{
	if (b + PREFETCH_FAR < a->nblocks && a->blocks[b + PREFETCH_FAR].piece >= 0)
		prefetch_piece(a, a->blocks[b + PREFETCH_FAR].piece);
	if (b + PREFETCH_NEAR < a->nblocks && a->blocks[b + PREFETCH_NEAR].piece >= 0)
		prefetch_texts(a, a->blocks[b + PREFETCH_NEAR].piece);
}

/* ---- structured (YAML, JSON) ---------------------------------------------- */

static void emit_piece_common(struct emitter *em, const struct assembly *a, long i)
{
	const struct source *src = a->src;
	const struct piece *p = &src->pieces[i];
	const struct piece_result *r = &a->results[i];
	emit_key_str(em, src->kind->id_key, p->id);
	if (strcmp(p->label, p->id) != 0)
		emit_key_str(em, "label", p->label);
	emit_key_str(em, "role", p->role);
	if (has_priorities(src)) {
		emit_key_num(em, "priority", p->priority);
		emit_key_str(em, "strategy", strategy_name(p->strategy));
	}
	if (isfinite(r->score))
		emit_key_num(em, "score", r->score);
	if (p->flags & PIECE_RECORDED)
		emit_key_int(em, "recorded_tokens", p->recorded_tokens);
}

static void emit_extra_piece(struct emitter *em, const struct assembly *a, long i)
{
	if (a->src->kind->report_piece)
		a->src->kind->report_piece(a->src, a, i, em);
}

/* The budget, status and token estimate maps. */
static void emit_totals(struct emitter *em, const struct assembly *a)
{
	emit_key(em, "budget");
	emit_map_begin(em);
	emit_key_int(em, "max", a->budget.limit);
	emit_key_int(em, "reserved", a->budget.reserve);
	emit_key_int(em, "effective", a->budget.usable);
	emit_key_int(em, "used", a->budget.used);
	emit_key_int(em, "remaining", a->budget.remaining);
	emit_map_end(em);

	emit_key(em, "status");
	emit_map_begin(em);
	emit_key_bool(em, "fits", report_exit_status(a) == 0);
	emit_key_bool(em, "truncated", a->flags & ASM_TRUNCATED);
	if (a->excluded >= 0)
		emit_key_int(em, "excluded", a->excluded);
	emit_key_bool(em, "over_limit", a->flags & ASM_OVER_LIMIT);
	if (a->flags & ASM_OVER_LIMIT)
		emit_key_int(em, "over_by", a->over_by);
	emit_key_bool(em, "error", a->flags & ASM_ERROR);
	emit_key_bool(em, "must_have_missing", a->flags & ASM_MUST_MISSING);
	if (a->state)
		emit_key_str(em, "state", a->state);
	emit_map_end(em);

	emit_key(em, "tokens");
	emit_map_begin(em);
	emit_key_str(em, "estimate", "ceil(code_points / chars_per_token)");
	emit_key_num(em, "chars_per_token", a->chars_per_token);
	emit_key_int(em, "rendered", a->total_tokens);
	emit_map_end(em);
}

static void emit_layers(struct emitter *em, const struct assembly *a)
{
	emit_key(em, "layers");
	emit_list_begin(em);
	for (size_t g = 0; g < a->ngroupings; g++)
		for (size_t l = 0; l < a->groupings[g].nlayers; l++) {
			const struct layer *ly = &a->groupings[g].layers[l];
			emit_map_begin(em);
			emit_key_str(em, "grouping", a->groupings[g].name);
			emit_key_str(em, "name", ly->name);
			emit_key_int(em, "tokens", ly->budget_tokens);
			emit_key_int(em, "rendered_tokens", ly->tokens);
			emit_key_int(em, "blocks", (long long)ly->nblocks);
			emit_map_end(em);
		}
	emit_list_end(em);
}

/* The blocks in prompt order: made text, or a piece with its outcome. */
static void emit_included(struct emitter *em, const struct assembly *a)
{
	emit_key(em, "included");
	emit_list_begin(em);
	for (size_t b = 0; b < a->nblocks; b++) {
		const struct block *blk = &a->blocks[b];
		prefetch_block(a, b);
		emit_map_begin(em);
		if (blk->piece < 0) {
			emit_key_str(em, "made", blk->label ? blk->label : "assembler text");
			emit_key_int(em, "tokens", blk->budget_tokens);
			emit_key_bool(em, "truncation_marker", blk->flags & BLOCK_MARKER);
		} else {
			const struct piece_result *r = &a->results[blk->piece];
			emit_piece_common(em, a, blk->piece);
			emit_key_int(em, "tokens", blk->budget_tokens);
			emit_key_bool(em, "truncated", r->outcome == OUTCOME_TRUNCATED);
			if (r->outcome == OUTCOME_TRUNCATED) {
				emit_key_int(em, "original_tokens", r->original_tokens);
				emit_key_str(em, "reason", reason_code(r->reason));
				emit_key_str(em, "detail", r->sentence);
			}
			emit_extra_piece(em, a, blk->piece);
		}
		if (a->shape == ASM_MESSAGES && blk->message >= 0 && (size_t)blk->message < a->nmessages) {
			emit_key_int(em, "message", blk->message);
			emit_key_str(em, "message_role", a->messages[blk->message].role);
		}
		emit_map_end(em);
	}
	emit_list_end(em);
}

/* The pieces left out, in the order decided. */
static void emit_excluded(struct emitter *em, const struct assembly *a)
{
	emit_key(em, "excluded");
	emit_list_begin(em);
	for (size_t k = 0; k < a->nnot_whole; k++) {
		long i = a->not_whole[k];
		const struct piece_result *r = &a->results[i];
		prefetch_not_whole(a, k);
		if (r->outcome != OUTCOME_DROPPED)
			continue;
		emit_map_begin(em);
		emit_piece_common(em, a, i);
		emit_key_int(em, "tokens", r->original_tokens);
		emit_key_str(em, "reason", reason_code(r->reason));
		emit_key_str(em, "detail", r->sentence);
		emit_extra_piece(em, a, i);
		emit_map_end(em);
	}
	emit_list_end(em);
}

static int write_structured(const struct assembly *a, const struct report_options *opt, struct strbuf *out,
			    FILE *sink)
{
	const struct source *src = a->src;
	struct emitter em;
	emit_init(&em, out, opt->format == REPORT_JSON ? EMIT_JSON : EMIT_YAML, opt->ascii ? UTF8_ASCII : 0);
	emit_stream(&em, sink);
	emit_map_begin(&em);
	emit_key(&em, "assembly_report");
	emit_map_begin(&em);
	emit_key_str(&em, "file", src->path);
	emit_key_str(&em, "kind", src->kind->name);
	if (src->input_type)
		emit_key_str(&em, "input", src->input_type);
	if (a->nfacts) {
		emit_key(&em, "details");
		emit_map_begin(&em);
		for (size_t i = 0; i < a->nfacts; i++)
			emit_key_str(&em, a->facts[i].key, a->facts[i].value);
		emit_map_end(&em);
	}
	emit_totals(&em, a);
	emit_layers(&em, a);
	emit_included(&em, a);
	emit_excluded(&em, a);

	emit_key(&em, "warnings");
	emit_list_begin(&em);
	for (size_t w = 0; w < a->nwarnings; w++)
		emit_str(&em, a->warnings[w].text);
	emit_list_end(&em);

	emit_key(&em, "hidden_text");
	hidden_report(src, &em);

	int rc = extra_sections(a, opt, &em);
	emit_map_end(&em);
	emit_map_end(&em);
	int done = emit_finish(&em);
	return rc != CS_OK ? rc : done;
}

/* ---- text ------------------------------------------------------------------ */

/* Appends display-safe s cut or padded to `cols` columns. */
static void cell(struct strbuf *out, const char *s, size_t cols, unsigned flags)
{
	utf8_fit(out, s, strlen(s), cols, flags, true);
}

static void pad_left(struct strbuf *out, const char *s, size_t width)
{
	size_t n = strlen(s);
	if (n < width)
		sb_repeat(out, " ", width - n);
	sb_append(out, s, n);
}

static void pad_right(struct strbuf *out, const char *s, size_t width)
{
	size_t n = strlen(s);
	sb_append(out, s, n);
	if (n < width)
		sb_repeat(out, " ", width - n);
}

static void num_cell(struct strbuf *out, long long v, int width)
{
	char buf[32];
	pad_left(out, fmt_thousands(buf, v), (size_t)width);
}

static void safe(struct strbuf *out, const char *s, unsigned flags)
{
	utf8_sanitize(out, s, strlen(s), flags | UTF8_ONE_LINE);
}

struct columns {
	bool prio, score, recorded;
	const struct report_exact *exact; /* NULL: no exact column */
};

static void row_head(struct strbuf *out, const struct source *src, const struct columns *c, bool dropped)
{
	sb_puts(out, "    tokens");
	if (c->exact)
		sb_puts(out, tokenizer_name_approximate(c->exact->encoding) ? "  \u2248 claude" : "     exact");
	if (!dropped)
		sb_puts(out, "  original");
	if (c->recorded)
		sb_puts(out, "  recorded");
	if (c->prio)
		sb_puts(out, "  priority  strategy");
	if (c->score)
		sb_puts(out, "   score");
	sb_puts(out, "  role       ");
	if (dropped)
		sb_puts(out, "reason            ");
	sb_printf(out, "%s\n", src->kind->id_key);
}

static void piece_row(struct strbuf *out, const struct assembly *a, long i, long tokens, bool dropped,
		      const struct columns *c, const char *note, unsigned flags)
{
	const struct source *src = a->src;
	const struct piece *p = &src->pieces[i];
	const struct piece_result *r = &a->results[i];
	sb_puts(out, "  ");
	if (p->absent)
		sb_puts(out, "       -");
	else
		num_cell(out, tokens, 8);
	if (c->exact) {
		sb_puts(out, "  ");
		if (dropped || c->exact->pieces[i] < 0)
			sb_puts(out, "       -");
		else
			num_cell(out, c->exact->pieces[i], 8);
	}
	if (!dropped) {
		sb_puts(out, "  ");
		if (r->outcome == OUTCOME_TRUNCATED)
			num_cell(out, r->original_tokens, 8);
		else
			sb_puts(out, "        ");
	}
	if (c->recorded) {
		sb_puts(out, "  ");
		if (p->flags & PIECE_RECORDED)
			num_cell(out, p->recorded_tokens, 8);
		else
			sb_puts(out, "        ");
	}
	if (c->prio) {
		char buf[FIXED3_MAX];
		sb_puts(out, "  ");
		pad_left(out, fmt_fixed2(buf, p->priority), 8); /* "%8.2f  %-8s" */
		sb_puts(out, "  ");
		pad_right(out, strategy_name(p->strategy), 8);
	}
	if (c->score) {
		if (isfinite(r->score)) {
			char buf[FIXED3_MAX];
			sb_puts(out, "  ");
			pad_left(out, fmt_fixed3(buf, r->score), 6);
		} else
			sb_puts(out, "        ");
	}
	sb_puts(out, "  ");
	cell(out, p->role, 10, flags);
	sb_putc(out, ' ');
	if (dropped) {
		cell(out, reason_code(r->reason), 17, flags);
		sb_putc(out, ' ');
	}
	safe(out, p->label, flags);
	sb_putc(out, '\n');
	if (r->sentence && r->outcome != OUTCOME_WHOLE) {
		sb_puts(out, "            ");
		safe(out, r->sentence, flags);
		sb_putc(out, '\n');
	}
	if (note) {
		sb_puts(out, "            ");
		safe(out, note, flags);
		sb_putc(out, '\n');
	}
}

/* The header: the facts, the budget line, the status and the tokens. */
static void text_header(struct strbuf *out, const struct assembly *a, unsigned flags)
{
	const struct source *src = a->src;
	sb_printf(out, "ctxscope report: %s ", src->input_type ? src->input_type : src->kind->title);
	safe(out, src->path, flags);
	sb_putc(out, '\n');
	for (size_t i = 0; i < a->nfacts; i++) {
		sb_printf(out, "  %-16s ", a->facts[i].key);
		safe(out, a->facts[i].value, flags);
		sb_putc(out, '\n');
	}
	sb_puts(out, "budget: ");
	sb_thousands(out, a->budget.limit);
	sb_puts(out, " max - ");
	sb_thousands(out, a->budget.reserve);
	sb_puts(out, " reserved = ");
	sb_thousands(out, a->budget.usable);
	sb_puts(out, " effective; used ");
	sb_thousands(out, a->budget.used);
	sb_printf(out, " (%ld%%), remaining ", pct(a->budget.used, a->budget.usable));
	sb_thousands(out, a->budget.remaining);
	sb_putc(out, '\n');

	size_t dropped = 0, cut = 0;
	for (size_t k = 0; k < a->nnot_whole; k++) {
		int o = a->results[a->not_whole[k]].outcome;
		dropped += o == OUTCOME_DROPPED;
		cut += o == OUTCOME_TRUNCATED;
	}
	sb_puts(out, "status: ");
	if (a->flags & ASM_ERROR)
		sb_puts(out, "REFUSED");
	else if (a->flags & ASM_OVER_LIMIT)
		sb_puts(out, "OVER LIMIT");
	else if (a->flags & ASM_MUST_MISSING)
		sb_puts(out, "MUST-HAVE MISSING"); /* as the inspector's header says it */
	else
		sb_puts(out, "fits");
	sb_printf(out, "; %zu dropped, %zu truncated\n", dropped, cut);
	if (a->state) {
		sb_puts(out, "  ");
		safe(out, a->state, flags);
		sb_putc(out, '\n');
	}
	sb_printf(out, "tokens: estimated as ceil(code points / %g); the rendered prompt is ", a->chars_per_token);
	sb_thousands(out, a->total_tokens);
	long unbudgeted = a->total_tokens - a->budget.used;
	if (unbudgeted > 0) {
		sb_puts(out, " (");
		sb_thousands(out, unbudgeted);
		sb_puts(out, " of it not charged by the algorithm)");
	}
	sb_putc(out, '\n');
}

/* The kind's notes of the rows ahead, asked for NOTES_AHEAD at a time one
 * batch before their rows: each is a look-up in the kind's own arrays at a
 * scattered place, and asked for together their cache misses overlap. */
#define NOTES_AHEAD 16

struct notes_ahead {
	const struct source *src;
	const char *note[2 * NOTES_AHEAD]; /* row r's at r % (2 * NOTES_AHEAD) */
};

/* Rows [from, from + NOTES_AHEAD) of n, row r being piece piece_of(a, r)
 * (-1: none). */
static void notes_fill(struct notes_ahead *na, const struct assembly *a, size_t from, size_t n,
		       long (*piece_of)(const struct assembly *a, size_t r))
{
	for (size_t r = from; r < from + NOTES_AHEAD && r < n; r++) {
		long i = piece_of(a, r);
		const char *note = i >= 0 ? na->src->kind->piece_note(na->src, i) : NULL;
		na->note[r % (2 * NOTES_AHEAD)] = note;
		if (note)
			__builtin_prefetch(note);
	}
}

/* Row r's note; the batch after the next is asked for at a batch's first row. */
static const char *notes_at(struct notes_ahead *na, const struct assembly *a, size_t r, size_t n,
			    long (*piece_of)(const struct assembly *a, size_t r))
{
	if (!na->src->kind->piece_note)
		return NULL;
	if (r == 0)
		notes_fill(na, a, 0, n, piece_of);
	if (r % NOTES_AHEAD == 0)
		notes_fill(na, a, r + NOTES_AHEAD, n, piece_of);
	return na->note[r % (2 * NOTES_AHEAD)];
}

static long block_piece(const struct assembly *a, size_t b)
{
	return a->blocks[b].piece;
}

static long dropped_piece(const struct assembly *a, size_t k)
{
	long i = a->not_whole[k];
	return a->results[i].outcome == OUTCOME_DROPPED ? i : -1;
}

/* The layer tables, the pieces in the prompt, those left out: rows into
 * em's buffer, written out as it fills. */
static void text_tables(struct emitter *em, const struct assembly *a, const struct report_exact *x, unsigned flags)
{
	struct strbuf *out = em->out;
	const struct source *src = a->src;
	struct columns c = { has_priorities(src), has_scores(a), has_recorded(src), x };
	for (size_t g = 0; g < a->ngroupings; g++) {
		const long *xl = x && g < ASM_MAX_GROUPINGS ? x->layers[g] : NULL;
		/* "tokens" ends over the numbers (2 + 22 + 8 columns), whatever the grouping's name */
		char head[64];
		snprintf(head, sizeof head, "layers (%.40s)", a->groupings[g].name);
		sb_printf(out, "\n%-26s%stokens%s  share\n", head, strlen(head) < 26 ? "" : " ",
			  !xl ? "" : tokenizer_name_approximate(x->encoding) ? "  \u2248 claude" : "     exact");
		for (size_t l = 0; l < a->groupings[g].nlayers; l++) {
			const struct layer *ly = &a->groupings[g].layers[l];
			sb_puts(out, "  ");
			cell(out, ly->name, 22, flags);
			num_cell(out, ly->budget_tokens, 8);
			if (xl) {
				sb_puts(out, "  ");
				num_cell(out, xl[l], 8);
			}
			sb_printf(out, "  %4ld%%\n", pct(ly->budget_tokens, a->budget.usable));
		}
	}

	struct notes_ahead na = { .src = src };
	sb_puts(out, "\nin the prompt, in order\n");
	row_head(out, src, &c, false);
	for (size_t b = 0; b < a->nblocks; b++) {
		const struct block *blk = &a->blocks[b];
		emit_drain(em);
		prefetch_block(a, b);
		const char *note = notes_at(&na, a, b, a->nblocks, block_piece);
		if (blk->piece >= 0) {
			piece_row(out, a, blk->piece, blk->budget_tokens, false, &c, note, flags);
			continue;
		}
		sb_puts(out, "  ");
		num_cell(out, blk->budget_tokens, 8);
		if (x) {
			sb_puts(out, "  ");
			num_cell(out, x->blocks[b], 8);
		}
		sb_puts(out, "  (");
		safe(out, blk->label ? blk->label : "assembler text", flags);
		sb_puts(out, ")\n");
	}
	size_t dropped = 0;
	for (size_t k = 0; k < a->nnot_whole; k++)
		dropped += a->results[a->not_whole[k]].outcome == OUTCOME_DROPPED;
	if (dropped) {
		sb_puts(out, "\nnot in the prompt\n");
		row_head(out, src, &c, true);
		for (size_t k = 0; k < a->nnot_whole; k++) {
			long i = a->not_whole[k];
			emit_drain(em);
			prefetch_not_whole(a, k);
			const char *note = notes_at(&na, a, k, a->nnot_whole, dropped_piece);
			if (a->results[i].outcome == OUTCOME_DROPPED)
				piece_row(out, a, i, a->results[i].original_tokens, true, &c, note, flags);
		}
	}
}

/* A text emitter over out, streaming into sink (NULL: none). */
static void text_emitter(struct emitter *em, struct strbuf *out, unsigned flags, FILE *sink)
{
	emit_init(em, out, EMIT_TEXT, flags);
	emit_stream(em, sink);
}

/* The sections after the tables: warnings, hidden text, the kind's and
 * the caller's own. */
static int text_sections(const struct assembly *a, const struct report_options *opt, struct emitter *em)
{
	const struct source *src = a->src;
	struct strbuf *out = em->out;
	unsigned flags = em->text_flags;
	if (a->nwarnings) {
		sb_puts(out, "\nwarnings\n");
		for (size_t w = 0; w < a->nwarnings; w++) {
			emit_drain(em);
			sb_puts(out, "  - ");
			safe(out, a->warnings[w].text, flags);
			sb_putc(out, '\n');
		}
	}
	if (hidden_any(src)) {
		struct emitter h;
		sb_puts(out, "\nhidden text (characters a person does not see, revealed)\n");
		text_emitter(&h, out, flags, em->sink);
		emit_map_begin(&h);
		emit_key(&h, "pieces");
		hidden_report(src, &h);
		emit_map_end(&h);
		int rc = emit_finish(&h);
		if (rc != CS_OK)
			return rc;
	}
	if (src->kind->report_extra || (opt->extra && opt->extra->name)) {
		struct emitter x;
		sb_putc(out, '\n');
		text_emitter(&x, out, flags, em->sink);
		emit_map_begin(&x);
		int rc = extra_sections(a, opt, &x);
		emit_map_end(&x);
		int done = emit_finish(&x);
		if (rc != CS_OK || done != CS_OK)
			return rc != CS_OK ? rc : done;
	}
	return CS_OK;
}

static int write_text(const struct assembly *a, const struct report_options *opt, struct strbuf *out, FILE *sink)
{
	unsigned flags = opt->ascii ? UTF8_ASCII : 0;
	struct emitter em; /* for its sink: the rows go into out directly */
	text_emitter(&em, out, flags, sink);
	text_header(out, a, flags);
	if (opt->exact && tokenizer_name_approximate(opt->exact->encoding))
		sb_printf(out, "approximate (%s): %s beside the estimate, ai-tokenizer's claude encoding (not Anthropic's own "
			  "tokenizer), each text counted on its own (the exact_tokens section has the whole prompt)\n",
			  opt->exact->encoding, opt->ascii ? "~" : "\u2248");
	else if (opt->exact)
		sb_printf(out, "exact: %s beside the estimate, each text counted on its own (the exact_tokens section has the whole prompt)\n",
			  opt->exact->encoding);
	if (opt->exact && opt->exact->over)
		sb_printf(out, "%s status: OVER: %s\n", tokenizer_kind(opt->exact->encoding), opt->exact->over);
	text_tables(&em, a, opt->exact, flags);
	int rc = text_sections(a, opt, &em);
	int done = emit_flush(&em);
	return rc != CS_OK ? rc : done;
}

static int report_run(const struct assembly *a, const struct report_options *opt, struct strbuf *out, FILE *sink)
{
	return opt->format == REPORT_TEXT ? write_text(a, opt, out, sink) : write_structured(a, opt, out, sink);
}

int report_write(const struct assembly *a, const struct report_options *opt, struct strbuf *out)
{
	return report_run(a, opt, out, NULL);
}

int report_stream(const struct assembly *a, const struct report_options *opt, FILE *f)
{
	struct strbuf out = STRBUF_INIT;
	int rc = report_run(a, opt, &out, f);
	sb_fini(&out);
	return rc;
}
