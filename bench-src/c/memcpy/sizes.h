/* Which copy sizes each profile measures, and for how long. */
#ifndef VMP_MEMCPY_SIZES_H
#define VMP_MEMCPY_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "../common/cli.h"
#include "../common/timing.h"

#define MEMCPY_MAX_SIZES 64

struct memcpy_plan {
	size_t sizes[MEMCPY_MAX_SIZES]; /* ascending, no duplicates */
	int nsizes;
	struct vmp_budget budget;       /* per size, shared by its placements */
	int placements;                 /* of each size's buffers (copy_measure_interleaved) */
	uint64_t tsc_window_ns;         /* TSC calibration window */
};

void memcpy_plan_for(enum vmp_profile p, struct memcpy_plan *plan);

/* Keeps the plan's sizes of at least min_size bytes (--min-size); returns how
 * many are left (0: none, and the plan is unchanged). */
int memcpy_plan_from(struct memcpy_plan *plan, unsigned long long min_size);

#endif
