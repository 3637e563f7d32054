/* The command line every C benchmark shares: --self-test | --profile P. */
#ifndef VMP_CLI_H
#define VMP_CLI_H

enum vmp_profile { VMP_SMOKE, VMP_QUICK, VMP_FULL };

struct vmp_args {
	int self_test;
	enum vmp_profile profile;
	/* --share N (programs that take it): this process is one of N parts of
	 * the repetition and takes 1/N of the profile's time; benchrun --parts
	 * spreads the parts over the repetition and keeps each row's fastest.
	 * 1 when not given. */
	int share;
	/* --min-size BYTES (memcpy): measure only the profile's sizes of at
	 * least BYTES, so that the lab's rounds added for the wide rows (the
	 * large copies) do not pay for the small ones again.  0: every size. */
	unsigned long long min_size;
};

/* The most parts a repetition may be cut into. */
#define VMP_MAX_SHARE 16

/* Parses argv; on bad input prints usage naming the problem to stderr and
 * exits 2.  --help prints usage and exits 0.  --share is refused. */
void vmp_parse_args(int argc, char **argv, const char *what, struct vmp_args *a);

/* The same for a program that can measure a share of its time (--share N). */
void vmp_parse_args_shared(int argc, char **argv, const char *what, struct vmp_args *a);

/* The same for a program that also measures sizes (--share N, --min-size BYTES). */
void vmp_parse_args_sized(int argc, char **argv, const char *what, struct vmp_args *a);

const char *vmp_profile_name(enum vmp_profile p);

/* A failure the program cannot measure around (a file it cannot create, a
 * counter it cannot read): "PROG: message" on stderr and exit 1, after what
 * is already on stdout.  Bad command lines exit 2 in vmp_parse_args. */
void vmp_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#endif
