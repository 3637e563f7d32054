/* align: seed 003 ("same instructions, different time"). One loop at
 * several code offsets; only its position changes, so equal instruction
 * counts with different times point at the front end (DSB/MITE), not at
 * the code.
 *   align --profile smoke|quick|full   one repetition, Go benchmark format
 *   align --self-test                  placement, identical bytes, results
 *   align --count-instructions         internal: the callgrind child */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>

#include "count.h"
#include "loops.h"
#include "../common/cli.h"
#include "../common/coreclock.h"
#include "../common/gofmt.h"
#include "../common/ksft.h"
#include "../common/pmu.h"
#include "../common/timing.h"

#define ALIGN_ROUNDS 5  /* interleaved rounds; the fastest counts (min-of-N) */

static double ns[64], insns[64], cycles[64], clocks[64];

static void run_copy(void *arg, uint64_t iters)
{
	static volatile uint64_t sink;
	sink += ((const struct align_copy *)arg)->fn(iters, sink);
}

static int bench(uint64_t budget_ns)
{
	uint64_t t_start = vmp_now_ns();
	struct vmp_pmu pi, pc;
	int have_insns = vmp_pmu_open(&pi, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions") == 0;
	int have_cycles = vmp_pmu_open(&pc, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles") == 0;
	char cg_why[256] = "";
	const char *insn_source = "perf";
	if (!have_insns) {
		insn_source = align_count_with_callgrind(insns, cg_why, sizeof(cg_why)) == 0 ? "callgrind" : NULL;
	}

	vmp_config("align-loop-bytes", "%ld", (long)(align_copies[0].body_end - align_copies[0].body));
	if (have_insns)
		vmp_config("align-pmu", "available");
	else
		vmp_config("align-pmu", "unavailable (%s)", pi.why);
	if (insn_source)
		vmp_config("align-insn-source", "%s", insn_source);
	else
		vmp_config("align-insn-source", "unavailable (no PMU; callgrind: %s)", cg_why);
	if (have_cycles)
		vmp_config("align-cycles-source", "perf");
	else
		vmp_config("align-cycles-source", "unavailable (%s)", pc.why);

	uint64_t spent = vmp_now_ns() - t_start;
	uint64_t left = budget_ns > spent * 2 ? budget_ns - spent : budget_ns / 2;
	uint64_t per_round = left / align_ncopies / ALIGN_ROUNDS * 8 / 10;
	uint64_t iters[64];
	for (unsigned i = 0; i < align_ncopies; i++) {
		iters[i] = vmp_calibrate_iters(run_copy, (void *)&align_copies[i], per_round, 1000);
		ns[i] = clocks[i] = 1e300;
	}
	struct vmp_clock_range clocks_seen = {0, 0};
	for (int round = 0; round < ALIGN_ROUNDS; round++) {
		for (unsigned i = 0; i < align_ncopies; i++) {
			if (have_insns)
				vmp_pmu_start(&pi);
			if (have_cycles)
				vmp_pmu_start(&pc);
			double ghz_before = vmp_core_ghz();
			uint64_t t0 = vmp_now_ns();
			run_copy((void *)&align_copies[i], iters[i]);
			double t = (double)(vmp_now_ns() - t0) / (double)iters[i];
			uint64_t ci = have_insns ? vmp_pmu_stop(&pi) : 0, cc = have_cycles ? vmp_pmu_stop(&pc) : 0;
			double ghz = vmp_window_ghz(ghz_before, vmp_core_ghz());
			vmp_clock_range_add(&clocks_seen, ghz);
			/* Its own fastest round: see storefwd/main.c. */
			if (t * ghz < clocks[i])
				clocks[i] = t * ghz;
			if (t < ns[i]) {
				ns[i] = t;
				if (have_insns)
					insns[i] = (double)ci / (double)iters[i];
				if (have_cycles)
					cycles[i] = (double)cc / (double)iters[i];
			}
		}
	}
	/* Configuration comes before the first result line. */
	unsigned fast = 0, slow = 0;
	for (unsigned i = 0; i < align_ncopies; i++) {
		if (ns[i] < ns[fast])
			fast = i;
		if (ns[i] > ns[slow])
			slow = i;
	}
	vmp_core_clock_config(&clocks_seen, "clocks/iter");
	vmp_config("align-spread", "%.1f%% (fastest pad=%u, slowest pad=%u)", 100.0 * (ns[slow] - ns[fast]) / ns[fast],
		   align_copies[fast].pad, align_copies[slow].pad);
	for (unsigned i = 0; i < align_ncopies; i++) {
		char name[48];
		snprintf(name, sizeof(name), "BenchmarkAlign/pad=%u", align_copies[i].pad);
		struct vmp_metric m[] = {
			{ns[i], "ns/iter"},
			{clocks[i], "clocks/iter"},
			{insns[i], insn_source ? "insns/iter" : NULL},
			{cycles[i], have_cycles ? "cycles/iter" : NULL},
		};
		vmp_bench_line(name, iters[i] * ALIGN_ROUNDS, m, 4);
	}
	vmp_pmu_close(&pi);
	vmp_pmu_close(&pc);
	return 0;
}

/* The benchmark's premise, where a PMU can show it: every copy of the
 * loop retires the same instructions per iteration. */
static void check_equal_instructions(void)
{
	struct vmp_pmu pi;
	double lo = 1e300, hi = 0;

	if (vmp_pmu_open(&pi, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions") != 0) {
		vmp_skip("equal instructions per pad (%s)", pi.why);
		return;
	}
	for (unsigned i = 0; i < align_ncopies; i++) {
		vmp_pmu_start(&pi);
		run_copy((void *)&align_copies[i], 100000);
		double per_iter = (double)vmp_pmu_stop(&pi) / 100000.0;
		lo = per_iter < lo ? per_iter : lo;
		hi = per_iter > hi ? per_iter : hi;
	}
	vmp_pmu_close(&pi);
	vmp_check(lo > 0 && hi - lo < 0.01 * hi, "equal instructions per iteration at every pad (%.3f..%.3f)", lo, hi);
}

static int self_test(void)
{
	const struct align_copy *first = &align_copies[0];
	long len = (long)(first->body_end - first->body);
	vmp_check(len > 16 && len < 64, "loop body is %ld bytes, within one 64-byte line when aligned", len);
	for (unsigned i = 0; i < align_ncopies; i++) {
		const struct align_copy *c = &align_copies[i];
		vmp_check((uintptr_t)c->body % 64 == c->pad % 64, "pad=%u: loop starts at offset %u of a 64-byte line",
			    c->pad, (unsigned)((uintptr_t)c->body % 64));
		vmp_check(c->body_end - c->body == len && memcmp(c->body, first->body, (size_t)len) == 0,
			    "pad=%u: loop bytes identical to pad=%u", c->pad, first->pad);
		int same = 1;
		const uint64_t counts[] = {0, 1, 2, 999, 100000};
		for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
			same &= c->fn(counts[k], 0x1234 + k) == align_reference(counts[k], 0x1234 + k);
		vmp_check(same, "pad=%u: computes what the C reference computes", c->pad);
	}
	const char *dump = "# callgrind format\nversion: 1\n\ndesc: Trigger: Client Request: pad=48 iters=2000\n"
			   "\npositions: line\nevents: Ir\nsummary: 20033\n\nfn=(1) main\n0 17\ntotals: 20033\n";
	unsigned pad = 0;
	unsigned long long iters = 0, ir = 0;
	int parsed = align_parse_dump(dump, &pad, &iters, &ir) == 0;
	vmp_check(parsed && pad == 48 && iters == 2000 && ir == 20033,
		    "parses a callgrind dump (pad=%u iters=%llu totals=%llu)", pad, iters, ir);
	vmp_check(align_parse_dump("version: 1\nsummary: 5\n", &pad, &iters, &ir) != 0,
		    "rejects a dump without the client-request trigger");
	check_equal_instructions();
	return vmp_ksft_finish("align");
}

int main(int argc, char **argv)
{
	struct vmp_args args;

	/* Not a user option: the child align runs under callgrind when the
	 * PMU cannot count instructions (count.c). */
	if (argc == 2 && strcmp(argv[1], "--count-instructions") == 0)
		return align_count_child();
	vmp_parse_args_shared(argc, argv, "one loop at 13 code offsets (front-end alignment)", &args);
	return args.self_test ? self_test() : bench(vmp_repetition_ns(args.profile, args.share));
}
