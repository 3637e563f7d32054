/* Is a clock served by the vDSO here, or does libc fall back to a syscall? */
#ifndef VMP_CLOCK_VERDICT_H
#define VMP_CLOCK_VERDICT_H

#include <stddef.h>

/* "vdso" when the libc call costs less than this fraction of the raw
 * syscall.  A vDSO read is a few tens of ns, a syscall hundreds (more with
 * mitigations, far more under a hypervisor): a real vDSO path is well under
 * half.  When the vDSO falls back (clocksource hpet/acpi_pm, unstable
 * kvm-clock, no vDSO mapped) libc pays the syscall plus its own overhead,
 * so the ratio sits at ~1 and noise never brings it near 0.5. */
#define CLOCK_VDSO_MAX_RATIO 0.5

/* "vdso", "fallback", or NULL when a timing is not a positive number. */
const char *clock_verdict(double libc_ns, double syscall_ns);

/* Reads a sysfs clocksource file ("tsc\n") into buf without the newline.
 * Returns 0, or -1 with the reason (naming path) in why. */
int clock_read_clocksource(const char *path, char *buf, size_t len, char *why, size_t whylen);

#endif
