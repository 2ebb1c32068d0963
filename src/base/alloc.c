/* alloc.c: the core's allocator and its fault-injection hook (see alloc.h). */
#include "base/alloc.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__ /* defined by the libc headers above */
#include <malloc.h>
#endif

static long fail_from;   /* 0: never fail */
static long alloc_count; /* allocations since the hook was last set */
static unsigned long failures; /* NULLs returned, ever */

static void *counted(void *p)
{
	if (!p)
		failures++;
	return p;
}

unsigned long cs_alloc_failures(void)
{
	return failures;
}

static int injected_failure(void)
{
	alloc_count++;
	return fail_from > 0 && alloc_count >= fail_from;
}

void cs_alloc_fail_from(long nth)
{
	fail_from = nth;
	alloc_count = 0;
}

long cs_alloc_count(void)
{
	return alloc_count;
}

void *cs_malloc(size_t size)
{
	if (injected_failure())
		return counted(NULL);
	return counted(malloc(size ? size : 1));
}

void *cs_calloc(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return counted(NULL);
	if (injected_failure())
		return counted(NULL);
	return counted(calloc(n ? n : 1, size ? size : 1));
}

void *cs_realloc(void *ptr, size_t size)
{
	if (injected_failure())
		return counted(NULL);
	return counted(realloc(ptr, size ? size : 1));
}

void *cs_reallocarray(void *ptr, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return cs_realloc(ptr, n * size);
}

int cs_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t fresh = *cap ? *cap : 16;
	while (fresh < need) {
		if (fresh > SIZE_MAX / 2)
			return -1;
		fresh *= 2;
	}
	char *p = cs_reallocarray(*arr, fresh, size);
	if (!p)
		return -1;
	memset(p + *cap * size, 0, (fresh - *cap) * size);
	*arr = p;
	*cap = fresh;
	return 0;
}

void cs_free(void *ptr)
{
	free(ptr);
}

char *cs_strndup(const char *s, size_t n)
{
	char *p = cs_malloc(n + 1);
	if (!p)
		return NULL;
	if (n)
		memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *cs_strdup(const char *s)
{
	return cs_strndup(s, strlen(s));
}

void *cs_pcre2_malloc(size_t size, void *data)
{
	(void)data;
	return cs_malloc(size);
}

void cs_pcre2_free(void *ptr, void *data)
{
	(void)data;
	cs_free(ptr);
}

void cs_alloc_install_cjson_hooks(void)
{
	cJSON_Hooks hooks = { .malloc_fn = cs_malloc, .free_fn = cs_free };
	cJSON_InitHooks(&hooks);
}

void cs_alloc_keep_freed(void)
{
#ifdef __GLIBC__
	/* Every block from the heap (glibc's mmap threshold stops at 32 MB, and
	 * a million pieces' results are more), and up to 1 GB kept at its top. */
	mallopt(M_MMAP_MAX, 0);
	mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
#endif
}
