/* ids.c: sorting and finding a ledger's ids (see ids.h). */
#include "ids.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

struct id_sort {
	const char *id;
	long index;
};

static int cmp_ids(const void *x, const void *y)
{
	const struct id_sort *a = x, *b = y;
	int c = strcmp(a->id, b->id);
	return c ? c : (a->index > b->index) - (a->index < b->index);
}

long *ledger_sort_ids(struct arena *arena, const struct ledger *l, size_t n, ledger_id_of idof, long *dup_a,
		      long *dup_b)
{
	*dup_a = *dup_b = -1;
	struct id_sort *tmp = cs_calloc(n ? n : 1, sizeof *tmp);
	long *order = arena_alloc(arena, (n ? n : 1) * sizeof *order);
	if (!tmp || !order) {
		cs_free(tmp);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		tmp[i] = (struct id_sort){ idof(l, i), (long)i };
	qsort(tmp, n, sizeof *tmp, cmp_ids);
	for (size_t i = 0; i < n; i++) {
		order[i] = tmp[i].index;
		if (i && *dup_a < 0 && strcmp(tmp[i].id, tmp[i - 1].id) == 0) {
			*dup_a = tmp[i - 1].index;
			*dup_b = tmp[i].index;
		}
	}
	cs_free(tmp);
	return order;
}

const char *ledger_turn_id_of(const struct ledger *l, size_t i)
{
	return l->turns[i].id;
}

const char *ledger_message_id_of(const struct ledger *l, size_t i)
{
	return l->messages[i].id;
}

long ledger_find_sorted(const long *order, size_t n, const char *id, ledger_id_of idof, const struct ledger *l)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(idof(l, (size_t)order[mid]), id);
		if (c == 0)
			return order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

long ledger_turn_index(const struct ledger *l, const char *id)
{
	return id ? ledger_find_sorted(l->turn_order, l->nturns, id, ledger_turn_id_of, l) : -1;
}

long ledger_turn_near(const struct ledger *l, long prev, const char *id)
{
	for (long k = prev < 0 ? 0 : prev; id && k <= prev + 1 && (size_t)k < l->nturns; k++)
		if (!strcmp(l->turns[k].id, id))
			return k;
	return ledger_turn_index(l, id);
}
