/* Wall-clock time and the batch statistics every C benchmark shares. */
#ifndef VMP_TIMING_H
#define VMP_TIMING_H

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds; aborts if the clock cannot be read. */
uint64_t vmp_now_ns(void);

/* Median of n values (n >= 1); v is reordered. */
double vmp_median(double *v, size_t n);

/* How long batches run and how many are taken, per profile. */
struct vmp_budget {
	uint64_t batch_ns;   /* calibrate a batch to at least this long */
	uint64_t total_ns;   /* then take batches until this much time is spent */
	unsigned min_batches;
	unsigned max_batches;
};

/* Grows *k (calls per batch) until one call of run(ctx, k) lasts at least
 * b->batch_ns.  run returns 0 on success, non-zero to abort (returned). */
int vmp_calibrate_batch(int (*run)(void *ctx, uint64_t k), void *ctx,
			const struct vmp_budget *b, uint64_t *k);

#endif
