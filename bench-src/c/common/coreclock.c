#include "coreclock.h"

#include "gofmt.h"
#include "timing.h"

#define ADD "add %[one], %[x]\n\t"
#define ADD8 ADD ADD ADD ADD ADD ADD ADD ADD

uint64_t vmp_add_chain(uint64_t n, uint64_t one)
{
	uint64_t x = 0;

	/* 32 adds per iteration, each reading the one before: the loop's own
	 * increment and branch run beside the chain, not in it. */
	for (uint64_t i = 0; i < n; i++)
		__asm__ volatile(ADD8 ADD8 ADD8 ADD8 : [x] "+r"(x) : [one] "r"(one));
	return x;
}

/* Read through a volatile so the compiler cannot fold the chain into one
 * multiplication. */
static volatile uint64_t chain_step = 1, chain_sink;

double vmp_core_ghz(void)
{
	double best = 0;

	for (int c = 0; c < VMP_CORECLOCK_CHUNKS; c++) {
		uint64_t t0 = vmp_now_ns();
		chain_sink = vmp_add_chain(VMP_CORECLOCK_ADDS / 32, chain_step);
		uint64_t dt = vmp_now_ns() - t0;
		double ghz = dt ? (double)VMP_CORECLOCK_ADDS / (double)dt : 0;
		if (ghz > best)
			best = ghz;
	}
	return best;
}

void vmp_core_clock_config(const struct vmp_clock_range *seen, const char *unit)
{
	vmp_config("core-clock", "%.3f-%.3f GHz (dependent add chain, fastest of %d x %u adds, "
		   "before and after each measurement; clocks/... = ns x GHz)",
		   seen->lo, seen->hi, VMP_CORECLOCK_CHUNKS, VMP_CORECLOCK_ADDS);
	vmp_unit_better(unit, 0);
}
