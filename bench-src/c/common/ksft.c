#include "ksft.h"

#include <stdarg.h>
#include <stdio.h>

static unsigned n_pass, n_fail, n_skip;

static void line(const char *tag, const char *fmt, va_list ap)
{
	printf("%s %u - ", tag, n_pass + n_fail + n_skip);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
}

int vmp_check(int cond, const char *fmt, ...)
{
	va_list ap;

	if (cond)
		n_pass++;
	else
		n_fail++;
	va_start(ap, fmt);
	line(cond ? "ok" : "FAIL", fmt, ap);
	va_end(ap);
	return cond;
}

void vmp_skip(const char *fmt, ...)
{
	va_list ap;

	n_skip++;
	va_start(ap, fmt);
	line("skip", fmt, ap);
	va_end(ap);
}

int vmp_ksft_finish(const char *prog)
{
	printf("%s self-test: %u passed, %u failed, %u skipped\n", prog, n_pass, n_fail, n_skip);
	if (n_fail)
		return 1;
	return (n_pass == 0 && n_skip > 0) ? VMP_KSFT_SKIP : 0;
}
