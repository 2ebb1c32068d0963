/* walk.c: the files a scan reads (scan_priv.h). A folder is walked for
 * *.jsonl files, symlinks followed, each folder entered once (by device and
 * inode: a symlink loop, or a second way to the same folder, is skipped and
 * listed); special files (fifos, sockets, devices) and unreadable folders
 * are listed as skipped. A file named on the command line is taken as it
 * is, whatever its name. */
#include "scan/scan_priv.h"

#include "base/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WALK_DEPTH 64 /* deeper folders are listed as skipped: no projects tree comes near */

struct walk {
	struct scan_input *in;
	size_t n, cap;
	struct scan_skip *skips;
	size_t nskips;
	struct { dev_t dev; ino_t ino; } *seen;
	size_t nseen, capseen;
	bool nomem;
};

bool scan_add_skip(struct scan_skip **skips, size_t *n, const char *path, bool whole, const char *fmt, ...)
{
	if (*n % 64 == 0) {
		struct scan_skip *s = cs_reallocarray(*skips, *n + 64, sizeof *s);
		if (!s)
			return false;
		*skips = s;
	}
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof reason, fmt, ap);
	va_end(ap);
	struct scan_skip *k = &(*skips)[*n];
	k->path = cs_strdup(path);
	k->reason = cs_strdup(reason);
	k->whole = whole;
	if (!k->path || !k->reason) {
		cs_free(k->path);
		cs_free(k->reason);
		return false;
	}
	(*n)++;
	return true;
}

static void skip(struct walk *w, const char *path, const char *why)
{
	if (!scan_add_skip(&w->skips, &w->nskips, path, true, "%s", why))
		w->nomem = true;
}

static void add_file(struct walk *w, const char *path, const struct stat *st, bool given)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 256;
		struct scan_input *in = cs_reallocarray(w->in, cap, sizeof *in);
		if (!in) {
			w->nomem = true;
			return;
		}
		w->in = in;
		w->cap = cap;
	}
	char *p = cs_strdup(path);
	if (!p) {
		w->nomem = true;
		return;
	}
	w->in[w->n++] = (struct scan_input){ .path = p, .size = (long long)st->st_size, .given = given,
					     .mtime = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec };
}

/* false: this folder was entered before (a loop or a second way in). */
static bool first_visit(struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (w->seen[i].dev == st->st_dev && w->seen[i].ino == st->st_ino)
			return false;
	if (w->nseen == w->capseen) {
		size_t cap = w->capseen ? w->capseen * 2 : 64;
		void *s = cs_reallocarray(w->seen, cap, sizeof *w->seen);
		if (!s) {
			w->nomem = true;
			return false;
		}
		w->seen = s;
		w->capseen = cap;
	}
	w->seen[w->nseen].dev = st->st_dev;
	w->seen[w->nseen].ino = st->st_ino;
	w->nseen++;
	return true;
}

static const char *special(const struct stat *st)
{
	return S_ISFIFO(st->st_mode) ? "a special file (fifo): skipped"
	     : S_ISSOCK(st->st_mode) ? "a special file (socket): skipped"
	     : S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode) ? "a special file (device): skipped"
	     : "not a regular file: skipped";
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void folder(struct walk *w, const char *path, int depth);

static void entry(struct walk *w, const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		char why[300];
		snprintf(why, sizeof why, "%s: skipped", errno == ELOOP ? "a symlink loop" : strerror(errno));
		skip(w, path, why);
		return;
	}
	size_t n = strlen(path);
	bool jsonl = n > 6 && !strcmp(path + n - 6, ".jsonl");
	if (S_ISDIR(st.st_mode)) {
		if (!first_visit(w, &st))
			skip(w, path, "a folder already walked (a symlink loop, or a second way to it): skipped");
		else if (depth >= WALK_DEPTH)
			skip(w, path, "folders nested deeper than 64: skipped");
		else
			folder(w, path, depth + 1);
	} else if (S_ISREG(st.st_mode)) {
		if (jsonl)
			add_file(w, path, &st, false);
	} else {
		skip(w, path, special(&st));
	}
}

static void folder(struct walk *w, const char *path, int depth)
{
	DIR *d = opendir(path);
	if (!d) {
		char why[300];
		snprintf(why, sizeof why, "unreadable folder: %s", strerror(errno));
		skip(w, path, why);
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (struct dirent *e; (e = readdir(d)) && !w->nomem;) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **nn = cs_reallocarray(names, cap, sizeof *nn);
			if (!nn) {
				w->nomem = true;
				break;
			}
			names = nn;
		}
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		names[n] = cs_malloc(len);
		if (!names[n]) {
			w->nomem = true;
			break;
		}
		snprintf(names[n], len, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name); /* the same order on every machine */
	for (size_t i = 0; i < n; i++) {
		if (!w->nomem)
			entry(w, names[i], depth);
		cs_free(names[i]);
	}
	cs_free(names);
}

int scan_walk(const char *const *paths, size_t npaths, struct scan_input **out, size_t *nout, struct scan_skip **skips,
	      size_t *nskips, struct cs_error *err)
{
	struct walk w = { .skips = *skips, .nskips = *nskips };
	for (size_t i = 0; i < npaths && !w.nomem; i++) {
		struct stat st;
		if (stat(paths[i], &st) != 0) {
			char why[300];
			snprintf(why, sizeof why, "cannot open: %s", strerror(errno));
			skip(&w, paths[i], why);
		} else if (S_ISDIR(st.st_mode)) {
			if (first_visit(&w, &st))
				folder(&w, paths[i], 0);
		} else if (S_ISREG(st.st_mode)) {
			add_file(&w, paths[i], &st, true);
		} else {
			skip(&w, paths[i], special(&st));
		}
	}
	cs_free(w.seen);
	*out = w.in;
	*nout = w.n;
	*skips = w.skips;
	*nskips = w.nskips;
	return w.nomem ? cs_error_nomem(err) : CS_OK;
}
