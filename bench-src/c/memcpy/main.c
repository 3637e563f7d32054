/* memcpy: glibc memcpy cost per copy size (seed 002).  One repetition in the
 * Go benchmark format; see docs/formats.md for names, units and keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "../common/cli.h"
#include "../common/gofmt.h"
#include "../common/tsc.h"
#include "../common/aligned_map.h"
#include "../common/copycheck.h"
#include "../common/copymeasure.h"
#include "../common/coreclock.h"
#include "../common/refcopy.h"
#include "selftest.h"
#include "sizes.h"

/* Read through a volatile pointer on every copy: the compiler can neither
 * inline glibc's memcpy nor replace it with its own builtin expansion. */
static copy_fn const volatile glibc_memcpy = memcpy;
static copy_fn const volatile reference_copy = vmp_reference_copy;

/* The tunable= name component, set by benchrun alongside GLIBC_TUNABLES. */
static const char *tunable_variant(void)
{
	const char *v = getenv("VMPARITY_TUNABLE_VARIANT");

	if (!v || !*v)
		return "default";
	for (const char *p = v; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')) {
			fprintf(stderr, "memcpy: environment VMPARITY_TUNABLE_VARIANT='%s': expected "
					"lower-case letters, digits and '-' (e.g. default, l3-3q, min)\n", v);
			exit(2);
		}
	return v;
}

/* GLIBC_TUNABLES as this process received it, made safe for one line. */
static void tunables_seen(char *buf, size_t len)
{
	const char *t = getenv("GLIBC_TUNABLES");

	if (!t) {
		snprintf(buf, len, "none");
		return;
	}
	snprintf(buf, len, "%s", t);
	for (char *p = buf; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
}

int main(int argc, char **argv)
{
	struct vmp_args args;
	struct memcpy_plan plan;
	struct copy_arena arena;
	char why[256], key[128], seen[512];

	vmp_parse_args_sized(argc, argv, "glibc memcpy per copy size", &args);
	if (args.self_test)
		return memcpy_self_test("memcpy");

	const char *variant = tunable_variant();
	/* AT_BASE is where the dynamic loader was mapped: 0 in a static binary.
	 * Asking the process beats trusting a build flag. */
	const char *link = getauxval(AT_BASE) ? "dynamic" : "static";

	memcpy_plan_for(args.profile, &plan);
	if (args.min_size && !memcpy_plan_from(&plan, args.min_size)) {
		fprintf(stderr, "memcpy: --min-size %llu: the %s profile's largest size is %zu bytes\n",
			args.min_size, vmp_profile_name(args.profile), plan.sizes[plan.nsizes - 1]);
		return 2;
	}
	if (args.min_size)
		vmp_config("memcpy-min-size", "%llu (only the sizes of at least this many bytes)", args.min_size);
	vmp_budget_share(&plan.budget, args.share);
	double ghz = vmp_tsc_probe(plan.tsc_window_ns, why, sizeof(why));
	if (ghz > 0) {
		vmp_config("memcpy-tsc", "usable");
		vmp_config("memcpy-tsc-ghz", "%.4f", ghz);
	} else {
		vmp_config("memcpy-tsc", "unusable (%s)", why);
		vmp_config("memcpy-tsc-ghz", "unknown (%s)", why);
	}
	/* One key per variant: benchrun hoists config lines into one header
	 * (last value wins), and every variant's value must survive there. */
	tunables_seen(seen, sizeof(seen));
	snprintf(key, sizeof(key), "glibc-tunables-seen-%s", variant);
	vmp_config(key, "%s", seen);
	/* A placement that drew slow pages costs a small copy up to 40 % for as
	 * long as it lives (copycheck.h); with five placements a size is slow
	 * only when all five drew badly. */
	vmp_config("memcpy-estimator", "fastest placement's median of batches");
	vmp_config("memcpy-placements", "%d", plan.placements);
	/* ... and the placements are taken in turn across the sizes, so that a
	 * spell of the host meets one placement of a size, not all of them. */
	vmp_config("memcpy-placement-order", "across sizes");
	/* A large copy's time is the host's memory traffic of the moment as much
	 * as glibc's; its time against a glibc-free loop run beside it is not. */
	vmp_config("memcpy-reference", "sse2 copy loop timed before and after each batch, sizes >= %zu (refcopies/op)",
		   VMP_REFERENCE_MIN_SIZE);
	vmp_unit_better("B/s", 1);

	if (copy_arena_init(&arena, plan.sizes[plan.nsizes - 1], why, sizeof(why)) != 0) {
		fprintf(stderr, "memcpy: cannot set up buffers: %s\n", why);
		return 1;
	}
	/* Where ASLR put the buffers decided a small copy's speed for a whole
	 * process (aligned_map.h); at this boundary their address bits are the
	 * same in every process. */
	vmp_config("memcpy-buffer-alignment", "%zu (the buffers start at a multiple of this power of two)",
		   vmp_map_alignment(arena.len));
	/* Measured first, printed after: the core-clock line is configuration,
	 * which comes before the first result line. */
	struct copy_result rs[MEMCPY_MAX_SIZES];
	double size_ghz[MEMCPY_MAX_SIZES];
	struct vmp_clock_range clocks_seen = {0, 0};
	if (copy_measure_interleaved(&glibc_memcpy, &reference_copy, &arena, plan.sizes, plan.nsizes, plan.placements,
				     &plan.budget, ghz > 0, rs, size_ghz, why, sizeof(why)) != 0) {
		fprintf(stderr, "memcpy: link=%s tunable=%s: %s\n", link, variant, why);
		copy_arena_free(&arena);
		return 1;
	}
	for (int i = 0; i < plan.nsizes; i++)
		vmp_clock_range_add(&clocks_seen, size_ghz[i]);
	vmp_core_clock_config(&clocks_seen, "clocks/op");
	for (int i = 0; i < plan.nsizes; i++) {
		const struct copy_result *r = &rs[i];
		char name[160];

		snprintf(name, sizeof(name), "BenchmarkMemcpy/link=%s/tunable=%s/size=%zu",
			 link, variant, plan.sizes[i]);
		struct vmp_metric m[] = {
			{ r->ns_per_op, "ns/op" },
			{ (double)plan.sizes[i] * 1e9 / r->ns_per_op, "B/s" },
			{ r->cycles_per_op, ghz > 0 ? "cycles/op" : NULL },
			{ r->ns_per_op * size_ghz[i], "clocks/op" },
			{ r->ref_ratio, r->ref_ratio > 0 ? "refcopies/op" : NULL },
		};
		vmp_bench_line(name, r->copies, m, 5);
	}
	copy_arena_free(&arena);
	return 0;
}
