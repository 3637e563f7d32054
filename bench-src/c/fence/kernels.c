/* The nine fence kernels, generated from one loop shape so that only the
 * barrier differs between the three versions of each work. The barriers
 * are inline assembly; check_disasm.py checks the binary holds them. */
#include <string.h>

#include "kernels.h"

volatile uint32_t fence_lock_word __attribute__((aligned(64)));
static volatile uint64_t fence_foo __attribute__((aligned(64)));  /* cached "lock owner" store, as in the seed */

/* Index from the iteration number alone: the loads are independent, so the
 * plain loop can overlap its misses and a barrier's cost shows in full. */
static inline uint64_t mix(uint64_t x)
{
	x *= 0x9e3779b97f4a7c15ull;
	return x ^ (x >> 29);
}

/* One line per random 64-byte line of the LLC buffer. */
#define WORK_llc(m, i, salt, acc) (acc) += (m)->llc[(mix((i) ^ (salt)) & ((m)->llc_lines - 1)) * 8]
/* One word in a random 4 KiB page, at a line offset that varies with the
 * page so that the lines spread over the cache sets. */
#define WORK_tlb(m, i, salt, acc)                                                  \
	do {                                                                       \
		uint64_t pg = mix((i) ^ (salt)) & ((m)->tlb_pages - 1);            \
		(acc) += (m)->tlb[pg * 512 + (pg & 63) * 8];                       \
	} while (0)
/* A dependent chain of 64-bit divisions; the divisor is hidden from the
 * compiler so that it cannot turn the division into a multiplication. */
#define WORK_div(m, i, salt, acc) (acc) = ((acc) / div_by) + 0x8000000000000000ull + ((i) ^ (salt))

#define BARRIER_none_enter() __asm__ volatile("" ::: "memory")
#define BARRIER_none_exit() __asm__ volatile("" ::: "memory")
#define BARRIER_lock_enter() __asm__ volatile("lock incl %0" : "+m"(fence_lock_word)::"memory")
#define BARRIER_lock_exit() __asm__ volatile("lock decl %0" : "+m"(fence_lock_word)::"memory")
#define BARRIER_mfence_enter() __asm__ volatile("mfence" ::: "memory")
#define BARRIER_mfence_exit() __asm__ volatile("mfence" ::: "memory")

#define FENCE_KERNEL(work, barrier)                                                           \
	__attribute__((noinline)) uint64_t fence_##work##_##barrier(const struct fence_mem *m, \
								   uint64_t iters, uint64_t seed) \
	{                                                                                     \
		uint64_t acc = seed | 0x8000000000000000ull, div_by = 3;                      \
		__asm__ volatile("" : "+r"(div_by));                                          \
		(void)div_by, (void)m;                                                        \
		for (uint64_t i = 0; i < iters; i++) {                                        \
			WORK_##work(m, i, 0x5bd1e995ull, acc);                                \
			fence_foo = i;                                                        \
			BARRIER_##barrier##_enter();                                          \
			WORK_##work(m, i, 0xc2b2ae3d27d4eb4full, acc);                        \
			BARRIER_##barrier##_exit();                                           \
		}                                                                             \
		return acc;                                                                   \
	}

#define FENCE_KERNELS(work) FENCE_KERNEL(work, none) FENCE_KERNEL(work, lock) FENCE_KERNEL(work, mfence)
FENCE_KERNELS(llc)
FENCE_KERNELS(tlb)
FENCE_KERNELS(div)

uint64_t fence_reference(const char *work, const struct fence_mem *m, uint64_t iters, uint64_t seed)
{
	uint64_t acc = seed | 0x8000000000000000ull;
	for (uint64_t i = 0; i < iters; i++) {
		const uint64_t salts[2] = {0x5bd1e995ull, 0xc2b2ae3d27d4eb4full};
		for (int s = 0; s < 2; s++) {
			uint64_t h = mix(i ^ salts[s]);
			if (strcmp(work, "llc") == 0)
				acc += m->llc[(h & (m->llc_lines - 1)) * 8];
			else if (strcmp(work, "tlb") == 0) {
				uint64_t pg = h & (m->tlb_pages - 1);
				acc += m->tlb[pg * 512 + (pg & 63) * 8];
			} else
				acc = acc / 3 + 0x8000000000000000ull + (i ^ salts[s]);
		}
	}
	return acc;
}
