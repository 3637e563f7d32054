/* Append loops of storefwd. The copies are inline assembly so that the
 * compiler cannot merge, reorder or drop the 16-byte stores that make the
 * effect; check_disasm.py verifies the built binary still has them. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../common/cli.h"
#include "buffer.h"

int sf_open_file(void)
{
	int fd = memfd_create("storefwd-buffer", MFD_CLOEXEC);
	if (fd < 0)
		vmp_die("memfd_create for the buffer file: %s", strerror(errno));
	return fd;
}

void sf_init(struct sf_buffer *b, int fd, unsigned size)
{
	b->fd = fd;
	b->size = size;
	b->cap = SF_BUFFER_BYTES / size;
	b->n = 0;
	b->flushes = 0;
	b->pos = 0;
	b->written = 0;
	memset(b->ent, 0, sizeof(b->ent));
	for (unsigned k = 0; k < size; k++)
		b->ent[k] = (unsigned char)(0x11 + 3 * k);
}

__attribute__((noinline)) void sf_flush(struct sf_buffer *b)
{
	size_t len = (size_t)b->n * b->size, done = 0;
	if (len == 0)
		return;
	if (b->pos + len > SF_FILE_BYTES)
		b->pos = 0;
	while (done < len) {
		ssize_t w = pwrite(b->fd, b->buf + done, len - done, (off_t)(b->pos + done));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			vmp_die("write of %zu bytes to the buffer file failed: %s", len - done,
				  w < 0 ? strerror(errno) : "wrote nothing");
		done += (size_t)w;
	}
	b->pos += len;
	b->written += len;
	b->n = 0;
	b->flushes++;
}

void sf_rewind(struct sf_buffer *b)
{
	b->pos = 0;
}

/* ent -> tmp (two overlapping stores when SIZE is 28), tmp -> dst. */
#define SF_APPEND_OVERLAP(SIZE)                                                            \
	__attribute__((noinline)) void sf_append_overlap##SIZE(struct sf_buffer *b,        \
							       uint64_t count)             \
	{                                                                                  \
		const unsigned char *ent = b->ent;                                         \
		unsigned char *tmp = b->tmp;                                               \
		for (uint64_t i = 0; i < count; i++) {                                     \
			if (b->n == b->cap)                                                \
				sf_flush(b);                                               \
			unsigned char *dst = b->buf + (size_t)b->n * SIZE;                 \
			__asm__ volatile("movups (%[src]), %%xmm0\n\t"                     \
					 "movups %%xmm0, (%[tmp])\n\t"                     \
					 "movups %c[off](%[src]), %%xmm1\n\t"              \
					 "movups %%xmm1, %c[off](%[tmp])\n\t"              \
					 "movups (%[tmp]), %%xmm0\n\t"                     \
					 "movups %%xmm0, (%[dst])\n\t"                     \
					 "movups %c[off](%[tmp]), %%xmm1\n\t"              \
					 "movups %%xmm1, %c[off](%[dst])\n\t"              \
					 :                                                 \
					 : [src] "r"(ent), [tmp] "r"(tmp), [dst] "r"(dst), \
					   [off] "i"(SIZE - 16)                            \
					 : "xmm0", "xmm1", "memory");                      \
			b->n++;                                                            \
		}                                                                          \
	}

/* ent -> dst directly; ent was stored long ago, so nothing waits on forwarding. */
#define SF_APPEND_FRESH(SIZE)                                                              \
	__attribute__((noinline)) void sf_append_fresh##SIZE(struct sf_buffer *b,          \
							     uint64_t count)               \
	{                                                                                  \
		const unsigned char *ent = b->ent;                                         \
		for (uint64_t i = 0; i < count; i++) {                                     \
			if (b->n == b->cap)                                                \
				sf_flush(b);                                               \
			unsigned char *dst = b->buf + (size_t)b->n * SIZE;                 \
			__asm__ volatile("movups (%[src]), %%xmm0\n\t"                     \
					 "movups %c[off](%[src]), %%xmm1\n\t"              \
					 "movups %%xmm0, (%[dst])\n\t"                     \
					 "movups %%xmm1, %c[off](%[dst])\n\t"              \
					 :                                                 \
					 : [src] "r"(ent), [dst] "r"(dst), [off] "i"(SIZE - 16) \
					 : "xmm0", "xmm1", "memory");                      \
			b->n++;                                                            \
		}                                                                          \
	}

SF_APPEND_OVERLAP(28)
SF_APPEND_OVERLAP(32)
SF_APPEND_FRESH(28)
SF_APPEND_FRESH(32)
