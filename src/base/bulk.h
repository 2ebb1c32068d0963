/* bulk.h: a bump allocator for the bulk of what a load keeps (hundreds of
 * megabytes of text that live as long as the source). Its chunks grow with
 * the input, up to 32 MB, and their 2 MB-aligned interior is advised for
 * transparent huge pages: the first touch of each 2 MB then faults once
 * instead of 512 times (perf: the page faults of copying a large session's
 * text were a tenth of its load). Small inputs get small chunks, unadvised.
 * Memory comes from cs_malloc, so injected failures reach it too. */
#ifndef CTXSCOPE_BULK_H
#define CTXSCOPE_BULK_H

#include <stddef.h>

struct bulk_chunk;
struct bulk {
	struct bulk_chunk *head; /* newest first */
	size_t cap;              /* the next chunk's size */
};

/* expect: about how many bytes will be kept (the input's size will do). */
void bulk_init(struct bulk *b, size_t expect);
/* A copy of s[0..n) plus a NUL, or NULL on out of memory. */
char *bulk_strndup(struct bulk *b, const char *s, size_t n);
/* Room for n bytes and a NUL at the end of the newest chunk (NULL on out
 * of memory), for text written in place (a JSON string unescaped: never
 * longer than its raw bytes); bulk_commit(b, p, used) then keeps its first
 * `used` bytes (used <= n, nothing reserved since) and puts the NUL after
 * them. A reserve not committed costs nothing. */
char *bulk_reserve(struct bulk *b, size_t n);
void bulk_commit(struct bulk *b, char *p, size_t used);
/* The bytes a reserve can have without a new chunk (the NUL's aside). */
size_t bulk_room(const struct bulk *b);
/* The bytes of every chunk together: what the bulk holds, used or not. */
size_t bulk_size(const struct bulk *b);
void bulk_fini(struct bulk *b);

/* Advises the whole huge pages of a big array p[0..n) (one sized up front
 * for the items it will take), as the chunks are. */
void bulk_advise(void *p, size_t n);

#endif
