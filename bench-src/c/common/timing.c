#include "timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

uint64_t vmp_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		perror("clock_gettime(CLOCK_MONOTONIC)");
		exit(1);
	}
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double vmp_median(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The faster of two timed runs of the same size: one slow run (the first
 * pass over memory just mapped, which walks cold page tables and, in a
 * guest, takes the hypervisor's faults; a preemption on this shared
 * machine) must not end calibration with runs far shorter than the target.
 * Measured: fence's first pass of 1024 misses over its 1 GiB buffer took
 * 0.65-0.83 ms, 25x its steady rate, and where it passed the 1 ms pilot the
 * lab's metal measured that case in 1.5 ms windows instead of 40 ms. */
static int faster_of_two(int (*run)(void *ctx, uint64_t k), void *ctx, uint64_t k, uint64_t *dt)
{
	*dt = UINT64_MAX;
	for (int rep = 0; rep < 2; rep++) {
		uint64_t t0 = vmp_now_ns();
		int rc = run(ctx, k);
		uint64_t d = vmp_now_ns() - t0;

		if (rc != 0)
			return rc;
		if (d < *dt)
			*dt = d;
	}
	return 0;
}

int vmp_calibrate_batch(int (*run)(void *ctx, uint64_t k), void *ctx,
			const struct vmp_budget *b, uint64_t *k)
{
	*k = 1;
	for (;;) {
		uint64_t dt;
		int rc = faster_of_two(run, ctx, *k, &dt);

		if (rc != 0)
			return rc;
		if (dt >= b->batch_ns)
			return 0;
		/* Aim 20% past the target from the rate seen, but at most x100 at
		 * once so a timer hiccup on a tiny batch cannot overshoot wildly. */
		double grow = dt ? 1.2 * (double)b->batch_ns / (double)dt : 100;
		if (grow < 2)
			grow = 2;
		if (grow > 100)
			grow = 100;
		*k = (uint64_t)((double)*k * grow);
	}
}

void vmp_budget_share(struct vmp_budget *b, int share)
{
	if (share <= 1)
		return;
	b->total_ns /= (uint64_t)share;
	b->max_batches /= (unsigned)share;
	if (b->max_batches < b->min_batches)
		b->max_batches = b->min_batches;
}

uint64_t vmp_repetition_ns(enum vmp_profile p, int share)
{
	uint64_t whole;

	/* smoke is a sanity run; full gives each case a few seconds in all. */
	switch (p) {
	case VMP_SMOKE:
		whole = 200000000ull;
		break;
	case VMP_QUICK:
		whole = 1000000000ull;
		break;
	case VMP_FULL:
	default:
		whole = 5000000000ull;
		break;
	}
	return share > 1 ? whole / (uint64_t)share : whole;
}

static uint64_t timed_iters(void (*run)(void *ctx, uint64_t n), void *ctx, uint64_t n)
{
	uint64_t t0 = vmp_now_ns();
	run(ctx, n);
	return vmp_now_ns() - t0;
}

uint64_t vmp_calibrate_iters(void (*run)(void *ctx, uint64_t n), void *ctx,
			     uint64_t target_ns, uint64_t n_min)
{
	uint64_t n = n_min ? n_min : 1, pilot_ns = target_ns / 20;

	if (pilot_ns < 1000000)
		pilot_ns = 1000000;
	for (;;) {
		uint64_t dt = timed_iters(run, ctx, n);
		/* A run that would end calibration counts as the faster of two
		 * (faster_of_two says why); a second run that falls short of the
		 * pilot means the first was slowed, and the pilot grows on. */
		if (dt >= pilot_ns) {
			uint64_t again = timed_iters(run, ctx, n);
			if (again < dt)
				dt = again;
		}
		if (dt >= pilot_ns || n >= (1ull << 40)) {
			double scaled = (double)n * (double)target_ns / (double)(dt ? dt : 1);
			uint64_t want = scaled < (double)n_min ? n_min : (uint64_t)scaled;
			return want ? want : 1;
		}
		n *= (dt < pilot_ns / 16) ? 8 : 2;
	}
}
