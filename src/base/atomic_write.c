/* atomic_write.c: lock, check, temp file, fsync, verify, backup, rename,
 * fsync the folder (see atomic_write.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#define _DEFAULT_SOURCE   /* flock */
#include "base/atomic_write.h"

#include "base/alloc.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ATOMIC_COPY_CHUNK 65536 /* bytes per read when a backup has to be copied */

static int io_error(struct cs_error *err, const char *path, const char *what, int errnum)
{
	cs_error_file(err, path);
	return cs_error_set(err, CS_EIO, "%s: %s", what, strerror(errnum));
}

static void checkpoint(const struct atomic_write_options *opt, int step)
{
	if (opt && opt->pause_at == step)
		raise(SIGSTOP);
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* "DIR/.NAME.ctxscope-XXXXXX" for path (and "DIR" into dir). cs_malloc'd. */
static char *temp_template(const char *path, const char *suffix, char **dir)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	const char *base = slash ? slash + 1 : path;
	struct strbuf sb = STRBUF_INIT, db = STRBUF_INIT;
	if (slash)
		sb_append(&sb, path, dlen + 1);
	sb_printf(&sb, ".%s%s.ctxscope-XXXXXX", base, suffix);
	if (slash && dlen == 0)
		sb_puts(&db, "/");
	else if (slash)
		sb_append(&db, path, dlen);
	else
		sb_puts(&db, ".");
	char *d = sb_detach(&db, NULL);
	char *t = sb_detach(&sb, NULL);
	if (!d || !t) {
		cs_free(d);
		cs_free(t);
		return NULL;
	}
	*dir = d;
	return t;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	/* Some file systems cannot fsync a folder; the rename stands. */
	if (rc != 0 && (errno == EINVAL || errno == ENOTSUP))
		rc = 0;
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* Copies the file at from into a new temporary beside `bak`, fsynced, and
 * renames it to bak: for file systems without hard links. */
static int copy_backup(const char *from, const char *bak, struct cs_error *err)
{
	char *dir = NULL;
	char *tmp = temp_template(bak, "", &dir);
	if (!tmp)
		return cs_error_nomem(err);
	int rc = CS_OK;
	int in = open(from, O_RDONLY);
	int out = in < 0 ? -1 : mkstemp(tmp);
	char *buf = out < 0 ? NULL : cs_malloc(ATOMIC_COPY_CHUNK);
	if (in < 0 || out < 0) {
		rc = io_error(err, in < 0 ? from : bak, "making the backup", errno);
		goto done;
	}
	if (!buf) {
		rc = cs_error_nomem(err);
		goto done;
	}
	for (;;) {
		ssize_t n = read(in, buf, ATOMIC_COPY_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (n > 0 && write_all(out, buf, (size_t)n) != 0)) {
			rc = io_error(err, bak, "copying the backup", errno);
			goto done;
		}
		if (n == 0)
			break;
	}
	struct stat st;
	if (fstat(in, &st) == 0)
		(void)fchmod(out, st.st_mode & 07777);
	if (fsync(out) != 0 || rename(tmp, bak) != 0)
		rc = io_error(err, bak, "making the backup", errno);
done:
	if (out >= 0) {
		close(out);
		if (rc != CS_OK)
			unlink(tmp);
	}
	if (in >= 0)
		close(in);
	cs_free(buf);
	cs_free(tmp);
	cs_free(dir);
	return rc;
}

/* Puts the current file at target in place as bak, atomically: a hard link
 * under a temporary name renamed over bak, or a copy. */
static int make_backup(const char *target, const char *bak, struct cs_error *err)
{
	char *dir = NULL;
	char *tmp = temp_template(bak, "", &dir);
	if (!tmp)
		return cs_error_nomem(err);
	int rc = CS_OK;
	int fd = mkstemp(tmp); /* a unique name, then replaced by the link */
	if (fd < 0) {
		rc = io_error(err, bak, "making the backup", errno);
	} else {
		close(fd);
		unlink(tmp);
		if (link(target, tmp) == 0) {
			/* rename() between two names of one file does nothing (a
			 * .bak left by a write killed after its backup): drop tmp. */
			if (rename(tmp, bak) != 0)
				rc = io_error(err, bak, "making the backup", errno);
			unlink(tmp);
		} else if (errno == EPERM || errno == ENOTSUP || errno == EMLINK || errno == EXDEV || errno == ENOSYS) {
			rc = copy_backup(target, bak, err);
		} else {
			rc = io_error(err, bak, "making the backup", errno);
		}
	}
	cs_free(tmp);
	cs_free(dir);
	return rc;
}

int atomic_step_from_text(const char *text)
{
	if (!text || !*text)
		return 0;
	char *end;
	long v = strtol(text, &end, 10);
	return *end == '\0' && v > 0 && v < ATOMIC_STEP_COUNT ? (int)v : 0;
}

/* ---- the write, step by step ------------------------------------------------ */

struct aw {
	const char *path;         /* as given */
	const char *target;       /* what is replaced: path, or a named link's target */
	char real[PATH_MAX];
	char *dir, *tmp;          /* the target's folder; the temporary (cs_malloc'd) */
	struct strbuf bak;
	int lockfd, fd;
	bool created;             /* the temporary exists (remove it on failure) */
	bool exists;              /* a file is at target */
	struct stat st;           /* ... and its state, under the lock */
};

static int refuse(struct atomic_write_result *res, enum atomic_refusal why, int code, struct cs_error *err,
		  const char *path, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static int refuse(struct atomic_write_result *res, enum atomic_refusal why, int code, struct cs_error *err,
		  const char *path, const char *fmt, ...)
{
	res->refused = why;
	cs_error_file(err, path);
	va_list ap;
	va_start(ap, fmt);
	int rc = cs_error_vset(err, code, fmt, ap);
	va_end(ap);
	return rc;
}

/* A symbolic link at the path: refused unless named, else its target. */
static int resolve_target(struct aw *w, const struct atomic_write_options *opt, struct atomic_write_result *res,
			  struct cs_error *err)
{
	struct stat lst;
	w->target = w->path;
	if (lstat(w->path, &lst) != 0 || !S_ISLNK(lst.st_mode))
		return CS_OK;
	if (!opt->named) {
		char to[PATH_MAX];
		ssize_t n = readlink(w->path, to, sizeof to - 1);
		to[n > 0 ? n : 0] = '\0';
		return refuse(res, ATOMIC_LINK, CS_EUSAGE, err, w->path,
			      "is a symbolic link (to %s): not writing through a link that was not named; give the "
			      "path of the file itself", to);
	}
	if (!realpath(w->path, w->real))
		return io_error(err, w->path, "following the link", errno);
	w->target = w->real;
	return CS_OK;
}

/* An exclusive lock on the folder, waited for up to ATOMIC_LOCK_WAIT_MS.
 * A folder that cannot be opened is written without one. */
static int lock_folder(struct aw *w, struct cs_error *err)
{
	w->lockfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->lockfd < 0)
		return CS_OK;
	for (int waited = 0;; waited += 10) {
		if (flock(w->lockfd, LOCK_EX | LOCK_NB) == 0)
			return CS_OK;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return CS_OK; /* a file system without locks: go on unlocked */
		if (waited >= ATOMIC_LOCK_WAIT_MS) {
			cs_error_file(err, w->path);
			return cs_error_set(err, CS_ESTATE, "another program has been writing in this folder for %d "
					    "seconds; not saved (try again)", ATOMIC_LOCK_WAIT_MS / 1000);
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

static bool read_only(const struct aw *w)
{
	return (w->st.st_mode & 0222) == 0 || access(w->target, W_OK) != 0;
}

/* Whether path names the same file as st (device and inode). */
static bool same_file(const char *path, const struct stat *st)
{
	struct stat o;
	return stat(path, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

/* Under the lock, once w->exists is known: the loaded input is neither the
 * file replaced nor the one its backup would replace, whatever their names. */
static int not_the_input(const struct aw *w, const struct atomic_write_options *opt, struct atomic_write_result *res,
			 struct cs_error *err)
{
	struct stat in;
	if (!opt->input || stat(opt->input, &in) != 0)
		return CS_OK;
	if (same_file(w->path, &in) || same_file(w->target, &in))
		return refuse(res, ATOMIC_INPUT, CS_EUSAGE, err, w->path,
			      "is the input file (%s, by whatever name): never replaced; write to another name",
			      opt->input);
	if (w->exists && same_file(sb_str(&w->bak), &in)) /* the backup replaces X.bak */
		return refuse(res, ATOMIC_INPUT, CS_EUSAGE, err, w->path,
			      "its backup %s would replace the input file %s: not written; write to another name",
			      sb_str(&w->bak), opt->input);
	return CS_OK;
}

/* Under the lock: what is at target now, and may it be replaced? */
static int check_target(struct aw *w, const struct atomic_write_options *opt, struct atomic_write_result *res,
			struct cs_error *err)
{
	w->exists = stat(w->target, &w->st) == 0;
	if (!w->exists && errno != ENOENT)
		return io_error(err, w->path, "looking at the file", errno);
	int rc = not_the_input(w, opt, res, err);
	if (rc)
		return rc;
	if (!w->exists)
		return CS_OK;
	if (!S_ISREG(w->st.st_mode)) {
		cs_error_file(err, w->path);
		return cs_error_set(err, CS_EIO, "not a regular file; not replacing it");
	}
	if (!opt->replace)
		return refuse(res, ATOMIC_EXISTS, CS_EUSAGE, err, w->path, "%s",
			      "already exists; not replacing it without asking");
	if (read_only(w) && !opt->force)
		return refuse(res, ATOMIC_READONLY, CS_EUSAGE, err, w->path, "%s",
			      "is read-only; not replacing it unless forced");
	return CS_OK;
}

/* Whether name is ".BASE.ctxscope-XXXXXX" or ".BASE.bak.ctxscope-XXXXXX". */
static bool is_temporary_of(const char *name, const char *base)
{
	size_t bl = strlen(base);
	if (name[0] != '.' || strncmp(name + 1, base, bl) != 0)
		return false;
	const char *rest = name + 1 + bl;
	if (strncmp(rest, ".bak", 4) == 0)
		rest += 4;
	return strncmp(rest, ".ctxscope-", 10) == 0 && strlen(rest + 10) == 6;
}

/* Temporaries a killed write of this file left, this user's: under the lock
 * no write of it is under way, so every one is stale. */
static size_t remove_stale(const struct aw *w)
{
	const char *slash = strrchr(w->target, '/');
	const char *base = slash ? slash + 1 : w->target;
	DIR *d = opendir(w->dir);
	if (!d)
		return 0;
	size_t removed = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		struct stat st;
		if (!is_temporary_of(de->d_name, base) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode) && st.st_uid == geteuid() && unlinkat(dirfd(d), de->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

/* The temporary: created, owner and mode of the file it replaces, the
 * bytes, fsynced, closed. */
static int write_temporary(struct aw *w, const char *data, size_t len, const struct atomic_write_options *opt,
			   struct atomic_write_result *res, struct cs_error *err)
{
	w->fd = mkstemp(w->tmp);
	if (w->fd < 0)
		return io_error(err, w->path, "creating a temporary file beside it", errno);
	w->created = true;
	mode_t mode;
	if (w->exists) {
		mode = w->st.st_mode & 07777;
		/* The owner where permitted (root, or the same user), else the group. */
		if ((w->st.st_uid != geteuid() || w->st.st_gid != getegid()) &&
		    fchown(w->fd, w->st.st_uid, w->st.st_gid) != 0) {
			res->owner_changed = true;
			(void)fchown(w->fd, (uid_t)-1, w->st.st_gid);
		}
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	size_t half = len / 2;
	if (fchmod(w->fd, mode) != 0 || write_all(w->fd, data, half) != 0)
		return io_error(err, w->path, "writing the temporary file", errno);
	checkpoint(opt, ATOMIC_STEP_HALF_WRITTEN);
	if (write_all(w->fd, data + half, len - half) != 0)
		return io_error(err, w->path, "writing the temporary file", errno);
	checkpoint(opt, ATOMIC_STEP_WRITTEN);
	if (fsync(w->fd) != 0)
		return io_error(err, w->path, "flushing the temporary file to disk", errno);
	int rc = close(w->fd);
	w->fd = -1;
	if (rc != 0)
		return io_error(err, w->path, "closing the temporary file", errno);
	checkpoint(opt, ATOMIC_STEP_SYNCED);
	return CS_OK;
}

/* Hard links to the old file besides target and a .bak that is one of them
 * (left by a write killed after its backup). */
static unsigned long other_links(const struct aw *w)
{
	unsigned long n = (unsigned long)w->st.st_nlink;
	struct stat b;
	if (stat(sb_str(&w->bak), &b) == 0 && b.st_dev == w->st.st_dev && b.st_ino == w->st.st_ino && n > 1)
		n--;
	return n > 1 ? n - 1 : 0;
}

/* The temporary in place: renamed over an existing file (after its backup),
 * or linked to a new name so that a file that appeared is not replaced. */
static int put_in_place(struct aw *w, const struct atomic_write_options *opt, struct atomic_write_result *res,
			struct cs_error *err)
{
	int rc;
	if (w->exists) {
		res->other_links = other_links(w);
		if ((rc = make_backup(w->target, sb_str(&w->bak), err)) != CS_OK)
			return rc;
		snprintf(res->backup, sizeof res->backup, "%s", sb_str(&w->bak));
		checkpoint(opt, ATOMIC_STEP_BACKED_UP);
		if (rename(w->tmp, w->target) != 0)
			return io_error(err, w->path, "renaming the new file into place", errno);
		res->replaced = true;
	} else {
		checkpoint(opt, ATOMIC_STEP_BACKED_UP);
		if (link(w->tmp, w->target) == 0) {
			unlink(w->tmp);
		} else if (errno == EEXIST) {
			return refuse(res, ATOMIC_APPEARED, CS_ESTATE, err, w->path, "%s",
				      "appeared while it was being written; not replacing it");
		} else if (rename(w->tmp, w->target) != 0) { /* no hard links here: under the lock */
			return io_error(err, w->path, "renaming the new file into place", errno);
		}
	}
	cs_free(w->tmp);
	w->tmp = NULL; /* in place now: nothing to clean up */
	checkpoint(opt, ATOMIC_STEP_RENAMED);
	if (fsync_dir(w->dir) != 0)
		return io_error(err, w->path, "flushing the folder to disk (the new file is in place)", errno);
	return CS_OK;
}

int atomic_write(const char *path, const char *data, size_t len, const struct atomic_write_options *opt,
		 struct atomic_write_result *res, struct cs_error *err)
{
	static const struct atomic_write_options defaults = { .replace = false };
	struct atomic_write_result ignored;
	if (!opt)
		opt = &defaults;
	if (!res)
		res = &ignored;
	memset(res, 0, sizeof *res);
	struct aw w = { .path = path, .bak = STRBUF_INIT, .lockfd = -1, .fd = -1 };
	int rc = resolve_target(&w, opt, res, err);
	if (rc)
		return rc;
	snprintf(res->target, sizeof res->target, "%s", w.target);
	w.tmp = temp_template(w.target, "", &w.dir);
	sb_printf(&w.bak, "%s.bak", w.target);
	if (!w.tmp || w.bak.failed) {
		rc = cs_error_nomem(err);
		goto done;
	}
	if ((rc = lock_folder(&w, err)) || (rc = check_target(&w, opt, res, err)))
		goto done;
	res->stale_removed = remove_stale(&w);
	if ((rc = write_temporary(&w, data, len, opt, res, err)))
		goto done;
	if (opt->verify && (rc = opt->verify(w.target, opt->verify_ctx, err)))
		goto done;
	rc = put_in_place(&w, opt, res, err);
done:
	if (w.fd >= 0)
		close(w.fd);
	if (w.tmp && w.created && rc != CS_OK)
		unlink(w.tmp);
	if (w.lockfd >= 0)
		close(w.lockfd); /* and with it the lock */
	cs_free(w.tmp);
	cs_free(w.dir);
	sb_fini(&w.bak);
	return rc;
}

void atomic_write_notes(const struct atomic_write_result *w, struct strbuf *said)
{
	if (w->backup[0])
		sb_printf(said, "; the previous file is %s", w->backup);
	if (w->other_links)
		sb_printf(said, "; %lu other hard link%s to it still hold%s the old text (the link was split)",
			  w->other_links, w->other_links == 1 ? "" : "s", w->other_links == 1 ? "s" : "");
	if (w->owner_changed)
		sb_puts(said, "; its owner could not be kept: the file is now yours");
	if (w->stale_removed)
		sb_printf(said, "; removed %zu temporar%s an interrupted save left", w->stale_removed,
			  w->stale_removed == 1 ? "y" : "ies");
}
