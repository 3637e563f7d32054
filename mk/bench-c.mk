# The C benchmarks: memcpy (static and dynamic), clock and streamcopy, and
# the seed microbenchmarks storefwd, fence and align.  Each program's
# sources are in bench-src/c/<program>/, plus the shared bench-src/c/common/.

BENCH_C_SRC    ?= $(ROOT)/bench-src/c
BENCH_CC       ?= gcc
# No -march: the same binary runs on every target, TCG guests included.
BENCH_CFLAGS   ?= -O2 -Wall -Wextra -Werror -std=gnu11
BENCH_C_TEST   ?= $(BUILD)/test-bench-c

BENCH_C_COMMON := $(wildcard $(BENCH_C_SRC)/common/*.c $(BENCH_C_SRC)/common/*.h)
bench_c_srcs    = $(wildcard $(BENCH_C_SRC)/$(1)/*.c $(BENCH_C_SRC)/$(1)/*.h $(BENCH_C_SRC)/$(1)/*.S) \
  $(BENCH_C_COMMON) mk/bench-c.mk

BENCH_C_BINS := $(BENCH_OUT)/memcpy-static $(BENCH_OUT)/memcpy-dynamic \
  $(BENCH_OUT)/clock $(BENCH_OUT)/streamcopy \
  $(BENCH_OUT)/storefwd $(BENCH_OUT)/fence $(BENCH_OUT)/align
BENCH_BINS += $(BENCH_C_BINS)
CHECK_TARGETS += test-bench-c

.PHONY: bench-c test-bench-c

bench-c: $(BENCH_C_BINS) ## Build the C benchmarks (memcpy-static, memcpy-dynamic, clock, streamcopy, storefwd, fence, align)

# Compile to a temporary name first: a failed build never leaves a binary
# that make would later take as up to date. The checkout's path is mapped
# out of the debug info (-g) and __FILE__, so that the same sources give the
# same bytes in any checkout: an A/B run's BASE worktree (build/ab/src) of
# the working tree's commit builds binaries identical to HEAD's, and
# MANIFEST~base.sha256 differs from MANIFEST.sha256 only where the code does.
define bench_c_link
	@mkdir -p $(@D)
	$(BENCH_CC) $(BENCH_CFLAGS) -ffile-prefix-map=$(ROOT)=. $(1) -o $@.tmp $(filter %.c %.S,$^)
	mv $@.tmp $@
endef

# Static: bit-identical on every target, so only the environment differs.
$(BENCH_OUT)/memcpy-static: $(call bench_c_srcs,memcpy)
	$(call bench_c_link,-static)

# Dynamic: measures the target's own glibc.
$(BENCH_OUT)/memcpy-dynamic: $(call bench_c_srcs,memcpy)
	$(call bench_c_link,)

# Dynamic on purpose (the libc path must be the target's libc): see clock/main.c.
$(BENCH_OUT)/clock: $(call bench_c_srcs,clock)
	$(call bench_c_link,)

$(BENCH_OUT)/streamcopy: $(call bench_c_srcs,streamcopy)
	$(call bench_c_link,)

# The seed microbenchmarks are static so that one binary runs unchanged on
# metal, in the guests and in the containers; -g keeps the symbols
# check_disasm.py finds the kernels by.
$(BENCH_OUT)/storefwd: $(call bench_c_srcs,storefwd)
	$(call bench_c_link,-g -static)

$(BENCH_OUT)/fence: $(call bench_c_srcs,fence)
	$(call bench_c_link,-g -static)

$(BENCH_OUT)/align: $(call bench_c_srcs,align)
	$(call bench_c_link,-g -static)

test-bench-c: $(BENCH_C_BINS) $(BENCHSTAT) $(STAMPS)/venv ## Self-test the C benchmarks, check their disassembly and that a smoke run of each passes `vmparity check` and benchstat
	$(BENCH_C_SRC)/test-bench-c.sh $(BENCH_OUT) $(BENCHSTAT) $(VMPARITY) $(BENCH_C_TEST)
