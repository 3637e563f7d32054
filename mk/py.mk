# The vmparity Python package: its tests and the compare benchmark.

PY_TESTS        ?= $(wildcard tests/test_*.py)
BENCH_COMPARE_LINES ?= 100000
BENCH_COMPARE_DIR   ?= $(BUILD)/bench-compare

.PHONY: test-py bench-compare

TEST_TARGETS += test-py

test-py: $(STAMPS)/venv $(BENCHSTAT) ## Run the vmparity Python tests (parser, stats vs benchstat, golden files, bad input, fuzz)
	BENCHSTAT=$(BENCHSTAT) $(PY) -m pytest -q -p no:cacheprovider $(PY_TESTS)

bench-compare: $(STAMPS)/venv $(BENCHSTAT) ## Time `vmparity compare` against benchstat on two files of 100,000 result lines
	BENCHSTAT=$(BENCHSTAT) $(PY) tests/perf_compare.py --lines $(BENCH_COMPARE_LINES) --dir $(BENCH_COMPARE_DIR)
