#include "copymeasure.h"

#include <stdio.h>
#include <stdlib.h>

#include "coreclock.h"
#include "refcopy.h"
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
	return copy_measure_against(fn, NULL, s, b, use_tsc, r, why, whylen);
}

/* One batch of k copies through ref, timed; its failed checks are added to *bad. */
static double ref_batch_ns(copy_fn const volatile *ref, struct copy_set *s, uint64_t k, uint64_t *bad)
{
	uint64_t t0 = vmp_now_ns();

	*bad += copy_batch(ref, s, k);
	return (double)(vmp_now_ns() - t0);
}

int copy_measure_against(copy_fn const volatile *fn, copy_fn const volatile *ref, struct copy_set *s,
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
	double *ratio = calloc(b->max_batches, sizeof(double));
	if (!ns || !cyc || !ratio) {
		snprintf(why, whylen, "out of memory for %u batch timings", b->max_batches);
		free(ns);
		free(cyc);
		free(ratio);
		return -1;
	}
	/* Each batch of fn lies between two of the reference, and is held against
	 * their mean: every batch then follows and precedes the same copies (with
	 * one copy per batch, the same slot), where alternating which went first
	 * left the ratio of a 10 MiB copy 0.95 in one order and 1.25 in the other. */
	double ref_before = ref ? ref_batch_ns(ref, s, k, &ctx.bad) : 0;
	uint64_t start = vmp_now_ns();
	unsigned nb = 0;
	while (nb < b->max_batches &&
	       (nb < b->min_batches || vmp_now_ns() - start < b->total_ns)) {
		uint64_t t0 = vmp_now_ns(), c0 = use_tsc ? vmp_rdtsc() : 0;
		run_batch(&ctx, k);
		uint64_t c1 = use_tsc ? vmp_rdtsc() : 0, t1 = vmp_now_ns();
		double ref_after = ref ? ref_batch_ns(ref, s, k, &ctx.bad) : 0;
		ns[nb] = (double)(t1 - t0) / (double)k;
		cyc[nb] = (double)(c1 - c0) / (double)k;
		ratio[nb] = ref ? (double)(t1 - t0) / ((ref_before + ref_after) / 2) : 0;
		ref_before = ref_after;
		nb++;
	}
	r->copies = k * nb;
	r->ns_per_op = vmp_median(ns, nb);
	r->cycles_per_op = use_tsc ? vmp_median(cyc, nb) : 0;
	r->ref_ratio = ref ? vmp_median(ratio, nb) : 0;
	free(ns);
	free(cyc);
	free(ratio);
	if (ctx.bad)
		goto bad_copy;
	return copy_compare_all(s, why, whylen);

bad_copy:
	snprintf(why, whylen, "copy of %zu bytes: %llu of the timed copies failed their check",
		 s->n, (unsigned long long)ctx.bad);
	return -1;
}

int copy_measure_interleaved(copy_fn const volatile *fn, copy_fn const volatile *ref,
			     const struct copy_arena *a, const size_t *sizes,
			     int nsizes, int placements, const struct vmp_budget *b, int use_tsc,
			     struct copy_result *r, double *ghz, char *why, size_t whylen)
{
	struct copy_set set;
	double before = ghz ? vmp_core_ghz() : 0;

	for (int i = 0; i < nsizes; i++)
		r[i] = (struct copy_result){ 0, 0, 0, 0 };
	for (int p = 0; p < placements; p++) {
		for (int i = 0; i < nsizes; i++) {
			int np = copy_placements(a, sizes[i], placements);
			struct vmp_budget share = *b;
			struct copy_result one;

			if (p >= np)
				continue;
			vmp_budget_share(&share, np);
			copy_set_place_at(&set, a, sizes[i], p);
			copy_fn const volatile *against = sizes[i] >= VMP_REFERENCE_MIN_SIZE ? ref : NULL;
			if (against && share.min_batches < VMP_REFERENCE_MIN_BATCHES)
				share.min_batches = VMP_REFERENCE_MIN_BATCHES;
			if (share.max_batches < share.min_batches)
				share.max_batches = share.min_batches;
			if (copy_measure_against(fn, against, &set, &share, use_tsc, &one, why, whylen) != 0)
				return -1;
			double after = ghz ? vmp_core_ghz() : 0;
			if (p == 0 || one.ns_per_op < r[i].ns_per_op) {
				r[i].ns_per_op = one.ns_per_op;
				r[i].cycles_per_op = one.cycles_per_op;
				r[i].ref_ratio = one.ref_ratio;
				if (ghz)
					ghz[i] = vmp_window_ghz(before, after);
			}
			r[i].copies += one.copies;
			before = after;
		}
	}
	return 0;
}
