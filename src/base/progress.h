/* progress.h: telling a person that long work is under way. Work that may
 * take long (a loader's pass over many files or elements) calls
 * progress_tick as it goes; after PROGRESS_DELAY_S the caller's callback
 * hears about it, at most every PROGRESS_INTERVAL_S, and once more when the
 * work is done. The core never prints: the callback (ui/, or a headless
 * command writing to a terminal's stderr) decides what to show. */
#ifndef CTXSCOPE_PROGRESS_H
#define CTXSCOPE_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define PROGRESS_DELAY_S 0.5     /* work over half a second shows progress */
#define PROGRESS_INTERVAL_S 0.1  /* ten updates a second are enough to look alive */
#define PROGRESS_EVERY 256       /* ticks between looks at the clock */

/* Called with what is being done ("reading files"), how far, and of how
 * many (0 when unknown). done == total and finished: the last call. Inputs
 * are borrowed for the call. */
typedef void (*progress_fn)(void *ctx, const char *what, size_t done, size_t total, bool finished);

struct progress {
	progress_fn fn;       /* NULL: nothing is shown */
	void *ctx;            /* handed to fn */
	double start;         /* seconds (monotonic) when the work began */
	double last;          /* when fn was last called, 0 never */
	unsigned long ticks;
	bool shown;           /* fn was called at least once */
};

/* Starts timing work for fn(ctx). fn may be NULL. */
void progress_init(struct progress *pr, progress_fn fn, void *ctx);
/* Notes progress; calls fn when due. pr may be NULL (does nothing). */
void progress_tick(struct progress *pr, const char *what, size_t done, size_t total);
/* The work is over: a last call to fn when anything was shown. NULL-safe. */
void progress_done(struct progress *pr, const char *what, size_t total);

#endif
