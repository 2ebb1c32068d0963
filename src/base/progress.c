/* progress.c: see progress.h. */
#include "base/progress.h"

#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *pr, progress_fn fn, void *ctx)
{
	*pr = (struct progress){ .fn = fn, .ctx = ctx, .start = now_s() };
}

void progress_tick(struct progress *pr, const char *what, size_t done, size_t total)
{
	if (!pr || !pr->fn || ++pr->ticks % PROGRESS_EVERY)
		return;
	double t = now_s();
	if (t - pr->start < PROGRESS_DELAY_S || (pr->shown && t - pr->last < PROGRESS_INTERVAL_S))
		return;
	pr->last = t;
	pr->shown = true;
	pr->fn(pr->ctx, what, done, total, false);
}

void progress_done(struct progress *pr, const char *what, size_t total)
{
	if (pr && pr->fn && pr->shown)
		pr->fn(pr->ctx, what, total, total, true);
}
