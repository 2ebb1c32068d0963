/* bpe_cache.c: rank tables kept on disk (see bpe_cache.h). */
#define _DEFAULT_SOURCE /* realpath */
#include "tokens/bpe_cache.h"

#include "base/atomic_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CACHE_MAGIC "ctxranks"
#define CACHE_VERSION 2u
#define CACHE_ORDER 0x0102030405060708ull /* read back otherwise on another byte order */

/* The first BPE_BLOCK_HEAD bytes of the block. */
struct cache_head {
	char magic[8];
	uint32_t version;
	uint32_t entry_size; /* a slot's size: the layout this build reads */
	uint64_t order;
	uint64_t src_dev, src_ino, src_size;
	int64_t src_mtime_ns;
	uint64_t nslots, ntokens, nbytes;
	uint64_t sum;        /* of the block from byte_rank on */
	uint32_t byte_rank[256];
};
_Static_assert(sizeof(struct cache_head) <= BPE_BLOCK_HEAD, "the header fits the block's head");

/* Eight lanes of xor and multiply (each step a bijection of the lane, so
 * one changed word always changes the sum): a checksum against a damaged
 * file, fast enough (memory speed) to check the whole table on each open. */
static uint64_t checksum(const unsigned char *p, size_t n)
{
	const uint64_t k = 0x9E3779B97F4A7C15ull;
	uint64_t h[8] = { 1, 2, 3, 4, 5, 6, 7, (uint64_t)n };
	for (; n >= 64; p += 64, n -= 64)
		for (int i = 0; i < 8; i++) {
			uint64_t w;
			memcpy(&w, p + 8 * i, 8);
			h[i] = (h[i] ^ w) * k;
		}
	for (size_t i = 0; i < n; i++)
		h[i % 8] = (h[i % 8] ^ p[i]) * k;
	uint64_t sum = 0;
	for (int i = 0; i < 8; i++)
		sum = bpe_mix(sum ^ h[i]);
	return sum;
}

static uint64_t sum_of(const unsigned char *block, size_t len)
{
	size_t from = offsetof(struct cache_head, byte_rank);
	return checksum(block + from, len - from);
}

static size_t entry_size(void)
{
	return bpe_block_size(1, 0) - bpe_block_size(0, 0);
}

/* $XDG_CACHE_HOME/ctxscope, or ~/.cache/ctxscope (*home_cache), into dir.
 * Only ~/.cache may be made above it: $XDG_CACHE_HOME never is (a test's
 * XDG_CACHE_HOME=/nonexistent stays so). */
static bool cache_dir(char *dir, size_t size, bool *home_cache)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	*home_cache = !(xdg && xdg[0] == '/');
	int n = !*home_cache ? snprintf(dir, size, "%s/ctxscope", xdg)
	      : home && home[0] == '/' ? snprintf(dir, size, "%s/.cache/ctxscope", home) : -1;
	return n > 0 && (size_t)n < size;
}

bool bpe_cache_path(const char *rank_path, char *path, size_t size)
{
	char dir[4096];
	bool home_cache;
	if (!cache_dir(dir, sizeof dir, &home_cache))
		return false;
	char *real = realpath(rank_path, NULL);
	if (!real)
		return false;
	const char *slash = strrchr(real, '/'), *base = slash ? slash + 1 : real;
	uint64_t h = bpe_hash((const unsigned char *)real, strlen(real));
	int n = snprintf(path, size, "%s/%.64s.%016llx.ranks", dir, base, (unsigned long long)h);
	free(real);
	return n > 0 && (size_t)n < size;
}

static bool head_fits(const struct cache_head *h, const struct file_stamp *src, off_t file_size)
{
	if (memcmp(h->magic, CACHE_MAGIC, 8) || h->version != CACHE_VERSION || h->entry_size != entry_size() ||
	    h->order != CACHE_ORDER)
		return false;
	if (h->src_dev != (uint64_t)src->dev || h->src_ino != (uint64_t)src->ino ||
	    h->src_size != (uint64_t)src->size || h->src_mtime_ns != src->mtime_ns)
		return false;
	if (h->nslots < 1024 || h->nslots > ((uint64_t)1 << 32) || (h->nslots & (h->nslots - 1)) ||
	    h->nbytes > ((uint64_t)1 << 24))
		return false;
	return (uint64_t)file_size == bpe_block_size((size_t)h->nslots, (size_t)h->nbytes);
}

static void unmap_block(void *block, size_t len)
{
	munmap(block, len);
}

bool bpe_cache_load(struct bpe_ranks *r, const char *rank_path, const struct file_stamp *src)
{
	char path[4096];
	if (!bpe_cache_path(rank_path, path, sizeof path))
		return false;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return false;
	struct stat st;
	struct cache_head h;
	void *map = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= BPE_BLOCK_HEAD &&
	    pread(fd, &h, sizeof h, 0) == (ssize_t)sizeof h && head_fits(&h, src, st.st_size))
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return false;
	/* The whole file is read once here: the check, and the pages the
	 * count will want in memory. */
	const struct cache_head *mh = map;
	bool ok = !memcmp(mh, &h, sizeof h) && sum_of(map, (size_t)st.st_size) == h.sum;
	for (int b = 0; ok && b < 256; b++)
		ok = h.byte_rank[b] != BPE_NO_RANK;
	if (!ok) {
		munmap(map, (size_t)st.st_size);
		return false;
	}
	memset(r, 0, sizeof *r);
	bpe_block_place(r, map, (size_t)h.nslots);
	r->block_len = (size_t)st.st_size;
	r->unmap = unmap_block;
	r->ntokens = (size_t)h.ntokens;
	r->nbytes = (size_t)h.nbytes;
	memcpy(r->byte_rank, h.byte_rank, sizeof r->byte_rank);
	return true;
}

/* The cache folder made (mode 0700, the XDG base directory spec's), and
 * ~/.cache above it when that is the one; never more. */
static bool make_dir(void)
{
	char dir[4096];
	bool home_cache;
	if (!cache_dir(dir, sizeof dir, &home_cache))
		return false;
	if (home_cache) {
		char *slash = strrchr(dir, '/');
		*slash = '\0';
		bool ok = mkdir(dir, 0700) == 0 || errno == EEXIST;
		*slash = '/';
		if (!ok)
			return false;
	}
	return mkdir(dir, 0700) == 0 || errno == EEXIST;
}

void bpe_cache_save(struct bpe_ranks *r, const char *rank_path, const struct file_stamp *src)
{
	char path[4096];
	if (r->unmap || !r->block || (uint64_t)src->size < BPE_CACHE_MIN ||
	    !bpe_cache_path(rank_path, path, sizeof path) || !make_dir())
		return;
	size_t len = bpe_block_size(r->nslots, r->nbytes);
	struct cache_head *h = r->block;
	memset(h, 0, BPE_BLOCK_HEAD);
	memcpy(h->magic, CACHE_MAGIC, 8);
	h->version = CACHE_VERSION;
	h->entry_size = (uint32_t)entry_size();
	h->order = CACHE_ORDER;
	h->src_dev = (uint64_t)src->dev, h->src_ino = (uint64_t)src->ino, h->src_size = (uint64_t)src->size;
	h->src_mtime_ns = src->mtime_ns;
	h->nslots = r->nslots, h->ntokens = r->ntokens, h->nbytes = r->nbytes;
	memcpy(h->byte_rank, r->byte_rank, sizeof h->byte_rank);
	h->sum = sum_of(r->block, len);
	/* A stale cache of this path goes first: a new file is never put over
	 * another (one written meanwhile by another ctxscope stays). */
	(void)unlink(path);
	struct cs_error err;
	cs_error_clear(&err);
	(void)atomic_write(path, r->block, len, NULL, NULL, &err);
}
