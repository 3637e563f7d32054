#include "gofmt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int vmp_config_key_ok(const char *key)
{
	if (!(key[0] >= 'a' && key[0] <= 'z'))
		return 0;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
			return 0;
	return 1;
}

void vmp_config(const char *key, const char *fmt, ...)
{
	char value[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	if (!vmp_config_key_ok(key) || strchr(value, '\n')) {
		fprintf(stderr, "internal error: bad configuration line '%s: %s'\n", key, value);
		abort();
	}
	printf("%s: %s\n", key, value);
}

void vmp_unit_better(const char *unit, int higher)
{
	printf("Unit %s better=%s\n", unit, higher ? "higher" : "lower");
}

void vmp_bench_line(const char *name, uint64_t iterations,
		    const struct vmp_metric *m, int nmetrics)
{
	printf("%s %llu", name, (unsigned long long)iterations);
	for (int i = 0; i < nmetrics; i++)
		if (m[i].unit)
			printf(" %.6g %s", m[i].value, m[i].unit);
	printf("\n");
	/* benchrun reads us through a pipe: flush so a crash later loses nothing. */
	fflush(stdout);
}
