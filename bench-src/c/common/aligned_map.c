#include "aligned_map.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

size_t vmp_map_alignment(size_t len)
{
	size_t align = 4096;

	while (align < len)
		align <<= 1;
	return align;
}

void *vmp_map_aligned(size_t len, char *why, size_t whylen)
{
	len = (len + 4095) & ~(size_t)4095;   /* whole pages, as mmap maps them */
	size_t align = vmp_map_alignment(len);
	size_t span = len + align;
	/* Reserve room for any aligned start, committing nothing... */
	unsigned char *raw = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (raw == MAP_FAILED) {
		snprintf(why, whylen, "reserving %zu bytes of address space: %s", span, strerror(errno));
		return NULL;
	}
	uintptr_t start = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
	/* ...then map the aligned part read-write in its place. */
	void *p = mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED) {
		snprintf(why, whylen, "mmap of %zu bytes at a %zu-byte boundary: %s", len, align, strerror(errno));
		munmap(raw, span);
		return NULL;
	}
	if (start > (uintptr_t)raw)
		munmap(raw, start - (uintptr_t)raw);
	uintptr_t end = start + len, raw_end = (uintptr_t)raw + span;
	if (raw_end > end)
		munmap((void *)end, raw_end - end);
	return p;
}
