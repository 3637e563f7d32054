/* The reference copy: a plain copy loop, independent of glibc, that memcpy's
 * large copies are timed against, batch by batch (copymeasure.h), and that
 * streamcopy reports as its `sse2` kernel. */
#ifndef VMP_REFCOPY_H
#define VMP_REFCOPY_H

#include <stddef.h>

/* STREAM "Copy" with 16-byte vectors, 64 bytes per iteration, ordinary
 * (cache-allocating) stores.  Only SSE2, the x86_64 baseline: the same binary
 * must run on every target, including TCG guests whose emulated CPU lacks AVX.
 * Of the three glibc-free loops streamcopy has, this one tracked memcpy's
 * 4-16 MiB copies most closely through the host's memory spells
 * (docs/noise.md, "Large copies at an equal memory bandwidth"). */
void *vmp_reference_copy(void *dst, const void *src, size_t n);

/* Copies of at least this many bytes are timed against the reference: from
 * here on they leave the core's own caches, and the shared last-level cache
 * and memory, which other tenants use too, set their speed. */
#define VMP_REFERENCE_MIN_SIZE ((size_t)4 << 20)

/* ... and take at least this many batches: the ratio is a median of pairs,
 * and of five (a lab part's share of a 16 MiB copy) it moved by 10 % from one
 * process to the next here, of 10 to 18 by 4 to 8 %. */
#define VMP_REFERENCE_MIN_BATCHES 9u

#endif
