/* align: one hot loop, assembled once per pad, each copy starting `pad`
 * bytes past a 64-byte boundary. The bytes of the loop are identical in
 * every copy (its only branch is relative), and the padding is jumped over,
 * so every copy executes exactly the same instructions: only the code's
 * position differs.
 *
 *   uint64_t align_loop_padN(uint64_t iters, uint64_t seed)
 *
 * Six short dependency chains per iteration keep the back end far from
 * saturated, so the loop runs as fast as the front end can deliver it —
 * which is what code placement changes (seed 003: DSB/MITE switches). */

	/* The object's file symbol, which would otherwise be the name of gcc's
	 * temporary object, "cc" and six random characters, new in every build. */
	.file	"loops.S"
	.text

.macro ALIGN_LOOP pad
	.p2align 6
	.globl align_loop_pad\pad
	.type align_loop_pad\pad, @function
align_loop_pad\pad:
	mov	%rdi, %rcx
	mov	%rsi, %rax		/* a = seed */
	mov	%rsi, %rdx
	not	%rdx			/* b = ~seed */
	lea	1(%rsi), %r8		/* c = seed + 1 */
	lea	2(%rsi), %r9		/* d = seed + 2 */
	lea	3(%rsi), %r10		/* e = seed + 3 */
	lea	4(%rsi), %r11		/* f = seed + 4 */
	test	%rcx, %rcx
	jz	align_done_pad\pad
	jmp	align_body_pad\pad
	.p2align 6, 0xcc
	.fill	\pad, 1, 0x90
	.globl align_body_pad\pad
align_body_pad\pad:
	add	$0x3c6ef372, %rax	/* a += 0x3c6ef372 */
	xor	%rax, %rdx		/* b ^= a */
	add	$0x7f4a7c15, %r8	/* c += 0x7f4a7c15 */
	rol	$7, %r9			/* d = rol(d, 7) ^ c */
	xor	%r8, %r9
	add	%rdx, %r10		/* e += b */
	sub	$0x1234567, %r11	/* f = (f - 0x1234567) ^ e */
	xor	%r10, %r11
	dec	%rcx
	jnz	align_body_pad\pad
	.globl align_body_end_pad\pad
align_body_end_pad\pad:
align_done_pad\pad:
	xor	%rdx, %rax		/* return a ^ b ^ c ^ d ^ e ^ f */
	xor	%r8, %rax
	xor	%r9, %rax
	xor	%r10, %rax
	xor	%r11, %rax
	ret
	.size align_loop_pad\pad, . - align_loop_pad\pad
.endm

/* Keep in step with ALIGN_PADS in loops.h. */
	ALIGN_LOOP 0
	ALIGN_LOOP 1
	ALIGN_LOOP 2
	ALIGN_LOOP 4
	ALIGN_LOOP 8
	ALIGN_LOOP 16
	ALIGN_LOOP 24
	ALIGN_LOOP 32
	ALIGN_LOOP 40
	ALIGN_LOOP 48
	ALIGN_LOOP 56
	ALIGN_LOOP 60
	ALIGN_LOOP 62

	.section .note.GNU-stack, "", @progbits
