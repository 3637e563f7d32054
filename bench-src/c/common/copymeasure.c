#include "copymeasure.h"

#include <stdio.h>
#include <stdlib.h>

#include "coreclock.h"
#include "tsc.h"

struct batch_ctx {
	copy_fn const volatile *fn;
	struct copy_set *s;
	uint64_t bad;
};

static int run_batch(void *ctx, uint64_t k)
{
	struct batch_ctx *c = ctx;

	c->bad += copy_batch(c->fn, c->s, k);
	return c->bad ? -1 : 0;
}

int copy_measure(copy_fn const volatile *fn, struct copy_set *s,
		   const struct vmp_budget *b, int use_tsc,
		   struct copy_result *r, char *why, size_t whylen)
{
	struct batch_ctx ctx = { .fn = fn, .s = s, .bad = 0 };
	uint64_t k;

	if (copy_verify_full(fn, s, why, whylen) != 0)
		return -1;
	if (vmp_calibrate_batch(run_batch, &ctx, b, &k) != 0)
		goto bad_copy;

	double *ns = calloc(b->max_batches, sizeof(double));
	double *cyc = calloc(b->max_batches, sizeof(double));
	if (!ns || !cyc) {
		snprintf(why, whylen, "out of memory for %u batch timings", b->max_batches);
		free(ns);
		free(cyc);
		return -1;
	}
	uint64_t start = vmp_now_ns();
	unsigned nb = 0;
	while (nb < b->max_batches &&
	       (nb < b->min_batches || vmp_now_ns() - start < b->total_ns)) {
		uint64_t t0 = vmp_now_ns(), c0 = use_tsc ? vmp_rdtsc() : 0;
		run_batch(&ctx, k);
		uint64_t c1 = use_tsc ? vmp_rdtsc() : 0, t1 = vmp_now_ns();
		ns[nb] = (double)(t1 - t0) / (double)k;
		cyc[nb] = (double)(c1 - c0) / (double)k;
		nb++;
	}
	r->copies = k * nb;
	r->ns_per_op = vmp_median(ns, nb);
	r->cycles_per_op = use_tsc ? vmp_median(cyc, nb) : 0;
	free(ns);
	free(cyc);
	if (ctx.bad)
		goto bad_copy;
	return copy_compare_all(s, why, whylen);

bad_copy:
	snprintf(why, whylen, "copy of %zu bytes: %llu of the timed copies failed their check",
		 s->n, (unsigned long long)ctx.bad);
	return -1;
}

int copy_measure_interleaved(copy_fn const volatile *fn, const struct copy_arena *a, const size_t *sizes,
			     int nsizes, int placements, const struct vmp_budget *b, int use_tsc,
			     struct copy_result *r, double *ghz, char *why, size_t whylen)
{
	struct copy_set set;
	double before = ghz ? vmp_core_ghz() : 0;

	for (int i = 0; i < nsizes; i++)
		r[i] = (struct copy_result){ 0, 0, 0 };
	for (int p = 0; p < placements; p++) {
		for (int i = 0; i < nsizes; i++) {
			int np = copy_placements(a, sizes[i], placements);
			struct vmp_budget share = *b;
			struct copy_result one;

			if (p >= np)
				continue;
			vmp_budget_share(&share, np);
			copy_set_place_at(&set, a, sizes[i], p);
			if (copy_measure(fn, &set, &share, use_tsc, &one, why, whylen) != 0)
				return -1;
			double after = ghz ? vmp_core_ghz() : 0;
			if (p == 0 || one.ns_per_op < r[i].ns_per_op) {
				r[i].ns_per_op = one.ns_per_op;
				r[i].cycles_per_op = one.cycles_per_op;
				if (ghz)
					ghz[i] = vmp_window_ghz(before, after);
			}
			r[i].copies += one.copies;
			before = after;
		}
	}
	return 0;
}
