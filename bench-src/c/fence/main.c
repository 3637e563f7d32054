/* fence: seed 001 ("Trust no one, not even performance counters"). The
 * cost of an mfence pair or a lock-prefixed pair around loads that miss
 * the LLC or the TLB, or around divisions, measured in cycles rather than
 * read off an instruction profile.
 *   fence --profile smoke|quick|full   one repetition, Go benchmark format
 *   fence --self-test                  kernels agree with a plain C reference */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "kernels.h"
#include "memory.h"
#include "../common/aligned_map.h"
#include "../common/cli.h"
#include "../common/coreclock.h"
#include "../common/gofmt.h"
#include "../common/ksft.h"
#include "../common/timing.h"
#include "../common/tsc.h"

#define FENCE_ROUNDS 3  /* interleaved rounds, each on a TLB buffer of its own; the fastest counts */
#define TSC_WINDOW_NS 5000000ull  /* two calibration windows of 5 ms */

static const char *const works[] = {"llc", "tlb", "div"};
static const char *const barriers[] = {"none", "lock", "mfence"};
static const fence_kernel kernels[3][3] = {
	{fence_llc_none, fence_llc_lock, fence_llc_mfence},
	{fence_tlb_none, fence_tlb_lock, fence_tlb_mfence},
	{fence_div_none, fence_div_lock, fence_div_mfence},
};

struct fence_run {
	fence_kernel k;
	const struct fence_mem *m;
	uint64_t sink;
};

static void run_kernel(void *arg, uint64_t iters)
{
	struct fence_run *r = arg;
	r->sink += r->k(r->m, iters, r->sink);
}

static int bench(uint64_t budget_ns)
{
	uint64_t t_start = vmp_now_ns();
	struct fence_sizing s;
	struct fence_mem m[FENCE_ROUNDS];
	char l3_source[160], tsc_why[160];
	uint64_t l3 = fence_sysfs_l3(l3_source, sizeof(l3_source));
	const char *mem_source;
	uint64_t mem_available = fence_mem_available(&mem_source);
	fence_size(&s, l3, mem_available, mem_source);
	fence_alloc(&m[0], &s);
	/* A TLB row is as fast as the pages and page tables its buffer drew: one
	 * placement per process made each repetition a draw, 12-19 ns on
	 * work=tlb/barrier=none between the processes of one run. A placement
	 * per round, the fastest round kept, as memcpy's placements. */
	for (int p = 1; p < FENCE_ROUNDS; p++)
		fence_place_tlb_again(&m[p], &m[0]);
	double tsc_ghz = vmp_tsc_probe(TSC_WINDOW_NS, tsc_why, sizeof(tsc_why));

	if (l3)
		vmp_config("fence-l3-bytes", "%llu (%s)", (unsigned long long)l3, l3_source);
	else
		vmp_config("fence-l3-bytes", "unknown (%s)", l3_source);
	vmp_config("fence-llc-buffer-bytes", "%llu (%s)", (unsigned long long)s.llc_bytes, s.cap_note);
	vmp_config("fence-tlb-pages", "%llu (4 KiB pages, one line read per page)", (unsigned long long)s.tlb_pages);
	vmp_config("fence-tlb-placements", "%d (one per round, each on pages of its own; the fastest round counts)",
		   FENCE_ROUNDS);
	vmp_config("fence-buffer-alignment", "LLC %zu, TLB %zu (each buffer starts at a multiple of the power of two "
		   "that holds it, so its address bits are the same in every process)",
		   vmp_map_alignment(s.llc_bytes), vmp_map_alignment(s.tlb_pages * 4096));
	/* Whether the TSC is usable is the environment; the rate it measured is
	 * this repetition's (it moves in its last digit from one process to the
	 * next), so it has a key of its own, as memcpy's. */
	if (tsc_ghz > 0) {
		vmp_config("fence-tsc", "usable (cycles/iter are TSC reference cycles)");
		vmp_config("fence-tsc-ghz", "%.4f", tsc_ghz);
	} else {
		vmp_config("fence-tsc", "unusable (%s)", tsc_why);
		vmp_config("fence-tsc-ghz", "unknown (%s)", tsc_why);
	}

	/* What setup took is no longer available to the nine measurements. */
	uint64_t spent = vmp_now_ns() - t_start;
	uint64_t left = budget_ns > spent * 2 ? budget_ns - spent : budget_ns / 2;
	uint64_t per_case = left / 9 * 9 / 10;
	/* Interleaved rounds, fastest counts (min of N), so that a burst of
	 * other work on a shared machine does not land on one barrier only. */
	double ns_per_iter[3][3], cyc_per_iter[3][3], clk_per_iter[3][3];
	struct vmp_clock_range clocks_seen = {0, 0};
	uint64_t iters[3][3];
	struct fence_run r = {.m = &m[0], .sink = 1};
	for (int w = 0; w < 3; w++)
		for (int b = 0; b < 3; b++) {
			r.k = kernels[w][b];
			iters[w][b] = vmp_calibrate_iters(run_kernel, &r, per_case / FENCE_ROUNDS, 1024);
			ns_per_iter[w][b] = clk_per_iter[w][b] = 1e300;
		}
	for (int round = 0; round < FENCE_ROUNDS; round++)
		for (int w = 0; w < 3; w++)
			for (int b = 0; b < 3; b++) {
				r.k = kernels[w][b];
				r.m = &m[round];
				double ghz_before = vmp_core_ghz();
				uint64_t c0 = vmp_rdtsc(), t0 = vmp_now_ns();
				run_kernel(&r, iters[w][b]);
				uint64_t t1 = vmp_now_ns(), c1 = vmp_rdtsc();
				double ns = (double)(t1 - t0) / (double)iters[w][b];
				double ghz = vmp_window_ghz(ghz_before, vmp_core_ghz());
				vmp_clock_range_add(&clocks_seen, ghz);
				/* Its own fastest round: see storefwd/main.c. */
				if (ns * ghz < clk_per_iter[w][b])
					clk_per_iter[w][b] = ns * ghz;
				if (ns < ns_per_iter[w][b]) {
					ns_per_iter[w][b] = ns;
					cyc_per_iter[w][b] = (double)(c1 - c0) / (double)iters[w][b];
				}
			}
	/* The seed's "actual overhead": the share of the barrier loop's time
	 * that the barrier pair costs, (t_barrier - t_none) / t_barrier.
	 * Configuration comes before the first result line. */
	for (int w = 0; w < 3; w++)
		for (int b = 1; b < 3; b++) {
			char key[64];
			snprintf(key, sizeof(key), "fence-overhead-%s-%s", works[w], barriers[b]);
			vmp_config(key, "%.1f%%", 100.0 * (ns_per_iter[w][b] - ns_per_iter[w][0]) / ns_per_iter[w][b]);
		}
	vmp_core_clock_config(&clocks_seen, "clocks/iter");
	for (int w = 0; w < 3; w++)
		for (int b = 0; b < 3; b++) {
			char name[64];
			snprintf(name, sizeof(name), "BenchmarkFence/work=%s/barrier=%s", works[w], barriers[b]);
			struct vmp_metric m[] = {
				{cyc_per_iter[w][b], tsc_ghz > 0 ? "cycles/iter" : NULL},
				{ns_per_iter[w][b], "ns/iter"},
				{clk_per_iter[w][b], "clocks/iter"},
			};
			vmp_bench_line(name, iters[w][b] * FENCE_ROUNDS, m, 3);
		}
	for (int p = 1; p < FENCE_ROUNDS; p++)
		fence_free_tlb(&m[p]);
	fence_free(&m[0]);
	return 0;
}

/* cycles/iter are TSC ticks: where the TSC is usable, the ticks a kernel
 * run takes must match its wall time at the calibrated rate. */
static void check_tsc_cycles(void)
{
	char why[160];
	double ghz = vmp_tsc_probe(TSC_WINDOW_NS, why, sizeof(why));

	if (ghz <= 0) {
		vmp_skip("TSC cycles (%s)", why);
		return;
	}
	struct fence_sizing small = {.llc_bytes = 1 << 18, .tlb_pages = 64};
	struct fence_mem m;
	struct fence_run r = {.k = fence_div_none, .m = &m, .sink = 1};
	fence_alloc(&m, &small);
	uint64_t c0 = vmp_rdtsc(), t0 = vmp_now_ns();
	run_kernel(&r, 2000000);
	uint64_t t1 = vmp_now_ns(), c1 = vmp_rdtsc();
	fence_free(&m);
	double want = (double)(t1 - t0) * ghz, got = (double)(c1 - c0);
	vmp_check(got > 0.95 * want && got < 1.05 * want,
		  "TSC at %.3f GHz: %.0f ticks over %.0f ns (expected %.0f)", ghz, got, (double)(t1 - t0), want);
}

/* A kernel whose first call stalls 5 ms, as fence's first pass over its
 * fresh 1 GiB buffer can, and which costs 100 ns an iteration after that. */
struct stalling_run {
	int calls;
};

static void run_stalling(void *arg, uint64_t iters)
{
	struct stalling_run *r = arg;
	uint64_t t0 = vmp_now_ns(), stall = r->calls++ ? 0 : 5000000;
	while (vmp_now_ns() - t0 < stall + iters * 100)
		;
}

static void check_calibration_after_a_stall(void)
{
	struct stalling_run r = {0};
	/* 40 ms at 100 ns: 400,000 iterations; scaled from the stalled first
	 * call alone it would be about 8,000 */
	uint64_t iters = vmp_calibrate_iters(run_stalling, &r, 40000000ull, 1024);
	vmp_check(iters > 200000 && iters < 800000,
		  "a first call that stalls 5 ms does not shorten the calibrated run (%llu iterations for 40 ms at 100 ns)",
		  (unsigned long long)iters);
}

static int self_test(void)
{
	vmp_check(fence_parse_cache_size("32768K\n") == 32ull << 20, "sysfs size 32768K is 32 MiB");
	vmp_check(fence_parse_cache_size("1M") == 1ull << 20, "sysfs size 1M is 1 MiB");
	vmp_check(fence_parse_cache_size("12x") == 0 && fence_parse_cache_size("") == 0,
		    "malformed sysfs sizes are rejected");
	vmp_check(fence_pow2_floor(48ull << 20) == 32ull << 20, "power-of-two floor of 48 MiB is 32 MiB");

	struct fence_sizing s;
	fence_size(&s, 32ull << 20, 24ull << 30, "MemAvailable");
	vmp_check(s.llc_bytes == 128ull << 20, "4x a 32 MiB L3 with 24 GiB free: 128 MiB (%llu)",
		    (unsigned long long)s.llc_bytes);
	fence_size(&s, 32ull << 20, 512ull << 20, "MemAvailable");
	vmp_check(s.llc_bytes == 64ull << 20 && s.tlb_pages == 16384,
		    "512 MiB free caps the LLC buffer at 64 MiB (%llu) and keeps 16384 TLB pages",
		    (unsigned long long)s.llc_bytes);
	fence_size(&s, 256ull << 20, 0, "MemAvailable");
	vmp_check(s.llc_bytes == 1ull << 30, "a 256 MiB L3 is capped at 1 GiB (%llu)",
		    (unsigned long long)s.llc_bytes);
	/* A 480 MiB L3 in a container limited to 1 GiB: the cap follows the
	 * cgroup's room, not the host's MemAvailable (the OOM kill of a lab run). */
	fence_size(&s, 480ull << 20, (1ull << 30) - (2ull << 20), "the cgroup's room (limit - usage)");
	vmp_check(s.llc_bytes == 64ull << 20 && strstr(s.cap_note, "cgroup") != NULL,
		  "1 GiB of cgroup room caps the LLC buffer at 64 MiB and says why (%llu: %s)",
		  (unsigned long long)s.llc_bytes, s.cap_note);
	fence_size(&s, 0, 0, "MemAvailable");
	vmp_check(s.llc_bytes == 128ull << 20, "unknown L3 assumes 32 MiB (%llu)", (unsigned long long)s.llc_bytes);

	/* Small buffers: the kernels compute the same value as plain C. */
	struct fence_sizing small = {.llc_bytes = 1 << 18, .tlb_pages = 64};
	struct fence_mem m;
	fence_alloc(&m, &small);
	for (int w = 0; w < 3; w++) {
		uint64_t want = fence_reference(works[w], &m, 5000, 42);
		for (int b = 0; b < 3; b++) {
			uint64_t got = kernels[w][b](&m, 5000, 42);
			vmp_check(got == want, "work=%s barrier=%s matches the reference (%016llx)", works[w],
				    barriers[b], (unsigned long long)got);
		}
	}
	vmp_check(fence_lock_word == 0, "the lock-prefixed pair leaves the lock word at 0");
	/* Another placement: pages of its own, every one touched, the LLC buffer shared. */
	struct fence_mem again;
	fence_place_tlb_again(&again, &m);
	int touched = 1;
	for (uint64_t pg = 0; pg < again.tlb_pages; pg++)
		touched &= again.tlb[pg * 512 + (pg & 63) * 8] != 0;
	vmp_check(again.tlb != m.tlb && again.tlb_pages == m.tlb_pages && again.llc == m.llc && touched,
		  "a TLB buffer placed again has pages of its own, each touched, and shares the LLC buffer");
	fence_free_tlb(&again);
	fence_free(&m);

	check_tsc_cycles();
	check_calibration_after_a_stall();
	return vmp_ksft_finish("fence");
}

int main(int argc, char **argv)
{
	struct vmp_args args;

	vmp_parse_args_shared(argc, argv, "mfence and lock pairs around misses and divisions", &args);
	return args.self_test ? self_test() : bench(vmp_repetition_ns(args.profile, args.share));
}
