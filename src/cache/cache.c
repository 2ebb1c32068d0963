/* cache.c: cache profiles, breakpoints, the baseline diff and its cost (see
 * cache.h for the comparison serialization and the units). */
#include "cache/cache.h"

#include "base/alloc.h"
#include "assembly.h"
#include "kind.h"
#include "source.h"
#include "base/utf8.h"

#include <math.h>
#include <string.h>

/* ctxscope-formats(5) section 5, as of late 2026. Where the table gives a range the
 * figure picked is named in `source`. A write multiplier of 1 means "no
 * premium": the table's 0 for automatic caches. */
static const struct cache_profile builtin[] = {
	{ .name = "anthropic", .mode = CACHE_EXPLICIT, .max_breakpoints = 4, .min_prefix = 1024, .unit = 1,
	  .lookback = 20, .read = 0.1, .write = 1.25, .price_per_mtok = -1,
	  .source = "docs.anthropic.com prompt caching: 5-minute writes 1.25x (1-hour 2x); min 1024 (Sonnet/Opus)",
	  .as_of = "2026-11" },
	{ .name = "openai", .mode = CACHE_PREFIX, .max_breakpoints = 0, .min_prefix = 1024, .unit = 128,
	  .lookback = 0, .read = 0.5, .write = 1.0, .price_per_mtok = -1,
	  .source = "platform.openai.com prompt caching: reads 0.5x (gpt-4o; 0.1x-0.25x on newer models), no write premium",
	  .as_of = "2026-11", .exact = true },
	{ .name = "gemini", .mode = CACHE_PREFIX, .max_breakpoints = 0, .min_prefix = 2048, .unit = 1,
	  .lookback = 0, .read = 0.1, .write = 1.0, .price_per_mtok = -1,
	  .source = "ai.google.dev implicit caching: reads 0.1x; min 2048 (Pro; 4096 on some models)",
	  .as_of = "2026-11" },
	{ .name = "deepseek", .mode = CACHE_PREFIX, .max_breakpoints = 0, .min_prefix = 64, .unit = 64,
	  .lookback = 0, .read = 0.02, .write = 1.0, .price_per_mtok = -1,
	  .source = "api-docs.deepseek.com context caching on disk: 64-token units, hits ~0.02x",
	  .as_of = "2026-11" },
	{ .name = "vllm", .mode = CACHE_PREFIX, .max_breakpoints = 0, .min_prefix = 16, .unit = 16,
	  .lookback = 0, .read = 0.0, .write = 1.0, .price_per_mtok = -1,
	  .source = "docs.vllm.ai automatic prefix caching: full 16-token blocks; self-hosted, a hit saves the prefill",
	  .as_of = "2026-11" },
};

const struct cache_profile *cache_builtin_profiles(size_t *n)
{
	*n = sizeof builtin / sizeof builtin[0];
	return builtin;
}

const char *cache_mode_name(enum cache_mode mode)
{
	return mode == CACHE_EXPLICIT ? "explicit" : "prefix";
}

/* ---- overrides ------------------------------------------------------------- */

void cache_overrides_init(struct cache_overrides *o)
{
	memset(o, 0, sizeof *o);
}

void cache_overrides_fini(struct cache_overrides *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		cs_free(o->items[i].piece_id);
	cs_free(o->items);
	memset(o, 0, sizeof *o);
}

static struct cache_override *find_override(const struct cache_overrides *o, const struct assembly *a, size_t b)
{
	if (!o || o->n == 0) /* no override: nothing to read of the block's piece */
		return NULL;
	long piece = a->blocks[b].piece;
	const char *id = piece >= 0 ? a->src->pieces[piece].id : NULL;
	for (size_t i = 0; i < o->n; i++) {
		struct cache_override *it = &o->items[i];
		if (id ? it->piece_id && !strcmp(it->piece_id, id) : !it->piece_id && it->block == (long)b)
			return it;
	}
	return NULL;
}

int cache_overrides_set(struct cache_overrides *o, const struct assembly *a, size_t block, bool on,
			struct cs_error *err)
{
	if (block >= a->nblocks)
		return cs_error_set(err, CS_EUSAGE, "no block %zu (the prompt has %zu)", block, a->nblocks);
	struct cache_override *it = find_override(o, a, block);
	if (it) {
		it->on = on;
		return CS_OK;
	}
	if (CS_GROW(o->items, o->cap, o->n + 1) != 0)
		return cs_error_nomem(err);
	long piece = a->blocks[block].piece;
	char *id = NULL;
	if (piece >= 0) {
		id = cs_strdup(a->src->pieces[piece].id);
		if (!id)
			return cs_error_nomem(err);
	}
	o->items[o->n++] = (struct cache_override){ .piece_id = id, .block = id ? -1 : (long)block, .on = on };
	return CS_OK;
}

bool cache_is_breakpoint(const struct cache_overrides *o, const struct assembly *a, size_t b)
{
	const struct cache_override *it = find_override(o, a, b);
	return it ? it->on : (a->blocks[b].flags & BLOCK_BREAKPOINT) != 0;
}

int cache_overrides_toggle(struct cache_overrides *o, const struct assembly *a, size_t block,
			   struct cs_error *err)
{
	if (block >= a->nblocks)
		return cs_error_set(err, CS_EUSAGE, "no block %zu (the prompt has %zu)", block, a->nblocks);
	return cache_overrides_set(o, a, block, !cache_is_breakpoint(o, a, block), err);
}

/* ---- breakpoints ----------------------------------------------------------- */

/* The tokens an analysis counts in: the estimate (blocks NULL), or a
 * cache_measure's exact counts, with their running offsets. */
struct scale {
	const long *blocks; /* per block; NULL: the estimate */
	long *off;          /* owned: tokens before each block */
	long total;
};

static long block_start(const struct assembly *a, const struct scale *sc, size_t b)
{
	return sc && sc->blocks ? sc->off[b] : a->blocks[b].offset_tokens;
}

static long block_tokens(const struct assembly *a, const struct scale *sc, size_t b)
{
	return sc && sc->blocks ? sc->blocks[b] : a->blocks[b].tokens;
}

static long prompt_tokens(const struct assembly *a, const struct scale *sc)
{
	return sc && sc->blocks ? sc->total : a->total_tokens;
}

static long block_end(const struct assembly *a, const struct scale *sc, size_t b)
{
	return block_start(a, sc, b) + block_tokens(a, sc, b);
}

static bool scale_init(struct scale *sc, const struct assembly *a, const long *blocks, long total)
{
	memset(sc, 0, sizeof *sc);
	if (!blocks)
		return true;
	sc->off = cs_malloc((a->nblocks ? a->nblocks : 1) * sizeof *sc->off);
	if (!sc->off)
		return false;
	long at = 0;
	for (size_t b = 0; b < a->nblocks; b++) {
		sc->off[b] = at;
		at += blocks[b] > 0 ? blocks[b] : 0;
	}
	sc->blocks = blocks;
	sc->total = total;
	return true;
}

/* Whether block b ends a cache segment: its flag, unless o overrides it
 * (none: only the flag is read, no piece id). */
static bool is_breakpoint(const struct cache_overrides *o, const struct assembly *a, size_t b)
{
	return o && o->n ? cache_is_breakpoint(o, a, b) : (a->blocks[b].flags & BLOCK_BREAKPOINT) != 0;
}

static int breakpoints(const struct assembly *a, const struct scale *sc, const struct cache_overrides *o,
		       const struct cache_profile *p, struct cache_breakpoint **out, size_t *n, struct cs_error *err)
{
	*out = NULL;
	*n = 0;
	struct cache_breakpoint *bps = NULL;
	size_t cap = 0, k = 0;
	long prev = -1;
	for (size_t b = 0; b < a->nblocks; b++) { /* one pass: a prompt has a few breakpoints */
		if (!is_breakpoint(o, a, b))
			continue;
		if (CS_GROW(bps, cap, k + 1) != 0) {
			cs_free(bps);
			return cs_error_nomem(err);
		}
		struct cache_breakpoint *bp = &bps[k];
		memset(bp, 0, sizeof *bp);
		bp->block = b;
		bp->end_tokens = block_end(a, sc, b);
		bp->in_limit = p->mode != CACHE_EXPLICIT || p->max_breakpoints <= 0 || k < (size_t)p->max_breakpoints;
		bp->over_min = bp->end_tokens >= p->min_prefix;
		bp->gap_blocks = (long)b - prev;
		bp->can_cache = bp->in_limit && bp->over_min;
		bp->user = o && o->n && find_override(o, a, b) != NULL;
		prev = (long)b;
		k++;
	}
	*out = bps;
	*n = k;
	return CS_OK;
}

int cache_breakpoints(const struct assembly *a, const struct cache_overrides *o, const struct cache_profile *p,
		      struct cache_breakpoint **out, size_t *n, struct cs_error *err)
{
	return breakpoints(a, NULL, o, p, out, n, err);
}

long cache_storable(const struct cache_profile *p, long tokens)
{
	if (tokens < p->min_prefix || tokens <= 0)
		return 0;
	long unit = p->unit > 0 ? p->unit : 1;
	long stored = tokens / unit * unit;
	return stored >= p->min_prefix ? stored : 0;
}

/* ---- divergence -------------------------------------------------------------- */

static const char SEP[] = "\x1e";

/* Walks an assembly's comparison serialization chunk by chunk. */
struct walker {
	const struct assembly *a;
	const struct scale *sc; /* the tokens positions are said in */
	bool messages;
	size_t msg;        /* current message (messages shape) */
	int phase;         /* messages: 0 role, 1 separator, 2 blocks, 3 closing separator */
	size_t b;          /* current block */
	size_t s;          /* span within block b */
	const char *ptr;   /* current chunk */
	size_t len, pos;   /* its length and what is consumed */
	long chunk_block;  /* block of the chunk, -1 for a header */
	bool done;
	long ended_first, ended_last; /* blocks ended at the current offset (first > last: none) */
};

static void walker_init(struct walker *w, const struct assembly *a, const struct scale *sc)
{
	memset(w, 0, sizeof *w);
	w->a = a;
	w->sc = sc;
	w->messages = a->shape == ASM_MESSAGES && a->nmessages > 0; /* no messages: its blocks as a document */
	w->chunk_block = -1;
	w->ended_first = 0;
	w->ended_last = -1;
}

static void walker_ended(struct walker *w, size_t b)
{
	if (w->ended_first > w->ended_last)
		w->ended_first = (long)b;
	w->ended_last = (long)b;
}

/* The first and one-past-last block of the current unit (a message, or
 * every block for a document). */
static void unit_blocks(const struct walker *w, size_t *first, size_t *end)
{
	if (w->messages) {
		const struct message *m = &w->a->messages[w->msg];
		*first = m->first_block;
		*end = m->first_block + m->nblocks;
	} else {
		*first = 0;
		*end = w->a->nblocks;
	}
}

/* Loads the next non-empty chunk into w (recording blocks that end on the
 * way); sets done at the end. */
/* Moves to the next span of the blocks before `end` (ending each block it
 * passes): true with ptr, len and chunk_block set; false when none is left. */
static bool walker_block_span(struct walker *w, size_t end)
{
	const struct assembly *a = w->a;
	while (w->b < end) {
		const struct block *blk = &a->blocks[w->b];
		if (w->s < blk->nspans) {
			const struct span *sp = &a->spans[blk->first_span + w->s++];
			w->ptr = sp->ptr;
			w->len = sp->len;
			w->chunk_block = (long)w->b;
			return true;
		}
		walker_ended(w, w->b);
		w->b++;
		w->s = 0;
	}
	return false;
}

static void walker_next(struct walker *w)
{
	const struct assembly *a = w->a;
	for (;;) {
		if (w->messages) {
			if (w->msg >= a->nmessages) {
				w->done = true;
				return;
			}
			const struct message *m = &a->messages[w->msg];
			if (w->phase == 0) {
				w->phase = 1;
				w->ptr = m->role ? m->role : "";
				w->len = strlen(w->ptr);
				w->chunk_block = -1;
				w->b = m->first_block;
				w->s = 0;
			} else if (w->phase == 1) {
				w->phase = 2;
				w->ptr = SEP;
				w->len = 1;
				w->chunk_block = -1;
			} else if (w->phase == 3) {
				w->phase = 0;
				w->msg++;
				w->ptr = SEP;
				w->len = 1;
				w->chunk_block = -1;
			} else {
				size_t first, end;
				unit_blocks(w, &first, &end);
				if (!walker_block_span(w, end)) {
					w->phase = 3;
					continue;
				}
			}
		} else if (!walker_block_span(w, a->nblocks)) {
			w->done = true;
			return;
		}
		w->pos = 0;
		if (w->len)
			return;
	}
}

/* Tokens before the walker's position, in its assembly; the block (or -1). */
static long walker_tokens(const struct walker *w, long *block)
{
	const struct assembly *a = w->a;
	if (w->done) {
		*block = -1;
		return prompt_tokens(a, w->sc);
	}
	if (w->chunk_block < 0) {
		/* in a role header: at the start of the message's first block */
		size_t first = a->messages[w->msg < a->nmessages ? w->msg : a->nmessages - 1].first_block;
		if (w->phase == 0 && w->msg > 0) /* the closing separator of the previous message */
			first = a->messages[w->msg - 1].first_block + a->messages[w->msg - 1].nblocks;
		*block = first < a->nblocks ? (long)first : -1;
		return first < a->nblocks ? block_start(a, w->sc, first) : prompt_tokens(a, w->sc);
	}
	const struct block *blk = &a->blocks[w->chunk_block];
	size_t cp = 0;
	size_t cur = w->s - 1; /* the span the chunk came from */
	for (size_t s = 0; s < cur; s++) {
		const struct span *sp = &a->spans[blk->first_span + s];
		cp += utf8_count_code_points(sp->ptr, sp->len);
	}
	size_t at = w->pos;
	while (at > 0 && ((unsigned char)w->ptr[at] & 0xC0) == 0x80) /* never inside a character */
		at--;
	cp += utf8_count_code_points(w->ptr, at);
	*block = w->chunk_block;
	if (w->sc && w->sc->blocks) /* exact: the block's count in proportion */
		return block_start(a, w->sc, (size_t)w->chunk_block) +
		       (blk->code_points ? (long)floor((double)cp * (double)block_tokens(a, w->sc, (size_t)w->chunk_block) /
						       (double)blk->code_points)
					 : 0);
	return blk->offset_tokens + (long)floor((double)cp / a->chars_per_token);
}

/* Blocks both walkers ended at the current offset extend the run of
 * identical blocks. */
static void pair_ended(struct walker *x, struct walker *y, long *same)
{
	while (*same >= x->ended_first && *same <= x->ended_last && *same >= y->ended_first &&
	       *same <= y->ended_last)
		(*same)++;
	x->ended_first = y->ended_first = 0;
	x->ended_last = y->ended_last = -1;
}

static void diverge(const struct assembly *base, const struct scale *sb, const struct assembly *now,
		    const struct scale *sn, struct cache_divergence *out, long *same_blocks)
{
	struct walker wb, wn;
	walker_init(&wb, base, sb);
	walker_init(&wn, now, sn);
	walker_next(&wb);
	walker_next(&wn);
	long same = 0;
	for (;;) {
		pair_ended(&wb, &wn, &same);
		if (wb.done || wn.done)
			break;
		size_t n = wb.len - wb.pos < wn.len - wn.pos ? wb.len - wb.pos : wn.len - wn.pos;
		if (memcmp(wb.ptr + wb.pos, wn.ptr + wn.pos, n) != 0) {
			size_t i = 0;
			while (wb.ptr[wb.pos + i] == wn.ptr[wn.pos + i])
				i++;
			wb.pos += i;
			wn.pos += i;
			break;
		}
		wb.pos += n;
		wn.pos += n;
		if (wb.pos == wb.len)
			walker_next(&wb);
		if (wn.pos == wn.len)
			walker_next(&wn);
	}
	memset(out, 0, sizeof *out);
	out->identical = wb.done && wn.done;
	out->tokens = walker_tokens(&wn, &out->block);
	out->base_tokens = walker_tokens(&wb, &out->base_block);
	out->message = now->shape == ASM_MESSAGES && !wn.done ? (long)wn.msg : -1;
	*same_blocks = same;
}

void cache_diverge(const struct assembly *base, const struct assembly *now, struct cache_divergence *out)
{
	long same;
	diverge(base, NULL, now, NULL, out, &same);
}

/* ---- cost ---------------------------------------------------------------------- */

static void finish_cost(const struct cache_profile *p, struct cache_cost *c)
{
	if (c->written < 0)
		c->written = 0;
	c->uncached = c->total - c->read - c->written;
	if (c->uncached < 0)
		c->uncached = 0;
	if (c->lost < 0)
		c->lost = 0;
	c->rewritten = c->lost < c->written ? c->lost : c->written;
	c->cost = (double)c->read * p->read + (double)c->written * p->write + (double)c->uncached;
}

/* The cost of `now` on a cache holding base's entries; the first `same`
 * blocks of both are identical, the serializations agree on the first
 * `prefix` tokens. */
static void cost(const struct cache_profile *p, const struct assembly *base, const struct scale *sb,
		 const struct cache_breakpoint *bb, size_t nbb, const struct assembly *now, const struct scale *sn,
		 const struct cache_breakpoint *nb, size_t nnb, long same, long prefix, struct cache_cost *c)
{
	memset(c, 0, sizeof *c);
	c->total = prompt_tokens(now, sn);
	if (p->mode == CACHE_EXPLICIT) {
		long cached_base = 0, read = 0, write_end = 0;
		for (size_t i = 0; i < nbb; i++)
			if (bb[i].can_cache && bb[i].end_tokens > cached_base)
				cached_base = bb[i].end_tokens;
		for (size_t i = 0; i < nbb; i++) {
			if (!bb[i].can_cache || (long)bb[i].block >= same)
				continue;
			/* a breakpoint of this request at or after it, within the lookback */
			for (size_t j = 0; j < nnb; j++) {
				if (!nb[j].can_cache || nb[j].block < bb[i].block)
					continue;
				if (p->lookback > 0 && (long)(nb[j].block - bb[i].block) > p->lookback)
					continue;
				long end = block_end(now, sn, bb[i].block);
				if (end > read)
					read = end;
				break;
			}
		}
		for (size_t j = 0; j < nnb; j++)
			if (nb[j].can_cache && nb[j].end_tokens > write_end)
				write_end = nb[j].end_tokens;
		c->read = read;
		c->written = write_end - read;
		c->lost = cached_base - read;
	} else {
		long cached_base = cache_storable(p, prompt_tokens(base, sb));
		long common = prefix < cached_base ? prefix : cached_base;
		c->read = cache_storable(p, common);
		c->written = cache_storable(p, prompt_tokens(now, sn)) - c->read;
		c->lost = cached_base - c->read;
	}
	finish_cost(p, c);
}

void cache_analysis_fini(struct cache_analysis *an)
{
	if (!an)
		return;
	cs_free(an->bps);
	cs_free(an->base_bps);
	memset(an, 0, sizeof *an);
}

/* cache_analyze_measured, the baseline's breakpoints taken from kept
 * (owned: an holds them from here on, freed with it) when have_kept. */
static int analyze(const struct assembly *base, const struct cache_overrides *o_base, const struct assembly *now,
		   const struct cache_overrides *o_now, const struct cache_profile *p, const struct cache_measure *m,
		   struct cache_analysis *an, struct cache_breakpoint *kept, size_t nkept, bool have_kept,
		   struct cs_error *err)
{
	memset(an, 0, sizeof *an);
	an->profile = p;
	an->base_bps = kept;
	an->nbase_bps = nkept;
	struct scale sb, sn;
	bool exact = m && m->now_blocks && m->base_blocks;
	if (!scale_init(&sb, base, exact ? m->base_blocks : NULL, exact ? m->base_total : 0) ||
	    !scale_init(&sn, now, exact ? m->now_blocks : NULL, exact ? m->now_total : 0)) {
		cs_free(sb.off);
		cache_analysis_fini(an);
		return cs_error_nomem(err);
	}
	an->exact = exact;
	int rc = breakpoints(now, &sn, o_now, p, &an->bps, &an->nbps, err);
	if (rc == CS_OK && !have_kept)
		rc = breakpoints(base, &sb, o_base, p, &an->base_bps, &an->nbase_bps, err);
	if (rc == CS_OK) {
		long same;
		diverge(base, &sb, now, &sn, &an->div, &same);
		long prefix = an->div.tokens < an->div.base_tokens ? an->div.tokens : an->div.base_tokens;
		cost(p, base, &sb, an->base_bps, an->nbase_bps, now, &sn, an->bps, an->nbps, same, prefix, &an->now);
		cost(p, base, &sb, an->base_bps, an->nbase_bps, base, &sb, an->base_bps, an->nbase_bps,
		     (long)base->nblocks, prompt_tokens(base, &sb), &an->steady);
		an->delta = an->now.cost - an->steady.cost;
	}
	cs_free(sb.off);
	cs_free(sn.off);
	if (rc != CS_OK)
		cache_analysis_fini(an);
	return rc;
}

int cache_analyze_measured(const struct assembly *base, const struct cache_overrides *o_base,
			   const struct assembly *now, const struct cache_overrides *o_now, const struct cache_profile *p,
			   const struct cache_measure *m, struct cache_analysis *an, struct cs_error *err)
{
	return analyze(base, o_base, now, o_now, p, m, an, NULL, 0, false, err);
}

int cache_analyze_again(const struct assembly *base, const struct cache_overrides *o_base,
			const struct assembly *now, const struct cache_overrides *o_now, const struct cache_profile *p,
			const struct cache_measure *m, struct cache_analysis *an, struct cs_error *err)
{
	/* breakpoints() reads the blocks' flags and estimated ends, the overrides
	 * and these three figures: with the same baseline assembly, the same
	 * figures and no overrides, it finds what it found */
	bool plain = !(m && m->now_blocks && m->base_blocks) && !(o_base && o_base->n);
	bool same = plain && an->base_serial != 0 && an->base_serial == base->serial && an->base_mode == p->mode &&
		    an->base_max_breakpoints == p->max_breakpoints && an->base_min_prefix == p->min_prefix;
	struct cache_breakpoint *kept = same ? an->base_bps : NULL;
	size_t nkept = same ? an->nbase_bps : 0;
	if (same)
		an->base_bps = NULL; /* not freed below: handed over */
	cache_analysis_fini(an);
	int rc = analyze(base, o_base, now, o_now, p, m, an, kept, nkept, same, err);
	if (rc == CS_OK && plain) {
		an->base_serial = base->serial;
		an->base_mode = p->mode;
		an->base_max_breakpoints = p->max_breakpoints;
		an->base_min_prefix = p->min_prefix;
	}
	return rc;
}

int cache_analyze(const struct assembly *base, const struct cache_overrides *o_base, const struct assembly *now,
		  const struct cache_overrides *o_now, const struct cache_profile *p, struct cache_analysis *an,
		  struct cs_error *err)
{
	return cache_analyze_measured(base, o_base, now, o_now, p, NULL, an, err);
}

const struct cache_profile *cache_tuned_profile(const struct source *src, const struct cache_profile *p,
						struct cache_profile *tuned, const char **model)
{
	const char *name = NULL;
	if (p && src->kind->cache_tune) {
		*tuned = *p;
		name = src->kind->cache_tune(src, tuned);
	}
	if (model)
		*model = name;
	return name ? tuned : p;
}
