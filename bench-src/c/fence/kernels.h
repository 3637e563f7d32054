/* Seed 001's loops: work (a load missing the LLC, a load missing the TLB,
 * or a division) bracketed by nothing, a lock-prefixed inc/dec pair on a
 * cached word, or an mfence pair. */
#ifndef FENCE_KERNELS_H
#define FENCE_KERNELS_H

#include <stdint.h>

struct fence_mem {
	const uint64_t *llc;   /* several times the L3, transparent huge pages allowed */
	uint64_t llc_lines;    /* power of two */
	const uint64_t *tlb;   /* 4 KiB pages only */
	uint64_t tlb_pages;    /* power of two */
};

/* Each kernel runs iters iterations and returns a value that depends on
 * every load or division, so that the compiler keeps all of them. */
typedef uint64_t (*fence_kernel)(const struct fence_mem *m, uint64_t iters, uint64_t seed);

#define FENCE_DECLARE(work)                                                          \
	uint64_t fence_##work##_none(const struct fence_mem *m, uint64_t iters, uint64_t seed);   \
	uint64_t fence_##work##_lock(const struct fence_mem *m, uint64_t iters, uint64_t seed);   \
	uint64_t fence_##work##_mfence(const struct fence_mem *m, uint64_t iters, uint64_t seed);
FENCE_DECLARE(llc)
FENCE_DECLARE(tlb)
FENCE_DECLARE(div)
#undef FENCE_DECLARE

/* The lock word the lock-prefixed pair works on; 0 between iterations. */
extern volatile uint32_t fence_lock_word;

/* Plain C versions of the work with no barrier, for the self-test. */
uint64_t fence_reference(const char *work, const struct fence_mem *m, uint64_t iters, uint64_t seed);

#endif
