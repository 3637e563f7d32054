/* Times one copy size: calibrated batches of verified copies. */
#ifndef VMP_COPYMEASURE_H
#define VMP_COPYMEASURE_H

#include <stddef.h>
#include <stdint.h>

#include "timing.h"
#include "copycheck.h"

struct copy_result {
	uint64_t copies;   /* timed copies (the "iterations" column) */
	double ns_per_op;
	double cycles_per_op; /* 0 when the TSC is not used */
	double ref_ratio;     /* median over batches of this batch's time / the reference's
			       * batch beside it; 0 when not timed against a reference */
};

/* Verifies every byte of a first copy per slot, times batches until the
 * budget is spent, then verifies every byte again.  The estimate is the
 * MEDIAN of the per-batch times (not Lemire's minimum): on a shared 2-core
 * machine and under emulation the minimum rewards one lucky batch, while the
 * median is what benchstat's repetitions then compare robustly.  Returns 0,
 * or -1 with the failed check described in why. */
int copy_measure(copy_fn const volatile *fn, struct copy_set *s,
		   const struct vmp_budget *b, int use_tsc,
		   struct copy_result *r, char *why, size_t whylen);

/* copy_measure, with every timed batch of fn between two batches of the same
 * copies through ref (ref NULL: copy_measure), held against their mean.  The
 * batches lie a few milliseconds apart, so the host's memory traffic of that
 * moment slows them all: a 16 MiB copy's median moved by 9 % from one
 * process to the next here, its ratio to the reference's by 3 %
 * (docs/noise.md, "Large copies at an equal memory bandwidth").  r->ref_ratio
 * is the median of the per-pair ratios; ns and cycles are fn's alone. */
int copy_measure_against(copy_fn const volatile *fn, copy_fn const volatile *ref, struct copy_set *s,
			 const struct vmp_budget *b, int use_tsc,
			 struct copy_result *r, char *why, size_t whylen);

/* copy_measure at up to `placements` placements of each of nsizes sizes in
 * the arena (copy_placements), each with its share of the budget's time and
 * batches, keeping per size the fastest placement's result (its ns and
 * cycles) and the copies of all: the copy's own cost, not the cost of the
 * pages it was handed. r[i] is sizes[i]'s result. The placements are taken
 * placement by placement across the sizes: placement 0 of every size, then
 * placement 1 of every size, and so on. A spell of the shared host lasting a
 * few sizes' time (100-300 ms: runs of consecutive sizes 15-60 % slower in
 * one repetition, docs/noise.md) then slows one placement of each size it
 * meets rather than every placement of a few sizes, and the fastest
 * placement leaves it out. ghz (NULL: not measured) gets, per size, the core
 * clock of the window its fastest placement was timed in (vmp_core_ghz
 * between placements). ref (NULL: none) is the reference copy that the sizes
 * of at least VMP_REFERENCE_MIN_SIZE are timed against (copy_measure_against);
 * their fastest placement's ratio is kept with its time. */
int copy_measure_interleaved(copy_fn const volatile *fn, copy_fn const volatile *ref,
			     const struct copy_arena *a, const size_t *sizes,
			     int nsizes, int placements, const struct vmp_budget *b, int use_tsc,
			     struct copy_result *r, double *ghz, char *why, size_t whylen);

#endif
