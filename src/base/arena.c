/* arena.c: bump allocator (see arena.h). */
#include "base/arena.h"

#include "base/alloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define ARENA_CHUNK_BYTES (64 * 1024) /* small enough to waste little, large enough to amortise */

struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	alignas(max_align_t) unsigned char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->bytes = 0;
}

void arena_fini(struct arena *a)
{
	if (!a)
		return;
	struct arena_chunk *c = a->head;
	while (c) {
		struct arena_chunk *next = c->next;
		cs_free(c);
		c = next;
	}
	a->head = NULL;
	a->bytes = 0;
}

/* n bytes aligned for any scalar, not zeroed (for callers that write them all). */
static void *arena_alloc_raw(struct arena *a, size_t n)
{
	const size_t align = alignof(max_align_t);
	if (n > SIZE_MAX - align)
		return NULL;
	n = (n + align - 1) & ~(align - 1);
	struct arena_chunk *c = a->head;
	if (!c || c->cap - c->used < n) {
		size_t cap = n > ARENA_CHUNK_BYTES / 4 ? n : ARENA_CHUNK_BYTES;
		struct arena_chunk *fresh = cs_malloc(sizeof *fresh + cap);
		if (!fresh)
			return NULL;
		fresh->cap = cap;
		fresh->used = 0;
		if (c && cap == n) {
			/* A big block gets its own chunk behind the current one, so the
			 * current chunk's free room stays usable. */
			fresh->next = c->next;
			c->next = fresh;
		} else {
			fresh->next = c;
			a->head = fresh;
		}
		c = fresh;
	}
	void *p = c->data + c->used;
	c->used += n;
	a->bytes += n;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	void *p = arena_alloc_raw(a, n);
	if (p)
		memset(p, 0, n);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	if (n == SIZE_MAX)
		return NULL;
	char *p = arena_alloc_raw(a, n + 1);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	/* One pass when the text fits the current chunk's free room (the
	 * common case: sentences are short); else measure, then write. */
	struct arena_chunk *c = a->head;
	size_t room = c ? c->cap - c->used : 0;
	int n = vsnprintf(room ? (char *)c->data + c->used : NULL, room, fmt, ap);
	if (n < 0) {
		va_end(again);
		return NULL;
	}
	char *p;
	if ((size_t)n < room) {
		p = arena_alloc_raw(a, (size_t)n + 1); /* takes the bytes just written */
	} else {
		p = arena_alloc_raw(a, (size_t)n + 1);
		if (p)
			vsnprintf(p, (size_t)n + 1, fmt, again);
	}
	va_end(again);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}
