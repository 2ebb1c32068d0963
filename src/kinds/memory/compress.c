/* compress.c (memory): the seed's compressContext (ctxscope-formats(5) section 4b).
 * Offline there is no LLM: an item it would summarize keeps its place and
 * its text, its tokens become floor(tokens / 3) (the seed asks the LLM for
 * at most a third) and the prompt shows a marker. The seed sorts the items
 * by final score ascending (a stable sort: ties in input order) and
 * summarizes from the lowest while the total exceeds the target. */
#include "memory.h"

#include "base/alloc.h"

#include <stdlib.h>

struct by_score {
	double score;
	size_t k; /* rank */
	size_t input; /* tie order: the candidates' input order is the rank order among equals */
};

static int cmp_ascending(const void *x, const void *y)
{
	const struct by_score *a = x, *b = y;
	if (a->score != b->score)
		return a->score < b->score ? -1 : 1;
	return a->input < b->input ? -1 : a->input > b->input;
}

size_t memory_compress_plan(const double *score, const long *tokens, const bool *eligible, size_t n, long target,
			    long *out)
{
	long total = 0;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		out[k] = tokens[k];
		if (eligible[k]) {
			total += tokens[k];
			m++;
		}
	}
	if (total <= target || m == 0)
		return 0;
	struct by_score *s = cs_malloc(m * sizeof *s);
	if (!s)
		return 0;
	m = 0;
	for (size_t k = 0; k < n; k++)
		if (eligible[k])
			s[m++] = (struct by_score){ score[k], k, k };
	qsort(s, m, sizeof *s, cmp_ascending);
	size_t done = 0;
	for (size_t j = 0; j < m && total > target; j++) {
		size_t k = s[j].k;
		long shrunk = tokens[k] / 3;
		total -= tokens[k] - shrunk;
		out[k] = shrunk;
		done++;
	}
	cs_free(s);
	return done;
}
