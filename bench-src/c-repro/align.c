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

#include "align_count.h"
#include "align_loops.h"
#include "repro.h"

#define ALIGN_ROUNDS 5  /* interleaved rounds; the fastest counts (min-of-N) */

static double ns[64], insns[64], cycles[64];

static void run_copy(void *arg, uint64_t iters)
{
	static volatile uint64_t sink;
	sink += ((const struct align_copy *)arg)->fn(iters, sink);
}

static int bench(const struct repro_opts *o)
{
	uint64_t t_start = repro_now_ns();
	struct repro_pmu pi, pc;
	int have_insns = repro_pmu_open(&pi, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, "instructions") == 0;
	int have_cycles = repro_pmu_open(&pc, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, "cycles") == 0;
	char cg_why[256] = "";
	const char *insn_source = "perf";
	if (!have_insns) {
		insn_source = align_count_with_callgrind(insns, cg_why, sizeof(cg_why)) == 0 ? "callgrind" : NULL;
	}

	printf("align-loop-bytes: %ld\n", (long)(align_copies[0].body_end - align_copies[0].body));
	if (have_insns)
		printf("align-pmu: available\n");
	else
		printf("align-pmu: unavailable (%s)\n", pi.why);
	if (insn_source)
		printf("align-insn-source: %s\n", insn_source);
	else
		printf("align-insn-source: unavailable (no PMU; callgrind: %s)\n", cg_why);
	if (have_cycles)
		printf("align-cycles-source: perf\n");
	else
		printf("align-cycles-source: unavailable (%s)\n", pc.why);

	uint64_t spent = repro_now_ns() - t_start;
	uint64_t left = o->budget_ns > spent * 2 ? o->budget_ns - spent : o->budget_ns / 2;
	uint64_t per_round = left / align_ncopies / ALIGN_ROUNDS * 8 / 10;
	uint64_t iters[64];
	for (unsigned i = 0; i < align_ncopies; i++) {
		iters[i] = repro_calibrate(run_copy, (void *)&align_copies[i], per_round, 1000);
		ns[i] = 1e300;
	}
	for (int round = 0; round < ALIGN_ROUNDS; round++) {
		for (unsigned i = 0; i < align_ncopies; i++) {
			if (have_insns)
				repro_pmu_start(&pi);
			if (have_cycles)
				repro_pmu_start(&pc);
			uint64_t t0 = repro_now_ns();
			run_copy((void *)&align_copies[i], iters[i]);
			double t = (double)(repro_now_ns() - t0) / (double)iters[i];
			uint64_t ci = have_insns ? repro_pmu_stop(&pi) : 0, cc = have_cycles ? repro_pmu_stop(&pc) : 0;
			if (t < ns[i]) {
				ns[i] = t;
				if (have_insns)
					insns[i] = (double)ci / (double)iters[i];
				if (have_cycles)
					cycles[i] = (double)cc / (double)iters[i];
			}
		}
	}
	unsigned fast = 0, slow = 0;
	for (unsigned i = 0; i < align_ncopies; i++) {
		char extra[96] = "";
		size_t len = 0;
		if (insn_source)
			len += (size_t)snprintf(extra + len, sizeof(extra) - len, " %.3f insns/iter", insns[i]);
		if (have_cycles)
			snprintf(extra + len, sizeof(extra) - len, " %.3f cycles/iter", cycles[i]);
		repro_result("BenchmarkAlign/pad=%u %llu %.4f ns/iter%s", align_copies[i].pad,
			     (unsigned long long)(iters[i] * ALIGN_ROUNDS), ns[i], extra);
		if (ns[i] < ns[fast])
			fast = i;
		if (ns[i] > ns[slow])
			slow = i;
	}
	printf("align-spread: %.1f%% (fastest pad=%u, slowest pad=%u)\n", 100.0 * (ns[slow] - ns[fast]) / ns[fast],
	       align_copies[fast].pad, align_copies[slow].pad);
	repro_flush_results();
	repro_pmu_close(&pi);
	repro_pmu_close(&pc);
	return 0;
}

static int self_test(void)
{
	const struct align_copy *first = &align_copies[0];
	long len = (long)(first->body_end - first->body);
	repro_check(len > 16 && len < 64, "loop body is %ld bytes, within one 64-byte line when aligned", len);
	for (unsigned i = 0; i < align_ncopies; i++) {
		const struct align_copy *c = &align_copies[i];
		repro_check((uintptr_t)c->body % 64 == c->pad % 64, "pad=%u: loop starts at offset %u of a 64-byte line",
			    c->pad, (unsigned)((uintptr_t)c->body % 64));
		repro_check(c->body_end - c->body == len && memcmp(c->body, first->body, (size_t)len) == 0,
			    "pad=%u: loop bytes identical to pad=%u", c->pad, first->pad);
		int same = 1;
		const uint64_t counts[] = {0, 1, 2, 999, 100000};
		for (unsigned k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
			same &= c->fn(counts[k], 0x1234 + k) == align_reference(counts[k], 0x1234 + k);
		repro_check(same, "pad=%u: computes what the C reference computes", c->pad);
	}
	const char *dump = "# callgrind format\nversion: 1\n\ndesc: Trigger: Client Request: pad=48 iters=2000\n"
			   "\npositions: line\nevents: Ir\nsummary: 20033\n\nfn=(1) main\n0 17\ntotals: 20033\n";
	unsigned pad = 0;
	unsigned long long iters = 0, ir = 0;
	int parsed = align_parse_dump(dump, &pad, &iters, &ir) == 0;
	repro_check(parsed && pad == 48 && iters == 2000 && ir == 20033,
		    "parses a callgrind dump (pad=%u iters=%llu totals=%llu)", pad, iters, ir);
	repro_check(align_parse_dump("version: 1\nsummary: 5\n", &pad, &iters, &ir) != 0,
		    "rejects a dump without the client-request trigger");
	return repro_failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct repro_opts o;
	repro_set_prog("align");
	repro_parse(argc, argv, 1, &o);
	switch (o.mode) {
	case MODE_SELF_TEST:
		return self_test();
	case MODE_COUNT_INSTRUCTIONS:
		return align_count_child();
	default:
		return bench(&o);
	}
}
