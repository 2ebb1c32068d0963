/* bpe.h: byte-level byte-pair encoding, tiktoken's algorithm: a piece (one
 * pre-tokenizer match, tokenizer.h) starts as single bytes; the adjacent pair
 * whose concatenation has the lowest rank is merged (the leftmost on a tie)
 * until no pair is a token. Ranks come from a `.tiktoken` file: one token a
 * line, its bytes in base64, a space, its rank. */
#ifndef CTXSCOPE_BPE_H
#define CTXSCOPE_BPE_H

#include "base/error.h"

#include <stddef.h>
#include <stdint.h>

#define BPE_NO_RANK UINT32_MAX

struct bpe_entry;

/* The rank table: every token's bytes in one block, found by hash. The
 * tables live in one block (bpe_block_place): BPE_BLOCK_HEAD bytes left for
 * a header, pair_rank, the slots, the bytes; the same layout on disk
 * (bpe_cache.h). */
#define BPE_BLOCK_HEAD 2048
struct bpe_ranks {
	unsigned char *bytes;      /* every token's bytes, back to back */
	struct bpe_entry *slots;   /* open addressing, nslots a power of two */
	size_t nslots;
	size_t ntokens;
	size_t nbytes;             /* bytes used */
	uint32_t byte_rank[256];   /* the rank of each single byte */
	uint32_t *pair_rank;       /* [a << 8 | b]: the rank of the two bytes a b */
	void *block;               /* where pair_rank, slots and bytes are */
	size_t block_len;
	void (*unmap)(void *block, size_t len); /* a mapped block's release; NULL: cs_free */
};

/* The size of a block of nslots slots and nbytes bytes, and the pointers
 * of r set into one (r->block_len is the caller's). */
size_t bpe_block_size(size_t nslots, size_t nbytes);
void bpe_block_place(struct bpe_ranks *r, void *block, size_t nslots);

/* Parses a .tiktoken file's text (buf[0..len)) into r. CS_ESYNTAX with the
 * line number on a malformed line, or when a byte has no single-byte token
 * (every byte-level encoding has all 256), CS_ENOMEM. name is for messages. */
int bpe_ranks_parse(struct bpe_ranks *r, const char *buf, size_t len, const char *name,
		    struct cs_error *err);
void bpe_ranks_fini(struct bpe_ranks *r);

/* The hash the rank table uses, for callers' own caches. */
uint64_t bpe_hash(const unsigned char *s, size_t n);
/* The finalizer that hash ends with (every bit of h reaches every bit of
 * the result), for callers' own hashes. */
uint64_t bpe_mix(uint64_t h);

/* The rank of the token s[0..n), or BPE_NO_RANK. */
uint32_t bpe_rank(const struct bpe_ranks *r, const unsigned char *s, size_t n);

/* Merges the piece s[0..n) and returns how many tokens it makes. When out is
 * not NULL it receives them (room for n). Pieces longer than
 * BPE_SHORT_PIECE use a heap (n log n); shorter ones tiktoken's linear scan.
 * -1 on out of memory (long pieces only). */
#define BPE_SHORT_PIECE 64
long bpe_merge(const struct bpe_ranks *r, const unsigned char *s, size_t n, uint32_t *out);

/* The two strategies, for the tests that check they agree. */
long bpe_merge_linear(const struct bpe_ranks *r, const unsigned char *s, size_t n, uint32_t *out);
long bpe_merge_heap(const struct bpe_ranks *r, const unsigned char *s, size_t n, uint32_t *out);

#endif
