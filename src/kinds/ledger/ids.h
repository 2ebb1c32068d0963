/* ids.h: a ledger's rows sorted by id and found by id (the loader's; the
 * turns' order is kept in the model for ledger_turn_index). */
#ifndef CTXSCOPE_LEDGER_IDS_H
#define CTXSCOPE_LEDGER_IDS_H

#include "ledger.h"

#include "base/arena.h"

#include <stddef.h>

typedef const char *(*ledger_id_of)(const struct ledger *l, size_t i);

const char *ledger_turn_id_of(const struct ledger *l, size_t i);
const char *ledger_message_id_of(const struct ledger *l, size_t i);

/* Indices 0..n-1 sorted by idof(l, i) (ties in index order), in arena;
 * *dup_a and *dup_b the first two rows with one id (else -1). NULL on out
 * of memory. */
long *ledger_sort_ids(struct arena *arena, const struct ledger *l, size_t n, ledger_id_of idof, long *dup_a,
		      long *dup_b);
/* The row with `id` in an order ledger_sort_ids made, or -1. */
long ledger_find_sorted(const long *order, size_t n, const char *id, ledger_id_of idof, const struct ledger *l);
/* The turn `id` (l->turn_order built, ids unique): turn `prev` or the one
 * after it are tried first (a message table sorted by turn names them),
 * then ledger_turn_index. */
long ledger_turn_near(const struct ledger *l, long prev, const char *id);

#endif
