#ifndef VMP_CLOCK_SELFTEST_H
#define VMP_CLOCK_SELFTEST_H

/* Checks the verdict on synthetic timings, clocksource parsing, that every
 * probe answers correctly here, and (when the vDSO is mapped) that the vDSO
 * and the syscall agree.  Returns the exit code. */
int clock_self_test(const char *prog);

#endif
