/* The copies of the align loop, one per code offset. */
#ifndef ALIGN_LOOPS_H
#define ALIGN_LOOPS_H

#include <stdint.h>

typedef uint64_t (*align_loop_fn)(uint64_t iters, uint64_t seed);

/* X(pad) for every copy assembled in loops.S. */
#define ALIGN_PADS(X) X(0) X(1) X(2) X(4) X(8) X(16) X(24) X(32) X(40) X(48) X(56) X(60) X(62)

#define ALIGN_DECLARE(pad)                                                   \
	uint64_t align_loop_pad##pad(uint64_t iters, uint64_t seed);         \
	extern const unsigned char align_body_pad##pad[], align_body_end_pad##pad[];
ALIGN_PADS(ALIGN_DECLARE)
#undef ALIGN_DECLARE

struct align_copy {
	unsigned pad;
	align_loop_fn fn;
	const unsigned char *body, *body_end;
};

extern const struct align_copy align_copies[];
extern const unsigned align_ncopies;

/* The loop's arithmetic in C, for the self-test. */
uint64_t align_reference(uint64_t iters, uint64_t seed);

#endif
