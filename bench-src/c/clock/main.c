/* clock: cost of reading the time through libc (the vDSO path) and through a
 * raw syscall, per clock, with a verdict on whether the vDSO serves it
 * (seed 004).  One repetition in the Go benchmark format (docs/formats.md).
 *
 * Built dynamically linked, on purpose: the libc path must be the one the
 * target's own programs take, i.e. the target's libc finding the target
 * kernel's vDSO.  (A static glibc >= 2.31 on x86_64 also finds the vDSO
 * through AT_SYSINFO_EHDR and measures the same here, but it would freeze the
 * build root's libc into the measurement.) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "../common/cli.h"
#include "../common/coreclock.h"
#include "../common/gofmt.h"
#include "../common/timing.h"
#include "probes.h"
#include "selftest.h"
#include "turns.h"
#include "verdict.h"

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"

static struct vmp_budget budget_for(enum vmp_profile p)
{
	switch (p) {
	case VMP_SMOKE:
		return (struct vmp_budget){ .batch_ns = 20000, .total_ns = 6000000,
					    .min_batches = 3, .max_batches = 300 };
	case VMP_QUICK:
		return (struct vmp_budget){ .batch_ns = 50000, .total_ns = 25000000,
					    .min_batches = 5, .max_batches = 1000 };
	case VMP_FULL:
	default:
		return (struct vmp_budget){ .batch_ns = 100000, .total_ns = 100000000,
					    .min_batches = 7, .max_batches = 3000 };
	}
}

static const struct clock_measured *find(const struct clock_measured *ms, const char *clock, enum probe_path path)
{
	for (size_t i = 0; i < clock_nprobes; i++)
		if (!strcmp(clock_probes[i].clock, clock) && clock_probes[i].path == path)
			return &ms[i];
	return NULL;
}

static void print_verdict(const struct clock_measured *ms, const char *clock)
{
	const struct clock_measured *v = find(ms, clock, PATH_VDSO), *s = find(ms, clock, PATH_SYSCALL);
	char key[64];

	snprintf(key, sizeof(key), "clock-verdict-%s", clock);
	if (!v->ok || !s->ok) {
		vmp_config(key, "unknown (%s)", !v->ok ? v->why : s->why);
		return;
	}
	const char *verdict = clock_verdict(v->ns_per_op, s->ns_per_op);
	if (verdict)
		vmp_config(key, "%s", verdict);
	else
		vmp_config(key, "unknown (timings %.3g and %.3g ns are not positive)",
			   v->ns_per_op, s->ns_per_op);
}

int main(int argc, char **argv)
{
	struct vmp_args args;
	struct clock_measured ms[32];
	char src[64], why[256];

	vmp_parse_args_shared(argc, argv, "clock read costs (vDSO vs syscall)", &args);
	if (args.self_test)
		return clock_self_test("clock");

	struct vmp_budget b = budget_for(args.profile);
	vmp_budget_share(&b, args.share);
	int turns = clock_turns_for(args.profile);
	size_t bad;
	if (clock_measure_all(clock_probes, clock_nprobes, turns, &b, ms, &bad) == PROBE_WRONG) {
		fprintf(stderr, "clock: %s\n", ms[bad].why);
		return 1;
	}

	vmp_config("clock-vdso-mapped", "%s", getauxval(AT_SYSINFO_EHDR) ? "yes" : "no");
	if (clock_read_clocksource(CLOCKSOURCE_PATH, src, sizeof(src), why, sizeof(why)) == 0)
		vmp_config("clock-clocksource", "%s", src);
	else
		vmp_config("clock-clocksource", "unknown (%s)", why);
	struct vmp_clock_range clocks_seen = {0, 0};
	for (size_t i = 0; i < clock_nprobes; i++)
		if (ms[i].ok)
			vmp_clock_range_add(&clocks_seen, ms[i].ghz);
	vmp_core_clock_config(&clocks_seen, "clocks/op");
	/* A spell of the host that slowed a few probes in a row now meets one
	 * or two turns of each (turns.h). */
	vmp_config("clock-estimator", "fastest turn's median of batches");
	vmp_config("clock-turns", "%d (each probe's time in turns taken across the probes)", turns);
	vmp_config("clock-verdict-rule", "vdso when libc < %.2gx syscall", CLOCK_VDSO_MAX_RATIO);
	for (size_t i = 0; i < clock_nprobes; i++)
		if (clock_probes[i].path == PATH_VDSO)
			print_verdict(ms, clock_probes[i].clock);

	for (size_t i = 0; i < clock_nprobes; i++) {
		const struct clock_probe *p = &clock_probes[i];
		char name[128];

		if (!ms[i].ok)
			continue;
		snprintf(name, sizeof(name), "BenchmarkClock/clock=%s/path=%s", p->clock,
			 probe_path_name(p->path));
		struct vmp_metric m[] = { { ms[i].ns_per_op, "ns/op" },
					  { ms[i].ns_per_op * ms[i].ghz, "clocks/op" } };
		vmp_bench_line(name, ms[i].calls, m, 2);
	}
	return 0;
}
