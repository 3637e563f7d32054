/* The seed-000 buffer: fixed-size entries appended to a 16 KiB in-memory
 * buffer that is written to a file with pwrite(2) whenever it is full. */
#ifndef STOREFWD_BUFFER_H
#define STOREFWD_BUFFER_H

#include <stdint.h>

#define SF_BUFFER_BYTES 16384   /* 585 entries of 28 B, 512 of 32 B: the seed's 171 / 196 flushes */
#define SF_ENTRIES_PER_OP 100000 /* one op appends this many entries, as in the seed */
#define SF_LINE 64               /* cache line: every region below starts on one */
/* The flushes write the file as a ring of this many bytes: each op starts at
 * offset 0, as the seed's Seek(0, io.SeekStart) does, and a flush that would
 * pass the end starts again at 0. Written straight on, an op's 2.8-3.2 MB of
 * file would live in the last-level cache, which the other cores (and, in a
 * cloud VM, other tenants) share: with an 8 MB copy running on the other CPU
 * of a 2-CPU machine, every case cost 8-13 % more, and the lab's A/A pair
 * differed by 12-24 % from round to round. A 256 KiB ring stays in the core's
 * own L2 with the buffer: the same syscalls, bytes and flushes, 1-2 % more
 * under that copy (docs/noise.md). storefwd-file-bytes records it. */
#define SF_FILE_BYTES (256 * 1024)

/* Everything the append kernels touch lives in this one static object, at
 * offsets fixed when the program is linked: the entry they copy, the overlap
 * form's temporary and the buffer. On the stack these would land wherever
 * the environment, argv and ASLR put the stack (16-byte steps), and where
 * the temporary falls in its cache line changes how often the CPU blocks
 * forwarding to it by 2x (1.7 to 3.8 blocks per 28-byte entry measured on
 * one machine): an accident of the process, not a property of the target.
 * storefwd-page-offsets records where the regions are. */
struct sf_buffer {
	int fd;               /* the file flushes write to (sf_open_file) */
	unsigned size;        /* entry size in bytes: 28 or 32 */
	unsigned cap;         /* entries that fit in the buffer */
	unsigned n;           /* entries in the buffer now */
	uint64_t flushes;
	size_t pos;           /* where the next flush writes in the file (the ring above) */
	uint64_t written;     /* bytes written to the file since sf_init */
	unsigned char ent[32] __attribute__((aligned(SF_LINE)));  /* the entry appended, size bytes used */
	unsigned char tmp[32] __attribute__((aligned(SF_LINE)));  /* the overlap form's temporary */
	unsigned char buf[SF_BUFFER_BYTES] __attribute__((aligned(SF_LINE)));
};

/* Append count copies of b->ent (b->size bytes) to b.
 *  overlap: the entry is first copied to b->tmp with two 16-byte stores (at
 *           0 and size-16, so they overlap by 4 bytes for 28 B), then loaded
 *           back from there: the load that spans both stores cannot be
 *           forwarded from the store buffer.
 *  fresh:   the entry goes straight from b->ent into the buffer. */
typedef void (*sf_append_fn)(struct sf_buffer *b, uint64_t count);
void sf_append_overlap28(struct sf_buffer *b, uint64_t count);
void sf_append_overlap32(struct sf_buffer *b, uint64_t count);
void sf_append_fresh28(struct sf_buffer *b, uint64_t count);
void sf_append_fresh32(struct sf_buffer *b, uint64_t count);

/* The file the buffer is flushed to: a memfd, so that every target writes
 * through the same kernel path (shmem) whatever file system its TMPDIR is
 * on. A 16 KiB write to a file under /tmp costs 20-35 % more on a
 * container's overlayfs than on the host's ext4, and the flushes are most of
 * a fresh entry's time: the rows would measure the scratch file's location. */
int sf_open_file(void);
/* An empty buffer for entries of size bytes writing to fd; the entry gets
 * the size's byte pattern. */
void sf_init(struct sf_buffer *b, int fd, unsigned size);
void sf_flush(struct sf_buffer *b);  /* writes what is buffered, if anything, at b->pos */
/* Back to the file's offset 0, as every op starts (the seed's Seek). */
void sf_rewind(struct sf_buffer *b);

#endif
