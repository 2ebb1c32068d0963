/* rank.c (memory): the builder's score order, kept between assemblies.
 * Item scores never change after load, so the order is a function of the
 * weights alone: the last MEMORY_RANKINGS orders are kept, each under its
 * weights, and an edit that leaves the weights alone (an exclusion, the
 * budget, a filter) or goes back to weights used lately (an undo, a preset
 * tried again) sorts nothing. The slots (what the passes read of each
 * item, in that order) are kept for the last weights built. */
#include "memory.h"

#include "base/alloc.h"
#include "source.h"

#include <stdlib.h>
#include <string.h>

struct ranked {
	double score;
	size_t index; /* piece */
};

static int cmp_ranked(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index; /* ties: input order */
}

struct memory_cache *memory_cache(const struct source *src)
{
	return &((struct memory *)src->model)->cache;
}

static size_t *sorted_order(const struct memory *m, const struct source *src, const double weights[MW_COUNT])
{
	size_t n = src->npieces;
	size_t *order = cs_malloc((n ? n : 1) * sizeof *order);
	struct ranked *r = cs_malloc((n ? n : 1) * sizeof *r);
	if (!order || !r) {
		cs_free(order);
		cs_free(r);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		r[i] = (struct ranked){ memory_final_score(&m->items[src->pieces[i].kind_index], weights), i };
	qsort(r, n, sizeof *r, cmp_ranked);
	for (size_t k = 0; k < n; k++)
		order[k] = r[k].index;
	cs_free(r);
	return order;
}

/* The kept order for weights, sorted now when none is: it takes a free
 * entry, else the one used longest ago. NULL on out of memory. */
static struct memory_ranking *ranking_for(const struct memory *m, const struct source *src, const double weights[MW_COUNT])
{
	struct memory_cache *mc = memory_cache(src);
	struct memory_ranking *old = &mc->rankings[0];
	for (size_t j = 0; j < MEMORY_RANKINGS; j++) {
		struct memory_ranking *g = &mc->rankings[j];
		if (g->order && !memcmp(g->weights, weights, sizeof g->weights))
			return g;
		if (!g->order ? old->order != NULL : old->order && g->used < old->used)
			old = g;
	}
	size_t *order = sorted_order(m, src, weights);
	if (!order)
		return NULL;
	if (old->order && mc->rank_order == old->order) {
		mc->rank_order = NULL;
		mc->rank_valid = false;
	}
	cs_free(old->order);
	old->order = order;
	memcpy(old->weights, weights, sizeof old->weights);
	return old;
}

/* Lays the items out in g's order: slots, rank_of, score_of. */
static bool lay_out(const struct memory *m, const struct source *src, const struct memory_ranking *g)
{
	struct memory_cache *mc = memory_cache(src);
	size_t n = src->npieces;
	if (!mc->slots || !mc->rank_of || !mc->score_of) {
		cs_free(mc->slots);
		cs_free(mc->rank_of);
		cs_free(mc->score_of);
		mc->slots = cs_malloc((n ? n : 1) * sizeof *mc->slots);
		mc->rank_of = cs_malloc((n ? n : 1) * sizeof *mc->rank_of);
		mc->score_of = cs_malloc((n ? n : 1) * sizeof *mc->score_of);
		if (!mc->slots || !mc->rank_of || !mc->score_of)
			return false;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = g->order[k];
		const struct memory_item *it = &m->items[src->pieces[i].kind_index];
		double score = memory_final_score(it, g->weights);
		mc->slots[k] = (struct memory_slot){ .score = score,
						    .index = i,
						    .tokens = it->tokens,
						    .type = it->type,
						    .share = memory_allocation_of_type(it->type),
						    .full_tokens = it->tokens,
						    .own = memory_own_score(it),
						    .own_name = memory_own_score_name(it),
						    .item = it };
		mc->rank_of[i] = k;
		mc->score_of[i] = score;
	}
	memcpy(mc->slot_weights, g->weights, sizeof mc->slot_weights);
	mc->layout++;
	return true;
}

bool memory_rank(const struct memory *m, const struct source *src, const double weights[MW_COUNT])
{
	struct memory_cache *mc = memory_cache(src);
	struct memory_ranking *g = ranking_for(m, src, weights);
	if (!g)
		return false;
	g->used = ++mc->rank_clock;
	mc->rank_order = g->order;
	mc->rank_valid = true;
	if (mc->slots_valid && !memcmp(mc->slot_weights, weights, sizeof mc->slot_weights))
		return true;
	mc->slots_valid = lay_out(m, src, g);
	return mc->slots_valid;
}

const size_t *memory_rank_order(const struct memory *m, const struct source *src, const double weights[MW_COUNT],
				size_t **owned)
{
	struct memory_cache *mc = memory_cache(src);
	*owned = NULL;
	for (size_t j = 0; j < MEMORY_RANKINGS; j++)
		if (mc->rankings[j].order && !memcmp(mc->rankings[j].weights, weights, sizeof mc->rankings[j].weights))
			return mc->rankings[j].order;
	return *owned = sorted_order(m, src, weights);
}

void memory_rank_forget(struct memory *m)
{
	for (size_t j = 0; j < MEMORY_RANKINGS; j++) {
		cs_free(m->cache.rankings[j].order);
		m->cache.rankings[j] = (struct memory_ranking){ .order = NULL };
	}
	cs_free(m->cache.slots);
	cs_free(m->cache.rank_of);
	cs_free(m->cache.score_of);
	m->cache.slots = NULL;
	m->cache.rank_of = NULL;
	m->cache.score_of = NULL;
	m->cache.slots_valid = false;
	m->cache.rank_order = NULL;
	m->cache.rank_valid = false;
	memory_kept_free(m->cache.kept);
	m->cache.kept = NULL;
}
