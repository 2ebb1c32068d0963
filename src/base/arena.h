/* arena.h: a bump allocator for the many small strings of a loaded source or
 * an assembly. Everything in an arena is freed at once by arena_fini; nothing
 * in it is freed alone. */
#ifndef CTXSCOPE_ARENA_H
#define CTXSCOPE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena_chunk;

struct arena {
	struct arena_chunk *head; /* newest chunk first */
	size_t bytes;             /* bytes handed out, for memory figures */
};

void arena_init(struct arena *a);
/* Frees every chunk; the arena may be used again after arena_init. NULL-safe. */
void arena_fini(struct arena *a);

/* n bytes aligned for any scalar, zeroed. NULL on out of memory. */
void *arena_alloc(struct arena *a, size_t n);
/* A NUL-terminated copy of s[0..n). NULL on out of memory. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* printf into the arena. NULL on out of memory. */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
