/* bpe.c: the rank table and the merge loop (see bpe.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "tokens/bpe.h"

#include "base/alloc.h"
#include "base/base64.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

/* A token: its key (below) inline, its bytes past the 8th in the block. A
 * token longer than BPE_MAX_SHORT bytes (claude's runs of up to 1,024
 * spaces) has length 0 here and its length in the two bytes before its
 * bytes (little-endian). */
struct bpe_entry {
	uint64_t key;
	uint32_t rank;
	uint32_t where; /* offset in bytes << 8 | length (3 to 255, 0: longer); 0: an empty slot */
};

#define BPE_MAX_SHORT 255
#define BPE_MAX_TOKEN 65535
#define BPE_MAX_BYTES ((size_t)1 << 24)

static uint32_t load32(const unsigned char *s)
{
	uint32_t w;
	memcpy(&w, s, 4);
	return w;
}

/* s[0..n) in one word: all of it for n <= 8 (with n, nothing else is
 * needed to tell two tokens apart), the first 8 bytes for longer ones. */
static uint64_t key_of(const unsigned char *s, size_t n)
{
	if (n >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		return w;
	}
	if (n >= 4)
		return (uint64_t)load32(s) | (uint64_t)load32(s + n - 4) << 32;
	return (uint64_t)s[0] | (uint64_t)s[n / 2] << 8 | (uint64_t)s[n - 1] << 16;
}

uint64_t bpe_mix(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ull;
	return h ^ (h >> 32);
}

static uint64_t hash_of(uint64_t key, const unsigned char *s, size_t n)
{
	uint64_t h = key ^ (uint64_t)n * 0x9E3779B97F4A7C15ull;
	for (size_t i = 8; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		h = bpe_mix(h) ^ w;
	}
	if (n > 8 && n % 8) {
		uint64_t w;
		memcpy(&w, s + n - 8, 8); /* the last 8 bytes, overlapping */
		h = bpe_mix(h) ^ w;
	}
	return bpe_mix(h);
}

uint64_t bpe_hash(const unsigned char *s, size_t n)
{
	return n ? hash_of(key_of(s, n), s, n) : 0;
}

/* Whether e holds the token s[0..n) whose key is key. */
static bool entry_is(const struct bpe_ranks *r, const struct bpe_entry *e, uint64_t key, const unsigned char *s,
		     size_t n)
{
	if (e->key != key)
		return false;
	const unsigned char *b = r->bytes + (e->where >> 8);
	if (n <= BPE_MAX_SHORT ? (e->where & 0xFF) != n : (e->where & 0xFF) != 0 || (size_t)(b[-2] | b[-1] << 8) != n)
		return false;
	return n <= 8 || !memcmp(b + 8, s + 8, n - 8);
}

uint32_t bpe_rank(const struct bpe_ranks *r, const unsigned char *s, size_t n)
{
	if (n == 1)
		return r->byte_rank[s[0]];
	if (n == 2)
		return r->pair_rank[s[0] << 8 | s[1]];
	if (n > BPE_MAX_TOKEN)
		return BPE_NO_RANK;
	uint64_t key = key_of(s, n);
	size_t mask = r->nslots - 1;
	for (size_t i = (size_t)hash_of(key, s, n) & mask;; i = (i + 1) & mask) {
		const struct bpe_entry *e = &r->slots[i];
		if (e->where == 0)
			return BPE_NO_RANK;
		if (entry_is(r, e, key, s, n))
			return e->rank;
	}
}

/* ---- parsing a .tiktoken file ---------------------------------------------- */

/* The table is built in one pass over the file: each line's token is
 * decoded and hashed, its slot prefetched, and the token inserted
 * PARSE_AHEAD lines later, by when the slot is in cache (the table is
 * megabytes, so each insert would otherwise wait on memory). Only tokens of
 * three bytes or more go in: bpe_rank finds shorter ones in byte_rank and
 * pair_rank. */
#define PARSE_AHEAD 16

struct pending {
	uint64_t key, hash;
	uint32_t rank, where;
	uint32_t len;
};

struct parse {
	struct bpe_ranks *r;
	struct pending ring[PARSE_AHEAD];
	size_t queued;        /* tokens seen; ring[i % PARSE_AHEAD] */
	size_t used;          /* bytes of r->bytes used */
	const char *name;
	size_t line;
};

/* Inserts the token p->where with p->rank; a token already there keeps its
 * first rank (one probe does both: a match on the way, or the empty slot). */
static void insert(struct bpe_ranks *r, const struct pending *p)
{
	size_t len = p->len, mask = r->nslots - 1;
	const unsigned char *tok = r->bytes + (p->where >> 8);
	for (size_t i = (size_t)p->hash & mask;; i = (i + 1) & mask) {
		struct bpe_entry *e = &r->slots[i];
		if (e->where == 0) {
			*e = (struct bpe_entry){ p->key, p->rank, p->where };
			r->ntokens++;
			return;
		}
		if (entry_is(r, e, p->key, tok, len))
			return;
	}
}

static void queue(struct parse *ps, uint32_t off, uint32_t len, uint32_t rank)
{
	struct bpe_ranks *r = ps->r;
	struct pending *slot = &ps->ring[ps->queued % PARSE_AHEAD];
	if (ps->queued++ >= PARSE_AHEAD)
		insert(r, slot);
	slot->key = key_of(r->bytes + off, len);
	slot->hash = hash_of(slot->key, r->bytes + off, len);
	slot->rank = rank;
	slot->where = off << 8 | (len <= BPE_MAX_SHORT ? len : 0);
	slot->len = len;
	__builtin_prefetch(&r->slots[(size_t)slot->hash & (r->nslots - 1)], 1);
}

static void drain(struct parse *ps)
{
	size_t from = ps->queued > PARSE_AHEAD ? ps->queued - PARSE_AHEAD : 0;
	for (size_t i = from; i < ps->queued; i++)
		insert(ps->r, &ps->ring[i % PARSE_AHEAD]);
	ps->queued = 0;
}

static int bad_line(const char *name, size_t line, const char *why, struct cs_error *err)
{
	cs_error_file(err, name);
	cs_error_pos(err, (long)line, 0);
	return cs_error_set(err, CS_ESYNTAX, "not a .tiktoken rank file: %s", why);
}

/* One line "BASE64 RANK" at s[0..n): its bytes appended at r->bytes + used. */
static int parse_line(struct parse *ps, const char *s, size_t n, struct cs_error *err)
{
	struct bpe_ranks *r = ps->r;
	const char *sp = memchr(s, ' ', n);
	if (!sp || sp == s || sp + 1 == s + n)
		return bad_line(ps->name, ps->line, "a line is not \"base64 rank\"", err);
	unsigned long long rank = 0;
	for (const char *p = sp + 1; p < s + n; p++) {
		if (*p < '0' || *p > '9' || rank > UINT32_MAX / 10)
			return bad_line(ps->name, ps->line, "a rank is not a number below 4294967295", err);
		rank = rank * 10 + (unsigned long long)(*p - '0');
	}
	if (rank >= BPE_NO_RANK)
		return bad_line(ps->name, ps->line, "a rank is not a number below 4294967295", err);
	/* decoded two bytes on, for a long token's length (the line's rank,
	 * space and newline leave room for them) */
	long len = base64_decode(s, (size_t)(sp - s), r->bytes + ps->used + 2);
	if (len <= 0)
		return bad_line(ps->name, ps->line, "a token is not base64", err);
	if (len > BPE_MAX_TOKEN || ps->used + (size_t)len + 2 >= BPE_MAX_BYTES)
		return bad_line(ps->name, ps->line, "a token is longer than 65,535 bytes, or the tokens past 16 MB",
				err);
	if (len > BPE_MAX_SHORT) {
		r->bytes[ps->used] = (unsigned char)(len & 0xFF);
		r->bytes[ps->used + 1] = (unsigned char)(len >> 8);
		ps->used += 2;
	} else {
		memmove(r->bytes + ps->used, r->bytes + ps->used + 2, (size_t)len);
	}
	const unsigned char *tok = r->bytes + ps->used;
	if (len == 1 && r->byte_rank[tok[0]] == BPE_NO_RANK)
		r->byte_rank[tok[0]] = (uint32_t)rank, r->ntokens++;
	else if (len == 2 && r->pair_rank[tok[0] << 8 | tok[1]] == BPE_NO_RANK)
		r->pair_rank[tok[0] << 8 | tok[1]] = (uint32_t)rank, r->ntokens++;
	else if (len > 2)
		queue(ps, (uint32_t)ps->used, (uint32_t)len, (uint32_t)rank);
	ps->used += (size_t)len;
	return CS_OK;
}

/* Advice: the table's untouched pages of p[0..size) come as huge pages
 * (where the system gives them on request): a few faults instead of one
 * per 4 KiB, and fewer TLB misses when counting. */
static void huge_pages(void *p, size_t size)
{
#ifdef MADV_HUGEPAGE
	uintptr_t page = 4096, from = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + size) & ~(page - 1);
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
	(void)p, (void)size;
#endif
}

size_t bpe_block_size(size_t nslots, size_t nbytes)
{
	return BPE_BLOCK_HEAD + 65536 * sizeof(uint32_t) + nslots * sizeof(struct bpe_entry) + nbytes;
}

void bpe_block_place(struct bpe_ranks *r, void *block, size_t nslots)
{
	unsigned char *b = block;
	r->block = block;
	r->nslots = nslots;
	r->pair_rank = (uint32_t *)(void *)(b + BPE_BLOCK_HEAD);
	r->slots = (struct bpe_entry *)(void *)(b + BPE_BLOCK_HEAD + 65536 * sizeof(uint32_t));
	r->bytes = (unsigned char *)(r->slots + nslots);
}

/* The block, sized for a file of len bytes and `lines` lines: slots empty
 * (calloc'd: where 0), ranks BPE_NO_RANK. */
static int ranks_alloc(struct bpe_ranks *r, size_t len, size_t lines)
{
	size_t nslots = 1024;
	while (nslots < 2 * (lines + 1))
		nslots *= 2;
	r->block_len = bpe_block_size(nslots, len + 1);
	void *block = cs_calloc(1, r->block_len);
	if (!block)
		return CS_ENOMEM;
	bpe_block_place(r, block, nslots);
	huge_pages(r->slots, nslots * sizeof *r->slots);
	for (size_t i = 0; i < 65536; i++)
		r->pair_rank[i] = BPE_NO_RANK;
	return CS_OK;
}

int bpe_ranks_parse(struct bpe_ranks *r, const char *buf, size_t len, const char *name,
		    struct cs_error *err)
{
	memset(r, 0, sizeof *r);
	for (int b = 0; b < 256; b++)
		r->byte_rank[b] = BPE_NO_RANK;
	if (len >= UINT32_MAX)
		return cs_error_set(err, CS_ELIMIT, "%s: a rank file of 4 GiB or more", name);
	size_t lines = 0;
	for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		lines++;
	if (ranks_alloc(r, len, lines) != CS_OK) {
		bpe_ranks_fini(r);
		return cs_error_nomem(err);
	}
	struct parse ps = { .r = r, .name = name };
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(buf + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - buf) : len, n = end - at;
		ps.line++;
		if (n > 0 && buf[at + n - 1] == '\r')
			n--;
		int rc = n ? parse_line(&ps, buf + at, n, err) : CS_OK;
		if (rc != CS_OK) {
			bpe_ranks_fini(r);
			return rc;
		}
		at = end + 1;
	}
	drain(&ps);
	r->nbytes = ps.used;
	for (int b = 0; b < 256; b++)
		if (r->byte_rank[b] == BPE_NO_RANK) {
			bpe_ranks_fini(r);
			return bad_line(name, 0, "some single bytes have no token", err);
		}
	return CS_OK;
}

void bpe_ranks_fini(struct bpe_ranks *r)
{
	if (r->unmap)
		r->unmap(r->block, r->block_len);
	else
		cs_free(r->block);
	r->block = NULL;
	r->unmap = NULL;
	r->bytes = NULL;
	r->slots = NULL;
	r->pair_rank = NULL;
	r->nslots = r->ntokens = r->nbytes = r->block_len = 0;
}

/* ---- merging ------------------------------------------------------------- */

long bpe_merge_linear(const struct bpe_ranks *r, const unsigned char *s, size_t n, uint32_t *out)
{
	uint32_t start[BPE_SHORT_PIECE + 1], rank[BPE_SHORT_PIECE + 1];
	if (n == 0)
		return 0;
	if (n > BPE_SHORT_PIECE)
		return -1;
	size_t m = n + 1;
	for (size_t i = 0; i < m; i++)
		start[i] = (uint32_t)i;
	for (size_t i = 0; i + 2 < m; i++)
		rank[i] = bpe_rank(r, s + i, 2);
	while (m > 2) {
		uint32_t best = BPE_NO_RANK;
		size_t at = 0;
		for (size_t i = 0; i + 2 < m; i++)
			if (rank[i] < best)
				best = rank[i], at = i;
		if (best == BPE_NO_RANK)
			break;
		/* parts at and at+1 become one: drop start[at+1] */
		memmove(start + at + 1, start + at + 2, (m - at - 2) * sizeof *start);
		memmove(rank + at + 1, rank + at + 2, (m - at - 2) * sizeof *rank);
		m--;
		if (at + 2 < m)
			rank[at] = bpe_rank(r, s + start[at], start[at + 2] - start[at]);
		if (at > 0)
			rank[at - 1] = bpe_rank(r, s + start[at - 1], start[at + 1] - start[at - 1]);
	}
	if (out)
		for (size_t i = 0; i + 1 < m; i++)
			out[i] = bpe_rank(r, s + start[i], start[i + 1] - start[i]);
	return (long)(m - 1);
}

/* A candidate merge, packed so that one compare orders it: the rank of the
 * pair's bytes when pushed (high half), the left node's start (low half).
 * Checked against the pair's current rank when popped. */
struct heap {
	uint64_t *v;
	size_t n, cap;
};

static void sift_down(uint64_t *v, size_t n, size_t i)
{
	uint64_t x = v[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && v[c + 1] < v[c])
			c++;
		if (v[c] >= x)
			break;
		v[i] = v[c];
		i = c;
	}
	v[i] = x;
}

static int heap_push(struct heap *h, uint32_t rank, uint32_t left)
{
	if (rank == BPE_NO_RANK)
		return 0;
	if (h->n == h->cap && CS_GROW(h->v, h->cap, h->n + 1) != 0)
		return -1;
	uint64_t x = (uint64_t)rank << 32 | left;
	size_t i = h->n++;
	while (i > 0 && x < h->v[(i - 1) / 2]) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
	return 0;
}

static uint64_t heap_pop(struct heap *h)
{
	uint64_t top = h->v[0];
	h->v[0] = h->v[--h->n];
	if (h->n)
		sift_down(h->v, h->n, 0);
	return top;
}

#define DEAD UINT32_MAX

struct nodes {
	uint32_t *nxt, *prv, *pair; /* pair[p]: the rank of node p with its next */
};

/* The rank of the pair starting at node p (BPE_NO_RANK at the end), stored
 * and pushed. */
static int set_pair(const struct bpe_ranks *r, const unsigned char *s, size_t n, struct nodes *d,
		    struct heap *h, uint32_t p)
{
	uint32_t mid = d->nxt[p];
	d->pair[p] = mid < n ? bpe_rank(r, s + p, d->nxt[mid] - p) : BPE_NO_RANK;
	return heap_push(h, d->pair[p], p);
}

/* Nodes are named by their first byte: nxt[p] is where the next node
 * starts (n at the end), prv[p] where the previous one does (DEAD: p is not
 * a node's start any more). The leftmost lowest-rank pair wins, as in the
 * linear scan: the heap orders by (rank, left). */
long bpe_merge_heap(const struct bpe_ranks *r, const unsigned char *s, size_t n, uint32_t *out)
{
	if (n == 0)
		return 0;
	if (n >= UINT32_MAX)
		return -1;
	struct nodes d = { cs_reallocarray(NULL, n, sizeof *d.nxt), cs_reallocarray(NULL, n, sizeof *d.prv),
			   cs_reallocarray(NULL, n, sizeof *d.pair) };
	struct heap h = { .v = cs_reallocarray(NULL, n, sizeof *h.v), .cap = n };
	long count = -1;
	if (!d.nxt || !d.prv || !d.pair || !h.v)
		goto done;
	for (size_t i = 0; i < n; i++) {
		d.nxt[i] = (uint32_t)i + 1;
		d.prv[i] = i ? (uint32_t)i - 1 : 0; /* node 0's is never followed */
		d.pair[i] = i + 1 < n ? bpe_rank(r, s + i, 2) : BPE_NO_RANK;
		if (d.pair[i] != BPE_NO_RANK)
			h.v[h.n++] = (uint64_t)d.pair[i] << 32 | i;
	}
	for (size_t i = h.n / 2; i-- > 0;)
		sift_down(h.v, h.n, i);
	count = (long)n;
	while (h.n) {
		uint64_t c = heap_pop(&h);
		uint32_t left = (uint32_t)c, rank = (uint32_t)(c >> 32);
		if (d.prv[left] == DEAD || d.pair[left] != rank)
			continue;
		uint32_t mid = d.nxt[left], end = d.nxt[mid];
		d.prv[mid] = DEAD;
		d.nxt[left] = end;
		if (end < n)
			d.prv[end] = left;
		count--;
		if (set_pair(r, s, n, &d, &h, left) != 0 || (left > 0 && set_pair(r, s, n, &d, &h, d.prv[left]) != 0)) {
			count = -1;
			goto done;
		}
	}
	if (out)
		for (uint32_t p = 0, k = 0; p < n; p = d.nxt[p])
			out[k++] = bpe_rank(r, s + p, d.nxt[p] - p);
done:
	cs_free(d.nxt);
	cs_free(d.prv);
	cs_free(d.pair);
	cs_free(h.v);
	return count;
}

long bpe_merge(const struct bpe_ranks *r, const unsigned char *s, size_t n, uint32_t *out)
{
	uint32_t whole = bpe_rank(r, s, n);
	if (whole != BPE_NO_RANK) {
		if (out)
			out[0] = whole;
		return 1;
	}
	return n <= BPE_SHORT_PIECE ? bpe_merge_linear(r, s, n, out) : bpe_merge_heap(r, s, n, out);
}
