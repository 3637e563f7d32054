#include "turns.h"

#include <string.h>

#include "../common/coreclock.h"

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

int clock_turns_for(enum vmp_profile p)
{
	return p == VMP_SMOKE ? 3 : p == VMP_QUICK ? 5 : 7;
}

/* One turn of one probe: batches of m->k calls until the share is spent. */
static int one_turn(const struct clock_probe *p, const struct vmp_budget *share, int first,
		    struct clock_measured *m)
{
	double ns[3000];
	unsigned nb = 0;
	int rc;

	if (first) {
		struct probe_ctx ctx = { p, m->why, sizeof(m->why) };
		if ((rc = vmp_calibrate_batch(run, &ctx, share, &m->k)) != 0)
			return rc;
	}
	double ghz_before = vmp_core_ghz();
	uint64_t start = vmp_now_ns();
	while (nb < share->max_batches && nb < sizeof(ns) / sizeof(ns[0]) &&
	       (nb < share->min_batches || vmp_now_ns() - start < share->total_ns)) {
		uint64_t t0 = vmp_now_ns();
		if ((rc = probe_run(p, m->k, m->why, sizeof(m->why))) != 0)
			return rc;
		ns[nb++] = (double)(vmp_now_ns() - t0) / (double)m->k;
	}
	double median = vmp_median(ns, nb);
	if (first || median < m->ns_per_op) {
		m->ns_per_op = median;
		m->ghz = vmp_window_ghz(ghz_before, vmp_core_ghz());
	}
	m->ok = 1;
	m->calls += m->k * nb;
	return 0;
}

int clock_measure_all(const struct clock_probe *probes, size_t n, int turns,
		      const struct vmp_budget *b, struct clock_measured *ms, size_t *bad)
{
	struct vmp_budget share = *b;

	vmp_budget_share(&share, turns);
	memset(ms, 0, n * sizeof(*ms));
	for (int t = 0; t < turns; t++) {
		for (size_t i = 0; i < n; i++) {
			if (t > 0 && !ms[i].ok)
				continue;   /* unsupported here: its first turn said why */
			int rc = one_turn(&probes[i], &share, t == 0, &ms[i]);
			if (rc == PROBE_WRONG) {
				*bad = i;
				return rc;
			}
			if (rc != 0)
				ms[i].ok = 0;
		}
	}
	return 0;
}
