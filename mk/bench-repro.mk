# Issue 5: the seed microbenchmarks storefwd (000), fence (001) and align
# (003), from bench-src/c-repro, into $(BENCH_OUT) with the other benchmarks.
# Linked statically so that one binary runs unchanged on metal, in the
# guests and in the containers.

REPRO_SRC    ?= bench-src/c-repro
REPRO_CC     ?= gcc
REPRO_CFLAGS ?= -O2 -g -std=gnu11 -Wall -Wextra -Werror
REPRO_LDFLAGS ?= -static
# The check scripts use only the standard library, so they need no venv.
REPRO_PYTHON ?= python3
REPRO_BINS   := storefwd fence align
REPRO_COMMON := $(addprefix $(REPRO_SRC)/,cli.c tsc.c pmu.c repro.h)

BENCH_BINS += $(addprefix $(BENCH_OUT)/,$(REPRO_BINS))
TEST_TARGETS += test-bench-repro

.PHONY: bench-repro test-bench-repro

bench-repro: $(addprefix $(BENCH_OUT)/,$(REPRO_BINS)) ## Build storefwd, fence and align (seeds 000, 001, 003) into build/bench

$(BENCH_OUT)/storefwd: $(REPRO_COMMON) $(addprefix $(REPRO_SRC)/,storefwd.c storefwd_buffer.c storefwd_buffer.h)
$(BENCH_OUT)/fence: $(REPRO_COMMON) $(addprefix $(REPRO_SRC)/,fence.c fence_kernels.c fence_kernels.h fence_memory.c fence_memory.h)
$(BENCH_OUT)/align: $(REPRO_COMMON) $(addprefix $(REPRO_SRC)/,align.c align_count.c align_count.h align_copies.c align_loops.S align_loops.h)

$(addprefix $(BENCH_OUT)/,$(REPRO_BINS)):
	@mkdir -p $(@D)
	$(REPRO_CC) $(REPRO_CFLAGS) -o $@.tmp $(filter %.c %.S,$^) $(REPRO_LDFLAGS)
	mv $@.tmp $@

test-bench-repro: $(addprefix $(BENCH_OUT)/,$(REPRO_BINS)) $(BENCHSTAT) ## Self-tests, objdump checks and benchstat-parsed smoke runs of storefwd, fence, align
	@set -e; for b in $(REPRO_BINS); do echo "== $$b --self-test"; $(BENCH_OUT)/$$b --self-test; done
	$(REPRO_PYTHON) $(REPRO_SRC)/check_disasm.py $(BENCH_OUT)
	$(REPRO_PYTHON) $(REPRO_SRC)/check_smoke.py $(BENCHSTAT) $(BENCH_OUT)

.PHONY: test-repro-verdicts
TEST_TARGETS += test-repro-verdicts

test-repro-verdicts: $(STAMPS)/venv ## Unit tests of the seed scenarios, verdicts and their Markdown (tests/repro)
	$(PY) -m pytest -q -p no:cacheprovider tests/repro -m "not lab"
