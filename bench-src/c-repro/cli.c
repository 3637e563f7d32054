/* Command line, time budget, output ordering and self-test bookkeeping
 * shared by the repro benchmarks. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "repro.h"

static const char *prog = "repro";
static char *held;          /* Benchmark lines waiting for the config lines */
static size_t held_len, held_cap;
static int failures;

/* Wall time one repetition may take: smoke is a quick sanity run, full
 * gives each benchmark a few seconds' worth of the whole. */
static const struct { const char *name; uint64_t ns; } budgets[] = {
	{"smoke", 200000000ull},
	{"quick", 1000000000ull},
	{"full", 5000000000ull},
};

void repro_set_prog(const char *name) { prog = name; }

void repro_die(const char *fmt, ...)
{
	va_list ap;
	fflush(stdout);
	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(int allow_count)
{
	fprintf(stderr, "usage: %s --profile smoke|quick|full | --self-test%s\n", prog,
		allow_count ? " | --count-instructions" : "");
	exit(2);
}

void repro_parse(int argc, char **argv, int allow_count, struct repro_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (argc == 2 && strcmp(argv[1], "--self-test") == 0) {
		o->mode = MODE_SELF_TEST;
		return;
	}
	if (argc == 2 && allow_count && strcmp(argv[1], "--count-instructions") == 0) {
		o->mode = MODE_COUNT_INSTRUCTIONS;
		return;
	}
	if (argc == 3 && strcmp(argv[1], "--profile") == 0) {
		for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
			if (strcmp(argv[2], budgets[i].name) == 0) {
				o->mode = MODE_BENCH;
				o->profile = budgets[i].name;
				o->budget_ns = budgets[i].ns;
				return;
			}
		}
		fprintf(stderr, "%s: unknown profile '%s' (expected smoke, quick or full)\n", prog, argv[2]);
		exit(2);
	}
	usage(allow_count);
}

uint64_t repro_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void repro_result(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line) - 1)
		repro_die("result line too long");
	if (held_len + (size_t)n + 2 > held_cap) {
		held_cap = (held_cap + (size_t)n + 2) * 2;
		held = realloc(held, held_cap);
		if (!held)
			repro_die("out of memory");
	}
	memcpy(held + held_len, line, (size_t)n);
	held_len += (size_t)n;
	held[held_len++] = '\n';
}

void repro_flush_results(void)
{
	if (held_len)
		fwrite(held, 1, held_len, stdout);
	held_len = 0;
	fflush(stdout);
}

int repro_check(int cond, const char *fmt, ...)
{
	va_list ap;
	printf("%s - ", cond ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		failures++;
	return cond;
}

int repro_failures(void) { return failures; }

uint64_t repro_calibrate(repro_fn fn, void *arg, uint64_t target_ns, uint64_t n_min)
{
	/* Grow the pilot until it lasts 1/20 of the target (at least 1 ms), then
	 * scale; the pilot doubles as warm-up of caches and page tables. */
	uint64_t n = n_min ? n_min : 1, pilot_goal = target_ns / 20;
	if (pilot_goal < 1000000)
		pilot_goal = 1000000;
	for (;;) {
		uint64_t t0 = repro_now_ns();
		fn(arg, n);
		uint64_t dt = repro_now_ns() - t0;
		if (dt >= pilot_goal || n >= (1ull << 40)) {
			double scaled = (double)n * (double)target_ns / (double)(dt ? dt : 1);
			uint64_t want = scaled < (double)n_min ? n_min : (uint64_t)scaled;
			return want ? want : 1;
		}
		n *= (dt < pilot_goal / 16) ? 8 : 2;
	}
}
