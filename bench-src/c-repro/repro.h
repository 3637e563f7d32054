/* Shared helpers of the repro microbenchmarks (storefwd, fence, align):
 * command line, time budget per profile, Go-benchmark-format output,
 * self-test reporting, TSC and PMU access. */
#ifndef REPRO_H
#define REPRO_H

#include <stddef.h>
#include <stdint.h>

enum repro_mode { MODE_BENCH, MODE_SELF_TEST, MODE_COUNT_INSTRUCTIONS };

struct repro_opts {
	enum repro_mode mode;
	const char *profile;   /* smoke | quick | full */
	uint64_t budget_ns;    /* wall time one repetition may take */
};

/* Parses `--profile P`, `--self-test` and, when allow_count is set,
 * `--count-instructions`; prints usage and exits 2 on anything else. */
void repro_parse(int argc, char **argv, int allow_count, struct repro_opts *o);

uint64_t repro_now_ns(void);

/* Exit 1 with "PROG: message" on stderr. */
__attribute__((noreturn, format(printf, 1, 2))) void repro_die(const char *fmt, ...);
void repro_set_prog(const char *name);

/* Benchmark lines are held back and printed after every config line, so
 * that a program's own output is already in the order the contract wants. */
__attribute__((format(printf, 1, 2))) void repro_result(const char *fmt, ...);
void repro_flush_results(void);

/* Self-test bookkeeping: prints "ok - what" or "FAIL - what". */
__attribute__((format(printf, 2, 3))) int repro_check(int cond, const char *fmt, ...);
int repro_failures(void);

/* Choose an iteration count so that fn(arg, n) takes about target_ns,
 * from a pilot run; returns the count (at least n_min). */
typedef void (*repro_fn)(void *arg, uint64_t n);
uint64_t repro_calibrate(repro_fn fn, void *arg, uint64_t target_ns, uint64_t n_min);

/* TSC: usable only when the CPU says constant_tsc and nonstop_tsc and two
 * calibrations against CLOCK_MONOTONIC_RAW agree; otherwise why says why. */
struct repro_tsc {
	int usable;
	double ghz;
	char why[160];
};
void repro_tsc_probe(struct repro_tsc *t);
static inline uint64_t repro_rdtsc(void)
{
	uint32_t lo, hi;
	/* lfence keeps rdtsc from executing before the work it brackets. */
	__asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return ((uint64_t)hi << 32) | lo;
}

/* One perf_event_open counter of the calling thread, user space only. */
struct repro_pmu {
	int fd;
	char why[200];  /* set when fd < 0 */
};
int repro_pmu_open(struct repro_pmu *c, uint32_t type, uint64_t config, const char *what);
void repro_pmu_start(struct repro_pmu *c);
uint64_t repro_pmu_stop(struct repro_pmu *c);
void repro_pmu_close(struct repro_pmu *c);

/* CPU vendor from cpuid: "GenuineIntel", "AuthenticAMD", ... */
void repro_cpu_vendor(char out[13]);

#endif
