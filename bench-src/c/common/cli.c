/* _GNU_SOURCE: program_invocation_short_name names the program in errors. */
#define _GNU_SOURCE
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = { "smoke", "quick", "full" };

const char *vmp_profile_name(enum vmp_profile p)
{
	return names[p];
}

/* What a program's command line takes beyond --profile and --self-test. */
enum { TAKES_SHARE = 1, TAKES_MIN_SIZE = 2 };

static void usage(FILE *f, const char *prog, const char *what, int takes)
{
	fprintf(f, "usage: %s --profile smoke|quick|full%s%s   print one repetition of %s\n"
		   "       %s --self-test                  check this program's own logic\n",
		prog, takes & TAKES_SHARE ? " [--share N]" : "", takes & TAKES_MIN_SIZE ? " [--min-size BYTES]" : "",
		what, prog);
	if (takes & TAKES_SHARE)
		fprintf(f, "  --share N   take 1/N of the profile's time (1-%d): one of N parts of a repetition\n",
			VMP_MAX_SHARE);
	if (takes & TAKES_MIN_SIZE)
		fprintf(f, "  --min-size BYTES   measure only the profile's sizes of at least BYTES\n");
}

static unsigned long long parse_min_size(const char *prog, const char *val)
{
	char *end = NULL;
	unsigned long long n = 0;

	errno = 0;
	if (val && isdigit((unsigned char)*val)) /* strtoull would take "-5" as a huge number */
		n = strtoull(val, &end, 10);
	if (n < 1 || errno || *end) {
		fprintf(stderr, "%s: --min-size needs a whole number of bytes, 1 or more, got '%s'\n", prog,
			val ? val : "");
		exit(2);
	}
	return n;
}

static int parse_share(const char *prog, const char *val)
{
	char *end;

	errno = 0;
	long n = val ? strtol(val, &end, 10) : 0;
	if (!val || errno || end == val || *end || n < 1 || n > VMP_MAX_SHARE) {
		fprintf(stderr, "%s: --share needs a whole number from 1 to %d (the part of the profile's time "
				"this process takes: 1/N), got '%s'\n", prog, VMP_MAX_SHARE, val ? val : "");
		exit(2);
	}
	return (int)n;
}

static void parse(int argc, char **argv, const char *what, int takes, struct vmp_args *a)
{
	const char *prog = argv[0];
	int have_profile = 0;

	memset(a, 0, sizeof(*a));
	a->share = 1;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;

		if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
			usage(stdout, prog, what, takes);
			exit(0);
		} else if (!strcmp(arg, "--self-test")) {
			a->self_test = 1;
			continue;
		} else if (takes & TAKES_SHARE && !strncmp(arg, "--share=", 8)) {
			a->share = parse_share(prog, arg + 8);
			continue;
		} else if (takes & TAKES_SHARE && !strcmp(arg, "--share")) {
			a->share = parse_share(prog, i + 1 < argc ? argv[++i] : NULL);
			continue;
		} else if (takes & TAKES_MIN_SIZE && !strncmp(arg, "--min-size=", 11)) {
			a->min_size = parse_min_size(prog, arg + 11);
			continue;
		} else if (takes & TAKES_MIN_SIZE && !strcmp(arg, "--min-size")) {
			a->min_size = parse_min_size(prog, i + 1 < argc ? argv[++i] : NULL);
			continue;
		} else if (!strncmp(arg, "--profile=", 10)) {
			val = arg + 10;
		} else if (!strcmp(arg, "--profile")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: --profile needs a value (smoke|quick|full)\n", prog);
				exit(2);
			}
			val = argv[++i];
		} else {
			fprintf(stderr, "%s: unknown argument '%s'\n", prog, arg);
			usage(stderr, prog, what, takes);
			exit(2);
		}
		int found = 0;
		for (int p = 0; p < 3; p++)
			if (!strcmp(val, names[p])) {
				a->profile = (enum vmp_profile)p;
				found = 1;
			}
		if (!found) {
			fprintf(stderr, "%s: unknown profile '%s' (expected smoke|quick|full)\n", prog, val);
			exit(2);
		}
		have_profile = 1;
	}
	if (a->self_test == have_profile) {
		fprintf(stderr, "%s: give exactly one of --self-test or --profile\n", prog);
		usage(stderr, prog, what, takes);
		exit(2);
	}
}

void vmp_parse_args(int argc, char **argv, const char *what, struct vmp_args *a)
{
	parse(argc, argv, what, 0, a);
}

void vmp_parse_args_shared(int argc, char **argv, const char *what, struct vmp_args *a)
{
	parse(argc, argv, what, TAKES_SHARE, a);
}

void vmp_parse_args_sized(int argc, char **argv, const char *what, struct vmp_args *a)
{
	parse(argc, argv, what, TAKES_SHARE | TAKES_MIN_SIZE, a);
}

void vmp_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
