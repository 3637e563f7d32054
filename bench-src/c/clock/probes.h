/* What clock measures: each (clock, path) pair is a probe that makes k calls
 * and checks every answer. */
#ifndef VMP_CLOCK_PROBES_H
#define VMP_CLOCK_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum probe_kind {
	PROBE_CLOCK_GETTIME,   /* clock_gettime(id) */
	PROBE_GETTIMEOFDAY,
	PROBE_TIME,
	PROBE_RDTSC,           /* the floor: the instruction every vDSO read uses */
};

enum probe_path {
	PATH_VDSO,             /* through libc, which calls the vDSO when mapped */
	PATH_SYSCALL,          /* syscall(2): always enters the kernel */
	PATH_INSN,
};

struct clock_probe {
	const char *clock;     /* name component, docs/formats.md */
	enum probe_kind kind;
	clockid_t id;          /* PROBE_CLOCK_GETTIME only */
	int monotonic;         /* answers must never go backwards */
	enum probe_path path;
};

extern const struct clock_probe clock_probes[];
extern const size_t clock_nprobes;

const char *probe_path_name(enum probe_path p);

#define PROBE_UNSUPPORTED (-1) /* the call fails (errno named): kernel or seccomp */
#define PROBE_WRONG (-2)       /* a wrong answer: a monotonic clock going backwards,
				* a field out of range */

/* Makes k calls.  Returns 0, or PROBE_UNSUPPORTED / PROBE_WRONG with the
 * reason in why. */
int probe_run(const struct clock_probe *p, uint64_t k, char *why, size_t whylen);

#endif
