/* exact_live.c: exact counts remembered by text, so that the inspector
 * recounts only what an edit changed (see exact.h).
 *
 * A block's text is looked up by a 64-bit hash of its bytes (and its
 * length); what is remembered of it: its count, and where its first and
 * last line starts that split the count are (tokenizer_splits_at_lines),
 * with the count of the lines between them. The whole prompt is then the
 * sum, per message (or for the document), of those middles and of the
 * seams: the text from a block's last split point to the next block's
 * first one (whole blocks without one in between), remembered the same way. */
#include "tokens/exact.h"

#include "base/alloc.h"
#include "tokens/bpe.h"
#include "base/strbuf.h"
#include "tokens/tokenizer.h"

#include <stdint.h>
#include <string.h>

/* ---- the memo: counts by text ------------------------------------------------ */

enum { MEMO_EMPTY, MEMO_BLOCK, MEMO_SEAM };

/* An entry no count used in the last MEMO_KEEP counts may be forgotten
 * (the current prompt and its baseline count in turn). */
#define MEMO_KEEP 3u

struct memo_entry {
	uint64_t hash;
	size_t len;
	long count;        /* the text's count */
	long mid;          /* BLOCK: the count of [first, last) */
	size_t first, last; /* BLOCK: its first and last split points; 0, 0: none */
	unsigned gen;      /* the last count that used it */
	unsigned char kind;
};

struct exact_memo {
	struct memo_entry *slots;
	size_t cap, used; /* cap a power of two */
	unsigned gen;
};

static uint64_t hash_bytes(uint64_t h, const unsigned char *p, size_t n)
{
	for (; n >= 8; p += 8, n -= 8) {
		uint64_t v;
		memcpy(&v, p, 8);
		h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	uint64_t v = 0;
	memcpy(&v, p, n);
	return bpe_mix(h ^ v ^ ((uint64_t)n << 59));
}

static struct memo_entry *memo_slot(struct exact_memo *m, uint64_t hash, size_t len, int kind)
{
	size_t i = (size_t)hash & (m->cap - 1);
	for (;; i = (i + 1) & (m->cap - 1)) {
		struct memo_entry *e = &m->slots[i];
		if (e->kind == MEMO_EMPTY || (e->hash == hash && e->len == len && e->kind == kind))
			return e;
	}
}

/* Room for one more entry: entries no recent count used are forgotten
 * first, then the table doubles. false on out of memory. */
static bool memo_room(struct exact_memo *m)
{
	if (m->cap && (m->used + 1) * 4 <= m->cap * 3)
		return true;
	size_t live = 0;
	for (size_t i = 0; i < m->cap; i++)
		live += m->slots[i].kind != MEMO_EMPTY && m->gen - m->slots[i].gen <= MEMO_KEEP;
	size_t cap = m->cap ? m->cap : 1024;
	while ((live + 1) * 2 > cap)
		cap *= 2;
	struct memo_entry *slots = cs_calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	struct exact_memo fresh = { slots, cap, 0, m->gen };
	for (size_t i = 0; i < m->cap; i++) {
		const struct memo_entry *e = &m->slots[i];
		if (e->kind == MEMO_EMPTY || m->gen - e->gen > MEMO_KEEP)
			continue;
		*memo_slot(&fresh, e->hash, e->len, e->kind) = *e;
		fresh.used++;
	}
	cs_free(m->slots);
	*m = fresh;
	return true;
}

/* ---- text in ranges of spans ------------------------------------------------- */

struct range {
	size_t block, from, to; /* bytes [from, to) of the block's text */
};

struct scratch {
	struct strbuf text;
	struct range *seam; /* the seam being gathered */
	size_t nseam, cap_seam;
	struct part {
		long count, mid;
		size_t len, first, last;
		unsigned char head, tail; /* first and last byte; 0 when empty */
	} *parts;           /* per block */
	size_t cap_parts;
};

static uint64_t hash_range(uint64_t h, const struct assembly *a, const struct range *r)
{
	const struct block *b = &a->blocks[r->block];
	size_t at = 0;
	for (size_t s = 0; s < b->nspans && at < r->to; s++) {
		const struct span *sp = &a->spans[b->first_span + s];
		size_t lo = r->from > at ? r->from - at : 0, hi = r->to - at < sp->len ? r->to - at : sp->len;
		if (lo < hi)
			h = hash_bytes(h, (const unsigned char *)sp->ptr + lo, hi - lo);
		at += sp->len;
	}
	return h;
}

static bool append_range(struct strbuf *out, const struct assembly *a, const struct range *r)
{
	const struct block *b = &a->blocks[r->block];
	size_t at = 0;
	for (size_t s = 0; s < b->nspans && at < r->to; s++) {
		const struct span *sp = &a->spans[b->first_span + s];
		size_t lo = r->from > at ? r->from - at : 0, hi = r->to - at < sp->len ? r->to - at : sp->len;
		if (lo < hi && !sb_append(out, sp->ptr + lo, hi - lo))
			return false;
		at += sp->len;
	}
	return true;
}

/* A position whose count splits: after a newline, before a printable ASCII
 * character other than '/' (tokenizer_splits_at_lines). */
static bool splits(unsigned char before, unsigned char at)
{
	return before == '\n' && at > 0x20 && at < 0x7f && at != '/';
}

/* ---- blocks ------------------------------------------------------------------- */

static int count_text(struct exact_live *L, struct tokenizer *t, const char *s, size_t n, long *out,
		      struct cs_error *err)
{
	L->counted_bytes += n;
	return tokenizer_count(t, s, n, out, err);
}

/* A block's text not remembered: counted in three parts (before its first
 * split point, between, after its last), which add up to its count. */
static int count_block(struct exact_live *L, struct tokenizer *t, const char *s, size_t n, struct memo_entry *e,
		       struct cs_error *err)
{
	e->first = e->last = 0;
	if (tokenizer_splits_at_lines(t))
		for (size_t i = 1; i < n; i++)
			if (splits((unsigned char)s[i - 1], (unsigned char)s[i])) {
				e->last = i;
				if (!e->first)
					e->first = i;
			}
	long head = 0, mid = 0, tail = 0;
	int rc = count_text(L, t, s, e->first ? e->first : n, &head, err);
	if (rc == CS_OK && e->first)
		rc = count_text(L, t, s + e->first, e->last - e->first, &mid, err);
	if (rc == CS_OK && e->first)
		rc = count_text(L, t, s + e->last, n - e->last, &tail, err);
	e->count = head + mid + tail;
	e->mid = mid;
	return rc;
}

static int block_part(struct exact_live *L, struct tokenizer *t, const struct assembly *a, size_t b,
		      struct part *out, struct cs_error *err)
{
	struct scratch *sc = L->scratch;
	const struct block *bl = &a->blocks[b];
	struct range whole = { b, 0, 0 };
	memset(out, 0, sizeof *out);
	for (size_t s = 0; s < bl->nspans && !(bl->flags & BLOCK_MEDIA); s++) { /* an image's text: not counted */
		const struct span *sp = &a->spans[bl->first_span + s];
		if (sp->len && !out->len)
			out->head = (unsigned char)sp->ptr[0];
		if (sp->len)
			out->tail = (unsigned char)sp->ptr[sp->len - 1];
		out->len += sp->len;
	}
	if (!out->len)
		return CS_OK;
	whole.to = out->len;
	uint64_t h = hash_range(0x6a09e667f3bcc908ULL, a, &whole);
	struct exact_memo *m = L->memo;
	if (!memo_room(m))
		return cs_error_nomem(err);
	struct memo_entry *e = memo_slot(m, h, out->len, MEMO_BLOCK);
	if (e->kind == MEMO_EMPTY) {
		sb_reset(&sc->text);
		if (!append_range(&sc->text, a, &whole) || sc->text.failed)
			return cs_error_nomem(err);
		struct memo_entry fresh = { .hash = h, .len = out->len, .kind = MEMO_BLOCK };
		int rc = count_block(L, t, sb_str(&sc->text), sc->text.len, &fresh, err);
		if (rc != CS_OK)
			return rc;
		*e = fresh;
		m->used++;
	}
	e->gen = m->gen;
	out->count = e->count;
	out->mid = e->mid;
	out->first = e->first;
	out->last = e->last;
	return CS_OK;
}

/* ---- the whole prompt ------------------------------------------------------------ */

/* Counts the seam gathered so far (remembered by its text) into *total. */
static int flush_seam(struct exact_live *L, struct tokenizer *t, const struct assembly *a, long *total,
		      struct cs_error *err)
{
	struct scratch *sc = L->scratch;
	if (!sc->nseam)
		return CS_OK;
	uint64_t h = 0xbb67ae8584caa73bULL;
	size_t len = 0;
	for (size_t i = 0; i < sc->nseam; i++) {
		h = hash_range(h, a, &sc->seam[i]);
		len += sc->seam[i].to - sc->seam[i].from;
	}
	struct exact_memo *m = L->memo;
	if (!memo_room(m))
		return cs_error_nomem(err);
	struct memo_entry *e = memo_slot(m, h, len, MEMO_SEAM);
	if (e->kind == MEMO_EMPTY) {
		sb_reset(&sc->text);
		for (size_t i = 0; i < sc->nseam; i++)
			if (!append_range(&sc->text, a, &sc->seam[i]))
				return cs_error_nomem(err);
		if (sc->text.failed)
			return cs_error_nomem(err);
		long n = 0;
		int rc = count_text(L, t, sb_str(&sc->text), sc->text.len, &n, err);
		if (rc != CS_OK)
			return rc;
		*e = (struct memo_entry){ .hash = h, .len = len, .count = n, .kind = MEMO_SEAM };
		m->used++;
	}
	e->gen = m->gen;
	*total += e->count;
	sc->nseam = 0;
	return CS_OK;
}

static int add_to_seam(struct scratch *sc, size_t b, size_t from, size_t to, struct cs_error *err)
{
	if (from >= to)
		return CS_OK;
	if (CS_GROW(sc->seam, sc->cap_seam, sc->nseam + 1) != 0)
		return cs_error_nomem(err);
	sc->seam[sc->nseam++] = (struct range){ b, from, to };
	return CS_OK;
}

/* The count of blocks [first, first + n) as one text, from their parts. */
static int count_run(struct exact_live *L, struct tokenizer *t, const struct assembly *a, size_t first, size_t n,
		     long *total, struct cs_error *err)
{
	struct scratch *sc = L->scratch;
	sc->nseam = 0;
	unsigned char before = 0;
	int rc = CS_OK;
	for (size_t b = first; b < first + n && rc == CS_OK; b++) {
		const struct part *p = &sc->parts[b];
		if (!p->len)
			continue;
		if (tokenizer_splits_at_lines(t) && splits(before, p->head))
			rc = flush_seam(L, t, a, total, err);
		if (rc == CS_OK && p->first) {
			rc = add_to_seam(sc, b, 0, p->first, err);
			if (rc == CS_OK)
				rc = flush_seam(L, t, a, total, err);
			*total += p->mid;
			if (rc == CS_OK)
				rc = add_to_seam(sc, b, p->last, p->len, err);
		} else if (rc == CS_OK) {
			rc = add_to_seam(sc, b, 0, p->len, err);
		}
		before = p->tail;
	}
	return rc == CS_OK ? flush_seam(L, t, a, total, err) : rc;
}

/* ---- the counts ------------------------------------------------------------------- */

static bool fit(struct exact_live *L, const struct assembly *a)
{
	struct scratch *sc = L->scratch;
	size_t np = a->src->npieces;
	if (np > L->npieces) {
		long *p = cs_reallocarray(L->piece_tokens, np, sizeof *p);
		if (!p)
			return false;
		L->piece_tokens = p;
	}
	L->npieces = np;
	if (a->nblocks > L->nblocks || !L->block_tokens) {
		long *p = cs_reallocarray(L->block_tokens, a->nblocks ? a->nblocks : 1, sizeof *p);
		if (!p)
			return false;
		L->block_tokens = p;
	}
	L->nblocks = a->nblocks;
	if (CS_GROW(sc->parts, sc->cap_parts, a->nblocks ? a->nblocks : 1) != 0)
		return false;
	for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++) {
		size_t nl = g < a->ngroupings ? a->groupings[g].nlayers : 0;
		if (nl > L->nlayers[g] || !L->layer_tokens[g]) {
			long *p = cs_reallocarray(L->layer_tokens[g], nl ? nl : 1, sizeof *p);
			if (!p)
				return false;
			L->layer_tokens[g] = p;
		}
		L->nlayers[g] = nl;
		for (size_t l = 0; l < nl; l++)
			L->layer_tokens[g][l] = 0;
	}
	for (size_t i = 0; i < np; i++)
		L->piece_tokens[i] = a->results[i].outcome == OUTCOME_DROPPED ? -1 : 0;
	return true;
}

static bool setup(struct exact_live *L)
{
	if (!L->memo)
		L->memo = cs_calloc(1, sizeof *L->memo);
	if (L->memo && !L->scratch) {
		struct scratch *sc = cs_calloc(1, sizeof *sc);
		if (sc)
			sb_init(&sc->text);
		L->scratch = sc;
	}
	return L->memo && L->scratch;
}

static int count_blocks(struct exact_live *L, struct tokenizer *t, const struct assembly *a, struct cs_error *err)
{
	struct scratch *sc = L->scratch;
	for (size_t b = 0; b < a->nblocks; b++) {
		int rc = block_part(L, t, a, b, &sc->parts[b], err);
		if (rc != CS_OK)
			return rc;
		const struct block *bl = &a->blocks[b];
		long n = sc->parts[b].count + bl->media_tokens;
		L->block_tokens[b] = n;
		if (bl->piece >= 0 && (size_t)bl->piece < L->npieces && L->piece_tokens[bl->piece] >= 0)
			L->piece_tokens[bl->piece] += n;
		for (size_t g = 0; g < a->ngroupings && g < ASM_MAX_GROUPINGS; g++)
			if (bl->layer[g] >= 0 && (size_t)bl->layer[g] < L->nlayers[g])
				L->layer_tokens[g][bl->layer[g]] += n;
	}
	return CS_OK;
}

int exact_live_count(struct exact_live *L, struct tokenizer *t, const struct assembly *a, struct cs_error *err)
{
	L->total = -1;
	L->over = false;
	L->note[0] = '\0';
	L->counted_bytes = 0;
	if (!setup(L) || !fit(L, a))
		return cs_error_nomem(err);
	L->memo->gen++;
	int rc = count_blocks(L, t, a, err);
	long total = 0;
	for (size_t b = 0; b < a->nblocks; b++)
		total += a->blocks[b].media_tokens; /* the text runs below leave an image's name out */
	if (a->shape == ASM_MESSAGES)
		for (size_t m = 0; m < a->nmessages && rc == CS_OK; m++)
			rc = count_run(L, t, a, a->messages[m].first_block, a->messages[m].nblocks, &total, err);
	else if (rc == CS_OK)
		rc = count_run(L, t, a, 0, a->nblocks, &total, err);
	if (rc != CS_OK) {
		for (size_t i = 0; i < L->npieces; i++)
			L->piece_tokens[i] = -1;
		for (size_t b = 0; b < L->nblocks; b++)
			L->block_tokens[b] = -1;
		for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++)
			for (size_t l = 0; l < L->nlayers[g]; l++)
				L->layer_tokens[g][l] = -1;
		return rc;
	}
	L->total = total;
	L->over = exact_judge(&a->budget, total, tokenizer_name(t), L->note, sizeof L->note);
	return CS_OK;
}

long exact_live_text(struct exact_live *L, struct tokenizer *t, const char *s, size_t n, struct cs_error *err)
{
	if (!setup(L) || !memo_room(L->memo)) {
		cs_error_nomem(err);
		return -1;
	}
	uint64_t h = hash_bytes(0x3c6ef372fe94f82bULL, (const unsigned char *)s, n);
	struct exact_memo *m = L->memo;
	struct memo_entry *e = memo_slot(m, h, n, MEMO_SEAM);
	if (e->kind == MEMO_EMPTY) {
		long c = 0;
		if (count_text(L, t, s, n, &c, err) != CS_OK)
			return -1;
		*e = (struct memo_entry){ .hash = h, .len = n, .count = c, .kind = MEMO_SEAM };
		m->used++;
	}
	e->gen = m->gen;
	return e->count;
}

void exact_live_share(struct exact_live *L, const struct exact_live *from)
{
	if (!L->memo && from->memo) {
		L->memo = from->memo;
		L->memo_borrowed = true;
	}
}

void exact_live_fini(struct exact_live *L)
{
	if (L->memo && !L->memo_borrowed) {
		cs_free(L->memo->slots);
		cs_free(L->memo);
	}
	struct scratch *sc = L->scratch;
	if (sc) {
		sb_fini(&sc->text);
		cs_free(sc->seam);
		cs_free(sc->parts);
	}
	cs_free(sc);
	cs_free(L->piece_tokens);
	cs_free(L->block_tokens);
	for (size_t g = 0; g < ASM_MAX_GROUPINGS; g++)
		cs_free(L->layer_tokens[g]);
	memset(L, 0, sizeof *L);
}
