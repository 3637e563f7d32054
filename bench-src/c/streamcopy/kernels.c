#include "kernels.h"

#include "../common/refcopy.h"

#include <emmintrin.h>
#include <stdint.h>

/* Only SSE2, the x86_64 baseline: the same binary must run on every target,
 * including TCG guests whose emulated CPU lacks AVX. */

static void tail(unsigned char *d, const unsigned char *s, size_t from, size_t n)
{
	for (size_t i = from; i < n; i++)
		d[i] = s[i];
}

/* The reference copy's loop (common/refcopy.c) with non-temporal stores
 * (movntdq), which bypass the caches: what glibc switches to above x86_non_temporal_threshold. */
static void *copy_sse2_nt(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i = 0;

	/* movntdq needs 16-byte aligned stores. */
	size_t head = (16 - ((uintptr_t)d & 15)) & 15;
	if (head > n)
		head = n;
	tail(d, s, 0, head);
	for (i = head; i + 64 <= n; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
		_mm_stream_si128((__m128i *)(d + i), a);
		_mm_stream_si128((__m128i *)(d + i + 16), b);
		_mm_stream_si128((__m128i *)(d + i + 32), c);
		_mm_stream_si128((__m128i *)(d + i + 48), e);
	}
	_mm_sfence();
	tail(d, s, i, n);
	return dst;
}

/* rep movsb: the microcoded string copy (fast with the erms/fsrm flags). */
static void *copy_rep_movsb(void *dst, const void *src, size_t n)
{
	void *d = dst;

	__asm__ volatile("rep movsb" : "+D"(d), "+S"(src), "+c"(n) : : "memory");
	return dst;
}

/* sse2 is the reference copy itself, which memcpy's large copies are timed against. */
const struct copy_kernel copy_kernels[] = {
	{ "sse2", vmp_reference_copy },
	{ "sse2-nt", copy_sse2_nt },
	{ "rep-movsb", copy_rep_movsb },
};
const int copy_nkernels = sizeof(copy_kernels) / sizeof(copy_kernels[0]);
