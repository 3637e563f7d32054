/* Is the TSC a usable cycle clock here, and at what rate does it tick? */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "repro.h"

static int cpuinfo_has_flag(const char *flag)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[8192];
	int found = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		for (char *tok = strtok(strchr(line, ':') + 1, " \t\n"); tok; tok = strtok(NULL, " \t\n"))
			if (strcmp(tok, flag) == 0)
				found = 1;
		break;
	}
	fclose(f);
	return found;
}

static double measure_ghz(uint64_t window_ns)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC_RAW, &a);
	uint64_t t0 = repro_rdtsc();
	do
		clock_gettime(CLOCK_MONOTONIC_RAW, &b);
	while ((uint64_t)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec)) < window_ns);
	uint64_t t1 = repro_rdtsc();
	double ns = (double)((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec));
	return (double)(t1 - t0) / ns;
}

void repro_tsc_probe(struct repro_tsc *t)
{
	memset(t, 0, sizeof(*t));
	int constant = cpuinfo_has_flag("constant_tsc"), nonstop = cpuinfo_has_flag("nonstop_tsc");
	if (constant < 0) {
		snprintf(t->why, sizeof(t->why), "cannot read /proc/cpuinfo");
		return;
	}
	if (!constant || !nonstop) {
		snprintf(t->why, sizeof(t->why), "cpu flags lack%s%s", constant ? "" : " constant_tsc",
			 nonstop ? "" : " nonstop_tsc");
		return;
	}
	/* Two 5 ms windows: a TSC that is trapped, emulated or rescaled shows
	 * up as two rates that disagree. */
	double g1 = measure_ghz(5000000), g2 = measure_ghz(5000000);
	double diff = g1 > g2 ? g1 - g2 : g2 - g1;
	if (g1 <= 0.01 || diff / g1 > 0.02) {
		snprintf(t->why, sizeof(t->why), "calibrations disagree (%.3f vs %.3f GHz)", g1, g2);
		return;
	}
	t->usable = 1;
	t->ghz = (g1 + g2) / 2;
}
