/* Anonymous mappings at the same address bits in every process. */
#ifndef VMP_ALIGNED_MAP_H
#define VMP_ALIGNED_MAP_H

#include <stddef.h>

/* Maps len bytes (read-write, private, anonymous) at an address aligned to
 * the smallest power of two that holds them, so every address bit below
 * that power is the same in every process, whatever ASLR drew.  Why: on the
 * AMD EPYC guest the lab runs on, a 10 KiB copy took 135 or 180-200 ns
 * depending on where the kernel put the buffers' virtual addresses (stable
 * at 135 ns with ASLR off, `setarch -R`), a draw that made each process a
 * coin toss; the cache and way-predictor hashes of the buffers' lines
 * depend on those bits.  Only the aligned part is ever mapped read-write;
 * the reservation around it is PROT_NONE and released at once, so no more
 * memory is committed than len.  Returns NULL and says why on failure;
 * *align (if not NULL) gets the alignment used. */
void *vmp_map_aligned(size_t len, size_t *align, char *why, size_t whylen);

/* The smallest power of two >= len (and >= one page): the alignment
 * vmp_map_aligned gives a mapping of len bytes. */
size_t vmp_map_alignment(size_t len);

#endif
