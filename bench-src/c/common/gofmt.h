/* Output in the Go benchmark format (golang proposal 14313), which benchstat
 * reads as it is: "key: value" configuration lines, then
 * "BenchmarkName <iterations> <value> <unit> [<value> <unit>...]" lines. */
#ifndef VMP_GOFMT_H
#define VMP_GOFMT_H

#include <stdint.h>

/* 1 when key is a valid configuration key: lower case letters, digits and
 * '-', starting with a letter (docs/formats.md). */
int vmp_config_key_ok(const char *key);

/* Prints "key: value".  An invalid key or a value with a newline is a bug in
 * the caller: it aborts rather than write a line benchstat would misread. */
void vmp_config(const char *key, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Prints "Unit <unit> better=higher|lower". */
void vmp_unit_better(const char *unit, int higher);

struct vmp_metric {
	double value;
	const char *unit;
};

/* Prints one result line; metrics with a NULL unit are left out. */
void vmp_bench_line(const char *name, uint64_t iterations,
		    const struct vmp_metric *m, int nmetrics);

#endif
