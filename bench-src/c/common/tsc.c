#include "tsc.h"
#include "timing.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int vmp_has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = flags;

	while ((p = strstr(p, flag)) != NULL) {
		int starts = (p == flags) || p[-1] == ' ' || p[-1] == '\t';
		int ends = p[n] == '\0' || p[n] == ' ' || p[n] == '\t' || p[n] == '\n';
		if (starts && ends)
			return 1;
		p += n;
	}
	return 0;
}

int vmp_tsc_usable_from_flags(const char *flags, char *why, size_t whylen)
{
	static const char *const needed[] = { "tsc", "constant_tsc", "nonstop_tsc" };
	size_t used = 0;

	why[0] = '\0';
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (vmp_has_flag(flags, needed[i]))
			continue;
		int w = snprintf(why + used, whylen - used, "%sno %s", used ? ", " : "", needed[i]);
		if (w > 0 && (size_t)w < whylen - used)
			used += (size_t)w;
	}
	if (used == 0)
		return 1;
	snprintf(why + used, whylen - used, " in cpu flags");
	return 0;
}

int vmp_read_cpu_flags(char *buf, size_t len, char *why, size_t whylen)
{
	char line[8192];
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f) {
		snprintf(why, whylen, "/proc/cpuinfo: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		colon += (colon[1] == ' ') ? 2 : 1;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		fclose(f);
		return 0;
	}
	fclose(f);
	snprintf(why, whylen, "/proc/cpuinfo has no flags line");
	return -1;
}

static double one_window(uint64_t window_ns)
{
	uint64_t t0 = vmp_now_ns(), c0 = vmp_rdtsc(), t1, c1;

	do {
		t1 = vmp_now_ns();
		c1 = vmp_rdtsc();
	} while (t1 - t0 < window_ns);
	return (double)(c1 - c0) / (double)(t1 - t0);
}

/* A window that another process preempted reads a wrong rate, and on a busy
 * host one of two windows often is: windows are measured until two in a row
 * agree within 1 %, at most TSC_WINDOWS of them. One unlucky window must not
 * make a run report cycles in some repetitions and not in others. */
#define TSC_WINDOWS 6

double vmp_tsc_calibrate_ghz(uint64_t window_ns, char *why, size_t whylen)
{
	double a = one_window(window_ns), b = a;

	for (int i = 1; i < TSC_WINDOWS; i++) {
		if (i > 1)
			a = b;
		b = one_window(window_ns);
		double lo = a < b ? a : b, hi = a < b ? b : a;

		/* Below 0.1 GHz or above 10 GHz no real constant TSC runs: emulation. */
		if (lo < 0.1 || hi > 10.0) {
			snprintf(why, whylen, "calibration gave %.3f and %.3f GHz", a, b);
			return 0;
		}
		if ((hi - lo) / lo <= 0.01) {
			why[0] = '\0';
			return (a + b) / 2;
		}
	}
	snprintf(why, whylen, "calibration unstable: no two of %d windows in a row within 1 %% (last %.4f vs %.4f GHz)",
		 TSC_WINDOWS, a, b);
	return 0;
}

double vmp_tsc_probe(uint64_t window_ns, char *why, size_t whylen)
{
	char flags[8192];

	if (vmp_read_cpu_flags(flags, sizeof(flags), why, whylen) != 0)
		return 0;
	if (!vmp_tsc_usable_from_flags(flags, why, whylen))
		return 0;
	return vmp_tsc_calibrate_ghz(window_ns, why, whylen);
}
