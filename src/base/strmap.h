/* strmap.h: a map from byte strings (pointer and length, not copied) to
 * indices, by open addressing. It lets a loader check a list for duplicates
 * or look a name up in O(1), so every loader stays linear in its input. */
#ifndef CTXSCOPE_STRMAP_H
#define CTXSCOPE_STRMAP_H

#include <stddef.h>

#define STRMAP_NONE ((size_t)-1)

struct strmap_slot {
	const char *key; /* NULL: empty */
	size_t len;
	size_t val;
};

struct strmap {
	struct strmap_slot *slots;
	size_t mask; /* capacity - 1 (a power of two), 0 before the first put */
	size_t n;
};

#define STRMAP_INIT { NULL, 0, 0 }

/* Sets key[0..len) to val (the key's bytes must outlive the map). *old gets
 * the value it had, or STRMAP_NONE when the key is new. Returns 0, or -1 on
 * out of memory (the map is unchanged). */
int strmap_put(struct strmap *m, const char *key, size_t len, size_t val, size_t *old);
/* The value of key[0..len), or STRMAP_NONE. */
size_t strmap_get(const struct strmap *m, const char *key, size_t len);
void strmap_fini(struct strmap *m);

/* Finds the first of n records (base, stride bytes apart) whose string at
 * byte offset `at` equals an earlier one's: *repeat gets its index and
 * *first the earlier one's, or both STRMAP_NONE when all differ. Returns 0,
 * or -1 on out of memory. */
int strmap_first_repeat(const void *base, size_t n, size_t stride, size_t at, size_t *repeat, size_t *first);

#endif
