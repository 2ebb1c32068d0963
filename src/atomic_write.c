/* atomic_write.c: temp file, fsync, backup, rename, fsync the folder (see
 * atomic_write.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "atomic_write.h"

#include "alloc.h"
#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
			if (rename(tmp, bak) != 0) {
				rc = io_error(err, bak, "making the backup", errno);
				unlink(tmp);
			}
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

int atomic_write(const char *path, const char *data, size_t len, const struct atomic_write_options *opt,
		 struct cs_error *err)
{
	static const struct atomic_write_options defaults = { .backup = true, .pause_at = 0 };
	if (!opt)
		opt = &defaults;
	/* Write through a symbolic link: replace what it points at. */
	char real[PATH_MAX];
	const char *target = path;
	struct stat lst;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if (!realpath(path, real))
			return io_error(err, path, "following the link", errno);
		target = real;
	}
	struct stat st;
	bool exists = stat(target, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		cs_error_file(err, path);
		return cs_error_set(err, CS_EIO, "not a regular file; not replacing it");
	}
	char *dir = NULL, *tmp = temp_template(target, "", &dir);
	struct strbuf bak = STRBUF_INIT;
	sb_printf(&bak, "%s.bak", target);
	int rc = CS_OK;
	int fd = -1;
	bool created = false;
	if (!tmp || bak.failed) {
		rc = cs_error_nomem(err);
		goto done;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = io_error(err, path, "creating a temporary file beside it", errno);
		goto done;
	}
	created = true;
	mode_t mode;
	if (exists) {
		mode = st.st_mode & 07777;
	} else {
		mode_t mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	size_t half = len / 2;
	if (fchmod(fd, mode) != 0 || write_all(fd, data, half) != 0) {
		rc = io_error(err, path, "writing the temporary file", errno);
		goto done;
	}
	checkpoint(opt, ATOMIC_STEP_HALF_WRITTEN);
	if (write_all(fd, data + half, len - half) != 0) {
		rc = io_error(err, path, "writing the temporary file", errno);
		goto done;
	}
	checkpoint(opt, ATOMIC_STEP_WRITTEN);
	if (fsync(fd) != 0) {
		rc = io_error(err, path, "flushing the temporary file to disk", errno);
		goto done;
	}
	if (close(fd) != 0) {
		fd = -1;
		rc = io_error(err, path, "closing the temporary file", errno);
		goto done;
	}
	fd = -1;
	checkpoint(opt, ATOMIC_STEP_SYNCED);
	if (exists && opt->backup && (rc = make_backup(target, sb_str(&bak), err)) != CS_OK)
		goto done;
	checkpoint(opt, ATOMIC_STEP_BACKED_UP);
	if (rename(tmp, target) != 0) {
		rc = io_error(err, path, "renaming the new file into place", errno);
		goto done;
	}
	cs_free(tmp);
	tmp = NULL; /* in place now: nothing to clean up */
	checkpoint(opt, ATOMIC_STEP_RENAMED);
	if (fsync_dir(dir) != 0)
		rc = io_error(err, path, "flushing the folder to disk (the new file is in place)", errno);
done:
	if (fd >= 0)
		close(fd);
	if (tmp && created && rc != CS_OK)
		unlink(tmp);
	cs_free(tmp);
	cs_free(dir);
	sb_fini(&bak);
	return rc;
}
