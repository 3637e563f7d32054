#ifndef VMP_MEMCPY_SELFTEST_H
#define VMP_MEMCPY_SELFTEST_H

/* Checks copy verification (a correct and several broken copies), the TSC
 * usability decision on flag strings and the profile plans.  Exit code. */
int memcpy_self_test(const char *prog);

#endif
