/* Wall-clock time and the batch statistics every C benchmark shares. */
#ifndef VMP_TIMING_H
#define VMP_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"

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

/* One of `share` parts of a budget (a part of a repetition with --share, a
 * placement of memcpy's, a turn of clock's): 1/share of the time and of the
 * batches, never fewer than min_batches. */
void vmp_budget_share(struct vmp_budget *b, int share);

/* Grows *k (calls per batch) until one call of run(ctx, k) lasts at least
 * b->batch_ns.  run returns 0 on success, non-zero to abort (returned). */
int vmp_calibrate_batch(int (*run)(void *ctx, uint64_t k), void *ctx,
			const struct vmp_budget *b, uint64_t *k);

/* The other way to measure, for programs that interleave their cases in
 * rounds and keep each case's fastest round (storefwd, fence, align): one
 * repetition may take vmp_repetition_ns(profile, share) of wall time, shared
 * by its cases and rounds; with --share N (share > 1) one part of it, 1/N. */
uint64_t vmp_repetition_ns(enum vmp_profile p, int share);

/* An iteration count so that run(ctx, n) takes about target_ns: the pilot
 * grows until it lasts 1/20 of the target (at least 1 ms) and is scaled
 * from there, the pilot that reaches 1/20 timed twice and the faster taken
 * (a cold first pass must not shorten every later run); it doubles as
 * warm-up of caches and page tables.  Returns at least n_min (and at least 1). */
uint64_t vmp_calibrate_iters(void (*run)(void *ctx, uint64_t n), void *ctx,
			     uint64_t target_ns, uint64_t n_min);

#endif
