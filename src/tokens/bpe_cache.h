/* bpe_cache.h: a big rank file's table kept on disk, so that opening the
 * encoding again maps it instead of parsing 200k lines (tens of ms at the
 * first frame). The file is the table's block as built (bpe.h), its header
 * naming the rank file it came from (device, inode, size, mtime) and a
 * checksum of the rest; it lives in $XDG_CACHE_HOME/ctxscope (made when
 * $XDG_CACHE_HOME exists) or ~/.cache/ctxscope, one per rank file path,
 * written with atomic_write, replaced when the rank file changes. Anything
 * that does not match is ignored and rebuilt. */
#ifndef CTXSCOPE_BPE_CACHE_H
#define CTXSCOPE_BPE_CACHE_H

#include "tokens/bpe.h"
#include "base/fileio.h"

#include <stdbool.h>
#include <stddef.h>

/* Rank files smaller than this parse fast enough: never cached. */
#define BPE_CACHE_MIN ((size_t)256 << 10)

/* The cache file of the rank file at rank_path into path: false when there
 * is no cache folder (neither XDG_CACHE_HOME nor HOME) or rank_path cannot
 * be resolved. */
bool bpe_cache_path(const char *rank_path, char *path, size_t size);

/* Maps the cached table of the rank file at rank_path, whose stamp is *src,
 * into r: true when a cache is there, whole, and of this very file. */
bool bpe_cache_load(struct bpe_ranks *r, const char *rank_path, const struct file_stamp *src);

/* Writes r (parsed from the rank file at rank_path, stamp *src) as its
 * cache, when the file is at least BPE_CACHE_MIN. Silent on failure: the
 * next open parses again. */
void bpe_cache_save(struct bpe_ranks *r, const char *rank_path, const struct file_stamp *src);

#endif
