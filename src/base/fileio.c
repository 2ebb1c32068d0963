/* fileio.c: safe whole-file reads (see fileio.h). */
#include "base/fileio.h"

#include "base/alloc.h"
#include "base/bulk.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long long mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

static int fail(struct cs_error *err, enum file_state *state, enum file_state why, int code,
		const char *path, const char *sentence)
{
	if (state)
		*state = why;
	cs_error_file(err, path);
	return cs_error_set(err, code, "%s", sentence);
}

/* Opens path to read (O_NONBLOCK: opening a FIFO must not wait for a
 * writer). With symlink: O_NOFOLLOW first, which fails with ELOOP exactly
 * when the last component is a link (or the walk to it loops: lstat tells
 * which), then the open that follows it, so errno is the plain open's. */
static int open_to_read(const char *path, bool *symlink)
{
	int flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC;
	if (!symlink)
		return open(path, flags);
	int fd = open(path, flags | O_NOFOLLOW);
	*symlink = false;
	if (fd >= 0 || errno != ELOOP)
		return fd;
	struct stat st;
	*symlink = lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
	return open(path, flags);
}

/* Reads path whole into *out: room a bulk reserves (b), else a buffer of
 * its own. */
static int read_file(const char *path, size_t max_bytes, struct bulk *b, char **out, size_t *len,
		     enum file_state *state, bool *symlink, struct cs_error *err)
{
	*len = 0;
	if (!max_bytes)
		max_bytes = FILEIO_MAX_INPUT;
	int fd = open_to_read(path, symlink);
	if (fd < 0) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			return fail(err, state, FILE_MISSING, CS_EIO, path, "no such file");
		if (e == ELOOP)
			return fail(err, state, FILE_UNREADABLE, CS_EIO, path, "too many symbolic links (a loop?)");
		if (e == EISDIR)
			return fail(err, state, FILE_DIRECTORY, CS_EIO, path, "is a directory, not a file");
		return fail(err, state, FILE_UNREADABLE, CS_EIO, path, strerror(e));
	}
	struct stat before;
	if (fstat(fd, &before) != 0) {
		close(fd);
		return fail(err, state, FILE_UNREADABLE, CS_EIO, path, strerror(errno));
	}
	if (S_ISDIR(before.st_mode)) {
		close(fd);
		return fail(err, state, FILE_DIRECTORY, CS_EIO, path, "is a directory, not a file");
	}
	if (!S_ISREG(before.st_mode)) {
		close(fd);
		return fail(err, state, FILE_NOT_REGULAR, CS_EIO, path,
			    "is not a regular file (a FIFO, device or socket); refusing to read it");
	}
	if ((unsigned long long)before.st_size > max_bytes) {
		close(fd);
		return fail(err, state, FILE_TOO_BIG, CS_ELIMIT, path, "is larger than ctxscope reads");
	}
	size_t size = (size_t)before.st_size;
	char *buf = b ? bulk_reserve(b, size) : cs_malloc(size + 1);
	if (!buf) {
		close(fd);
		return fail(err, state, FILE_UNREADABLE, CS_ENOMEM, path, "out of memory reading it");
	}
	if (!b) /* a bulk's chunks are advised already */
		bulk_advise(buf, size + 1); /* huge pages: a big file's read faults once per 2 MB, not per 4 kB */
	/* Into a bulk, each read asks for a byte past the size (the room has
	 * it, for the NUL): a regular file gives fewer bytes than asked only
	 * at its end, so exactly `size` is the end, without a read of its own
	 * to see it (one system call a file of 5 or 6), and a byte more is a
	 * file that grew (or says a size it does not hold, as in /proc). The
	 * fstat after still catches a file changed meanwhile. Else the end is
	 * read for (file_read: the benchmark's anchor reads this way). */
	size_t got = 0, want = b ? size + 1 : size;
	while (got < want) {
		ssize_t r = read(fd, buf + got, want - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			if (!b)
				cs_free(buf);
			close(fd);
			return fail(err, state, FILE_UNREADABLE, CS_EIO, path, strerror(e));
		}
		if (r == 0)
			break;
		got += (size_t)r;
		if (b && got >= size)
			break;
	}
	char extra;
	ssize_t more = got == size && !b ? read(fd, &extra, 1) : 0;
	struct stat after;
	int st_ok = fstat(fd, &after) == 0;
	close(fd);
	if (got != size || more > 0 || !st_ok || after.st_size != before.st_size ||
	    mtime_ns(&after) != mtime_ns(&before)) {
		if (!b)
			cs_free(buf);
		return fail(err, state, FILE_CHANGED, CS_EIO, path, "changed while being read; try again");
	}
	buf[size] = '\0';
	*out = buf;
	*len = size;
	if (state)
		*state = FILE_OK;
	return CS_OK;
}

int file_read(const char *path, size_t max_bytes, char **out, size_t *len, enum file_state *state,
	      struct cs_error *err)
{
	return file_read_noting_link(path, max_bytes, out, len, state, NULL, err);
}

int file_read_noting_link(const char *path, size_t max_bytes, char **out, size_t *len, enum file_state *state,
			  bool *symlink, struct cs_error *err)
{
	*out = NULL;
	return read_file(path, max_bytes, NULL, out, len, state, symlink, err);
}

int file_read_bulk(const char *path, size_t max_bytes, struct bulk *b, char **out, size_t *len,
		   enum file_state *state, bool *symlink, struct cs_error *err)
{
	*out = NULL;
	return read_file(path, max_bytes, b, out, len, state, symlink, err);
}
int file_stamp(const char *path, struct file_stamp *stamp, struct cs_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		cs_error_file(err, path);
		return cs_error_set(err, CS_EIO, "%s", strerror(errno));
	}
	*stamp = (struct file_stamp){ st.st_dev, st.st_ino, st.st_size, mtime_ns(&st) };
	return CS_OK;
}

int file_stamp_equal(const struct file_stamp *a, const struct file_stamp *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns;
}
