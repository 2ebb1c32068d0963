/* alloc.h: the core's allocator, with a fault-injection hook for tests.
 * Every allocation in src/ goes through these (cJSON's too, via its hooks),
 * so a test can make the Nth allocation fail and check that the result is a
 * clean CS_ENOMEM, never a crash or a leak. */
#ifndef CTXSCOPE_ALLOC_H
#define CTXSCOPE_ALLOC_H

#include <stddef.h>

/* Like malloc/calloc/realloc/free; NULL on failure (or injected failure).
 * cs_calloc and cs_reallocarray check n*size for overflow. */
void *cs_malloc(size_t size);
void *cs_calloc(size_t n, size_t size);
void *cs_realloc(void *ptr, size_t size);
void *cs_reallocarray(void *ptr, size_t n, size_t size);
void cs_free(void *ptr);

/* Array growth in one place: makes *arr (of *cap items of `size` bytes)
 * hold at least `need` items, doubling from 16; new items are zeroed.
 * Returns 0, or -1 on failure (overflow or out of memory) with *arr and
 * *cap untouched. Use CS_GROW(arr, cap, need) for a typed array. */
int cs_grow(void **arr, size_t *cap, size_t need, size_t size);
/* (the test for room inline: an append that has room makes no call; `need`
 * and `cap` are read twice, so they take no side effects) */
#define CS_GROW(arr, cap, need) \
	((size_t)(need) <= (cap) ? 0 : cs_grow((void **)&(arr), &(cap), (need), sizeof *(arr)))

/* A copy of s[0..n) plus a NUL, caller frees with cs_free. NULL on failure. */
char *cs_strndup(const char *s, size_t n);
char *cs_strdup(const char *s);

/* For a process that builds large arrays again on every key press (the
 * inspector re-assembles after each edit): freed memory stays with the
 * process for the next build instead of going back to the kernel and
 * being faulted in again, page by page (glibc: no block mapped apart, 1 GB
 * kept at the top of the heap; a no-op elsewhere). */
void cs_alloc_keep_freed(void);

/* Test hook: the allocation numbered `nth` from now (1 = the next one) and
 * every one after it fail; 0 turns injection off. Process-wide; tests only. */
void cs_alloc_fail_from(long nth);
/* Allocations made since the last cs_alloc_fail_from() call. */
long cs_alloc_count(void);

/* Allocations that returned NULL (injected or real) since the process
 * started. Lets a caller tell out of memory from another failure of a
 * library that reports both the same way (cJSON's parse returns NULL). */
unsigned long cs_alloc_failures(void);

/* pcre2's allocator signature, for
 * pcre2_general_context_create(cs_pcre2_malloc, cs_pcre2_free, NULL): pcre2's
 * allocations then count (and fail) with ours. `data` is unused. */
void *cs_pcre2_malloc(size_t size, void *data);
void cs_pcre2_free(void *ptr, void *data);

/* Route cJSON's allocations through cs_malloc/cs_free. Idempotent. */
void cs_alloc_install_cjson_hooks(void);

#endif
