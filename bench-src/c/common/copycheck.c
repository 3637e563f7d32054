#include "copycheck.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "aligned_map.h"

#define PAGE 4096u

static size_t round_up(size_t x, size_t to)
{
	return (x + to - 1) / to * to;
}

int copy_arena_init(struct copy_arena *a, size_t max_n, char *why, size_t whylen)
{
	/* One spare page per slot leaves room for the per-slot page offsets. */
	a->max_n = max_n;
	a->stride = round_up(max_n, PAGE) + PAGE;
	a->len = a->stride * 2 * COPY_SLOTS;
	/* Aligned, so the slots' address bits are the same in every process
	 * (aligned_map.h): ASLR no longer decides how fast a small copy is. */
	a->base = vmp_map_aligned(a->len, why, whylen);
	if (!a->base)
		return -1;
	/* xorshift64: cheap, and no byte value or period lines up with the
	 * sizes or offsets we copy, so a shifted copy cannot match by chance. */
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int slot = 0; slot < COPY_SLOTS; slot++) {
		uint64_t *src = (uint64_t *)(a->base + 2 * slot * a->stride);
		for (size_t i = 0; i < a->stride / sizeof(*src); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			src[i] = x;
		}
		/* Fault the destination in now, not inside a timed copy. */
		memset(a->base + (2 * slot + 1) * a->stride, 0x5a, a->stride);
	}
	return 0;
}

void copy_arena_free(struct copy_arena *a)
{
	if (a->base)
		munmap(a->base, a->len);
	a->base = NULL;
}

/* The largest slot page offset copy_set_place uses, and the distance between
 * placements: n rounded up to whole pages, plus a page, so that no two
 * placements share a page. */
#define SLOT_OFFSET 256u

static size_t placement_step(size_t n)
{
	return round_up(n, PAGE) + PAGE;
}

int copy_placements(const struct copy_arena *a, size_t n, int want)
{
	size_t last_off = (size_t)(COPY_SLOTS - 1) * SLOT_OFFSET;

	if (want < 1 || n + last_off > a->stride)
		return 1;
	size_t fit = (a->stride - n - last_off) / placement_step(n) + 1;
	return fit < (size_t)want ? (int)fit : want;
}

void copy_set_place_at(struct copy_set *s, const struct copy_arena *a, size_t n, int p)
{
	size_t shift = (size_t)p * placement_step(n);

	s->n = n;
	s->next = 0;
	for (int slot = 0; slot < COPY_SLOTS; slot++) {
		/* Each slot at its own page offset, so the pairs do not share cache
		 * sets.  Within a pair dst and src keep the same page offset: a
		 * small distance (dst - src) mod 4096 would make a forward copy's
		 * loads falsely wait on its own earlier stores (4K aliasing), a
		 * penalty of the layout and not of the copy being measured. */
		size_t off = shift + (size_t)slot * SLOT_OFFSET;
		s->src[slot] = a->base + 2 * slot * a->stride + off;
		s->dst[slot] = a->base + (2 * slot + 1) * a->stride + off;
	}
	uint64_t h = 0x2545F4914F6CDD1Dull ^ n;
	for (int i = 0; i < COPY_SAMPLES; i++) {
		h = h * 6364136223846793005ull + 1442695040888963407ull;
		s->sample[i] = (size_t)((h >> 33) % n);
	}
}

void copy_set_place(struct copy_set *s, const struct copy_arena *a, size_t n)
{
	copy_set_place_at(s, a, n, 0);
}

uint64_t copy_batch(copy_fn const volatile *fn, struct copy_set *s, uint64_t k)
{
	const size_t n = s->n, last = n - 1;
	uint64_t bad = 0, c = s->next;

	for (uint64_t i = 0; i < k; i++, c++) {
		unsigned slot = (unsigned)(c % COPY_SLOTS);
		const unsigned char *src = s->src[slot];
		unsigned char *dst = s->dst[slot];
		size_t mid = s->sample[c % COPY_SAMPLES];

		dst[0] = (unsigned char)~src[0];
		dst[mid] = (unsigned char)~src[mid];
		dst[last] = (unsigned char)~src[last];
		(*fn)(dst, src, n);
		bad += (dst[0] != src[0]) | (dst[mid] != src[mid]) | (dst[last] != src[last]);
	}
	s->next = c;
	return bad;
}

static int compare_slot(const struct copy_set *s, int slot, char *why, size_t whylen)
{
	const unsigned char *src = s->src[slot], *dst = s->dst[slot];

	if (memcmp(dst, src, s->n) == 0)
		return 0;
	size_t i = 0;
	while (dst[i] == src[i])
		i++;
	snprintf(why, whylen, "copy of %zu bytes (slot %d): byte %zu is 0x%02x, expected 0x%02x",
		 s->n, slot, i, dst[i], src[i]);
	return -1;
}

/* dst = ~src, eight bytes at a time: this runs over up to 64 MiB per slot
 * and size, outside the timing but inside the profile's time budget. */
static void poison(unsigned char *dst, const unsigned char *src, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;
		memcpy(&w, src + i, 8);
		w = ~w;
		memcpy(dst + i, &w, 8);
	}
	for (; i < n; i++)
		dst[i] = (unsigned char)~src[i];
}

int copy_verify_full(copy_fn const volatile *fn, struct copy_set *s, char *why, size_t whylen)
{
	for (int slot = 0; slot < COPY_SLOTS; slot++) {
		unsigned char *dst = s->dst[slot];
		const unsigned char *src = s->src[slot];

		poison(dst, src, s->n);
		(*fn)(dst, src, s->n);
		if (compare_slot(s, slot, why, whylen) != 0)
			return -1;
	}
	return 0;
}

int copy_compare_all(const struct copy_set *s, char *why, size_t whylen)
{
	for (int slot = 0; slot < COPY_SLOTS; slot++)
		if (compare_slot(s, slot, why, whylen) != 0)
			return -1;
	return 0;
}
