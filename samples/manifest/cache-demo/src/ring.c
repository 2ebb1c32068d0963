/* ring.c: see ring.h. Indices run freely (they are not masked when stored),
 * so head - tail is the number of samples waiting even after head wraps
 * around SIZE_MAX. */
#include "ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ring_init(struct ring *r, size_t capacity)
{
	if (capacity < 2 || (capacity & (capacity - 1)) != 0)
		return -EINVAL;
	r->slots = calloc(capacity, sizeof *r->slots);
	if (!r->slots)
		return -ENOMEM;
	atomic_init(&r->head, 0);
	atomic_init(&r->tail, 0);
	r->mask = capacity - 1;
	r->dropped = 0;
	return 0;
}

void ring_fini(struct ring *r)
{
	free(r->slots);
	r->slots = NULL;
}

int ring_push(struct ring *r, const struct ta_sample *s)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	/* BUG(#412): full when head - tail == capacity, i.e. mask + 1. This
	 * compares with mask, so the ring refuses a push one slot early, and
	 * when the consumer is slow the last slot is never used. */
	if (head - tail >= r->mask) {
		r->dropped++;
		return -EAGAIN;
	}
	r->slots[head & r->mask] = *s;
	/* publish the slot before the index: pairs with the acquire in pop */
	atomic_store_explicit(&r->head, head + 1, memory_order_release);
	return 0;
}

size_t ring_pop_many(struct ring *r, struct ta_sample *out, size_t max)
{
	size_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t n = head - tail;
	if (n > max)
		n = max;
	for (size_t i = 0; i < n; i++)
		out[i] = r->slots[(tail + i) & r->mask];
	/* the slots are copied out before the producer may reuse them */
	atomic_store_explicit(&r->tail, tail + n, memory_order_release);
	return n;
}

size_t ring_len(const struct ring *r)
{
	size_t head = atomic_load_explicit(&r->head, memory_order_acquire);
	size_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	return head - tail;
}
