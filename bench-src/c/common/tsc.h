/* TSC access, the "is the TSC usable as a clock" decision, and calibration. */
#ifndef VMP_TSC_H
#define VMP_TSC_H

#include <stddef.h>
#include <stdint.h>

#if !defined(__x86_64__)
#error "vmparity C benchmarks read the TSC and target x86_64 only"
#endif
#include <x86intrin.h>

static inline uint64_t vmp_rdtsc(void) { return __rdtsc(); }

/* 1 when the space-separated flag list (a /proc/cpuinfo "flags" value)
 * contains exactly the word `flag`, 0 otherwise. */
int vmp_has_flag(const char *flags, const char *flag);

/* The TSC counts at a constant rate across P-states (constant_tsc) and keeps
 * counting in deep C-states (nonstop_tsc) only when both flags are present;
 * without them cycles/op would mix frequencies.  Returns 1 when usable; else 0
 * and writes the reason (e.g. "no nonstop_tsc in cpu flags") into why. */
int vmp_tsc_usable_from_flags(const char *flags, char *why, size_t whylen);

/* Reads the first "flags" line of /proc/cpuinfo into buf.  Returns 0, or -1
 * with the reason in why. */
int vmp_read_cpu_flags(char *buf, size_t len, char *why, size_t whylen);

/* Measures TSC ticks per nanosecond against CLOCK_MONOTONIC over two windows
 * of window_ns each.  Returns the GHz, or 0 with the reason in why when the
 * two windows disagree by more than 1% or give an implausible rate (an
 * emulated or unstable TSC). */
double vmp_tsc_calibrate_ghz(uint64_t window_ns, char *why, size_t whylen);

/* The whole decision: flags, then calibration.  On success returns the GHz
 * and leaves why empty; on failure returns 0 and explains in why. */
double vmp_tsc_probe(uint64_t window_ns, char *why, size_t whylen);

#endif
