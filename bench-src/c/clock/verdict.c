#include "verdict.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *clock_verdict(double libc_ns, double syscall_ns)
{
	/* Written so NaN fails the test too. */
	if (!(libc_ns > 0) || !(syscall_ns > 0))
		return NULL;
	return libc_ns < CLOCK_VDSO_MAX_RATIO * syscall_ns ? "vdso" : "fallback";
}

int clock_read_clocksource(const char *path, char *buf, size_t len, char *why, size_t whylen)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(why, whylen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!fgets(buf, (int)len, f)) {
		snprintf(why, whylen, "%s: empty", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, " \t\r\n")] = '\0';
	if (!buf[0]) {
		snprintf(why, whylen, "%s: empty", path);
		return -1;
	}
	return 0;
}
