/* The table of loop copies, and the loop's arithmetic in plain C. */
#include "loops.h"

#define ALIGN_ENTRY(pad) {pad, align_loop_pad##pad, align_body_pad##pad, align_body_end_pad##pad},
const struct align_copy align_copies[] = {ALIGN_PADS(ALIGN_ENTRY)};
const unsigned align_ncopies = sizeof(align_copies) / sizeof(align_copies[0]);

static inline uint64_t rol7(uint64_t x) { return (x << 7) | (x >> 57); }

uint64_t align_reference(uint64_t iters, uint64_t seed)
{
	uint64_t a = seed, b = ~seed, c = seed + 1, d = seed + 2, e = seed + 3, f = seed + 4;
	for (uint64_t i = 0; i < iters; i++) {
		a += 0x3c6ef372;
		b ^= a;
		c += 0x7f4a7c15;
		d = rol7(d) ^ c;
		e += b;
		f = (f - 0x1234567) ^ e;
	}
	return a ^ b ^ c ^ d ^ e ^ f;
}
