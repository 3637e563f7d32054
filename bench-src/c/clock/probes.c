#include "probes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "../common/tsc.h"

#define PAIR(name, kind, id, mono) \
	{ name, kind, id, mono, PATH_VDSO }, { name, kind, id, mono, PATH_SYSCALL }

const struct clock_probe clock_probes[] = {
	PAIR("monotonic", PROBE_CLOCK_GETTIME, CLOCK_MONOTONIC, 1),
	PAIR("realtime", PROBE_CLOCK_GETTIME, CLOCK_REALTIME, 0),
	PAIR("monotonic-raw", PROBE_CLOCK_GETTIME, CLOCK_MONOTONIC_RAW, 1),
	PAIR("monotonic-coarse", PROBE_CLOCK_GETTIME, CLOCK_MONOTONIC_COARSE, 1),
	PAIR("boottime", PROBE_CLOCK_GETTIME, CLOCK_BOOTTIME, 1),
	PAIR("gettimeofday", PROBE_GETTIMEOFDAY, 0, 0),
	PAIR("time", PROBE_TIME, 0, 0),
	{ "rdtsc", PROBE_RDTSC, 0, 0, PATH_INSN },
};
const size_t clock_nprobes = sizeof(clock_probes) / sizeof(clock_probes[0]);

/* Keeps the rdtsc loop from being deleted. */
static volatile uint64_t sink;

const char *probe_path_name(enum probe_path p)
{
	return p == PATH_VDSO ? "vdso" : p == PATH_SYSCALL ? "syscall" : "insn";
}

static int fail_errno(const struct clock_probe *p, char *why, size_t whylen)
{
	snprintf(why, whylen, "clock=%s path=%s: call failed: %s", p->clock,
		 probe_path_name(p->path), strerror(errno));
	return PROBE_UNSUPPORTED;
}

static int run_clock_gettime(const struct clock_probe *p, uint64_t k, char *why, size_t whylen)
{
	struct timespec ts;
	uint64_t prev = 0;

	for (uint64_t i = 0; i < k; i++) {
		int rc = p->path == PATH_VDSO ? clock_gettime(p->id, &ts)
					      : (int)syscall(SYS_clock_gettime, p->id, &ts);
		if (rc != 0)
			return fail_errno(p, why, whylen);
		uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		if ((uint64_t)ts.tv_nsec >= 1000000000u || (p->monotonic && now < prev)) {
			snprintf(why, whylen, "clock=%s path=%s: wrong answer %lld.%09ld after %llu ns",
				 p->clock, probe_path_name(p->path), (long long)ts.tv_sec,
				 (long)ts.tv_nsec, (unsigned long long)prev);
			return PROBE_WRONG;
		}
		prev = now;
	}
	return 0;
}

static int run_gettimeofday(const struct clock_probe *p, uint64_t k, char *why, size_t whylen)
{
	struct timeval tv;

	for (uint64_t i = 0; i < k; i++) {
		int rc = p->path == PATH_VDSO ? gettimeofday(&tv, NULL)
					      : (int)syscall(SYS_gettimeofday, &tv, NULL);
		if (rc != 0)
			return fail_errno(p, why, whylen);
		if (tv.tv_sec <= 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000) {
			snprintf(why, whylen, "clock=gettimeofday path=%s: wrong answer %lld.%06ld",
				 probe_path_name(p->path), (long long)tv.tv_sec, (long)tv.tv_usec);
			return PROBE_WRONG;
		}
	}
	return 0;
}

static int run_time(const struct clock_probe *p, uint64_t k, char *why, size_t whylen)
{
	for (uint64_t i = 0; i < k; i++) {
		time_t t = p->path == PATH_VDSO ? time(NULL) : (time_t)syscall(SYS_time, NULL);
		if (t == (time_t)-1)
			return fail_errno(p, why, whylen);
		if (t <= 0) {
			snprintf(why, whylen, "clock=time path=%s: wrong answer %lld",
				 probe_path_name(p->path), (long long)t);
			return PROBE_WRONG;
		}
	}
	return 0;
}

int probe_run(const struct clock_probe *p, uint64_t k, char *why, size_t whylen)
{
	uint64_t acc = 0;

	switch (p->kind) {
	case PROBE_CLOCK_GETTIME:
		return run_clock_gettime(p, k, why, whylen);
	case PROBE_GETTIMEOFDAY:
		return run_gettimeofday(p, k, why, whylen);
	case PROBE_TIME:
		return run_time(p, k, why, whylen);
	case PROBE_RDTSC:
		for (uint64_t i = 0; i < k; i++)
			acc += vmp_rdtsc();
		sink = acc;
		return 0;
	}
	snprintf(why, whylen, "internal error: probe kind %d", (int)p->kind);
	return PROBE_WRONG;
}
