#include "selftest.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "../common/gofmt.h"
#include "../common/ksft.h"
#include "../common/timing.h"
#include "../common/tsc.h"
#include "../common/aligned_map.h"
#include "../common/copycheck.h"
#include "../common/copymeasure.h"
#include "../common/refcopy.h"
#include "sizes.h"

/* Deliberately broken copies: each must be caught by the checks. */
static void *copy_nothing(void *d, const void *s, size_t n)
{
	(void)s;
	(void)n;
	return d;
}

static void *copy_short(void *d, const void *s, size_t n)
{
	return memcpy(d, s, n - 1);
}

static void *copy_shifted(void *d, const void *s, size_t n)
{
	memmove(d, (const unsigned char *)s + 1, n - 1);
	((unsigned char *)d)[n - 1] = ((const unsigned char *)s)[n - 1];
	return d;
}

static int calls;
static void *copy_only_once(void *d, const void *s, size_t n)
{
	return calls++ ? d : memcpy(d, s, n);
}

/* Right everywhere except one byte in the middle: only the full check and,
 * eventually, the rolling sample can see it. */
static void *copy_one_bad_byte(void *d, const void *s, size_t n)
{
	memcpy(d, s, n);
	((unsigned char *)d)[n / 2] ^= 0x01;
	return d;
}

static copy_fn const volatile good = memcpy;

/* The sizes a measurement copied, in the order it turned to them. */
static size_t turns[64];
static int nturns;
static void *copy_noting_size(void *d, const void *s, size_t n)
{
	if ((nturns == 0 || turns[nturns - 1] != n) && nturns < 64)
		turns[nturns++] = n;
	return memcpy(d, s, n);
}

static void test_copies(void)
{
	static const size_t sizes[] = { 1, 10, 1024, 4097, 65536 };
	struct copy_arena a;
	struct copy_set s;
	char why[256] = "";

	int rc = copy_arena_init(&a, 65536, why, sizeof(why));
	if (!vmp_check(rc == 0, "copy buffers set up %s", why))
		return;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		copy_set_place(&s, &a, sizes[i]);
		int full = copy_verify_full(&good, &s, why, sizeof(why));
		uint64_t bad = copy_batch(&good, &s, 1000);
		vmp_check(full == 0 && bad == 0 && copy_compare_all(&s, why, sizeof(why)) == 0,
			  "glibc memcpy of %zu bytes passes every check", sizes[i]);
	}

	static const struct { copy_fn fn; const char *what; } broken[] = {
		{ copy_nothing, "a copy that writes nothing" },
		{ copy_short, "a copy one byte short" },
		{ copy_shifted, "a copy shifted by one byte" },
		{ copy_only_once, "a copy that works only the first time" },
	};
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		copy_fn const volatile fn = broken[i].fn;
		copy_set_place(&s, &a, 1024);
		calls = 0;
		uint64_t bad = copy_batch(&fn, &s, 100);
		/* The only-once copy must fail on every copy after its first. */
		vmp_check(bad >= 99, "%s fails the per-copy check (%llu of 100 caught)",
			  broken[i].what, (unsigned long long)bad);
	}

	copy_fn const volatile one_bad = copy_one_bad_byte;
	copy_set_place(&s, &a, 1024);
	rc = copy_verify_full(&one_bad, &s, why, sizeof(why));
	vmp_check(rc != 0 && strstr(why, "byte 512 ") != NULL,
		  "one wrong byte in 1024 is caught by the full check: %s", why);

	struct vmp_budget b = { .batch_ns = 1000, .total_ns = 100000, .min_batches = 2, .max_batches = 10 };
	struct copy_result r;
	copy_fn const volatile nothing = copy_nothing;
	copy_set_place(&s, &a, 4096);
	vmp_check(copy_measure(&nothing, &s, &b, 0, &r, why, sizeof(why)) != 0,
		  "the measurement refuses a broken copy: %s", why);
	copy_set_place(&s, &a, 4096);
	rc = copy_measure(&good, &s, &b, 0, &r, why, sizeof(why));
	vmp_check(rc == 0 && r.copies > 0 && r.ns_per_op > 0,
		  "the measurement of glibc memcpy succeeds (%.1f ns/op)", rc == 0 ? r.ns_per_op : 0);
	copy_arena_free(&a);
}

/* Placements: each on pages of its own, inside the arena, the slots' page
 * offsets kept; as many as fit, and every one copies correctly. */
static void test_placements(void)
{
	/* a 65536-byte arena slot is 17 pages: 10000 bytes (3 pages + a spare)
	 * fit 4 times, 4096 bytes 5 times and more, the largest size once */
	static const struct { size_t n; int want; } cases[] = { { 10, 5 }, { 4096, 5 }, { 10000, 4 }, { 65536, 1 } };
	struct copy_arena a;
	struct copy_set s, t;
	char why[256] = "";

	int rc = copy_arena_init(&a, 65536, why, sizeof(why));
	if (!vmp_check(rc == 0, "copy buffers set up %s", why))
		return;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = cases[i].n;
		int np = copy_placements(&a, n, 5), ok = 1;

		for (int p = 0; p < np && ok; p++) {
			copy_set_place_at(&s, &a, n, p);
			for (int slot = 0; slot < COPY_SLOTS; slot++) {
				uintptr_t src = (uintptr_t)s.src[slot], dst = (uintptr_t)s.dst[slot];
				ok &= src % 4096 == dst % 4096;
				ok &= s.src[slot] >= a.base && s.dst[slot] + n <= a.base + a.len;
			}
			for (int q = 0; q < p && ok; q++) {
				copy_set_place_at(&t, &a, n, q);
				/* no page of placement q's source is a page of p's */
				ok &= (uintptr_t)(t.src[0] + n - 1) / 4096 < (uintptr_t)s.src[0] / 4096;
			}
			ok &= copy_verify_full(&good, &s, why, sizeof(why)) == 0 && copy_batch(&good, &s, 100) == 0;
		}
		vmp_check(ok && np == cases[i].want,
			  "%d placement(s) of %zu bytes on pages of their own %s", np, n, why);
	}
	struct vmp_budget b = { .batch_ns = 1000, .total_ns = 100000, .min_batches = 2, .max_batches = 10 };
	struct copy_result r;
	copy_fn const volatile nothing = copy_nothing;
	static const size_t one_size = 1024;
	vmp_check(copy_measure_interleaved(&nothing, NULL, &a, &one_size, 1, 5, &b, 0, &r, NULL, why, sizeof(why)) != 0,
		  "the placed measurement refuses a broken copy: %s", why);
	rc = copy_measure_interleaved(&good, NULL, &a, &one_size, 1, 5, &b, 0, &r, NULL, why, sizeof(why));
	vmp_check(rc == 0 && r.copies > 0 && r.ns_per_op > 0,
		  "the placed measurement of glibc memcpy succeeds (%.1f ns/op over %llu copies)",
		  rc == 0 ? r.ns_per_op : 0, (unsigned long long)r.copies);

	/* Several sizes: placement by placement across them (10, 1024, 10, 1024, 10,
	 * 1024 for three placements each), every size with its result and clock. */
	static const size_t two[] = { 10, 1024 };
	struct copy_result rr[2];
	double ghz[2] = { 0, 0 };
	copy_fn const volatile noting = copy_noting_size;
	nturns = 0;
	rc = copy_measure_interleaved(&noting, NULL, &a, two, 2, 3, &b, 0, rr, ghz, why, sizeof(why));
	int order = nturns == 6;
	for (int k = 0; k < nturns && order; k++)
		order = turns[k] == two[k % 2];
	vmp_check(rc == 0 && order && rr[0].copies > 0 && rr[1].copies > 0 && ghz[0] > 0 && ghz[1] > 0,
		  "the sizes take their placements in turn (%d turns: %zu, %zu, %zu, ...), each with a result "
		  "and a clock (%.2f, %.2f GHz)", nturns, turns[0], nturns > 1 ? turns[1] : 0,
		  nturns > 2 ? turns[2] : 0, ghz[0], ghz[1]);
	copy_arena_free(&a);
}

/* A copy that does the work twice: timed against one plain copy, half as fast. */
static void *copy_twice(void *d, const void *s, size_t n)
{
	vmp_reference_copy(d, s, n);
	return vmp_reference_copy(d, s, n);
}

/* The reference copy: copies right, is what the large sizes' ratio is taken
 * against, and only theirs; a broken reference is refused as a broken copy is. */
static void test_reference(void)
{
	static const size_t sizes[] = { 1024, VMP_REFERENCE_MIN_SIZE };
	struct vmp_budget b = { .batch_ns = 20000, .total_ns = 4000000, .min_batches = 6, .max_batches = 400 };
	copy_fn const volatile ref = vmp_reference_copy, twice = copy_twice, nothing = copy_nothing;
	copy_fn const volatile good = memcpy;
	struct copy_arena a;
	struct copy_set s;
	struct copy_result r, rr[2];
	char why[256] = "";

	int rc = copy_arena_init(&a, VMP_REFERENCE_MIN_SIZE, why, sizeof(why));
	if (!vmp_check(rc == 0, "copy buffers for the reference set up %s", why))
		return;
	copy_set_place(&s, &a, 65536);
	vmp_check(copy_verify_full(&ref, &s, why, sizeof(why)) == 0 && copy_batch(&ref, &s, 100) == 0,
		  "the reference copy copies every byte %s", why);
	copy_set_place(&s, &a, 65536);
	rc = copy_measure_against(&twice, &ref, &s, &b, 0, &r, why, sizeof(why));
	vmp_check(rc == 0 && r.ref_ratio > 1.4 && r.ref_ratio < 2.8,
		  "two copies timed against the reference's one take about twice its time (ratio %.2f)",
		  rc == 0 ? r.ref_ratio : 0);
	copy_set_place(&s, &a, 65536);
	vmp_check(copy_measure_against(&good, &nothing, &s, &b, 0, &r, why, sizeof(why)) != 0,
		  "the measurement refuses a broken reference: %s", why);
	rc = copy_measure_interleaved(&good, &ref, &a, sizes, 2, 1, &b, 0, rr, NULL, why, sizeof(why));
	vmp_check(rc == 0 && rr[0].ref_ratio == 0 && rr[1].ref_ratio > 0,
		  "only the copies of at least %zu bytes are timed against the reference (ratios %.2f, %.2f)",
		  VMP_REFERENCE_MIN_SIZE, rc == 0 ? rr[0].ref_ratio : -1, rc == 0 ? rr[1].ref_ratio : -1);
	copy_arena_free(&a);
}

/* The arena starts at a power-of-two boundary that holds it (aligned_map.h),
 * so every address bit below that is the same in every process: two arenas
 * of one size, mapped side by side, agree in those bits. */
static void test_aligned_arena(void)
{
	struct copy_arena a, b;
	char why[256] = "";

	if (!vmp_check(copy_arena_init(&a, 10240, why, sizeof(why)) == 0 &&
		       copy_arena_init(&b, 10240, why, sizeof(why)) == 0, "two arenas set up %s", why))
		return;
	size_t align = vmp_map_alignment(a.len);
	uintptr_t x = (uintptr_t)a.base, y = (uintptr_t)b.base;
	vmp_check(align >= a.len && align / 2 < a.len && x % align == 0 && y % align == 0 && x != y,
		  "each arena of %zu bytes starts at a %zu-byte boundary (%#lx, %#lx)", a.len, align,
		  (unsigned long)x, (unsigned long)y);
	/* the reservation around the arena is given back: one more byte past its
	 * end is not mapped (mincore fails with ENOMEM on unmapped memory) */
	unsigned char vec;
	uintptr_t past = (x + a.len + 4095) & ~(uintptr_t)4095;
	vmp_check(past == y || mincore((void *)past, 4096, &vec) != 0,
		  "the address space reserved around an arena is released");
	copy_arena_free(&a);
	copy_arena_free(&b);
}

static void test_tsc_flags(void)
{
	static const struct { const char *flags; int usable; const char *why; } cases[] = {
		{ "fpu tsc msr constant_tsc rep_good nopl nonstop_tsc cpuid", 1, "" },
		{ "fpu tsc msr constant_tsc cpuid", 0, "no nonstop_tsc in cpu flags" },
		{ "fpu tsc nonstop_tsc", 0, "no constant_tsc in cpu flags" },
		{ "fpu rdtscp constant_tsc nonstop_tsc", 0, "no tsc in cpu flags" },
		{ "fpu tsc constant_tsc_x nonstop_tsc", 0, "no constant_tsc in cpu flags" },
		{ "", 0, "no tsc, no constant_tsc, no nonstop_tsc in cpu flags" },
	};
	char why[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int u = vmp_tsc_usable_from_flags(cases[i].flags, why, sizeof(why));
		vmp_check(u == cases[i].usable && strcmp(why, cases[i].why) == 0,
			  "tsc decision for \"%s\": %s%s%s", cases[i].flags,
			  u ? "usable" : "unusable (", why, u ? "" : ")");
	}
}

static void test_tsc_live(void)
{
	char flags[8192], why[256];

	if (vmp_read_cpu_flags(flags, sizeof(flags), why, sizeof(why)) != 0 ||
	    !vmp_tsc_usable_from_flags(flags, why, sizeof(why))) {
		vmp_skip("tsc calibration on this machine (%s)", why);
		return;
	}
	double ghz = vmp_tsc_calibrate_ghz(5000000, why, sizeof(why));
	vmp_check(ghz > 0, "tsc calibrates on this machine: %.4f GHz %s", ghz, why);
}

static void test_plans(void)
{
	static const size_t seeds[] = { 10, 1024, 10240, 1 << 20, 10 << 20 };

	for (int p = VMP_SMOKE; p <= VMP_FULL; p++) {
		struct memcpy_plan plan;
		int sorted = 1, seeds_in = 0, pow2 = 0;

		memcpy_plan_for((enum vmp_profile)p, &plan);
		for (int i = 1; i < plan.nsizes; i++)
			sorted &= plan.sizes[i - 1] < plan.sizes[i];
		for (int i = 0; i < plan.nsizes; i++) {
			for (int j = 0; j < 5; j++)
				seeds_in += plan.sizes[i] == seeds[j];
			pow2 += plan.sizes[i] >= 64 && (plan.sizes[i] & (plan.sizes[i] - 1)) == 0;
		}
		int want_seeds = p == VMP_SMOKE ? 4 : 5;
		vmp_check(plan.nsizes > 0 && sorted && seeds_in == want_seeds &&
			  (p != VMP_FULL || pow2 == 21) && plan.sizes[plan.nsizes - 1] <= (64u << 20),
			  "profile %s: %d sizes ascending, %d seed sizes, %d powers of two",
			  vmp_profile_name((enum vmp_profile)p), plan.nsizes, seeds_in, pow2);
	}
}

static void test_format(void)
{
	double v[] = { 3, 1, 2 }, w[] = { 4, 1, 3, 2 };

	vmp_check(vmp_median(v, 3) == 2 && vmp_median(w, 4) == 2.5, "median of odd and even counts");
	vmp_check(vmp_config_key_ok("memcpy-tsc") && vmp_config_key_ok("glibc-tunables-seen-l3-3q") &&
		  !vmp_config_key_ok("Memcpy") && !vmp_config_key_ok("a b") &&
		  !vmp_config_key_ok("-x") && !vmp_config_key_ok(""),
		  "configuration keys: lower case, digits and '-' only");
}

int memcpy_self_test(const char *prog)
{
	test_copies();
	test_placements();
	test_reference();
	test_aligned_arena();
	test_tsc_flags();
	test_tsc_live();
	test_plans();
	test_format();
	return vmp_ksft_finish(prog);
}
