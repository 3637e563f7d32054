/* The core clock, estimated where no PMU counts cycles (lmbench's `mhz`).
 *
 * Why: a shared host moves its cores between turbo bins (here 3.59, 3.69
 * and 3.79 GHz, as other tenants come and go), and every core-bound time
 * moves with it: a gettimeofday repetition is 16.1, 16.5, 17.4 or 18.4 ns
 * depending on the bin it fell in, so the rounds of one row spread by up to
 * 14 % in steps of one bin (docs/noise.md, "The host's clock").  Counting
 * core clocks instead of nanoseconds removes that: ns x GHz spreads 0.4 %
 * where ns spreads 2.4 % (robust CV of 30 processes, measured).
 *
 * How: a chain of dependent register-register adds retires one add per core
 * clock on every x86-64 core (the add's latency is one clock, and the chain
 * leaves no room to overlap), so adds per nanosecond are GHz.  The operand
 * is a register the compiler cannot know, so neither it nor a CPU that folds
 * immediates into the renamer can shorten the chain (check_disasm.py checks
 * the binary).  Under emulation (TCG) the rate is the emulator's rate of
 * guest adds, and "clocks" are add-equivalents of the emulated machine. */
#ifndef VMP_CORECLOCK_H
#define VMP_CORECLOCK_H

#include <stdint.h>

/* Adds per chunk; one chunk takes ~18 us at 3.6 GHz, long enough for the
 * clock_gettime around it to cost < 0.2 %. */
#define VMP_CORECLOCK_ADDS 65536u
/* Chunks per estimate; the fastest counts, since an interruption only
 * ever lengthens a chunk. */
#define VMP_CORECLOCK_CHUNKS 8

/* Runs the chain for n x 32 adds; returns its result so it is not deleted. */
uint64_t vmp_add_chain(uint64_t n, uint64_t one);

/* The core clock in GHz: the fastest of VMP_CORECLOCK_CHUNKS chunks. */
double vmp_core_ghz(void);

/* The clock of a measured window, from estimates taken right before and
 * right after it: their mean (a bin change inside the window falls between
 * them). */
static inline double vmp_window_ghz(double before, double after) { return (before + after) / 2; }

/* The lowest and highest clock a repetition saw (0, 0 before the first). */
struct vmp_clock_range {
	double lo, hi;
};

static inline void vmp_clock_range_add(struct vmp_clock_range *r, double ghz)
{
	r->lo = (r->lo == 0 || ghz < r->lo) ? ghz : r->lo;
	r->hi = ghz > r->hi ? ghz : r->hi;
}

/* Prints the "core-clock" configuration line (how clocks/... were derived,
 * and the range of clocks the repetition saw) and declares the program's
 * clocks unit lower-is-better, so that a reader that does not know it yet
 * (an older vmparity reading a newer build's output) takes it as it is. */
void vmp_core_clock_config(const struct vmp_clock_range *seen, const char *unit);

#endif
