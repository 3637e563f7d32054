/* One perf_event_open counter of the calling thread, user space only, with
 * the reason in words when there is none (no PMU in the VM, a seccomp
 * filter in the container, perf_event_paranoid). */
#ifndef VMP_PMU_H
#define VMP_PMU_H

#include <stdint.h>

struct vmp_pmu {
	int fd;
	char why[200];  /* set when fd < 0 */
};

/* Returns 0, or -1 with fd = -1 and the reason in why. */
int vmp_pmu_open(struct vmp_pmu *c, uint32_t type, uint64_t config, const char *what);
void vmp_pmu_start(struct vmp_pmu *c);
uint64_t vmp_pmu_stop(struct vmp_pmu *c);
void vmp_pmu_close(struct vmp_pmu *c);

/* CPU vendor from cpuid: "GenuineIntel", "AuthenticAMD", ... */
void vmp_cpu_vendor(char out[13]);

#endif
