/* atomic_write.h: replacing a file so that, whatever happens (a crash, a
 * kill -9, a full disk), the path holds either the old bytes or the new ones,
 * whole: write a temporary file in the same folder, fsync it, keep the
 * previous file as PATH.bak (a hard link, or a fsynced copy where links are
 * not allowed, put in place by rename), rename the temporary over PATH, fsync
 * the folder. A symbolic link is written through (its target is replaced).
 * Left behind by a killed write: at most a hidden temporary
 * (".NAME.ctxscope-XXXXXX") beside the file, never a partial PATH. */
#ifndef CTXSCOPE_ATOMIC_WRITE_H
#define CTXSCOPE_ATOMIC_WRITE_H

#include "error.h"

#include <stdbool.h>
#include <stddef.h>

/* The points at which a write can be paused for the kill -9 test
 * (tests/save/run): the process stops itself (SIGSTOP) just before going on
 * from that point. */
enum atomic_step {
	ATOMIC_STEP_NONE = 0,
	ATOMIC_STEP_HALF_WRITTEN = 1, /* temporary created, half the bytes written */
	ATOMIC_STEP_WRITTEN = 2,      /* every byte written, not yet fsynced */
	ATOMIC_STEP_SYNCED = 3,       /* temporary fsynced; no backup yet */
	ATOMIC_STEP_BACKED_UP = 4,    /* PATH.bak in place; PATH still the old file */
	ATOMIC_STEP_RENAMED = 5,      /* PATH is the new file; folder not yet fsynced */
	ATOMIC_STEP_COUNT
};

struct atomic_write_options {
	bool backup;   /* keep the previous file (if any) as PATH.bak */
	int pause_at;  /* enum atomic_step: stop the process there (tests only); 0 never */
};

/* Replaces the file at path with data[0..len). opt may be NULL (a backup,
 * no pause). A new file gets mode 0666 minus the umask; a replaced one keeps
 * its mode. On failure PATH is untouched (the temporary is removed), err
 * names the file and the step, and the code is CS_EIO (CS_ENOMEM). */
int atomic_write(const char *path, const char *data, size_t len, const struct atomic_write_options *opt,
		 struct cs_error *err);

/* The step named by text ("3"), for the CTXSCOPE_SAVE_PAUSE_AT hook; 0 for
 * NULL or anything else. */
int atomic_step_from_text(const char *text);

#endif
