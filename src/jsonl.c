/* jsonl.c: walking JSON Lines text (see jsonl.h). */
#include "jsonl.h"

#include <string.h>

bool jsonl_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
			return false;
	return true;
}

void jsonl_init(struct jsonl *j, const char *data, size_t len)
{
	*j = (struct jsonl){ .data = data, .len = len, .last = len };
}

static void find_last(struct jsonl *j)
{
	for (size_t i = 0, start = 0; i <= j->len; i++)
		if (i == j->len || j->data[i] == '\n') {
			if (!jsonl_blank(j->data + start, i - start))
				j->last = start;
			start = i + 1;
		}
	j->found_last = true;
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
