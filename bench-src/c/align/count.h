/* Instructions per iteration of every align copy, from the PMU when the
 * kernel gives us one, else from callgrind when valgrind is installed. */
#ifndef ALIGN_COUNT_H
#define ALIGN_COUNT_H

#include "loops.h"

#define ALIGN_CALLGRIND_TIMEOUT_S 120  /* valgrind under TCG is slow, but not this slow */
#define ALIGN_COUNT_ITERS 1000  /* callgrind runs N and 2N iterations; the difference is per-iteration exact */

/* --count-instructions: the child side, run under callgrind; one dump per
 * (copy, iteration count). Exits with a message when not under valgrind. */
int align_count_child(void);

/* Runs `valgrind --tool=callgrind PROG --count-instructions` and fills
 * insns[i] for align_copies[i]; returns 0, or -1 with why filled in. */
int align_count_with_callgrind(double *insns, char *why, unsigned why_len);

/* Parses one callgrind dump: "desc: Trigger: Client Request: pad=P iters=N"
 * and "totals: X". Returns 0 when both are found. Exposed for the self-test. */
int align_parse_dump(const char *text, unsigned *pad, unsigned long long *iters, unsigned long long *ir);

#endif
