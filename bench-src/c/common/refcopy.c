#include "refcopy.h"

#include <emmintrin.h>

void *vmp_reference_copy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)(s + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + i + 48));
		_mm_storeu_si128((__m128i *)(d + i), a);
		_mm_storeu_si128((__m128i *)(d + i + 16), b);
		_mm_storeu_si128((__m128i *)(d + i + 32), c);
		_mm_storeu_si128((__m128i *)(d + i + 48), e);
	}
	for (; i < n; i++)
		d[i] = s[i];
	return dst;
}
