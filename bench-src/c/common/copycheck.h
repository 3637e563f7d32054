/* Verified copies: the buffers a size is copied between, a batch of copies
 * that checks every one of them, and the full byte-by-byte verification. */
#ifndef VMP_COPYCHECK_H
#define VMP_COPYCHECK_H

#include <stddef.h>
#include <stdint.h>

/* Copies alternate between COPY_SLOTS (src, dst) pairs, each pair at its own
 * page offset.  For a 10 MiB copy the four buffers span 40 MiB, more than a
 * last-level cache slice, so a large copy is not served from a cache that
 * still holds the previous copy's lines; small copies stay cache-hot as they
 * are in real programs. */
#define COPY_SLOTS 2
/* Positions checked besides the first and last byte roll through this many
 * pseudo-random offsets, so a partial copy is caught sooner or later. */
#define COPY_SAMPLES 64

typedef void *(*copy_fn)(void *, const void *, size_t);

/* One mapping holding every slot for sizes up to max_n; sources are filled
 * with a pseudo-random pattern and destinations pre-faulted once. */
struct copy_arena {
	unsigned char *base;
	size_t len, stride, max_n;
};

struct copy_set {
	size_t n;
	unsigned char *src[COPY_SLOTS], *dst[COPY_SLOTS];
	size_t sample[COPY_SAMPLES];
	uint64_t next;   /* copies done so far: picks the slot and the sample */
};

int copy_arena_init(struct copy_arena *a, size_t max_n, char *why, size_t whylen);
void copy_arena_free(struct copy_arena *a);

/* Places a copy set of n <= a->max_n bytes in the arena. */
void copy_set_place(struct copy_set *s, const struct copy_arena *a, size_t n);

/* How many placements of n bytes, each on pages of its own, fit in the arena
 * (1 to want).  The time of a small copy depends on which physical pages its
 * buffers happen to get: measured here (an AMD EPYC guest), one placement in
 * three ran a 256-byte copy 40 % slower for as long as it lived, and a new
 * mapping drew again.  One placement per process made every repetition a
 * coin toss; several placements per size let the measurement see past it. */
int copy_placements(const struct copy_arena *a, size_t n, int want);

/* copy_set_place at placement p (0 <= p < copy_placements(a, n, ...)):
 * the same slots and page offsets, moved to pages no other placement uses. */
void copy_set_place_at(struct copy_set *s, const struct copy_arena *a, size_t n, int p);

/* k copies through *fn, each checked: before the copy the destination bytes
 * at offsets 0, n-1 and a rolling sample are set to the complement of the
 * source bytes, after it they must equal the source.  Only destination bytes
 * are poisoned (never the source), so the copy's loads never wait on a
 * store-forwarding stall we caused.  fn is read through a volatile pointer
 * on every copy so the compiler cannot inline or hoist the copy.  Returns
 * the number of copies that failed their check. */
uint64_t copy_batch(copy_fn const volatile *fn, struct copy_set *s, uint64_t k);

/* Poisons every destination byte of every slot, copies each slot once
 * through *fn and compares all n bytes.  Returns 0, or -1 with the first
 * wrong byte described in why. */
int copy_verify_full(copy_fn const volatile *fn, struct copy_set *s, char *why, size_t whylen);

/* Compares all n bytes of every slot as they are now (after timing). */
int copy_compare_all(const struct copy_set *s, char *why, size_t whylen);

#endif
