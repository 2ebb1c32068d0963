/* ring.h: a single-producer, single-consumer ring of fixed-size samples.
 * The sampler thread pushes, the shipper thread pops; neither ever blocks.
 * Capacity is a power of two so that indices wrap with a mask. */
#ifndef TA_RING_H
#define TA_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define RING_ABI 3

struct ta_sample {
	uint64_t t_ns;      /* CLOCK_MONOTONIC at capture */
	uint32_t counter;   /* which counter (enum ta_counter) */
	uint32_t flags;
	double value;
};

struct ring {
	_Alignas(64) _Atomic size_t head; /* next slot to write; producer owns */
	_Alignas(64) _Atomic size_t tail; /* next slot to read; consumer owns */
	size_t mask;                       /* capacity - 1 */
	uint64_t dropped;                  /* pushes refused because full; producer only */
	struct ta_sample *slots;
};

/* capacity must be a power of two, at least 2. Returns 0 or -EINVAL/-ENOMEM. */
int ring_init(struct ring *r, size_t capacity);
void ring_fini(struct ring *r);

/* Producer side. 0, or -EAGAIN when the ring is full (the sample is counted
 * in r->dropped). */
int ring_push(struct ring *r, const struct ta_sample *s);

/* Consumer side. Copies up to max samples into out; returns how many. */
size_t ring_pop_many(struct ring *r, struct ta_sample *out, size_t max);

/* Samples waiting; exact for the consumer, a lower bound for anyone else. */
size_t ring_len(const struct ring *r);

#endif
