/* sequence.c: the cache model of real requests, one after another.
 *
 * A prefix is identified by a cumulative hash over its units' hashes (a
 * unit's JSON without cache_control), so an edit anywhere changes the key of
 * every prefix that ends after it. The cache is a map from prefix key to
 * when an entry was last written or read, and by which request.
 *
 * Anthropic (explicit): each breakpoint (cache_control, or the automatic
 * one on the last block) whose prefix reaches the model's minimum writes
 * one entry. A read at a breakpoint walks back at most 20 positions (a run
 * of tool_use or tool_result blocks is one position) for an entry an
 * earlier request left; the longest match wins. Reads: that prefix; writes:
 * from there to the last breakpoint; uncached: the rest.
 * OpenAI (automatic): every unit boundary of an earlier request is a
 * prefix entry; the longest one this request starts with is read, from
 * 1,024 tokens, rounded down to 128.
 * Live entries: with timestamps, those touched within their TTL (5 minutes
 * or 1 hour on Anthropic; 10 minutes, or 24 hours with
 * prompt_cache_retention "24h", on OpenAI); without, those the request just
 * before it in its group wrote or read. A request whose record splits its
 * writes by lifetime (req_request.rec_write_1h) keeps what it writes or
 * reads alive as long as the record says: 1 hour when all its writes were
 * 1-hour ones, 5 minutes when none were (a mix: each breakpoint's own TTL).
 *
 * Caches are per model (ctxscope-formats(5) section 6b): the requests of one model (and one
 * API key or workspace, where the log says) form a group, every prefix key
 * starts from the group's seed, so a request reads only what its own group
 * wrote, and is compared with the request whose entry it read (else its
 * group's request before it). The first request of a group breaks nothing.
 *
 * A what-if predicts every request again; what no edit changes is kept
 * between predictions (request_model.diff_memo, emptied with the packed
 * units): each request's first difference as told (told again only when
 * other blocks are compared), where it and the request it is compared with
 * differ among the blocks both begin with, where its packed units differ
 * from the request's before it (read from a copy of that one elsewhere),
 * and whether its model is named as the one before. */
#include "request.h"

#include "base/alloc.h"
#include "source.h"
#include "base/strbuf.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define LOOKBACK 20
#define VOLATILE_WINDOW 128 /* bytes past a difference a volatile run is read to */
#define OPENAI_STEP 128
#define HOLD_AHEAD 2 /* requests: how far ahead the units a prediction will read are fetched */

struct slot {
	uint64_t key;   /* 0: empty */
	double time;
	long req;
	int ttl;
};

#define MAP_FILTER_WORDS 1024 /* 64k bits: 8 KB, in the first-level cache */

struct map {
	struct slot *s;
	size_t cap, n;
	/* A bit per key's hash, set for every key put (none is removed): a key
	 * whose bit is clear is not there, without probing the slots. The walk
	 * back from a breakpoint asks at every position of a request. */
	uint64_t filter[MAP_FILTER_WORDS];
};

static bool map_may_hold(const struct map *m, uint64_t key)
{
	uint64_t h = (key ? key : 1) >> 40;
	return m->filter[h / 64 % MAP_FILTER_WORDS] >> (h % 64) & 1;
}

static struct slot *map_find(const struct map *m, uint64_t key)
{
	if (!m->cap || !map_may_hold(m, key))
		return NULL;
	key = key ? key : 1;
	for (size_t i = key & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->s[i].key == key)
			return &m->s[i];
		if (!m->s[i].key)
			return NULL;
	}
}

static bool map_put(struct map *m, uint64_t key, double time, long req, int ttl)
{
	key = key ? key : 1;
	m->filter[(key >> 40) / 64 % MAP_FILTER_WORDS] |= 1ULL << ((key >> 40) % 64);
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct slot *s = cs_calloc(cap, sizeof *s);
		if (!s)
			return false;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->s[i].key)
				continue;
			size_t j = m->s[i].key & (cap - 1);
			while (s[j].key)
				j = (j + 1) & (cap - 1);
			s[j] = m->s[i];
		}
		cs_free(m->s);
		m->s = s;
		m->cap = cap;
	}
	size_t i = key & (m->cap - 1);
	while (m->s[i].key && m->s[i].key != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->s[i].key)
		m->n++;
	m->s[i] = (struct slot){ key, time, req, ttl > m->s[i].ttl || m->s[i].key != key ? ttl : m->s[i].ttl };
	return true;
}

/* Room for n keys at once (an empty map): the sequence's entries, about a
 * read and its breakpoints a request, without growing through every size. */
static bool map_reserve(struct map *m, size_t n)
{
	size_t cap = 1024;
	while (cap < 2 * n && cap < ((size_t)1 << 40))
		cap *= 2;
	if (m->cap >= cap)
		return true;
	struct slot *s = cs_calloc(cap, sizeof *s);
	if (!s)
		return false;
	cs_free(m->s);
	m->s = s;
	m->cap = cap;
	return true;
}

/* What predicting one request needs. */
struct pred {
	struct source *src;
	struct request_model *m;
	struct map cache;
	long *prefix;      /* prefix[i]: tokens of units 0..i of the request at hand */
	uint64_t *keys;    /* keys[i]: the prefix key of units 0..i */
	/* A copy of the packed units of request `held` (-1: none), the request
	 * at hand's once prepared: consecutive requests mostly repeat each
	 * other's, so only what differs is read from the (cold) whole. */
	struct req_core *cur;
	long held;
	size_t held_n;
	size_t cap;
	uint8_t *piece_out; /* per piece: left out by an edit */
	const struct req_model_facts **facts; /* per group: its model's, found at its first request */
	size_t *bps;       /* the units of the request at hand that carry a breakpoint, in order */
	size_t nbps, cap_bps;
	uint64_t *seed;    /* per request: its group's first prefix key */
	long *prev_same;   /* per request: its group's request before it, -1 none */
	long read_from;    /* the request at hand: whose entry it read, -1 none */
};

static bool live(const struct pred *p, const struct slot *s, const struct req_request *r, long k)
{
	if (!s)
		return false;
	if (r->time >= 0 && s->time >= 0)
		return r->time - s->time <= s->ttl;
	return s->req == p->prev_same[k];
}

/* The first prefix key of r's group: its model (as priced) and account. */
static uint64_t group_seed(const struct request_model *m, const struct req_request *r)
{
	const char *model = request_model_name(m, r);
	return request_hash(model, strlen(model) + 1,
			    request_hash((const char *)&r->account, sizeof r->account, REQUEST_HASH_SEED));
}

/* Whether r is cached by explicit breakpoints: an Anthropic body, or a
 * Claude model behind another wire format (a LiteLLM log). */
static bool explicit_cache(const struct request_model *m, const struct req_request *r)
{
	return r->provider == REQ_ANTHROPIC || strstr(request_model_name(m, r), "claude") != NULL;
}

/* The lifetime request r's record gives the entries it writes (ctxscope-formats(5)
 * 7b), over `ttl` (the breakpoint's or the profile's): 1 hour when every
 * write was a 1-hour one, 5 minutes when none was; ttl when the record has
 * no split, wrote nothing, or mixed both. */
static int recorded_ttl(const struct req_request *r, int ttl)
{
	if (ttl <= 0 || r->rec_write_1h < 0 || r->rec_write <= 0)
		return ttl;
	return r->rec_write_1h >= r->rec_write ? 3600 : r->rec_write_1h == 0 ? 300 : ttl;
}

static int default_ttl(const struct request_model *m, const struct req_request *r)
{
	if (explicit_cache(m, r))
		return recorded_ttl(r, 300);
	return r->retention && !strcmp(r->retention, "24h") ? 86400 : 600;
}

/* How long what request r left in the cache lives: automatic caching's
 * TTL when longer than the default, as its record says. */
static int entry_life(const struct request_model *m, const struct req_request *r)
{
	int ttl = default_ttl(m, r);
	return explicit_cache(m, r) && r->auto_ttl > ttl ? recorded_ttl(r, r->auto_ttl) : ttl;
}

/* Whether unit u is left out by an edit (what-if). */
static bool out(const struct pred *p, size_t u)
{
	uint32_t i = p->m->core[u].piece_bp & REQUEST_CORE_NONE;
	return i != REQUEST_CORE_NONE && p->piece_out[i];
}

/* A unit's cache_control lifetime as the packed units carry it. */
static uint32_t core_ttl_bits(int ttl)
{
	return !ttl ? 0 : ttl == 300 ? REQUEST_CORE_BP : ttl == 3600 ? REQUEST_CORE_BP | REQUEST_CORE_1H
								: REQUEST_CORE_BP | REQUEST_CORE_TTL;
}

/* The packed units (request.h: struct req_core), made once; the first
 * differences told against the units before go with them. */
static bool make_core(struct request_model *m)
{
	if (m->core && m->ncore == m->nunits)
		return true;
	cs_free(m->core);
	m->ncore = 0;
	cs_free(m->diff_memo);
	m->diff_memo = NULL;
	m->ndiff_memo = 0;
	if (!(m->core = cs_malloc((m->nunits ? m->nunits : 1) * sizeof *m->core)))
		return false;
	for (size_t u = 0; u < m->nunits; u++) {
		const struct req_unit *x = &m->units[u];
		uint32_t piece = m->unit_piece && m->unit_piece[u] < REQUEST_CORE_NONE ? m->unit_piece[u] : REQUEST_CORE_NONE;
		m->core[u] = (struct req_core){ x->hash, (int32_t)(x->tokens > INT32_MAX ? INT32_MAX : x->tokens),
						piece | core_ttl_bits(x->ttl) | (x->run ? REQUEST_CORE_RUN : 0) };
	}
	m->ncore = m->nunits;
	return true;
}

/* Room for every request's first difference, kept from the predictions
 * before; their text is told again from scratch when it has piled up (an
 * edit that moves where requests differ tells new text). */
static bool make_diff_memo(struct request_model *m)
{
	if (m->diff_memo && m->ndiff_memo == m->nreqs && m->diff_arena.bytes <= 2048 * m->nreqs + (1u << 20))
		return true;
	cs_free(m->diff_memo);
	m->ndiff_memo = 0;
	arena_fini(&m->diff_arena);
	arena_init(&m->diff_arena);
	if (!(m->diff_memo = cs_calloc(m->nreqs ? m->nreqs : 1, sizeof *m->diff_memo)))
		return false;
	m->ndiff_memo = m->nreqs;
	for (size_t k = 1; k < m->nreqs; k++)
		m->diff_memo[k].model_as_prev = !strcmp(m->reqs[k].model, m->reqs[k - 1].model);
	return true;
}

void request_predictions_free(struct request_model *m)
{
	cs_free(m->core);
	m->core = NULL;
	m->ncore = 0;
	cs_free(m->diff_memo);
	m->diff_memo = NULL;
	m->ndiff_memo = 0;
	arena_fini(&m->diff_arena);
}

/* The pieces left out, once for the whole sequence; false: out of memory. */
static bool find_out(struct pred *p)
{
	const struct source *src = p->src;
	if (!(p->piece_out = cs_calloc(src->npieces ? src->npieces : 1, 1)))
		return false;
	for (size_t i = 0; p->m->unit_piece && i < src->npieces; i++)
		p->piece_out[i] = piece_excluded(&src->pieces[i]);
	return true;
}

/* A prefix key extended by one unit's hash (a multiply and a fold: the
 * sequence hashes every unit of every request again after each edit). */
static uint64_t extend_key(uint64_t h, uint64_t unit)
{
	h = (h ^ unit) * 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

static bool add_bp(struct pred *p, size_t b)
{
	if (p->nbps == p->cap_bps) {
		size_t cap = p->cap_bps ? p->cap_bps * 2 : 64;
		size_t *bps = cs_realloc(p->bps, cap * sizeof *bps);
		if (!bps)
			return false;
		p->bps = bps;
		p->cap_bps = cap;
	}
	p->bps[p->nbps++] = b;
	return true;
}

/* Where r's packed units (own) differ from those of the request before it
 * (before, n of them) into d: the run they begin with alike, but at up to
 * REQUEST_DIFF_AT places. */
static void find_like(struct req_diff_memo *d, const struct req_core *own, size_t nown, const struct req_core *before,
		      size_t n)
{
	if (nown < n)
		n = nown;
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	size_t i = 0;
	d->nunlike = 0;
	for (; i < n; i++)
		if (own[i].hash != before[i].hash || own[i].tokens != before[i].tokens || own[i].piece_bp != before[i].piece_bp) {
			if (d->nunlike == REQUEST_DIFF_AT)
				break;
			d->unlike[d->nunlike++] = (uint32_t)i;
		}
	d->like = (uint32_t)i;
	d->like_known = true;
}

/* r's packed units into p->cur: from the copy of the request before where
 * they are alike, else from m->core. */
static void hold(struct pred *p, const struct req_request *r)
{
	struct request_model *m = p->m;
	size_t k = (size_t)(r - m->reqs);
	const struct req_core *own = m->core + r->first_unit;
	if (!r->nunits) {
	} else if (k == 0 || p->held != (long)k - 1) {
		memcpy(p->cur, own, r->nunits * sizeof *own);
	} else {
		struct req_diff_memo *d = &m->diff_memo[k];
		if (!d->like_known)
			find_like(d, own, r->nunits, p->cur, p->held_n);
		for (uint32_t i = 0; i < d->nunlike; i++)
			p->cur[d->unlike[i]] = own[d->unlike[i]];
		if (r->nunits > d->like)
			memcpy(p->cur + d->like, own + d->like, (r->nunits - d->like) * sizeof *own);
	}
	p->held = (long)k;
	p->held_n = r->nunits;
	if (k + HOLD_AHEAD < m->nreqs && m->diff_memo && m->diff_memo[k + HOLD_AHEAD].like_known) {
		/* what a request a little ahead will read: fetched while this one is worked on */
		const struct req_request *q = &m->reqs[k + HOLD_AHEAD];
		const struct req_diff_memo *d = &m->diff_memo[k + HOLD_AHEAD];
		for (uint32_t i = 0; i < d->nunlike; i++)
			__builtin_prefetch(m->core + q->first_unit + d->unlike[i]);
		for (size_t i = d->like; i < q->nunits; i += 4)
			__builtin_prefetch(m->core + q->first_unit + i);
	}
}

/* Where a request's keys take in what is not a block (caching.md section 1,
 * "what invalidates the cache"): fast mode caches the system prompt and
 * messages apart from standard speed, from the first block after the tools
 * (*fast); the cache settings (request_cache_settings) from the first
 * message for Anthropic, from the start for OpenAI (*settings). SIZE_MAX:
 * nowhere. */
static void salt_positions(const struct request_model *m, const struct req_request *r, size_t *fast,
			   size_t *settings)
{
	*fast = *settings = SIZE_MAX;
	if (r->settings_hash && r->provider != REQ_ANTHROPIC)
		*settings = 0;
	bool want_settings = r->settings_hash && r->provider == REQ_ANTHROPIC;
	for (size_t i = 0; (r->rec_fast && *fast == SIZE_MAX) || (want_settings && *settings == SIZE_MAX); i++) {
		if (i >= r->nunits)
			break;
		int layer = m->units[r->first_unit + i].layer;
		if (r->rec_fast && *fast == SIZE_MAX && layer != RL_TOOLS)
			*fast = i;
		if (want_settings && *settings == SIZE_MAX && (layer == RL_HISTORY || layer == RL_CURRENT))
			*settings = i;
	}
}

static bool prepare(struct pred *p, const struct req_request *r)
{
	if (r->nunits > p->cap) {
		size_t cap = r->nunits * 2;
		long *pre = cs_realloc(p->prefix, cap * sizeof *pre);
		if (pre)
			p->prefix = pre;
		uint64_t *keys = pre ? cs_realloc(p->keys, cap * sizeof *keys) : NULL;
		if (keys)
			p->keys = keys;
		struct req_core *cur = keys ? cs_realloc(p->cur, cap * sizeof *cur) : NULL;
		if (!cur)
			return false;
		p->cur = cur;
		p->cap = cap;
	}
	hold(p, r);
	uint64_t h = p->seed ? p->seed[r - p->m->reqs] : group_seed(p->m, r);
	long t = 0, *restrict prefix = p->prefix;
	uint64_t *restrict keys = p->keys;
	const int8_t *moved = p->m->bp_override;
	const uint8_t *gone = p->piece_out;
	const struct req_core *c = p->cur;
	p->nbps = 0;
	size_t fast_from, settings_from;
	salt_positions(p->m, r, &fast_from, &settings_from);
	for (size_t i = 0; i < r->nunits; i++) {
		uint32_t bits = c[i].piece_bp, piece = bits & REQUEST_CORE_NONE;
		bool has_piece = piece != REQUEST_CORE_NONE;
		if (i == fast_from)
			h = extend_key(h, 0x6661737453504544ull); /* "fastSPED" */
		if (i == settings_from)
			h = extend_key(h, r->settings_hash);
		if (!has_piece || !gone[piece]) { /* an excluded block is not sent: the prefix skips it */
			t += c[i].tokens;
			h = extend_key(h, c[i].hash);
		}
		prefix[i] = t;
		keys[i] = h;
		if (((bits & REQUEST_CORE_BP) || (moved && has_piece && moved[piece])) && !add_bp(p, i))
			return false; /* a candidate: bp_ttl decides */
	}
	return true;
}

/* The last block automatic caching can mark (not thinking), -1 none. */
static long auto_position(const struct pred *p, const struct req_request *r)
{
	const struct request_model *m = p->m;
	for (size_t i = r->nunits; i-- > 0;) {
		const struct req_unit *u = &m->units[r->first_unit + i];
		if (strcmp(u->type, "thinking") && strcmp(u->type, "redacted_thinking") && u->text_len &&
		    !out(p, r->first_unit + i))
			return (long)i;
	}
	return -1;
}

static int bp_ttl(const struct pred *p, const struct req_request *r, size_t i)
{
	const struct request_model *m = p->m;
	size_t u = r->first_unit + i;
	uint32_t c = m->core[u].piece_bp, piece = c & REQUEST_CORE_NONE;
	if (piece != REQUEST_CORE_NONE && p->piece_out[piece])
		return 0; /* its cache_control went with it */
	int ttl = !(c & REQUEST_CORE_BP) ? 0 : c & REQUEST_CORE_TTL ? m->units[u].ttl : c & REQUEST_CORE_1H ? 3600 : 300;
	int moved = piece != REQUEST_CORE_NONE && m->bp_override ? m->bp_override[piece] : 0; /* the inspector's M */
	if (moved)
		ttl = moved < 0 ? 0 : ttl ? ttl : default_ttl(m, r);
	if ((long)i == r->auto_unit && r->auto_ttl > ttl)
		ttl = r->auto_ttl;
	return m->provider == REQ_ANTHROPIC ? recorded_ttl(r, ttl) : ttl;
}

/* Anthropic: reads, writes and the entries this request leaves. */
static bool predict_explicit(struct pred *p, struct req_request *r, long k, long min, long *lookback_miss)
{
	struct request_model *m = p->m;
	long read_at = -1, last_bp = -1;
	*lookback_miss = -1;
	for (size_t c = 0; c < p->nbps; c++) {
		size_t b = p->bps[c];
		int ttl = bp_ttl(p, r, b);
		if (!ttl)
			continue;
		r->nbreakpoints++;
		if (p->prefix[b] < min)
			continue;
		last_bp = (long)b;
		int positions = 0;
		for (long i = (long)b; i >= 0; i--) {
			bool same_position = i < (long)b && (p->cur[i + 1].piece_bp & REQUEST_CORE_RUN);
			positions += !same_position;
			const struct slot *s = map_find(&p->cache, p->keys[i]);
			bool hit = live(p, s, r, k);
			if (hit && positions <= LOOKBACK) {
				if (i > read_at)
					p->read_from = s->req;
				read_at = i > read_at ? i : read_at;
				break;
			}
			if (hit && i > *lookback_miss && i > read_at)
				*lookback_miss = i;
			if (hit)
				break;
		}
	}
	r->pred_read = read_at >= 0 ? p->prefix[read_at] : 0;
	r->cached_extent = last_bp >= 0 ? p->prefix[last_bp] : 0;
	r->pred_write = r->cached_extent > r->pred_read ? r->cached_extent - r->pred_read : 0;
	if (read_at >= 0 && !map_put(&p->cache, p->keys[read_at], r->time, k, default_ttl(m, r)))
		return false;
	for (size_t c = 0; c < p->nbps; c++) {
		size_t b = p->bps[c];
		int ttl = bp_ttl(p, r, b);
		if (ttl && p->prefix[b] >= min && !map_put(&p->cache, p->keys[b], r->time, k, ttl))
			return false;
	}
	return true;
}

/* Automatic caching's breakpoint among the candidates, in order. */
static bool add_auto_bp(struct pred *p, long at)
{
	size_t c = p->nbps;
	while (c > 0 && p->bps[c - 1] > (size_t)at)
		c--;
	if (c > 0 && p->bps[c - 1] == (size_t)at)
		return true;
	if (!add_bp(p, 0))
		return false;
	memmove(p->bps + c + 1, p->bps + c, (p->nbps - 1 - c) * sizeof *p->bps);
	p->bps[c] = (size_t)at;
	return true;
}

/* OpenAI: the longest live prefix, from the minimum, rounded down to the
 * model's step (128 tokens, a 2,048-token grid, or exact); models that
 * charge their writes write the rest of what can be cached. */
static bool predict_prefix(struct pred *p, struct req_request *r, long k, const struct req_model_facts *f)
{
	long min = f->min_prefix, step = f->step > 0 ? f->step : OPENAI_STEP;
	long best = 0;
	for (size_t i = r->nunits; i-- > 0;) {
		const struct slot *s = map_find(&p->cache, p->keys[i]);
		if (live(p, s, r, k)) {
			best = p->prefix[i];
			p->read_from = best >= min ? s->req : -1;
			break;
		}
	}
	r->pred_read = best >= min ? best / step * step : 0;
	r->cached_extent = r->total >= min ? r->total : 0;
	r->pred_write = f->write_5m > 1.0 && r->cached_extent > r->pred_read ? r->cached_extent - r->pred_read : 0;
	int ttl = default_ttl(p->m, r);
	for (size_t i = 0; i < r->nunits; i++)
		if (p->prefix[i] >= min && !map_put(&p->cache, p->keys[i], r->time, k, ttl))
			return false;
	return true;
}

/* ---- the first difference and its cause ---------------------------------- */

static const char *snippet(struct arena *a, const char *s, size_t n, size_t at)
{
	size_t from = at > 30 ? at - 30 : 0, to = at + 50 < n ? at + 50 : n;
	while (from > 0 && from + 40 > at && s[from - 1] != ' ' && s[from - 1] != '\n')
		from--; /* back to a word's start */
	while (from > 0 && ((unsigned char)s[from] & 0xC0) == 0x80)
		from--;
	while (to < n && ((unsigned char)s[to] & 0xC0) == 0x80)
		to++;
	return arena_printf(a, "%s%.*s%s", from ? "..." : "", (int)(to - from), s + from, to < n ? "..." : "");
}

/* Whether tools differ only in order between two requests. */
static bool tools_reordered(const struct request_model *m, const struct req_request *a, const struct req_request *b)
{
	size_t na = 0, nb = 0;
	uint64_t sa = 0, sb = 0, xa = 0, xb = 0;
	for (size_t i = 0; i < a->nunits && m->units[a->first_unit + i].layer == RL_TOOLS; i++, na++) {
		sa += m->units[a->first_unit + i].hash;
		xa ^= m->units[a->first_unit + i].hash * 31;
	}
	for (size_t i = 0; i < b->nunits && m->units[b->first_unit + i].layer == RL_TOOLS; i++, nb++) {
		sb += m->units[b->first_unit + i].hash;
		xb ^= m->units[b->first_unit + i].hash * 31;
	}
	return na == nb && sa == sb && xa == xb;
}

static const char *cause_of(struct pred *p, const struct req_request *r, const struct req_request *prev,
			    const struct req_unit *u, const struct req_unit *v, size_t at)
{
	struct arena *a = &p->m->diff_arena;
	size_t vat, vlen;
	if (u->layer == RL_TOOLS)
		return tools_reordered(p->m, r, prev) ? "the tool definitions changed order"
						      : arena_printf(a, "a tool definition changed (%s)", u->path);
	/* a volatile run that starts at most 40 bytes before the difference
	 * (one longer than VOLATILE_WINDOW is still told, shortened) */
	size_t from = at > 40 ? at - 40 : 0, window = u->text_len - from;
	if (window > 41 + VOLATILE_WINDOW)
		window = 41 + VOLATILE_WINDOW;
	if (v && request_volatile(u->text + from, window, &vat, &vlen) && vat <= at - from + 1)
		return arena_printf(a, "a timestamp or id in the %s layer (%s) changed: \"%.*s\"",
				    request_layer_name(u->layer), u->path, (int)vlen, u->text + from + vat);
	if (u->layer == RL_SYSTEM)
		return arena_printf(a, "the system text changed (%s)", u->path);
	if (u->layer == RL_HISTORY)
		return arena_printf(a, "an earlier message was edited (%s)", u->path);
	return arena_printf(a, "the current turn differs (%s)", u->path);
}

/* The texts of the difference at unit u of r (REQUEST_NO_UNIT: r ran
 * out) against unit v of prev into d, in m->diff_arena. */
static int tell_diff(struct pred *p, const struct req_request *r, const struct req_request *prev, size_t u_at,
		     size_t v_at, struct req_diff_memo *d)
{
	struct request_model *m = p->m;
	struct arena *a = &m->diff_arena;
	const struct req_unit *v = &m->units[v_at];
	d->u = u_at;
	d->v = v_at;
	d->path = d->now = d->before = d->cause = NULL;
	d->tool_order = false;
	if (u_at == REQUEST_NO_UNIT) {
		d->path = v->path;
		d->cause = arena_printf(a, "blocks from %s on were removed", v->path);
		return d->cause ? CS_OK : CS_ENOMEM;
	}
	const struct req_unit *u = &m->units[u_at];
	size_t at = 0;
	while (at < u->text_len && at < v->text_len && u->text[at] == v->text[at])
		at++;
	d->path = u->path;
	d->now = snippet(a, u->text, u->text_len, at);
	d->before = snippet(a, v->text, v->text_len, at);
	const char *cause = at == u->text_len && at == v->text_len
				    ? arena_printf(a, "same text, other fields differ (%s: role, type or attributes)", u->path)
				    : cause_of(p, r, prev, u, v, at);
	d->tool_order = u->layer == RL_TOOLS && tools_reordered(m, r, prev);
	d->cause = d->now && d->before ? cause : NULL; /* set last: a memo without it is told again */
	return d->cause ? CS_OK : CS_ENOMEM;
}

/* The units r and prev begin with block for block (the same pieces: an
 * edit leaves out both or neither) into d, with where among them they
 * differ; the run stops at a difference past REQUEST_DIFF_AT (and before
 * UINT32_MAX units). */
static void same_units(const struct request_model *m, const struct req_request *r, const struct req_request *prev,
		       struct req_diff_memo *d)
{
	const struct req_core *a = m->core + r->first_unit, *b = m->core + prev->first_unit;
	size_t n = r->nunits < prev->nunits ? r->nunits : prev->nunits, i = 0;
	if (n > UINT32_MAX - 1)
		n = UINT32_MAX - 1;
	d->ndiff_at = 0;
	for (; i < n && (a[i].piece_bp & REQUEST_CORE_NONE) == (b[i].piece_bp & REQUEST_CORE_NONE); i++)
		if (a[i].hash != b[i].hash) {
			if (d->ndiff_at == REQUEST_DIFF_AT)
				break;
			d->diff_at[d->ndiff_at++] = (uint32_t)i;
		}
	d->same = (uint32_t)i;
}

/* Fills r's first difference from prev (request `with`) and its cause:
 * told again only when the units compared are not the ones last told. */
static int diff_with(struct pred *p, struct req_request *r, const struct req_request *prev, long with)
{
	struct request_model *m = p->m;
	struct req_diff_memo *d = &m->diff_memo[r - m->reqs];
	if (d->same_with != with + 1) {
		d->same_with = with + 1;
		same_units(m, r, prev, d);
	}
	/* r's unit i against prev's unit j, blocks left out by an edit skipped:
	 * over the blocks both begin with, left out alike, the first
	 * difference is the first one not left out */
	size_t i = d->same, j = d->same;
	bool found = false;
	for (uint32_t k = 0; k < d->ndiff_at && !found; k++)
		if (!out(p, r->first_unit + d->diff_at[k])) {
			i = j = d->diff_at[k];
			found = true;
		}
	for (; !found; i++, j++) {
		while (i < r->nunits && out(p, r->first_unit + i))
			i++;
		while (j < prev->nunits && out(p, prev->first_unit + j))
			j++;
		if (i == r->nunits || j == prev->nunits || m->core[r->first_unit + i].hash != m->core[prev->first_unit + j].hash)
			break;
	}
	r->compared = with;
	if (j == prev->nunits)
		return CS_OK; /* it extends the request before: nothing broke */
	size_t u = i == r->nunits ? REQUEST_NO_UNIT : r->first_unit + i, v = prev->first_unit + j;
	if (!d->cause || d->u != u || d->v != v) {
		int rc = tell_diff(p, r, prev, u, v, d);
		if (rc != CS_OK)
			return rc;
	}
	r->diff_path = d->path;
	r->cause = d->cause;
	if (u == REQUEST_NO_UNIT) {
		r->broke = i == 0 || p->prefix[i - 1] < prev->cached_extent;
		return CS_OK;
	}
	r->diff_unit = (long)u;
	r->diff_now = d->now;
	r->diff_before = d->before;
	long before = i ? p->prefix[i - 1] : 0;
	r->broke = before < prev->cached_extent;
	if (r->broke && d->tool_order)
		request_lint(p->src, m, "tool-order", r->diff_unit, false,
			     "line %ld: the tool definitions changed order from request %ld (line %ld); every cached "
			     "prefix after them is lost", r->line, with + 1, prev->line);
	return CS_OK;
}

/* A read of a cache shared across sessions (ctxscope-formats(5) section 7b): a request
 * whose breakpoint has scope "global" (Claude Code marks its system prompt
 * so) can read what another session wrote, text this log does not show as
 * sent before. For the first request of its group (nothing earlier of its
 * model in the log) that the record says read, that read is taken as
 * predicted, up to what the request caches, and told as a read of the
 * shared cache, not a miss. */
static void global_read(struct pred *p, struct req_request *r, long min)
{
	if (!r->recorded || r->rec_read <= 0 || r->pred_read > 0)
		return;
	long at = -1;
	for (size_t i = 0; i < r->nunits; i++)
		if (p->m->units[r->first_unit + i].global && p->prefix[i] >= min && bp_ttl(p, r, i))
			at = (long)i;
	if (at < 0)
		return;
	long extent = r->cached_extent > 0 ? r->cached_extent : r->total;
	r->global_read = r->rec_read;
	r->global_extent = p->prefix[at];
	r->global_path = p->m->units[r->first_unit + at].path;
	r->pred_read = r->rec_read < extent ? r->rec_read : extent;
	r->pred_write = extent > r->pred_read ? extent - r->pred_read : 0;
	r->pred_uncached = r->total - r->pred_read - r->pred_write;
}

static int predict_one(struct pred *p, long k)
{
	struct request_model *m = p->m;
	struct req_request *r = &m->reqs[k];
	const struct req_model_facts **f = &p->facts[r->group];
	if (!*f)
		*f = request_facts(m, m->groups[r->group].model, NULL);
	if (!prepare(p, r))
		return CS_ENOMEM;
	r->total = r->nunits ? p->prefix[r->nunits - 1] : 0;
	r->auto_unit = r->auto_ttl ? auto_position(p, r) : -1;
	if (r->auto_unit >= 0 && !add_auto_bp(p, r->auto_unit))
		return CS_ENOMEM;
	long miss = -1;
	p->read_from = -1;
	bool ok = explicit_cache(m, r) ? predict_explicit(p, r, k, (*f)->min_prefix, &miss)
				       : predict_prefix(p, r, k, *f);
	if (!ok)
		return CS_ENOMEM;
	r->pred_uncached = r->total - r->pred_read - r->pred_write;
	long with = p->read_from >= 0 && p->read_from < k ? p->read_from : p->prev_same[k];
	r->global_read = r->global_extent = 0;
	r->global_path = NULL;
	if (with < 0 && explicit_cache(m, r))
		global_read(p, r, (*f)->min_prefix);
	if (with < 0)
		return CS_OK; /* the first of its group (a model switch is no break) */
	const struct req_request *prev = &m->reqs[with];
	int rc = diff_with(p, r, prev, with);
	if (rc != CS_OK || r->cause)
		return rc;
	bool lost = prev->cached_extent > 0 && r->pred_read < prev->cached_extent;
	if (lost && r->rec_fast != prev->rec_fast) {
		r->broke = true;
		r->cause = arena_printf(&p->m->pred_arena, "the speed changed (%s -> %s): fast mode caches the system "
					"prompt and messages apart from standard speed", prev->rec_fast ? "fast" : "standard",
					r->rec_fast ? "fast" : "standard");
	} else if (lost && r->settings_hash != prev->settings_hash) {
		r->broke = true;
		r->cause = arena_printf(&p->m->pred_arena, "a setting changed (%s -> %s): %s", prev->settings ? prev->settings : "none",
					r->settings ? r->settings : "none",
					r->provider == REQ_ANTHROPIC ? "the messages are cached apart for each"
								     : "it is rendered into the cached prefix");
	} else if (miss >= 0) {
		r->broke = true;
		r->cause = arena_printf(&p->m->pred_arena, "the breakpoint moved past the %d-block lookback: the entry "
					"at %s is out of its reach", LOOKBACK, m->units[r->first_unit + miss].path);
	} else if (r->time >= 0 && prev->time >= 0 && r->time - prev->time > entry_life(m, prev) &&
		   prev->cached_extent > 0 && r->pred_read == 0) {
		r->broke = true;
		r->cause = arena_printf(&p->m->pred_arena, "the TTL expired: %.0f s later (entries last %d s)",
					r->time - prev->time, entry_life(m, prev));
	}
	return CS_OK;
}

/* ---- lints on the current request ---------------------------------------- */

static int breakpoint_lints(struct pred *p, const struct req_request *r, const struct req_model_facts *f)
{
	struct request_model *m = p->m;
	const char *model = request_model_name(m, r);
	int rc = CS_OK, prev_ttl = 0;
	long prev_bp = -1, positions = 0;
	for (size_t b = 0; b < r->nunits && rc == CS_OK; b++) {
		const struct req_unit *u = &m->units[r->first_unit + b];
		positions += !u->run;
		int ttl = bp_ttl(p, r, b);
		if (!ttl)
			continue;
		long unit = (long)(r->first_unit + b);
		if (p->prefix[b] < f->min_prefix)
			rc = request_lint(p->src, m, "under-minimum", unit, false,
					  "the breakpoint at %s closes a prefix of %ld tokens, under %s's minimum of %ld: "
					  "nothing is cached there", u->path, p->prefix[b], model[0] ? model : "the model", f->min_prefix);
		if (rc == CS_OK && ttl > prev_ttl && prev_ttl)
			rc = request_lint(p->src, m, "ttl-order", unit, false,
					  "a 1-hour entry at %s comes after a 5-minute one: longer TTLs must come first",
					  u->path);
		if (rc == CS_OK && prev_bp >= 0 && positions - prev_bp > LOOKBACK)
			rc = request_lint(p->src, m, "lookback", unit, false,
					  "the breakpoint at %s is %ld blocks after the one before: a later read looks back "
					  "at most %d", u->path, positions - prev_bp, LOOKBACK);
		prev_ttl = ttl;
		prev_bp = positions;
	}
	if (rc == CS_OK && r->nbreakpoints > 4)
		rc = request_lint(p->src, m, "over-limit", -1, true,
				  "%ld cache breakpoints%s: the API accepts at most 4 and refuses this request",
				  r->nbreakpoints, r->auto_ttl ? " (automatic caching uses one)" : "");
	return rc;
}

/* Volatile text in the layers every request repeats (tools, system): when
 * it changes, the whole conversation after it is written again. History
 * holds old timestamps that never change again; the current turn is new
 * anyway. */
static int volatile_lints(struct pred *p, const struct req_request *r)
{
	struct request_model *m = p->m;
	long end = -1; /* the last unit of the stable layers a cache keeps */
	for (size_t b = 0; b < r->nunits; b++)
		if (m->units[r->first_unit + b].layer <= RL_SYSTEM)
			end = (long)b;
	for (long b = 0; b <= end; b++) {
		const struct req_unit *u = &m->units[r->first_unit + (size_t)b];
		size_t at, len;
		if (u->image || !request_volatile(u->text, u->text_len, &at, &len))
			continue;
		if (request_lint(p->src, m, "volatile", (long)r->first_unit + b, false,
				 "volatile text \"%.*s\" in %s, inside the cached prefix: when it changes, everything "
				 "after it is written again", (int)(len > 60 ? 60 : len), u->text + at, u->path) != CS_OK)
			return CS_ENOMEM;
	}
	return CS_OK;
}

/* ---- the cache groups: one model, one account ----------------------------- */

static bool add_group(struct request_model *m, const char *model, uint64_t account, long first)
{
	struct req_group *g = cs_realloc(m->groups, (m->ngroups + 1) * sizeof *g);
	if (!g)
		return false;
	m->groups = g;
	g[m->ngroups] = (struct req_group){ model, account, 0, first,
					    (char)(m->ngroups < 26 ? 'A' + m->ngroups : m->ngroups < 52 ? 'a' + m->ngroups - 26 : '*') };
	m->ngroups++;
	return true;
}

/* Every request's group, its group's seed and its group's request before
 * it; m->groups anew. A run of requests of one model asks no table and
 * compares no name (the diff memo knows which follow one of the same
 * name). */
static bool find_groups(struct pred *p)
{
	struct request_model *m = p->m;
	size_t n = m->nreqs ? m->nreqs : 1;
	p->seed = cs_malloc(n * sizeof *p->seed);
	p->prev_same = cs_malloc(n * sizeof *p->prev_same);
	long *last = cs_malloc(n * sizeof *last); /* per group: its latest request */
	if (!p->seed || !p->prev_same || !last) {
		cs_free(last);
		return false;
	}
	m->ngroups = 0;
	size_t g = 0;
	for (size_t k = 0; k < m->nreqs; k++) {
		struct req_request *r = &m->reqs[k];
		const char *model = request_model_name(m, r);
		bool as_prev = m->model_override || m->diff_memo[k].model_as_prev; /* then the group of the request before */
		if (!m->ngroups || !as_prev || r->account != m->groups[g].account) {
			for (g = 0; g < m->ngroups; g++)
				if (r->account == m->groups[g].account && !strcmp(model, m->groups[g].model))
					break;
			if (g == m->ngroups && !add_group(m, model, r->account, (long)k)) {
				cs_free(last);
				return false;
			}
		}
		r->group = (int)g;
		m->groups[g].count++;
		p->prev_same[k] = m->groups[g].count > 1 ? last[g] : -1;
		last[g] = (long)k;
		p->seed[k] = k && p->prev_same[k] == (long)k - 1 ? p->seed[k - 1] : group_seed(m, r);
	}
	cs_free(last);
	return (p->facts = cs_calloc(m->ngroups ? m->ngroups : 1, sizeof *p->facts)) != NULL;
}

static void pred_fini(struct pred *p)
{
	cs_free(p->cache.s);
	cs_free(p->prefix);
	cs_free(p->keys);
	cs_free(p->cur);
	cs_free(p->piece_out);
	cs_free(p->bps);
	cs_free(p->seed);
	cs_free(p->prev_same);
	cs_free(p->facts);
}

/* The lints of the request shown: its breakpoints, its volatile text. */
static int current_lints(struct pred *p)
{
	struct request_model *m = p->m;
	const struct req_request *cur = &m->reqs[m->current];
	if (!prepare(p, cur))
		return CS_ENOMEM;
	const struct req_model_facts *f = request_facts(m, request_model_name(m, cur), NULL);
	int rc = explicit_cache(m, cur) ? breakpoint_lints(p, cur, f) : CS_OK;
	return rc == CS_OK ? volatile_lints(p, cur) : rc;
}

int request_predict(struct source *src, struct request_model *m, struct cs_error *err)
{
	arena_fini(&m->pred_arena); /* the text of the prediction before: nothing points into it now */
	arena_init(&m->pred_arena);
	struct pred p = { .src = src, .m = m, .held = -1 };
	int rc = make_core(m) && make_diff_memo(m) && find_out(&p) && find_groups(&p) && map_reserve(&p.cache, 3 * m->nreqs)
			 ? CS_OK : CS_ENOMEM;
	for (size_t k = 0; k < m->nreqs && rc == CS_OK; k++)
		rc = predict_one(&p, (long)k);
	m->nseq_lints = m->nlints;
	if (rc == CS_OK)
		rc = current_lints(&p);
	pred_fini(&p);
	return rc == CS_OK ? CS_OK : cs_error_nomem(err);
}

int request_current_lints(struct source *src, struct request_model *m, struct cs_error *err)
{
	struct pred p = { .src = src, .m = m, .held = -1 };
	m->nlints = m->nseq_lints;
	int rc = make_core(m) && find_out(&p) ? current_lints(&p) : CS_ENOMEM; /* the groups stand */
	pred_fini(&p);
	return rc == CS_OK ? CS_OK : cs_error_nomem(err);
}
