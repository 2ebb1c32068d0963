/* atomic_write.h: the one way ctxscope writes a file (a save, a save-as, a
 * what-if file, an export), so that whatever happens (a crash, a kill -9, a
 * full disk, a second ctxscope saving the same file) the path holds either
 * the old bytes or the new ones, whole, and nothing is replaced unasked:
 *   - a symbolic link at the path is refused unless the caller says the user
 *     named that path (then its target is replaced, and the .bak goes beside
 *     the target);
 *   - an existing file is replaced only when the caller says so (the user
 *     was asked, --force, or it is the file being saved), and a read-only one
 *     (no write bit, or not writable by this user) only when forced;
 *   - a replaced file is always kept as PATH.bak (a hard link, or a fsynced
 *     copy where links are not allowed), keeps its owner where permitted and
 *     its mode; other hard links to it keep the old bytes (said in the result);
 *   - the folder is locked (flock) from the checks to the rename, and the
 *     caller's verify step runs under that lock just before the rename (the
 *     manifest saver compares the file with the bytes it parsed);
 *   - a new file is put in place with link(), so a file that appeared
 *     meanwhile is not replaced;
 *   - the input the caller loaded is never replaced, under any name (./s,
 *     sub/../s, an absolute path, a symbolic or hard link: the files are
 *     compared by device and inode, under the lock), nor made the backup:
 *     refused, never asked.
 * Steps: lock, check, remove stale temporaries of this user (a killed save's
 * ".NAME.ctxscope-XXXXXX"; under the lock none can be live), write a
 * temporary beside the file, fsync, verify, backup, rename, fsync the folder.
 * Left behind by a killed write: at most a hidden temporary, removed by the
 * next write of that file, never a partial PATH. */
#ifndef CTXSCOPE_ATOMIC_WRITE_H
#define CTXSCOPE_ATOMIC_WRITE_H

#include "base/error.h"

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

#define ATOMIC_LOCK_WAIT_MS 10000 /* how long a write waits for another one in the same folder */

struct atomic_write_options {
	bool replace;  /* an existing file may be replaced (asked, forced, or the file being saved) */
	bool named;    /* the user named this path: a symbolic link there is written through */
	bool force;    /* a read-only file may be replaced too */
	int pause_at;  /* enum atomic_step: stop the process there (tests only); 0 never */
	/* Called with the path being replaced (the link's target), under the
	 * lock, after the temporary is written and just before the backup and
	 * the rename; a non-zero code refuses the write (err filled). NULL: none. */
	int (*verify)(const char *target, void *ctx, struct cs_error *err);
	void *verify_ctx;
	const char *input; /* the loaded input: never replaced nor backed up over (ATOMIC_INPUT); NULL: none */
};

/* Why a write was refused (the code is then CS_EUSAGE, or CS_ESTATE for a
 * file that appeared meanwhile), so that a caller can ask and try again. */
enum atomic_refusal {
	ATOMIC_WRITTEN = 0,
	ATOMIC_EXISTS,    /* a file is there and replace was not set */
	ATOMIC_LINK,      /* a symbolic link is there and the path was not named */
	ATOMIC_READONLY,  /* the file is read-only (or not this user's to write) and force was not set */
	ATOMIC_APPEARED,  /* no file was there at first, one is now */
	ATOMIC_INPUT,     /* the path (or its .bak) is the loaded input, by whatever name: never asked */
};

struct atomic_write_result {
	enum atomic_refusal refused;
	bool replaced;           /* an existing file was replaced */
	char backup[4096 + 8];   /* where the previous file is kept ("" when none) */
	char target[4096];       /* the file written (a link's target) */
	unsigned long other_links; /* hard links to the old file other than PATH and PATH.bak: split */
	bool owner_changed;      /* the owner (or group) could not be kept: the file is now this user's */
	size_t stale_removed;    /* temporaries of killed writes removed */
};

/* Writes data[0..len) to path as above. opt may be NULL (a new file only,
 * no link, no pause); res may be NULL. A new file gets mode 0666 minus the
 * umask. On failure PATH is untouched (the temporary is removed), err names
 * the file and the step or the refusal, and the code is CS_EIO, CS_EUSAGE
 * (refused: res->refused says why), CS_ESTATE (appeared meanwhile), the
 * verify step's code, or CS_ENOMEM. */
int atomic_write(const char *path, const char *data, size_t len, const struct atomic_write_options *opt,
		 struct atomic_write_result *res, struct cs_error *err);

/* The step named by text ("3"), for the CTXSCOPE_SAVE_PAUSE_AT hook; 0 for
 * NULL or anything else. */
int atomic_step_from_text(const char *text);

/* Appends "; the previous file is X.bak" and the other things a write did
 * (a split hard link, an owner not kept, stale temporaries removed). */
struct strbuf;
void atomic_write_notes(const struct atomic_write_result *w, struct strbuf *said);

#endif
