/* Anonymous mappings at the same address bits in every process. */
#ifndef VMP_ALIGNED_MAP_H
#define VMP_ALIGNED_MAP_H

#include <stddef.h>

/* Maps len bytes (read-write, private, anonymous) at a multiple of
 * vmp_map_alignment(len), so every address bit below that power of two is
 * the same in every process, whatever ASLR drew.  Why: on the AMD EPYC
 * guest the lab runs on, a 10 KiB copy took 135 or 180-200 ns depending on
 * where the kernel put the buffers' virtual addresses, for the process's
 * whole life (135 ns in every process with ASLR off, `setarch -R`); AMD's
 * L1 way predictor hashes address bits above the page, which ASLR draws
 * anew in every process.  Only the aligned part is mapped read-write: the
 * reservation around it is PROT_NONE and released at once, so no more
 * memory is committed than len.  Returns NULL and says why on failure. */
void *vmp_map_aligned(size_t len, char *why, size_t whylen);

/* The smallest power of two that holds len (at least one page). */
size_t vmp_map_alignment(size_t len);

#endif
