/* storefwd: seed 000 ("A Tale of Two Copies"). 28-byte entries copied
 * through overlapping 16-byte stores to a temporary are slower than 32-byte
 * ones, because the load spanning both stores cannot be store-forwarded.
 *   storefwd --profile smoke|quick|full   one repetition, Go benchmark format
 *   storefwd --self-test                  checks flush counts, file contents
 *                                         and where the kernels' memory is */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../common/cli.h"
#include "../common/coreclock.h"
#include "../common/gofmt.h"
#include "../common/ksft.h"
#include "../common/pmu.h"
#include "../common/timing.h"
#include "buffer.h"

struct sf_case {
	unsigned size;
	const char *form;
	sf_append_fn append;
	uint64_t seed_flushes;  /* the seed's flushes per 100,000 entries */
};

static const struct sf_case cases[] = {
	{28, "overlap", sf_append_overlap28, 171},
	{28, "fresh", sf_append_fresh28, 171},
	{32, "overlap", sf_append_overlap32, 196},
	{32, "fresh", sf_append_fresh32, 196},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))
#define SF_ROUNDS 5  /* interleaved rounds; the fastest counts */

struct sf_run {
	const struct sf_case *c;
	struct sf_buffer *b;
};

/* The one buffer every case uses: static, so its regions sit at the same
 * page offsets in every process (buffer.h says why that matters). */
static struct sf_buffer buffer;

static unsigned page_offset(const void *p)
{
	return (unsigned)((uintptr_t)p & 4095);
}

/* One op as in the seed: rewind, append 100,000 entries, flush the rest. */
static void run_ops(void *arg, uint64_t ops)
{
	struct sf_run *r = arg;
	for (uint64_t op = 0; op < ops; op++) {
		sf_rewind(r->b);
		r->c->append(r->b, SF_ENTRIES_PER_OP);
		sf_flush(r->b);
	}
}

/* ld_blocks.store_forward on Intel (event 0x03 umask 0x02);
 * ls_bad_status2.stli_other on AMD family 17h+ (event 0x24 umask 0x02). */
static int open_store_fwd_counter(struct vmp_pmu *pmu, char *label, size_t label_len)
{
	char vendor[13];
	vmp_cpu_vendor(vendor);
	uint64_t config;
	if (strcmp(vendor, "GenuineIntel") == 0) {
		config = 0x0203;
		snprintf(label, label_len, "ld_blocks.store_forward (raw 0x0203)");
	} else if (strcmp(vendor, "AuthenticAMD") == 0 || strcmp(vendor, "HygonGenuine") == 0) {
		config = 0x0224;
		snprintf(label, label_len, "ls_bad_status2.stli_other (raw 0x0224)");
	} else {
		pmu->fd = -1;
		snprintf(pmu->why, sizeof(pmu->why), "no store-forwarding event known for CPU vendor %s", vendor);
		return -1;
	}
	return vmp_pmu_open(pmu, PERF_TYPE_RAW, config, label);
}

static int bench(uint64_t budget_ns)
{
	struct vmp_pmu pmu;
	char label[96];
	int have_pmu = open_store_fwd_counter(&pmu, label, sizeof(label)) == 0;
	int fd = sf_open_file();
	uint64_t per_case = budget_ns / NCASES * 9 / 10;

	vmp_config("storefwd-buffer-bytes", "%d", SF_BUFFER_BYTES);
	vmp_config("storefwd-entries-per-op", "%d", SF_ENTRIES_PER_OP);
	vmp_config("storefwd-file", "memfd");
	vmp_config("storefwd-file-bytes", "%d", SF_FILE_BYTES);
	vmp_config("storefwd-page-offsets", "entry %#05x, temporary %#05x, buffer %#05x",
		   page_offset(buffer.ent), page_offset(buffer.tmp), page_offset(buffer.buf));
	if (have_pmu)
		vmp_config("storefwd-pmu", "%s", label);
	else
		vmp_config("storefwd-pmu", "unavailable (%s)", pmu.why);

	/* Rounds interleave the four cases and the fastest round counts (min of
	 * N): on a shared machine a burst of other work then hits one round of
	 * one case, not a whole case. */
	struct sf_run runs[NCASES];
	uint64_t ops[NCASES];
	double best_ns[NCASES], best_blocks[NCASES], flushes_per_op[NCASES], best_clocks[NCASES];
	struct vmp_clock_range clocks_seen = {0, 0};
	/* One 32-byte op first grows the file to its full size, so that no
	 * pilot below pays for extending it and under-calibrates. */
	struct sf_run warm = {.c = &cases[NCASES - 1], .b = &buffer};
	sf_init(&buffer, fd, warm.c->size);
	run_ops(&warm, 1);
	for (size_t i = 0; i < NCASES; i++) {
		runs[i] = (struct sf_run){.c = &cases[i], .b = &buffer};
		sf_init(&buffer, fd, cases[i].size);
		/* The pilot inside calibrate also warms the page cache and the file. */
		ops[i] = vmp_calibrate_iters(run_ops, &runs[i], per_case / SF_ROUNDS, 1);
		best_ns[i] = best_clocks[i] = 1e300;
	}
	for (int round = 0; round < SF_ROUNDS; round++) {
		for (size_t i = 0; i < NCASES; i++) {
			sf_init(&buffer, fd, cases[i].size);
			double ghz_before = vmp_core_ghz();
			if (have_pmu)
				vmp_pmu_start(&pmu);
			uint64_t t0 = vmp_now_ns();
			run_ops(&runs[i], ops[i]);
			uint64_t dt = vmp_now_ns() - t0;
			uint64_t blocks = have_pmu ? vmp_pmu_stop(&pmu) : 0;
			double ghz = vmp_window_ghz(ghz_before, vmp_core_ghz());
			vmp_clock_range_add(&clocks_seen, ghz);
			double entries = (double)ops[i] * SF_ENTRIES_PER_OP;
			flushes_per_op[i] = (double)buffer.flushes / (double)ops[i];
			if ((double)dt / entries < best_ns[i]) {
				best_ns[i] = (double)dt / entries;
				best_blocks[i] = (double)blocks / entries;
			}
			/* The fastest round in clocks, on its own: the round that ran
			 * in the fastest bin is not the one that needed fewest clocks. */
			if ((double)dt * ghz / entries < best_clocks[i])
				best_clocks[i] = (double)dt * ghz / entries;
		}
	}
	vmp_core_clock_config(&clocks_seen, "clocks/entry");
	for (size_t i = 0; i < NCASES; i++) {
		char name[64];
		snprintf(name, sizeof(name), "BenchmarkStorefwd/size=%u/form=%s", cases[i].size, cases[i].form);
		struct vmp_metric m[] = {
			{best_ns[i], "ns/entry"},
			{best_clocks[i], "clocks/entry"},
			{flushes_per_op[i], "flushes/op"},
			{best_blocks[i], have_pmu ? "store-fwd-blocks/entry" : NULL},
		};
		vmp_bench_line(name, ops[i] * SF_ROUNDS, m, 4);
	}
	close(fd);
	vmp_pmu_close(&pmu);
	return 0;
}

/* The file is the ring: as many whole buffers as fit in SF_FILE_BYTES, and
 * every entry in it an exact copy, whatever the form. */
static int file_holds_entries(int fd, const unsigned char *ent, unsigned size)
{
	size_t flush = (size_t)(SF_BUFFER_BYTES / size) * size;
	size_t ring = SF_FILE_BYTES / flush * flush;
	struct stat st;
	if (fstat(fd, &st) != 0 || st.st_size != (off_t)ring)
		return 0;
	static unsigned char data[SF_FILE_BYTES];
	if (pread(fd, data, ring, 0) != (ssize_t)ring)
		return 0;
	for (size_t k = 0; k < ring / size; k++)
		if (memcmp(data + k * size, ent, size) != 0)
			return 0;
	return 1;
}

/* Where the PMU is there, the counter must see what the benchmark relies
 * on: the 28-byte overlap form blocks store forwarding, the fresh form
 * (nothing loaded back) does not block it nearly as often. */
static void check_store_fwd_counter(void)
{
	struct vmp_pmu pmu;
	char label[96];
	double blocks[2];

	if (open_store_fwd_counter(&pmu, label, sizeof(label)) != 0) {
		vmp_skip("store-forwarding counter (%s)", pmu.why);
		return;
	}
	int fd = sf_open_file();
	for (int k = 0; k < 2; k++) {
		struct sf_run r = {.c = &cases[k], .b = &buffer};
		sf_init(&buffer, fd, r.c->size);
		run_ops(&r, 1);  /* warm-up: the file reaches its size */
		vmp_pmu_start(&pmu);
		run_ops(&r, 4);
		blocks[k] = (double)vmp_pmu_stop(&pmu) / (4.0 * SF_ENTRIES_PER_OP);
	}
	close(fd);
	vmp_pmu_close(&pmu);
	vmp_check(blocks[0] > 0.5 && blocks[0] > 4 * blocks[1],
		  "%s: size=28 overlap blocks %.3f per entry, fresh %.3f", label, blocks[0], blocks[1]);
}

/* The kernels' memory starts on cache lines in static storage, and the
 * flushes go to a memfd: nothing the measurement depends on is left to where
 * the stack lands or to the file system TMPDIR is on. */
static void check_placement(void)
{
	int fd = sf_open_file();
	int seals = fcntl(fd, F_GET_SEALS);
	vmp_check(seals >= 0, "the buffer file is a memfd (fcntl F_GET_SEALS: %s)",
		  seals >= 0 ? "answers" : strerror(errno));
	close(fd);
	const unsigned char *region[] = {buffer.ent, buffer.tmp, buffer.buf};
	const char *what[] = {"entry", "temporary", "buffer"};
	for (int k = 0; k < 3; k++)
		vmp_check((uintptr_t)region[k] % SF_LINE == 0, "the %s starts on a %d-byte line (page offset %#05x)",
			  what[k], SF_LINE, page_offset(region[k]));
	int on_stack = 0;
	vmp_check((uintptr_t)&buffer - (uintptr_t)&on_stack > (1u << 30) &&
			  (uintptr_t)&on_stack - (uintptr_t)&buffer > (1u << 30),
		  "the buffer is not on the stack (%p, a local is at %p)", (void *)&buffer, (void *)&on_stack);
}

static int self_test(void)
{
	check_placement();
	for (size_t i = 0; i < NCASES; i++) {
		const struct sf_case *c = &cases[i];
		struct sf_run r = {.c = c, .b = &buffer};
		int fd = sf_open_file();
		sf_init(&buffer, fd, c->size);
		vmp_check(buffer.cap == SF_BUFFER_BYTES / c->size, "size=%u: %u entries per buffer", c->size,
			    buffer.cap);
		run_ops(&r, 1);
		vmp_check(buffer.flushes == c->seed_flushes,
			    "size=%u form=%s: %llu flushes per 100000 entries (seed: %llu)", c->size, c->form,
			    (unsigned long long)buffer.flushes, (unsigned long long)c->seed_flushes);
		vmp_check(buffer.written == (uint64_t)SF_ENTRIES_PER_OP * c->size,
			  "size=%u form=%s: an op writes 100000 entries (%llu bytes)", c->size, c->form,
			  (unsigned long long)buffer.written);
		vmp_check(file_holds_entries(fd, buffer.ent, c->size),
			  "size=%u form=%s: the %d-byte ring holds whole buffers of exact copies of the entry", c->size,
			  c->form, SF_FILE_BYTES);
		/* A second op rewinds and rewrites the same bytes, it does not append. */
		run_ops(&r, 1);
		vmp_check(file_holds_entries(fd, buffer.ent, c->size) && buffer.flushes == 2 * c->seed_flushes,
			  "size=%u form=%s: second op rewrites the file in place", c->size, c->form);
		close(fd);
	}
	check_store_fwd_counter();
	return vmp_ksft_finish("storefwd");
}

int main(int argc, char **argv)
{
	struct vmp_args args;

	vmp_parse_args_shared(argc, argv, "28- vs 32-byte entry copies (store forwarding)", &args);
	return args.self_test ? self_test() : bench(vmp_repetition_ns(args.profile, args.share));
}
