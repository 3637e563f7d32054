/* Self-test reporting in the style of the kernel's tools/testing/selftests
 * (kselftest): one "ok N - what" / "FAIL N - what" / "skip N - what (why)"
 * line per check; exit 0 when nothing failed, 1 otherwise, and KSFT_SKIP (4)
 * when every check was skipped because a feature is absent. */
#ifndef VMP_KSFT_H
#define VMP_KSFT_H

#define VMP_KSFT_SKIP 4

/* Records one check; returns cond so callers can stop on failure. */
int vmp_check(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void vmp_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints the totals and returns the exit code. */
int vmp_ksft_finish(const char *prog);

#endif
