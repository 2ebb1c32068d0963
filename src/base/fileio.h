/* fileio.h: reading the files a user points at, safely: only regular files
 * (a directory, FIFO, device or symlink loop is refused with a sentence, never
 * read or waited on), bounded in size, and checked for changing while read. */
#ifndef CTXSCOPE_FILEIO_H
#define CTXSCOPE_FILEIO_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define FILEIO_MAX_INPUT ((size_t)4 << 30) /* 4 GiB: past any real export, under size_t trouble */

/* What a look at a path found (for manifest entries, which are excluded
 * rather than refused). */
enum file_state {
	FILE_OK,
	FILE_MISSING,
	FILE_DIRECTORY,
	FILE_NOT_REGULAR,  /* FIFO, device, socket */
	FILE_UNREADABLE,
	FILE_TOO_BIG,
	FILE_CHANGED,      /* changed while being read */
};

/* Reads the whole regular file at path into *out (cs_malloc'd, NUL-terminated,
 * caller frees) and its size into *len. On failure *state says why (may be
 * NULL), err has the file and a sentence, and the code is CS_EIO (or CS_ENOMEM,
 * CS_ELIMIT). max_bytes 0 means FILEIO_MAX_INPUT. */
int file_read(const char *path, size_t max_bytes, char **out, size_t *len, enum file_state *state,
	      struct cs_error *err);
/* file_read, also telling in *symlink whether path's last component is a
 * symbolic link (what lstat would say; set on failure too: a dangling link
 * is missing and a link). Learnt from the open itself (it first refuses to
 * follow a link; only a refusal costs a look and a second open), not from
 * a stat of its own per file. */
int file_read_noting_link(const char *path, size_t max_bytes, char **out, size_t *len, enum file_state *state,
			  bool *symlink, struct cs_error *err);
struct bulk;
/* file_read_noting_link straight into room bulk_reserve gives (bulk.h): no
 * buffer of its own and no copy. On success *out holds the file and its NUL
 * but is not kept yet: the caller keeps it with bulk_commit(b, *out, *len),
 * or leaves it (the next reserve reuses the room). Nothing to free either way.
 * It reads with one system call fewer than file_read: a read that gives
 * exactly the size is taken as the end (see fileio.c). */
int file_read_bulk(const char *path, size_t max_bytes, struct bulk *b, char **out, size_t *len,
		   enum file_state *state, bool *symlink, struct cs_error *err);

/* Identity of a file as loaded, to tell later whether it changed on disk. */
struct file_stamp {
	dev_t dev;
	ino_t ino;
	off_t size;
	long long mtime_ns;
};
/* Fills *stamp for path; CS_EIO when it cannot be stat'ed. */
int file_stamp(const char *path, struct file_stamp *stamp, struct cs_error *err);
int file_stamp_equal(const struct file_stamp *a, const struct file_stamp *b);

#endif
