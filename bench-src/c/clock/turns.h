/* Each probe's time in turns taken across the probes, the fastest counting. */
#ifndef VMP_CLOCK_TURNS_H
#define VMP_CLOCK_TURNS_H

#include <stddef.h>
#include <stdint.h>

#include "../common/cli.h"
#include "../common/timing.h"
#include "probes.h"

struct clock_measured {
	int ok;              /* 1 measured, 0 unsupported here */
	char why[256];       /* why it is unsupported, or what was wrong */
	uint64_t k;          /* calls per batch, calibrated in the first turn */
	uint64_t calls;      /* timed calls over every turn */
	double ns_per_op;    /* the fastest turn's median of batches */
	double ghz;          /* the core clock around that turn (coreclock.h) */
};

/* Turns per profile: smoke 3, quick 5, full 7. */
int clock_turns_for(enum vmp_profile p);

/* Measures every probe in `turns` turns, turn 1 of every probe, then turn 2,
 * and so on, each turn with 1/turns of the budget's time and batches, and
 * keeps each probe's fastest turn (its median of batches and its window's
 * core clock).  Why: in the lab's runs a spell of the shared host slowed the
 * syscall path of several probes in a row by 20-30 % for 100-300 ms; taken
 * one probe after the other, the spell took all of those probes' time, and
 * now it meets one or two turns of each.  A probe unsupported here
 * (PROBE_UNSUPPORTED) is left with ok = 0 and its reason.  Returns 0, or
 * PROBE_WRONG with *bad the probe whose answer was wrong (its why says how). */
int clock_measure_all(const struct clock_probe *probes, size_t n, int turns,
		      const struct vmp_budget *b, struct clock_measured *ms, size_t *bad);

#endif
