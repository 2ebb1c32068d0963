/* load.h: from a path to a loaded source: read the file (fileio.h), tell its
 * kind (kind.h, or the one the user named), run that kind's loader. */
#ifndef CTXSCOPE_LOAD_H
#define CTXSCOPE_LOAD_H

#include "base/error.h"

#include <stdbool.h>

struct progress;
struct source;

/* What to load: the input, its kind (NULL: detect), a second file the
 * kind takes with it (--assembly-file; NULL: none), progress for long loads
 * (borrowed for the call; NULL: none). All borrowed. */
struct load_args {
	const char *path;
	const char *kind;
	const char *companion;
	struct progress *progress;
	bool strict;    /* --strict: a malformed line a kind would skip with a warning is an error */
};

/* Loads as args say. On success *out is a new source (free with
 * source_free); on failure *out is NULL and err names the file, the
 * position and what is wrong. */
int source_load_args(const struct load_args *args, struct source **out, struct cs_error *err);

/* Loads src's file again as it was loaded (its kind, its companion): the
 * file as it is now. *out is a new source; src is not touched. */
int source_reload(const struct source *src, struct source **out, struct cs_error *err);

/* What a file looked like, to tell when it changed (--follow): its size and
 * modification time, and those of a write-ahead log beside it (FILE-wal, a
 * SQLite database being written). Zeroes for what does not exist. */
struct load_stamp {
	long long size, mtime_ns;
	long long wal_size, wal_mtime_ns;
};
void load_stamp_take(const char *path, struct load_stamp *out);
bool load_stamp_same(const struct load_stamp *a, const struct load_stamp *b);

/* Loads path as kind `kind_name` (NULL: detect). On success *out is a new
 * source (free with source_free). On failure *out is NULL and err names the
 * file, the position and what is wrong. */
int source_load(const char *path, const char *kind_name, struct source **out, struct cs_error *err);
/* Like source_load, reporting long loads to pr (borrowed for the call;
 * NULL: none). */
int source_load_progress(const char *path, const char *kind_name, struct progress *pr, struct source **out,
			 struct cs_error *err);

#endif
