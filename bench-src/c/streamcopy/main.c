/* streamcopy: a STREAM-style large-copy bandwidth reference that does not
 * use glibc.  For each size it runs every kernel (kernels.c) with the same
 * buffers, checks and batch timing as the memcpy benchmark, and reports the
 * fastest kernel as BenchmarkStreamCopy/size=<bytes>, so memcpy at the same
 * size can be compared with the best copy this machine can do.  Each kernel
 * is also reported as BenchmarkStreamCopy/kernel=<k>/size=<bytes>: ordinary
 * against non-temporal stores is the very trade-off of seed 002.
 *
 * B/s counts bytes COPIED per second, as memcpy's B/s does.  STREAM itself
 * counts bytes read plus written (twice this figure). */
#include <stdio.h>
#include <string.h>

#include "../common/cli.h"
#include "../common/copycheck.h"
#include "../common/copymeasure.h"
#include "../common/gofmt.h"
#include "../common/ksft.h"
#include "kernels.h"

#define MiB ((size_t)1 << 20)

struct plan {
	size_t sizes[4];
	int nsizes;
	struct vmp_budget budget;
};

static struct plan plan_for(enum vmp_profile p)
{
	switch (p) {
	case VMP_SMOKE:
		return (struct plan){ { MiB }, 1,
			{ .batch_ns = 20000, .total_ns = 5000000, .min_batches = 3, .max_batches = 200 } };
	case VMP_QUICK:
		return (struct plan){ { MiB, 10 * MiB, 64 * MiB }, 3,
			{ .batch_ns = 50000, .total_ns = 40000000, .min_batches = 5, .max_batches = 1000 } };
	case VMP_FULL:
	default:
		/* 64 MiB (256 MiB of buffers) is past any cache already. */
		return (struct plan){ { MiB, 10 * MiB, 64 * MiB }, 3,
			{ .batch_ns = 100000, .total_ns = 150000000, .min_batches = 7, .max_batches = 3000 } };
	}
}

/* Every kernel, on sizes around its edge cases, must copy exactly. */
static int self_test(void)
{
	static const size_t sizes[] = { 1, 15, 64, 100, 4096 + 17, 65536 };
	struct copy_arena a;
	struct copy_set s;
	char why[256] = "";

	int rc = copy_arena_init(&a, 65536, why, sizeof(why));
	if (!vmp_check(rc == 0, "copy buffers set up %s", why))
		return vmp_ksft_finish("streamcopy");
	for (int k = 0; k < copy_nkernels; k++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			copy_fn const volatile fn = copy_kernels[k].fn;
			copy_set_place(&s, &a, sizes[i]);
			rc = copy_verify_full(&fn, &s, why, sizeof(why));
			uint64_t bad = rc ? 0 : copy_batch(&fn, &s, 200);
			vmp_check(rc == 0 && bad == 0, "kernel %s copies %zu bytes exactly %s",
				  copy_kernels[k].name, sizes[i], rc ? why : "");
		}
	copy_arena_free(&a);
	return vmp_ksft_finish("streamcopy");
}

int main(int argc, char **argv)
{
	struct vmp_args args;
	struct copy_arena arena;
	char why[256], key[64], name[96];

	vmp_parse_args(argc, argv, "a glibc-free copy bandwidth reference", &args);
	if (args.self_test)
		return self_test();

	struct plan plan = plan_for(args.profile);
	if (copy_arena_init(&arena, plan.sizes[plan.nsizes - 1], why, sizeof(why)) != 0) {
		fprintf(stderr, "streamcopy: cannot set up buffers: %s\n", why);
		return 1;
	}
	struct copy_result all[4][8], best[4];
	int best_k[4];
	for (int i = 0; i < plan.nsizes; i++) {
		best_k[i] = -1;
		for (int k = 0; k < copy_nkernels; k++) {
			copy_fn const volatile fn = copy_kernels[k].fn;
			struct copy_set s;
			struct copy_result r;

			copy_set_place(&s, &arena, plan.sizes[i]);
			if (copy_measure(&fn, &s, &plan.budget, 0, &r, why, sizeof(why)) != 0) {
				fprintf(stderr, "streamcopy: kernel %s: %s\n", copy_kernels[k].name, why);
				copy_arena_free(&arena);
				return 1;
			}
			all[i][k] = r;
			if (best_k[i] < 0 || r.ns_per_op < best[i].ns_per_op) {
				best[i] = r;
				best_k[i] = k;
			}
		}
	}
	/* Configuration first: a key after a result line would split benchstat's table. */
	vmp_config("streamcopy-bytes-counted", "copied (STREAM counts read+write, 2x this)");
	for (int i = 0; i < plan.nsizes; i++) {
		snprintf(key, sizeof(key), "streamcopy-kernel-%zu", plan.sizes[i]);
		vmp_config(key, "%s", copy_kernels[best_k[i]].name);
	}
	vmp_unit_better("B/s", 1);
	for (int i = 0; i < plan.nsizes; i++) {
		snprintf(name, sizeof(name), "BenchmarkStreamCopy/size=%zu", plan.sizes[i]);
		struct vmp_metric m[] = {
			{ best[i].ns_per_op, "ns/op" },
			{ (double)plan.sizes[i] * 1e9 / best[i].ns_per_op, "B/s" },
		};
		vmp_bench_line(name, best[i].copies, m, 2);
	}
	for (int i = 0; i < plan.nsizes; i++)
		for (int k = 0; k < copy_nkernels; k++) {
			snprintf(name, sizeof(name), "BenchmarkStreamCopy/kernel=%s/size=%zu",
				 copy_kernels[k].name, plan.sizes[i]);
			struct vmp_metric m[] = {
				{ all[i][k].ns_per_op, "ns/op" },
				{ (double)plan.sizes[i] * 1e9 / all[i][k].ns_per_op, "B/s" },
			};
			vmp_bench_line(name, all[i][k].copies, m, 2);
		}
	copy_arena_free(&arena);
	return 0;
}
