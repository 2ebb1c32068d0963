/* bulk.c: big chunks for big loads (see bulk.h). */
#define _DEFAULT_SOURCE /* madvise, MADV_HUGEPAGE */
#include "base/bulk.h"

#include "base/alloc.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define BULK_MIN ((size_t)64 << 10)
#define BULK_MAX ((size_t)32 << 20)
#define BULK_HUGE ((size_t)2 << 20) /* a transparent huge page */

struct bulk_chunk {
	struct bulk_chunk *next;
	size_t used, cap;
	unsigned char bytes[];
};

void bulk_init(struct bulk *b, size_t expect)
{
	size_t cap = expect / 4;
	b->head = NULL;
	b->cap = cap < BULK_MIN ? BULK_MIN : cap > BULK_MAX ? BULK_MAX : cap;
}

/* Advice: a kernel without huge pages, or that declines, only leaves the
 * small ones. Arrays under two huge pages are left alone. */
void bulk_advise(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n < 2 * BULK_HUGE)
		return;
	uintptr_t from = ((uintptr_t)p + BULK_HUGE - 1) / BULK_HUGE * BULK_HUGE;
	uintptr_t to = ((uintptr_t)p + n) / BULK_HUGE * BULK_HUGE;
	if (to > from)
		(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

char *bulk_reserve(struct bulk *b, size_t n)
{
	if (n >= SIZE_MAX / 2)
		return NULL;
	struct bulk_chunk *c = b->head;
	if (!c || c->cap - c->used < n + 1) {
		size_t cap = n + 1 > b->cap ? n + 1 : b->cap;
		struct bulk_chunk *fresh = cs_malloc(sizeof *fresh + cap);
		if (!fresh)
			return NULL;
		*fresh = (struct bulk_chunk){ .next = c, .cap = cap };
		bulk_advise(fresh->bytes, cap);
		b->head = c = fresh;
	}
	return (char *)c->bytes + c->used;
}

void bulk_commit(struct bulk *b, char *p, size_t used)
{
	p[used] = '\0';
	b->head->used += used + 1;
}

size_t bulk_room(const struct bulk *b)
{
	const struct bulk_chunk *c = b->head;
	return c && c->cap > c->used ? c->cap - c->used - 1 : 0;
}

size_t bulk_size(const struct bulk *b)
{
	size_t n = 0;
	for (const struct bulk_chunk *c = b->head; c; c = c->next)
		n += c->cap;
	return n;
}

char *bulk_strndup(struct bulk *b, const char *s, size_t n)
{
	char *p = bulk_reserve(b, n);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	bulk_commit(b, p, n);
	return p;
}

void bulk_fini(struct bulk *b)
{
	for (struct bulk_chunk *c = b->head, *next; c; c = next) {
		next = c->next;
		cs_free(c);
	}
	b->head = NULL;
}
