/* Sizing and allocation of the fence buffers. */
#ifndef FENCE_MEMORY_H
#define FENCE_MEMORY_H

#include <stdint.h>

#include "kernels.h"

#define FENCE_LLC_MULTIPLE 4                  /* LLC buffer = this many times the L3 */
#define FENCE_CAP_BYTES (1ull << 30)          /* and never more than 1 GiB ... */
#define FENCE_CAP_MEM_DIVISOR 8               /* ... or 1/8 of MemAvailable */
#define FENCE_TLB_PAGES 16384                 /* 64 MiB of 4 KiB pages: beyond any STLB's reach */
#define FENCE_L3_FALLBACK (32ull << 20)

struct fence_sizing {
	uint64_t l3_bytes;
	char l3_source[160];
	uint64_t llc_bytes;
	uint64_t tlb_pages;
	char cap_note[160];
};

/* "32768K" -> 33554432; 0 when the text is not a size. */
uint64_t fence_parse_cache_size(const char *text);
/* Largest power of two <= x (x > 0). */
uint64_t fence_pow2_floor(uint64_t x);
/* Decide the sizes from an L3 size (0 = unknown) and the memory available
 * (0 = unknown), named by mem_source in the note. */
void fence_size(struct fence_sizing *s, uint64_t l3_bytes, uint64_t mem_available, const char *mem_source);
/* The per-CPU shared L3 from sysfs (0 when absent), with where it came from. */
uint64_t fence_sysfs_l3(char *source, unsigned source_len);
/* The room under this process's tightest cgroup memory limit (0 = none). */
uint64_t fence_cgroup_room(void);
/* MemAvailable, or the cgroup room when that is smaller; *source names which. */
uint64_t fence_mem_available(const char **source);
/* mmap and touch both buffers; exits with a message when memory is short. */
void fence_alloc(struct fence_mem *m, const struct fence_sizing *s);
void fence_free(struct fence_mem *m);
/* *copy = *m with a TLB buffer of its own: new pages and page tables, another
 * draw of where they sit in the caches (docs/noise.md, "Noise that lives in
 * the pages"); fence_free_tlb releases it, and leaves the shared LLC buffer. */
void fence_place_tlb_again(struct fence_mem *copy, const struct fence_mem *m);
void fence_free_tlb(struct fence_mem *m);

#endif
