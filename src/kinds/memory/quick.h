/* quick.h: an item of a memory snapshot read straight from its bytes, no
 * tree (quick.c), for the usual shape only; load.c reads anything else
 * through json_doc. */
#ifndef CTXSCOPE_MEMORY_QUICK_H
#define CTXSCOPE_MEMORY_QUICK_H
#include "memory.h"

#include <stdbool.h>
#include <stddef.h>

/* What the quick way read of an item; strings are raw spans of the input. */
struct memory_quick_item {
	const char *id, *content; /* the bodies past the opening quote; the id has no escapes */
	size_t id_len, content_len;
	size_t escaped; /* the escapes the content holds (none of them \u), one byte each unescaped */
	int type;
	long tokens; /* -1: not given */
	double scores[MW_COUNT];
	unsigned given; /* 1u << w: scores[w] given */
};

/* The item whose '{' is at data[start] (white space before it allowed),
 * when it has the usual shape: true with *it and *end (past its '}');
 * else false, and load.c reads it the tree's way. types: the type names
 * by number. */
bool memory_quick_read(const char *data, size_t len, size_t start, const char *const *types,
		       struct memory_quick_item *it, size_t *end);
#endif
