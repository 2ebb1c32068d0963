/* scan_priv.h: what the scan's files share (scan.h is the face): a file's
 * result as a worker thread makes it, the small hash map the readers
 * use, and the line reader's fields. */
#ifndef CTXSCOPE_SCAN_PRIV_H
#define CTXSCOPE_SCAN_PRIV_H

#include "base/arena.h"
#include "scan/scan.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SCAN_MAX_LINE (256u << 20) /* a longer line is skipped as malformed: nothing real comes near it */
#define SCAN_CHUNK (1u << 20)      /* bytes read at a time */
#define SCAN_SKIP_LIST 1000        /* skipped files listed; more are only counted */

/* u64 -> u32, open addressing; key 0 stands for 1 (a hash is never 0 here). */
struct u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n; /* cap a power of two */
};
/* The value of k, or UINT32_MAX. */
uint32_t u64map_get(const struct u64map *m, uint64_t k);
/* Sets k to v; false out of memory. */
bool u64map_put(struct u64map *m, uint64_t k, uint32_t v);
void u64map_fini(struct u64map *m);
uint64_t scan_hash(const char *s, size_t n, uint64_t seed);

/* One file to read, as the walk found it. */
struct scan_input {
	char *path;          /* owned */
	long long size;
	double first;        /* its first timestamp (for the order); 0 unknown */
	long long mtime;     /* last modified (ns): the order of files with the same first timestamp */
	bool given;          /* named on the command line (taken as it is, whatever its name) */
};

/* What a worker made of one file. */
struct scan_file {
	struct arena arena;  /* its strings */
	const char *project, *session;
	const char *kind;    /* "claude-code", "log" */
	bool agent;          /* a subagent's file: counts under session */
	bool read;           /* read (else skipped whole: skip_reason) */
	const char *skip_reason;
	struct scan_req *reqs;
	size_t nreqs, cap;
	long bad_lines, bad_line, bad_col;
	const char *bad_why;
	long long bytes;
	bool done;           /* ready to be taken (run.c) */
};

/* session.c: reads a Claude Code session file (or sends a log to log.c) into f. */
int scan_read_file(const struct scan_options *o, const struct scan_input *in, struct scan_file *f,
		   _Atomic long long *bytes_done);
void scan_file_fini(struct scan_file *f);
/* The chain of a file's lines (those with a uuid): each one's parent
 * (-1 none or unknown) and the request whose message it holds (-1 none). */
struct scan_links {
	int32_t *parent, *req;
	size_t n, cap;
};
/* analyse.c: the waste model over f's requests. CS_OK or CS_ENOMEM. */
int scan_analyse(struct scan_file *f, const struct scan_links *links, double now);
/* log.c: a request log or capture through its kind. CS_OK (f->read or a skip reason) or CS_ENOMEM. */
int scan_read_log(const struct scan_input *in, struct scan_file *f, double now);
/* walk.c: the files under the paths; skipped ones (loops, special files, unreadable folders) into skips. */
int scan_walk(const char *const *paths, size_t npaths, struct scan_input **out, size_t *n, struct scan_skip **skips,
	      size_t *nskips, struct cs_error *err);
bool scan_add_skip(struct scan_skip **skips, size_t *n, const char *path, bool whole, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
struct scan_req *scan_file_add(struct scan_file *f);

#endif
