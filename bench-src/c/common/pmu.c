/* perf_event_open counters with a reason, in words, when there are none
 * (no PMU in the VM, seccomp in the container, perf_event_paranoid). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "pmu.h"

void vmp_cpu_vendor(char out[13])
{
	unsigned a, b, c, d;
	__cpuid(0, a, b, c, d);
	memcpy(out, &b, 4);
	memcpy(out + 4, &d, 4);
	memcpy(out + 8, &c, 4);
	out[12] = 0;
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = -99;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -99;
		fclose(f);
	}
	return v;
}

int vmp_pmu_open(struct vmp_pmu *c, uint32_t type, uint64_t config, const char *what)
{
	struct perf_event_attr attr;
	struct stat st;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	c->why[0] = 0;
	c->fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	if (c->fd >= 0)
		return 0;
	int err = errno;
	const char *hint = "";
	if ((err == ENOENT || err == EOPNOTSUPP || err == EINVAL) &&
	    stat("/sys/bus/event_source/devices/cpu", &st) != 0)
		hint = ", no CPU PMU registered (/sys/bus/event_source/devices/cpu missing)";
	else if (err == EACCES || err == EPERM) {
		static char buf[80];
		snprintf(buf, sizeof(buf), ", perf_event_paranoid=%d or a seccomp filter", paranoid_level());
		hint = buf;
	} else if (err == ENOSYS)
		hint = ", syscall filtered or kernel without perf events";
	snprintf(c->why, sizeof(c->why), "perf_event_open %s: %s%s", what, strerror(err), hint);
	return -1;
}

void vmp_pmu_start(struct vmp_pmu *c)
{
	ioctl(c->fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(c->fd, PERF_EVENT_IOC_ENABLE, 0);
}

uint64_t vmp_pmu_stop(struct vmp_pmu *c)
{
	uint64_t v = 0;
	ioctl(c->fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(c->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		vmp_die("reading perf counter: %s", strerror(errno));
	return v;
}

void vmp_pmu_close(struct vmp_pmu *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
