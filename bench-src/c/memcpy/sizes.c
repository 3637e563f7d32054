#include "sizes.h"

#include <stdlib.h>
#include <string.h>

#define KiB ((size_t)1024)
#define MiB (1024 * KiB)

/* The seed's sizes (002: memcpy_10 .. memcpy_10m), measured by every profile
 * except smoke, which stops at 1 MiB to stay short under TCG emulation. */
static const size_t seed_sizes[] = { 10, KiB, 10 * KiB, MiB, 10 * MiB };

static void add(struct memcpy_plan *plan, size_t n)
{
	for (int i = 0; i < plan->nsizes; i++)
		if (plan->sizes[i] == n)
			return;
	if (plan->nsizes < MEMCPY_MAX_SIZES)
		plan->sizes[plan->nsizes++] = n;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

void memcpy_plan_for(enum vmp_profile p, struct memcpy_plan *plan)
{
	plan->nsizes = 0;
	switch (p) {
	case VMP_SMOKE:
		/* A handful of sizes, every one a seed size: end-to-end only. */
		for (int i = 0; i < 4; i++)
			add(plan, seed_sizes[i]);
		plan->budget = (struct vmp_budget){ .batch_ns = 20000, .total_ns = 8000000,
						    .min_batches = 3, .max_batches = 400 };
		plan->tsc_window_ns = 2000000;
		plan->placements = 3;
		break;
	case VMP_QUICK:
		/* Seed sizes plus a coarse sweep (powers of four, 64 B..16 MiB):
		 * enough to see where the copy strategy changes, in ~1 s. */
		for (int i = 0; i < 5; i++)
			add(plan, seed_sizes[i]);
		for (size_t n = 64; n <= 16 * MiB; n *= 4)
			add(plan, n);
		plan->budget = (struct vmp_budget){ .batch_ns = 50000, .total_ns = 30000000,
						    .min_batches = 5, .max_batches = 2000 };
		plan->tsc_window_ns = 5000000;
		plan->placements = 5;
		break;
	case VMP_FULL:
		/* Seed sizes plus every power of two from 64 B to 64 MiB. */
		for (int i = 0; i < 5; i++)
			add(plan, seed_sizes[i]);
		for (size_t n = 64; n <= 64 * MiB; n *= 2)
			add(plan, n);
		plan->budget = (struct vmp_budget){ .batch_ns = 100000, .total_ns = 60000000,
						    .min_batches = 7, .max_batches = 5000 };
		plan->tsc_window_ns = 20000000;
		plan->placements = 7;
		break;
	}
	qsort(plan->sizes, (size_t)plan->nsizes, sizeof(plan->sizes[0]), cmp_size);
}

int memcpy_plan_from(struct memcpy_plan *plan, unsigned long long min_size)
{
	int first = 0;

	/* the sizes are ascending: keep the tail from the first one large enough */
	while (first < plan->nsizes && plan->sizes[first] < min_size)
		first++;
	if (first == plan->nsizes)
		return 0;
	memmove(plan->sizes, plan->sizes + first, (size_t)(plan->nsizes - first) * sizeof(plan->sizes[0]));
	plan->nsizes -= first;
	return plan->nsizes;
}
