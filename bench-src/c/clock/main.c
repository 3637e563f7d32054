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
#include "verdict.h"

#define CLOCKSOURCE_PATH "/sys/devices/system/clocksource/clocksource0/current_clocksource"

struct measured {
	int ok;              /* 1 measured, 0 unsupported here */
	char why[256];       /* why it is unsupported */
	uint64_t calls;
	double ns_per_op;    /* median of the batches */
	double ghz;          /* the core clock around the batches (coreclock.h) */
};

struct probe_ctx {
	const struct clock_probe *p;
	char *why;
	size_t whylen;
};

static int run(void *ctx, uint64_t k)
{
	struct probe_ctx *c = ctx;

	return probe_run(c->p, k, c->why, c->whylen);
}

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

/* Returns 0 measured, PROBE_UNSUPPORTED, or PROBE_WRONG (why says which). */
static int measure(const struct clock_probe *p, const struct vmp_budget *b, struct measured *m)
{
	struct probe_ctx ctx = { p, m->why, sizeof(m->why) };
	double ns[3000];
	uint64_t k;
	unsigned nb = 0;

	int rc = vmp_calibrate_batch(run, &ctx, b, &k);
	if (rc != 0)
		return rc;
	double ghz_before = vmp_core_ghz();
	uint64_t start = vmp_now_ns();
	while (nb < b->max_batches && nb < sizeof(ns) / sizeof(ns[0]) &&
	       (nb < b->min_batches || vmp_now_ns() - start < b->total_ns)) {
		uint64_t t0 = vmp_now_ns();
		if ((rc = probe_run(p, k, m->why, sizeof(m->why))) != 0)
			return rc;
		ns[nb++] = (double)(vmp_now_ns() - t0) / (double)k;
	}
	m->ghz = vmp_window_ghz(ghz_before, vmp_core_ghz());
	m->ok = 1;
	m->calls = k * nb;
	m->ns_per_op = vmp_median(ns, nb);
	return 0;
}

static const struct measured *find(const struct measured *ms, const char *clock, enum probe_path path)
{
	for (size_t i = 0; i < clock_nprobes; i++)
		if (!strcmp(clock_probes[i].clock, clock) && clock_probes[i].path == path)
			return &ms[i];
	return NULL;
}

static void print_verdict(const struct measured *ms, const char *clock)
{
	const struct measured *v = find(ms, clock, PATH_VDSO), *s = find(ms, clock, PATH_SYSCALL);
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
	struct measured ms[32];
	char src[64], why[256];

	vmp_parse_args(argc, argv, "clock read costs (vDSO vs syscall)", &args);
	if (args.self_test)
		return clock_self_test("clock");

	struct vmp_budget b = budget_for(args.profile);
	memset(ms, 0, sizeof(ms));
	for (size_t i = 0; i < clock_nprobes; i++) {
		int rc = measure(&clock_probes[i], &b, &ms[i]);
		if (rc == PROBE_WRONG) {
			fprintf(stderr, "clock: %s\n", ms[i].why);
			return 1;
		}
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
