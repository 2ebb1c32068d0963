/* json/lines.c: walking JSON Lines text (see json/lines.h). */
#define _DEFAULT_SOURCE /* madvise */
#include "json/lines.h"

#include "json/lex.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define JSONL_GIVE_STEP ((size_t)4 << 20) /* give back in steps of at least this many bytes */

bool jsonl_blank(const char *s, size_t n)
{
	return json_blank(s, n);
}

void jsonl_init(struct jsonl *j, const char *data, size_t len)
{
	*j = (struct jsonl){ .data = data, .len = len, .last = len };
}

/* The start of the last non-blank line: from the end backwards, so a walk
 * that asks for it early does not read (and fault in) the whole text. */
static void find_last(struct jsonl *j)
{
	size_t end = j->len;
	while (end > 0 && json_is_ws(j->data[end - 1]))
		end--;
	if (end > 0) {
		size_t start = end;
		while (start > 0 && j->data[start - 1] != '\n')
			start--;
		j->last = start;
	}
	j->found_last = true;
}

void jsonl_give_back(struct jsonl *j)
{
	j->give_back = true;
}

/* Gives back the whole pages of data[given, upto). */
static void give_back(struct jsonl *j, size_t upto)
{
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0 || upto - j->given < JSONL_GIVE_STEP)
		return;
	uintptr_t p = (uintptr_t)(j->data + j->given), end = (uintptr_t)(j->data + upto);
	uintptr_t from = (p + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page;
	uintptr_t to = end / (uintptr_t)page * (uintptr_t)page;
	if (to <= from)
		return;
	(void)madvise((void *)from, to - from, MADV_DONTNEED); /* advice: a failure only keeps the pages */
	j->given = (size_t)(to - (uintptr_t)j->data);
}

bool jsonl_next(struct jsonl *j, const char **s, size_t *n, bool *last)
{
	while (j->pos < j->len) {
		size_t start = j->pos;
		const char *nl = memchr(j->data + start, '\n', j->len - start);
		size_t end = nl ? (size_t)(nl - j->data) : j->len;
		j->pos = end + 1;
		j->line++;
		if (!jsonl_blank(j->data + start, end - start)) {
			if (j->give_back)
				give_back(j, start);
			*s = j->data + start;
			*n = end - start;
			if (last && !j->found_last)
				find_last(j);
			if (last)
				*last = start == j->last;
			return true;
		}
	}
	return false;
}
