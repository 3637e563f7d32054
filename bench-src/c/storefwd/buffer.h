/* The seed-000 buffer: fixed-size entries appended to a 16 KiB in-memory
 * buffer that is written to a file with write(2) whenever it is full. */
#ifndef STOREFWD_BUFFER_H
#define STOREFWD_BUFFER_H

#include <stdint.h>

#define SF_BUFFER_BYTES 16384   /* 585 entries of 28 B, 512 of 32 B: the seed's 171 / 196 flushes */
#define SF_ENTRIES_PER_OP 100000 /* one op appends this many entries, as in the seed */

struct sf_buffer {
	int fd;
	unsigned size;        /* entry size in bytes: 28 or 32 */
	unsigned cap;         /* entries that fit in the buffer */
	unsigned n;           /* entries in the buffer now */
	uint64_t flushes;
	unsigned char buf[SF_BUFFER_BYTES] __attribute__((aligned(64)));
};

/* Append count entries equal to ent (size bytes) to b.
 *  overlap: ent is first copied to a stack temporary with two 16-byte
 *           stores (at 0 and size-16, so they overlap by 4 bytes for 28 B),
 *           then loaded back from there: the load that spans both stores
 *           cannot be forwarded from the store buffer.
 *  fresh:   the entry goes straight from its source into the buffer. */
typedef void (*sf_append_fn)(struct sf_buffer *b, const unsigned char *ent, uint64_t count);
void sf_append_overlap28(struct sf_buffer *b, const unsigned char *ent, uint64_t count);
void sf_append_overlap32(struct sf_buffer *b, const unsigned char *ent, uint64_t count);
void sf_append_fresh28(struct sf_buffer *b, const unsigned char *ent, uint64_t count);
void sf_append_fresh32(struct sf_buffer *b, const unsigned char *ent, uint64_t count);

void sf_init(struct sf_buffer *b, int fd, unsigned size);
void sf_flush(struct sf_buffer *b);  /* writes what is buffered, if anything */

#endif
