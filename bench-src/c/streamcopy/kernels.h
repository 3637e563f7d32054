/* Hand-written copy loops, independent of glibc: the reference that the
 * memcpy benchmark's large-copy bandwidth is held against. */
#ifndef VMP_STREAMCOPY_KERNELS_H
#define VMP_STREAMCOPY_KERNELS_H

#include "../common/copycheck.h"

struct copy_kernel {
	const char *name;
	copy_fn fn;
};

extern const struct copy_kernel copy_kernels[];
extern const int copy_nkernels;

#endif
