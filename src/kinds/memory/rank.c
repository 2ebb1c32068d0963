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
static struct memory_ranking *ranking_for(struct memory *m, const struct source *src, const double weights[MW_COUNT])
{
	struct memory_ranking *old = &m->rankings[0];
	for (size_t j = 0; j < MEMORY_RANKINGS; j++) {
		struct memory_ranking *g = &m->rankings[j];
		if (g->order && !memcmp(g->weights, weights, sizeof g->weights))
			return g;
		if (!g->order ? old->order != NULL : old->order && g->used < old->used)
			old = g;
	}
	size_t *order = sorted_order(m, src, weights);
	if (!order)
		return NULL;
	if (old->order && m->rank_order == old->order) {
		m->rank_order = NULL;
		m->rank_valid = false;
	}
	cs_free(old->order);
	old->order = order;
	memcpy(old->weights, weights, sizeof old->weights);
	return old;
}

/* Lays the items out in g's order: slots, rank_of, score_of. */
static bool lay_out(struct memory *m, const struct source *src, const struct memory_ranking *g)
{
	size_t n = src->npieces;
	if (!m->slots || !m->rank_of || !m->score_of) {
		cs_free(m->slots);
		cs_free(m->rank_of);
		cs_free(m->score_of);
		m->slots = cs_malloc((n ? n : 1) * sizeof *m->slots);
		m->rank_of = cs_malloc((n ? n : 1) * sizeof *m->rank_of);
		m->score_of = cs_malloc((n ? n : 1) * sizeof *m->score_of);
		if (!m->slots || !m->rank_of || !m->score_of)
			return false;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = g->order[k];
		const struct memory_item *it = &m->items[src->pieces[i].kind_index];
		double score = memory_final_score(it, g->weights);
		m->slots[k] = (struct memory_slot){ .score = score,
						    .index = i,
						    .tokens = it->tokens,
						    .type = it->type,
						    .share = memory_allocation_of_type(it->type),
						    .full_tokens = it->tokens,
						    .own = memory_own_score(it),
						    .own_name = memory_own_score_name(it),
						    .item = it };
		m->rank_of[i] = k;
		m->score_of[i] = score;
	}
	memcpy(m->slot_weights, g->weights, sizeof m->slot_weights);
	m->layout++;
	return true;
}

bool memory_rank(struct memory *m, const struct source *src, const double weights[MW_COUNT])
{
	struct memory_ranking *g = ranking_for(m, src, weights);
	if (!g)
		return false;
	g->used = ++m->rank_clock;
	m->rank_order = g->order;
	m->rank_valid = true;
	if (m->slots_valid && !memcmp(m->slot_weights, weights, sizeof m->slot_weights))
		return true;
	m->slots_valid = lay_out(m, src, g);
	return m->slots_valid;
}

const size_t *memory_rank_order(const struct memory *m, const struct source *src, const double weights[MW_COUNT],
				size_t **owned)
{
	*owned = NULL;
	for (size_t j = 0; j < MEMORY_RANKINGS; j++)
		if (m->rankings[j].order && !memcmp(m->rankings[j].weights, weights, sizeof m->rankings[j].weights))
			return m->rankings[j].order;
	return *owned = sorted_order(m, src, weights);
}

void memory_rank_forget(struct memory *m)
{
	for (size_t j = 0; j < MEMORY_RANKINGS; j++) {
		cs_free(m->rankings[j].order);
		m->rankings[j] = (struct memory_ranking){ .order = NULL };
	}
	cs_free(m->slots);
	cs_free(m->rank_of);
	cs_free(m->score_of);
	m->slots = NULL;
	m->rank_of = NULL;
	m->score_of = NULL;
	m->slots_valid = false;
	m->rank_order = NULL;
	m->rank_valid = false;
	memory_kept_free(m->kept);
	m->kept = NULL;
}
