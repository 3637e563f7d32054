# The vmparity Python package: its tests and the compare benchmark.

PY_TESTS        ?= $(wildcard tests/test_*.py)
BENCH_COMPARE_LINES ?= 100000
BENCH_COMPARE_DIR   ?= $(BUILD)/bench-compare
# bench-memory: the size of the big result files, and the largest peak RSS of
# `vmparity compare` allowed, in multiples of the largest file it reads.
BENCH_MEMORY_MB     ?= 50
BENCH_MEMORY_LIMIT  ?= 2
BENCH_MEMORY_DIR    ?= $(BUILD)/bench-memory

.PHONY: test-py bench-compare bench-memory

CHECK_TARGETS += test-py

test-py: $(STAMPS)/venv $(BENCHSTAT) ## Run the vmparity Python tests (parser, stats vs benchstat, golden files, bad input, fuzz)
	BENCHSTAT=$(BENCHSTAT) $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) $(PY_TESTS)

bench-compare: $(STAMPS)/venv $(BENCHSTAT) ## Time `vmparity compare` against benchstat on two files of 100,000 result lines
	BENCHSTAT=$(BENCHSTAT) $(PY) tests/perf_compare.py --lines $(BENCH_COMPARE_LINES) --dir $(BENCH_COMPARE_DIR)

bench-memory: $(STAMPS)/venv $(BENCHSTAT) ## Peak RSS of `vmparity compare` on 50 MB result files (against a small one, and against another); fails over 2x the largest
	BENCHSTAT=$(BENCHSTAT) $(PY) tests/perf_memory.py --megabytes $(BENCH_MEMORY_MB) --limit $(BENCH_MEMORY_LIMIT) --dir $(BENCH_MEMORY_DIR)
