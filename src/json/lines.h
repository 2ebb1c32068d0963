/* json/lines.h: walking JSON Lines text (request logs, Claude Code sessions):
 * each non-blank line with its 1-based number, and whether it is the last
 * non-blank one (a file still being written may end in a truncated line,
 * which the loaders take as a warning rather than an error). */
#ifndef CTXSCOPE_JSONL_H
#define CTXSCOPE_JSONL_H

#include <stdbool.h>
#include <stddef.h>

struct jsonl {
	const char *data;
	size_t len;
	size_t pos;  /* where the next line starts */
	size_t last; /* where the last non-blank line starts (len: none) */
	bool found_last; /* last is known (found on the first call that asks) */
	long line;   /* the number of the line last returned; after the end, of lines in all */
	bool give_back; /* jsonl_give_back was called */
	size_t given;   /* bytes from the start already given back */
};

void jsonl_init(struct jsonl *j, const char *data, size_t len);
/* The next non-blank line into *s and *n (without its newline), and (last
 * may be NULL: a scan for the first lines need not read the whole text)
 * *last when no non-blank line follows; false after the last one. */
bool jsonl_next(struct jsonl *j, const char **s, size_t *n, bool *last);
/* The caller owns data (a private, writable buffer it will free, such as
 * file_read's) and never reads a line again once it asked for the next: the
 * whole pages of the lines read are then given back to the system as the
 * walk goes (madvise; they read as zeros afterwards), so a long log is not
 * held whole beside what is made of it. */
void jsonl_give_back(struct jsonl *j);
/* Only spaces, tabs, CR and LF. */
bool jsonl_blank(const char *s, size_t n);

#endif
