/* assembly.c: building and finishing an assembly (see assembly.h). */
#include "assembly.h"

#include "base/alloc.h"
#include "base/bulk.h"
#include "kind.h"
#include "base/strbuf.h"
#include "tokens/estimate.h"
#include "base/utf8.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *const reason_codes[] = {
#define REASON_X_CODE(e, code, sentence) code,
	REASONS(REASON_X_CODE)
#undef REASON_X_CODE
};

static const char *const reason_sentences[] = {
#define REASON_X_SENTENCE(e, code, sentence) sentence,
	REASONS(REASON_X_SENTENCE)
#undef REASON_X_SENTENCE
};

const char *reason_code(int reason)
{
	return reason >= 0 && reason < REASON_COUNT ? reason_codes[reason] : "";
}

const char *reason_sentence(int reason)
{
	return reason >= 0 && reason < REASON_COUNT ? reason_sentences[reason] : "";
}

#define RESERVE(a, arr, n, cap) \
	(CS_GROW((a)->arr, (a)->cap, (a)->n + 1) == 0 || ((a)->nomem = true, false))

/* The last assembly's serial: a number no two assemblies of the process
 * share (what a kind's kept results and a re-assembly's lender are told
 * apart by), not a state anything runs by. */
static unsigned long serials;

/* asm_init; the results each set as a dropped piece when `set`, or taken
 * over from lend when it is not NULL. */
static int init(struct assembly *a, const struct asm_run *run, enum asm_shape shape, bool set, struct assembly *lend)
{
	const struct source *src = run->src;
	memset(a, 0, sizeof *a);
	arena_init(&a->arena);
	a->src = src;
	a->shape = shape;
	a->cutoff = NAN;
	a->recorded = (struct recorded){ .input = -1, .read = -1, .written = -1, .what = NULL };
	a->step = (struct step_cache){ .rec_total = -1, .rec_cost = -1 };
	a->excluded = -1;
	a->chars_per_token = src->settings.chars_per_token;
	a->serial = ++serials;
	a->nresults = src->npieces;
	a->lazy = run->lazy;
	if (lend) {
		a->results = lend->results; /* every result as it was: the assembler patches them */
		lend->results = NULL;
		a->lender = lend;
		a->reused = true;
		a->reused_from = lend->serial;
	} else {
		a->results = cs_malloc((src->npieces ? src->npieces : 1) * sizeof *a->results); /* each set below */
		if (!a->results)
			return CS_ENOMEM;
		bulk_advise(a->results, src->npieces * sizeof *a->results); /* a million: 32 faults, not 16,000 */
	}
	for (size_t i = 0; set && i < src->npieces; i++)
		a->results[i] = (struct piece_result){
			.outcome = OUTCOME_DROPPED, .block = -1, .score = NAN,
			.original_tokens = src->pieces[i].tokens,
		};
	for (size_t i = 0; i < src->nwarnings; i++) {
		if (!RESERVE(a, warnings, nwarnings, cap_warnings))
			return CS_ENOMEM;
		a->warnings[a->nwarnings++] = src->warnings[i];
	}
	return CS_OK;
}

int asm_init(struct assembly *a, const struct asm_run *run, enum asm_shape shape)
{
	return init(a, run, shape, true, NULL);
}

int asm_init_unset(struct assembly *a, const struct asm_run *run, enum asm_shape shape)
{
	return init(a, run, shape, false, NULL);
}

int asm_init_reuse(struct assembly *a, struct asm_run *run, enum asm_shape shape)
{
	const struct source *src = run->src;
	struct assembly *p = run->prev;
	run->prev = NULL; /* taken once a run */
	bool fits = p && p != a && run->lazy && p->src == src && p->results && p->nresults == src->npieces && p->lazy &&
		    !p->sentences_filled;
	return init(a, run, shape, false, fits ? p : NULL);
}

/* The taken results back to the assembly they came from, every change
 * undone (the first record of a piece, undone last, holds its old result). */
static void give_back(struct assembly *a)
{
	if (!a->lender)
		return;
	for (size_t k = a->nchanges; k-- > 0;)
		a->results[a->changes[k].piece] = a->changes[k].was;
	a->lender->results = a->results;
	a->results = NULL;
	a->lender = NULL;
	a->reused = false;
	a->reused_from = 0;
	a->nchanges = 0;
	a->changes_valid = false;
}

int asm_reuse_decline(struct assembly *a)
{
	if (!a->reused)
		return CS_OK;
	give_back(a);
	a->reused = false; /* even without a lender to give them to (not inside assemble_lazy_from) */
	a->results = cs_malloc((a->nresults ? a->nresults : 1) * sizeof *a->results); /* the assembler sets each */
	if (!a->results) {
		a->nomem = true;
		return CS_ENOMEM;
	}
	bulk_advise(a->results, a->nresults * sizeof *a->results);
	return CS_OK;
}

bool asm_result_differs(const struct piece_result *x, const struct piece_result *y)
{
	return x->outcome != y->outcome || x->reason != y->reason || x->sentence != y->sentence ||
	       x->why[0] != y->why[0] || x->why[1] != y->why[1] || x->tokens != y->tokens ||
	       x->original_tokens != y->original_tokens || x->block != y->block ||
	       memcmp(&x->score, &y->score, sizeof x->score) != 0; /* NAN alike */
}

void asm_set_result(struct assembly *a, long piece, const struct piece_result *now)
{
	struct piece_result *r = &a->results[piece];
	if (a->reused && asm_result_differs(r, now)) {
		if (CS_GROW(a->changes, a->cap_changes, a->nchanges + 1) != 0) {
			a->nomem = true; /* left as it was: the failed assembly gives every result back */
			return;
		}
		a->changes[a->nchanges] = (struct asm_change){ piece, a->nchanges, *r };
		a->nchanges++;
	}
	*r = *now;
}

static int cmp_change(const void *x, const void *y)
{
	const struct asm_change *a = x, *b = y;
	if (a->piece != b->piece)
		return a->piece < b->piece ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* One change's place in the radix sort: its piece, and where it is. */
struct change_key {
	size_t piece, at;
};

/* The changes sorted by piece, each piece's in the order recorded: a
 * stable radix sort of their places, a byte of the piece a pass, then the
 * changes moved once (a cascade of a quarter of a million is sorted in a
 * few passes, not n log n calls). false when out of memory (unsorted). */
static bool radix_changes(struct assembly *a)
{
	size_t n = a->nchanges, most = 0;
	struct change_key *key = cs_malloc(n * sizeof *key), *tmp = cs_malloc(n * sizeof *tmp);
	struct asm_change *out = cs_malloc(n * sizeof *out);
	if (!key || !tmp || !out) {
		cs_free(key);
		cs_free(tmp);
		cs_free(out);
		return false;
	}
	for (size_t k = 0; k < n; k++) {
		key[k] = (struct change_key){ (size_t)a->changes[k].piece, k };
		most = key[k].piece > most ? key[k].piece : most;
	}
	for (unsigned shift = 0; shift < sizeof most * 8 && most >> shift; shift += 8) {
		size_t count[257] = { 0 };
		for (size_t k = 0; k < n; k++)
			count[((key[k].piece >> shift) & 255) + 1]++;
		for (size_t b = 1; b < 257; b++)
			count[b] += count[b - 1];
		for (size_t k = 0; k < n; k++)
			tmp[count[(key[k].piece >> shift) & 255]++] = key[k];
		struct change_key *swap = key;
		key = tmp;
		tmp = swap;
	}
	for (size_t k = 0; k < n; k++)
		out[k] = a->changes[key[k].at];
	cs_free(a->changes);
	a->changes = out;
	a->cap_changes = n;
	cs_free(key);
	cs_free(tmp);
	return true;
}

/* The changes from `from` on sorted, then merged into the ones before
 * (in order already: a kind's walk over every piece, then a few more),
 * each moved at most once, from the end. false when out of memory. */
static bool merge_tail(struct assembly *a, size_t from)
{
	size_t nt = a->nchanges - from;
	struct asm_change *tail = cs_malloc(nt * sizeof *tail);
	if (!tail)
		return false;
	memcpy(tail, a->changes + from, nt * sizeof *tail);
	qsort(tail, nt, sizeof *tail, cmp_change);
	size_t i = from, j = nt, w = a->nchanges; /* one past the next to place, each */
	while (j > 0) { /* a piece's records before (in the run) stay before its later ones */
		if (i > 0 && a->changes[i - 1].piece > tail[j - 1].piece)
			a->changes[--w] = a->changes[--i];
		else
			a->changes[--w] = tail[--j];
	}
	cs_free(tail);
	return true;
}

/* The changes by piece, one each (its first record: the old result), those
 * written back as they were dropped. */
static void settle_changes(struct assembly *a)
{
	if (!a->reused)
		return;
	size_t run = a->nchanges ? 1 : 0; /* in order from the start */
	while (run < a->nchanges && a->changes[run - 1].piece <= a->changes[run].piece)
		run++;
	if (run < a->nchanges && !((a->nchanges - run) * 4 <= a->nchanges && merge_tail(a, run)) &&
	    (a->nchanges < 256 || !radix_changes(a)))
		qsort(a->changes, a->nchanges, sizeof *a->changes, cmp_change);
	size_t n = 0;
	for (size_t k = 0; k < a->nchanges; k++) {
		const struct asm_change *c = &a->changes[k];
		if (k && a->changes[k - 1].piece == c->piece)
			continue; /* not its first record (k - 1 still holds its own: n never passes k) */
		if (asm_result_differs(&c->was, &a->results[c->piece]))
			a->changes[n++] = *c;
	}
	a->nchanges = n;
	a->changes_valid = !a->nomem;
}

void asm_fini(struct assembly *a)
{
	if (!a)
		return;
	give_back(a);
	cs_free(a->changes);
	cs_free(a->blocks);
	cs_free(a->spans);
	cs_free(a->messages);
	cs_free(a->results);
	cs_free(a->not_whole);
	cs_free(a->warnings);
	cs_free(a->facts);
	if (a->said)
		sb_fini(a->said);
	cs_free(a->said);
	for (size_t g = 0; g < a->ngroupings; g++)
		cs_free(a->groupings[g].layers);
	arena_fini(&a->arena);
	memset(a, 0, sizeof *a);
}

int asm_grouping(struct assembly *a, const char *name, const char *const *layer_names, size_t n)
{
	if (a->ngroupings >= ASM_MAX_GROUPINGS) {
		a->nomem = true;
		return -1;
	}
	struct grouping *g = &a->groupings[a->ngroupings];
	g->name = arena_strdup(&a->arena, name);
	g->layers = cs_calloc(n ? n : 1, sizeof *g->layers);
	if (!g->name || !g->layers) {
		cs_free(g->layers);
		g->layers = NULL;
		a->nomem = true;
		return -1;
	}
	g->nlayers = n;
	for (size_t i = 0; i < n; i++) {
		g->layers[i].name = arena_strdup(&a->arena, layer_names[i]);
		if (!g->layers[i].name)
			a->nomem = true;
	}
	return (int)a->ngroupings++;
}

/* Grows *arr to room for need items of size bytes, leaving the new room
 * unzeroed (each item is written whole when it is appended). */
static bool reserve_room(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	void *p = cs_reallocarray(*arr, need, size);
	if (!p)
		return false;
	*arr = p;
	*cap = need;
	return true;
}

void asm_reserve(struct assembly *a, size_t blocks, size_t spans, size_t messages)
{
	reserve_room((void **)&a->blocks, &a->cap_blocks, blocks, sizeof *a->blocks);
	reserve_room((void **)&a->spans, &a->cap_spans, spans, sizeof *a->spans);
	reserve_room((void **)&a->messages, &a->cap_messages, messages, sizeof *a->messages);
}

int asm_message(struct assembly *a, const char *role)
{
	if (!RESERVE(a, messages, nmessages, cap_messages))
		return -1;
	a->messages[a->nmessages] = (struct message){ role, a->nblocks, 0 };
	return (int)a->nmessages++;
}

struct block *asm_block(struct assembly *a, long piece, int layer, int layer2)
{
	if (!RESERVE(a, blocks, nblocks, cap_blocks)) {
		memset(&a->scratch, 0, sizeof a->scratch);
		return &a->scratch;
	}
	struct block *b = &a->blocks[a->nblocks];
	/* field by field: a compound literal of it compiles to `rep stos`,
	 * slow to start, once per block of a million */
	b->piece = piece;
	b->label = NULL;
	b->message = a->nmessages ? (int)a->nmessages - 1 : 0;
	b->layer[0] = layer;
	b->layer[1] = layer2;
	b->flags = 0;
	b->first_span = a->nspans;
	b->nspans = b->bytes = b->code_points = 0;
	b->tokens = b->budget_tokens = 0;
	b->keep_head = b->keep_tail = 0;
	b->offset_tokens = 0;
	b->media_tokens = 0;
	if (a->nmessages)
		a->messages[a->nmessages - 1].nblocks++;
	a->nblocks++;
	return b;
}

void asm_span(struct assembly *a, const char *ptr, size_t len, size_t code_points)
{
	if (!a->nblocks || len == 0)
		return;
	if (!RESERVE(a, spans, nspans, cap_spans))
		return;
	a->spans[a->nspans++] = (struct span){ ptr, len };
	struct block *b = &a->blocks[a->nblocks - 1];
	b->nspans++;
	b->bytes += len;
	b->code_points += code_points == (size_t)-1 ? utf8_count_code_points(ptr, len) : code_points;
}

void asm_text(struct assembly *a, const char *text, size_t len)
{
	char *copy = arena_strndup(&a->arena, text, len);
	if (!copy) {
		a->nomem = true;
		return;
	}
	asm_span(a, copy, len, (size_t)-1);
}

void asm_textf(struct assembly *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = arena_vprintf(&a->arena, fmt, ap);
	va_end(ap);
	if (!text) {
		a->nomem = true;
		return;
	}
	asm_span(a, text, strlen(text), (size_t)-1);
}

void asm_expect_not_whole(struct assembly *a, size_t n)
{
	if (!reserve_room((void **)&a->not_whole, &a->cap_not_whole, n, sizeof *a->not_whole)) /* unzeroed */
		a->nomem = true;
	else
		bulk_advise(a->not_whole, a->cap_not_whole * sizeof *a->not_whole);
}

bool asm_list_deferred(struct assembly *a, const long *pieces, size_t n)
{
	if (a->cap_not_whole - a->nnot_whole < n || a->list_fn)
		return false;
	memcpy(a->not_whole + a->nnot_whole, pieces, n * sizeof *pieces);
	a->nnot_whole += n;
	a->ndeferred += n; /* their sentences still wait */
	return true;
}

static void note_not_whole(struct assembly *a, long piece)
{
	if (a->list_fn)
		return; /* the kind lists them when read */
	if (RESERVE(a, not_whole, nnot_whole, cap_not_whole))
		a->not_whole[a->nnot_whole++] = piece;
}

static const char *vsentence(struct assembly *a, int reason, const char *fmt, va_list ap)
{
	/* A format without conversions is its own text: the callers' formats
	 * are literals (-Wformat=2), so it lives as long as the assembly and
	 * needs no copy (re-assembly drops many pieces with fixed sentences). */
	if (fmt && !strchr(fmt, '%'))
		return fmt;
	const char *s = fmt ? arena_vprintf(&a->arena, fmt, ap) : reason_sentence(reason);
	if (!s)
		a->nomem = true;
	return s;
}

/* Sets a result's outcome fields, the others kept: in place when nothing
 * is recorded (most assemblies), else through asm_set_result, which notes
 * the old result of a piece that changes. */
static void set_outcome(struct assembly *a, long piece, enum outcome outcome, int reason, const char *sentence,
			long block, long tokens)
{
	struct piece_result *r = &a->results[piece];
	if (a->reused) {
		struct piece_result now = *r;
		now.outcome = outcome;
		now.reason = reason;
		now.sentence = sentence;
		now.block = block;
		now.tokens = tokens;
		asm_set_result(a, piece, &now);
		return;
	}
	r->outcome = outcome;
	r->reason = reason;
	r->sentence = sentence;
	r->block = block;
	r->tokens = tokens;
}

void asm_whole(struct assembly *a, long piece, long block, long tokens)
{
	set_outcome(a, piece, OUTCOME_WHOLE, REASON_NONE, NULL, block, tokens);
}

void asm_cut(struct assembly *a, long piece, long block, long tokens, int reason, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *sentence = vsentence(a, reason, fmt, ap);
	va_end(ap);
	set_outcome(a, piece, OUTCOME_TRUNCATED, reason, sentence, block, tokens);
	note_not_whole(a, piece);
}

/* A dropped piece's result, with its sentence. */
static void drop(struct assembly *a, long piece, int reason, const char *sentence)
{
	set_outcome(a, piece, OUTCOME_DROPPED, reason, sentence, -1, 0);
	note_not_whole(a, piece);
}

void asm_drop(struct assembly *a, long piece, int reason, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *sentence = vsentence(a, reason, fmt, ap);
	va_end(ap);
	drop(a, piece, reason, sentence);
}

void asm_drop_text(struct assembly *a, long piece, int reason, const char *sentence)
{
	if (!sentence)
		a->nomem = true;
	drop(a, piece, reason, sentence);
}

void asm_drop_later(struct assembly *a, long piece, int reason, long why0, long why1)
{
	const struct piece_result *last = a->nnot_whole ? &a->results[a->not_whole[a->nnot_whole - 1]] : NULL;
	struct piece_result r = a->results[piece];
	r.sentence = NULL;
	r.why[0] = why0;
	r.why[1] = why1;
	r.outcome = OUTCOME_DROPPED;
	r.reason = reason;
	r.block = -1;
	r.tokens = 0;
	if (!a->lazy && a->sentence_by_why && a->sentence_fn) {
		/* written now, in the order decided, where alike pieces come in a row */
		if (last && last->sentence && last->reason == reason && last->why[0] == why0 && last->why[1] == why1) {
			r.sentence = last->sentence;
		} else {
			asm_set_result(a, piece, &r); /* the kind's sentence reads it */
			struct strbuf *sb = a->said ? a->said : (a->said = cs_calloc(1, sizeof *a->said));
			r.sentence = sb && a->sentence_fn(a, piece, sb) && !sb->failed
					     ? arena_strndup(&a->arena, sb_str(sb), sb->len)
					     : NULL;
			if (!r.sentence)
				a->nomem = true;
		}
	}
	asm_set_result(a, piece, &r);
	a->ndeferred += r.sentence == NULL;
	note_not_whole(a, piece);
}

const char *asm_sentence(const struct assembly *a, long piece, struct strbuf *buf)
{
	const struct piece_result *r = &a->results[piece];
	if (r->sentence || r->outcome == OUTCOME_WHOLE || !a->sentence_fn)
		return r->sentence;
	return a->sentence_fn(a, piece, buf) && !buf->failed ? sb_str(buf) : NULL;
}

bool asm_list_not_whole(struct assembly *a)
{
	bool (*fn)(struct assembly *) = a->list_fn;
	if (!fn)
		return !a->nomem;
	a->list_fn = NULL; /* so that the kind's listing appends */
	if (!fn(a)) {
		a->nomem = true;
		return false;
	}
	return !a->nomem;
}

bool asm_write_sentences(struct assembly *a)
{
	if (!asm_list_not_whole(a))
		return false;
	if (!a->sentence_fn || !a->ndeferred) {
		a->sentence_fn = NULL; /* none waits */
		return !a->nomem;
	}
	struct strbuf sb = STRBUF_INIT;
	const char *prev = NULL; /* the last one written: pieces in a row said the same share it */
	size_t prev_len = 0;
	/* Alike pieces come in a row in the order decided; other sentences read
	 * the kind's items, in sequence in input order. */
	size_t n = a->sentence_by_why ? a->nnot_whole : a->src->npieces;
	for (size_t k = 0; k < n; k++) {
		size_t i = a->sentence_by_why ? (size_t)a->not_whole[k] : k;
		struct piece_result *r = &a->results[i];
		if (a->sentence_by_why && !r->sentence && k && r->outcome != OUTCOME_WHOLE) {
			const struct piece_result *before = &a->results[a->not_whole[k - 1]];
			if (before->reason == r->reason && before->why[0] == r->why[0] && before->why[1] == r->why[1] &&
			    before->sentence) {
				r->sentence = before->sentence;
				continue;
			}
		}
		if (r->sentence || r->outcome == OUTCOME_WHOLE)
			continue;
		const char *s = asm_sentence(a, (long)i, &sb);
		if (s && prev && sb.len == prev_len && !memcmp(s, prev, prev_len))
			r->sentence = prev;
		else
			r->sentence = s ? arena_strndup(&a->arena, s, sb.len) : NULL;
		prev = r->sentence;
		prev_len = sb.len;
		if (!r->sentence) {
			a->nomem = true;
			break;
		}
	}
	sb_fini(&sb);
	a->sentence_fn = NULL; /* all written */
	a->sentences_filled = true; /* into this arena: a later assembly cannot take the results over */
	return !a->nomem;
}

void asm_warn(struct assembly *a, long piece, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = arena_vprintf(&a->arena, fmt, ap);
	va_end(ap);
	if (!text || !RESERVE(a, warnings, nwarnings, cap_warnings)) {
		a->nomem = true;
		return;
	}
	a->warnings[a->nwarnings++] = (struct warning){ text, piece, 0, 0 };
}

void asm_fact(struct assembly *a, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *value = arena_vprintf(&a->arena, fmt, ap);
	va_end(ap);
	if (!value || !RESERVE(a, facts, nfacts, cap_facts)) {
		a->nomem = true;
		return;
	}
	a->facts[a->nfacts++] = (struct fact){ key, value };
}

void asm_cutoff(struct assembly *a, double score)
{
	a->cutoff = score;
	a->cutoff_text = arena_printf(&a->arena, "%.6g", score);
	if (!a->cutoff_text)
		a->nomem = true;
}

void asm_state(struct assembly *a, unsigned flags, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *text = arena_vprintf(&a->arena, fmt, ap);
	va_end(ap);
	if (!text)
		a->nomem = true;
	a->state = text;
	a->flags |= flags;
}

int asm_finish(struct assembly *a, struct cs_error *err)
{
	long offset = 0, used = 0;
	for (size_t g = 0; g < a->ngroupings; g++)
		for (size_t l = 0; l < a->groupings[g].nlayers; l++) {
			a->groupings[g].layers[l].tokens = 0;
			a->groupings[g].layers[l].budget_tokens = 0;
			a->groupings[g].layers[l].nblocks = 0;
		}
	a->total_bytes = 0;
	for (size_t i = 0; i < a->nblocks; i++) {
		struct block *b = &a->blocks[i];
		b->tokens = tokens_estimate(b->code_points, a->chars_per_token);
		b->offset_tokens = offset;
		offset += b->tokens;
		used += b->budget_tokens;
		a->total_bytes += b->bytes;
		for (size_t g = 0; g < a->ngroupings && g < 2; g++) {
			int l = b->layer[g];
			if (l < 0 || (size_t)l >= a->groupings[g].nlayers)
				continue;
			a->groupings[g].layers[l].tokens += b->tokens;
			a->groupings[g].layers[l].budget_tokens += b->budget_tokens;
			a->groupings[g].layers[l].nblocks++;
		}
	}
	settle_changes(a);
	a->total_tokens = offset;
	a->budget.used = used;
	a->budget.remaining = a->budget.usable - used;
	if (a->nomem)
		return cs_error_set(err, CS_ENOMEM, "out of memory while assembling");
	return CS_OK;
}

bool asm_block_text(const struct assembly *a, size_t b, struct strbuf *out)
{
	const struct block *blk = &a->blocks[b];
	for (size_t s = 0; s < blk->nspans; s++) {
		const struct span *sp = &a->spans[blk->first_span + s];
		if (!sb_append(out, sp->ptr, sp->len))
			return false;
	}
	return true;
}

bool asm_prompt_text(const struct assembly *a, struct strbuf *out)
{
	for (size_t b = 0; b < a->nblocks; b++)
		if (!asm_block_text(a, b, out))
			return false;
	return true;
}

int assemble(const struct source *src, struct assembly *out, struct cs_error *err)
{
	struct asm_run run = { .src = src }; /* every sentence written (as the kind decides, or below) */
	int rc = src->kind->assemble(&run, out, err);
	if (rc != CS_OK) {
		asm_fini(out);
		if (err && err->code == CS_OK)
			cs_error_set(err, (enum cs_status)rc, "assembly failed");
		return rc;
	}
	if (!asm_write_sentences(out)) {
		asm_fini(out);
		rc = cs_error_nomem(err);
	}
	return rc;
}

int assemble_lazy_from(const struct source *src, struct assembly *out, struct assembly *prev,
		       struct cs_error *err)
{
	struct asm_run run = { .src = src, .prev = prev != out ? prev : NULL, .lazy = true };
	int rc = src->kind->assemble(&run, out, err);
	if (rc != CS_OK) {
		asm_fini(out); /* prev gets its results back */
		if (err && err->code == CS_OK)
			cs_error_set(err, (enum cs_status)rc, "assembly failed");
	} else {
		out->lender = NULL; /* the results are its own now */
	}
	return rc;
}

int assemble_lazy(const struct source *src, struct assembly *out, struct cs_error *err)
{
	return assemble_lazy_from(src, out, NULL, err);
}
