/* fence: seed 001 ("Trust no one, not even performance counters"). The
 * cost of an mfence pair or a lock-prefixed pair around loads that miss
 * the LLC or the TLB, or around divisions, measured in cycles rather than
 * read off an instruction profile.
 *   fence --profile smoke|quick|full   one repetition, Go benchmark format
 *   fence --self-test                  kernels agree with a plain C reference */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "fence_kernels.h"
#include "fence_memory.h"
#include "repro.h"

#define FENCE_ROUNDS 3  /* interleaved rounds; the fastest counts */

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

static int bench(const struct repro_opts *o)
{
	uint64_t t_start = repro_now_ns();
	struct fence_sizing s;
	struct fence_mem m;
	struct repro_tsc tsc;
	char l3_source[160];
	uint64_t l3 = fence_sysfs_l3(l3_source, sizeof(l3_source));
	fence_size(&s, l3, fence_mem_available());
	fence_alloc(&m, &s);
	repro_tsc_probe(&tsc);

	if (l3)
		printf("fence-l3-bytes: %llu (%s)\n", (unsigned long long)l3, l3_source);
	else
		printf("fence-l3-bytes: unknown (%s)\n", l3_source);
	printf("fence-llc-buffer-bytes: %llu (%s)\n", (unsigned long long)s.llc_bytes, s.cap_note);
	printf("fence-tlb-pages: %llu (4 KiB pages, one line read per page)\n", (unsigned long long)s.tlb_pages);
	if (tsc.usable)
		printf("fence-tsc: usable (%.3f GHz; cycles/iter are TSC reference cycles)\n", tsc.ghz);
	else
		printf("fence-tsc: unusable (%s)\n", tsc.why);

	/* What setup took is no longer available to the nine measurements. */
	uint64_t spent = repro_now_ns() - t_start;
	uint64_t left = o->budget_ns > spent * 2 ? o->budget_ns - spent : o->budget_ns / 2;
	uint64_t per_case = left / 9 * 9 / 10;
	/* Interleaved rounds, fastest counts (min of N), so that a burst of
	 * other work on a shared machine does not land on one barrier only. */
	double ns_per_iter[3][3], cyc_per_iter[3][3];
	uint64_t iters[3][3];
	struct fence_run r = {.m = &m, .sink = 1};
	for (int w = 0; w < 3; w++)
		for (int b = 0; b < 3; b++) {
			r.k = kernels[w][b];
			iters[w][b] = repro_calibrate(run_kernel, &r, per_case / FENCE_ROUNDS, 1024);
			ns_per_iter[w][b] = 1e300;
		}
	for (int round = 0; round < FENCE_ROUNDS; round++)
		for (int w = 0; w < 3; w++)
			for (int b = 0; b < 3; b++) {
				r.k = kernels[w][b];
				uint64_t c0 = repro_rdtsc(), t0 = repro_now_ns();
				run_kernel(&r, iters[w][b]);
				uint64_t t1 = repro_now_ns(), c1 = repro_rdtsc();
				double ns = (double)(t1 - t0) / (double)iters[w][b];
				if (ns < ns_per_iter[w][b]) {
					ns_per_iter[w][b] = ns;
					cyc_per_iter[w][b] = (double)(c1 - c0) / (double)iters[w][b];
				}
			}
	for (int w = 0; w < 3; w++)
		for (int b = 0; b < 3; b++) {
			char cycles[64] = "";
			if (tsc.usable)
				snprintf(cycles, sizeof(cycles), " %.2f cycles/iter", cyc_per_iter[w][b]);
			repro_result("BenchmarkFence/work=%s/barrier=%s %llu%s %.3f ns/iter", works[w], barriers[b],
				     (unsigned long long)(iters[w][b] * FENCE_ROUNDS), cycles, ns_per_iter[w][b]);
		}
	/* The seed's "actual overhead": the share of the barrier loop's time
	 * that the barrier pair costs, (t_barrier - t_none) / t_barrier. */
	for (int w = 0; w < 3; w++)
		for (int b = 1; b < 3; b++)
			printf("fence-overhead-%s-%s: %.1f%%\n", works[w], barriers[b],
			       100.0 * (ns_per_iter[w][b] - ns_per_iter[w][0]) / ns_per_iter[w][b]);
	repro_flush_results();
	fence_free(&m);
	return 0;
}

static int self_test(void)
{
	repro_check(fence_parse_cache_size("32768K\n") == 32ull << 20, "sysfs size 32768K is 32 MiB");
	repro_check(fence_parse_cache_size("1M") == 1ull << 20, "sysfs size 1M is 1 MiB");
	repro_check(fence_parse_cache_size("12x") == 0 && fence_parse_cache_size("") == 0,
		    "malformed sysfs sizes are rejected");
	repro_check(fence_pow2_floor(48ull << 20) == 32ull << 20, "power-of-two floor of 48 MiB is 32 MiB");

	struct fence_sizing s;
	fence_size(&s, 32ull << 20, 24ull << 30);
	repro_check(s.llc_bytes == 128ull << 20, "4x a 32 MiB L3 with 24 GiB free: 128 MiB (%llu)",
		    (unsigned long long)s.llc_bytes);
	fence_size(&s, 32ull << 20, 512ull << 20);
	repro_check(s.llc_bytes == 64ull << 20 && s.tlb_pages == 16384,
		    "512 MiB free caps the LLC buffer at 64 MiB (%llu) and keeps 16384 TLB pages",
		    (unsigned long long)s.llc_bytes);
	fence_size(&s, 256ull << 20, 0);
	repro_check(s.llc_bytes == 1ull << 30, "a 256 MiB L3 is capped at 1 GiB (%llu)",
		    (unsigned long long)s.llc_bytes);
	fence_size(&s, 0, 0);
	repro_check(s.llc_bytes == 128ull << 20, "unknown L3 assumes 32 MiB (%llu)", (unsigned long long)s.llc_bytes);

	/* Small buffers: the kernels compute the same value as plain C. */
	struct fence_sizing small = {.llc_bytes = 1 << 18, .tlb_pages = 64};
	struct fence_mem m;
	fence_alloc(&m, &small);
	for (int w = 0; w < 3; w++) {
		uint64_t want = fence_reference(works[w], &m, 5000, 42);
		for (int b = 0; b < 3; b++) {
			uint64_t got = kernels[w][b](&m, 5000, 42);
			repro_check(got == want, "work=%s barrier=%s matches the reference (%016llx)", works[w],
				    barriers[b], (unsigned long long)got);
		}
	}
	repro_check(fence_lock_word == 0, "the lock-prefixed pair leaves the lock word at 0");
	fence_free(&m);

	struct repro_tsc tsc;
	repro_tsc_probe(&tsc);
	if (tsc.usable)
		printf("# fence-tsc: usable (%.3f GHz)\n", tsc.ghz);
	else
		printf("# fence-tsc: unusable (%s)\n", tsc.why);
	return repro_failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct repro_opts o;
	repro_set_prog("fence");
	repro_parse(argc, argv, 0, &o);
	return o.mode == MODE_SELF_TEST ? self_test() : bench(&o);
}
