# The vmparity Python package: its tests and the compare benchmark.

PY_TESTS        ?= $(wildcard tests/test_*.py)
BENCH_COMPARE_LINES ?= 100000
BENCH_COMPARE_DIR   ?= $(BUILD)/bench-compare
# bench-memory: the size of the big result files, and the largest peak RSS of
# `vmparity compare` allowed, in multiples of the largest file it reads.
BENCH_MEMORY_MB     ?= 50
BENCH_MEMORY_LIMIT  ?= 2
BENCH_MEMORY_DIR    ?= $(BUILD)/bench-memory
# bench-hostile-records: extra arguments of tests/perf_hostile_records.py (--source DIR, --only ID, --limit S)
HOSTILE_ARGS        ?=
# bench-crossrun: extra arguments of tests/perf_crossrun.py (--pair BASE HEAD, --shift PCT, --seed N, --rows SHARE)
BENCH_CROSSRUN_ARGS ?=
# bench-ablation: extra arguments of tests/perf_ablation.py (--run RUN, --seeds N, --jobs N, --only in-run|across-runs)
BENCH_ABLATION_ARGS ?=

.PHONY: test-py lint-imports bench-compare bench-startup bench-memory bench-crossrun bench-ablation bench-hostile-records bench-record-memory

CHECK_TARGETS += test-py lint-imports

test-py: $(STAMPS)/venv $(BENCHSTAT) ## Run the vmparity Python tests (parser, stats vs benchstat, golden files, bad input, fuzz)
	BENCHSTAT=$(BENCHSTAT) $(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) $(PY_TESTS)

lint-imports: $(STAMPS)/venv ## Check the import direction of vmparity's stages ([tool.importlinter] in pyproject.toml, docs/architecture.md)
	$(VENV)/bin/lint-imports --no-cache --no-logo

bench-compare: $(STAMPS)/venv $(BENCHSTAT) ## Time `vmparity compare` against benchstat on two files of 100,000 result lines
	BENCHSTAT=$(BENCHSTAT) $(PY) tests/perf_compare.py --lines $(BENCH_COMPARE_LINES) --dir $(BENCH_COMPARE_DIR)

bench-startup: $(STAMPS)/venv $(BENCHSTAT) ## Time `vmparity compare` against benchstat on two small files (whole process, median; issue 57 asks <= 2x)
	BENCHSTAT=$(BENCHSTAT) $(PY) tests/perf_startup.py

bench-memory: $(STAMPS)/venv $(BENCHSTAT) ## Peak RSS of `vmparity compare` on 50 MB result files (against a small one, and against another); fails over 2x the largest
	BENCHSTAT=$(BENCHSTAT) $(PY) tests/perf_memory.py --megabytes $(BENCH_MEMORY_MB) --limit $(BENCH_MEMORY_LIMIT) --dir $(BENCH_MEMORY_DIR)

bench-crossrun: $(STAMPS)/venv ## Both error rates of comparing two runs: same-code pairs' changed rows and gate, planted slowdowns' recall (docs/noise.md)
	$(PY) tests/perf_crossrun.py $(BENCH_CROSSRUN_ARGS)

bench-ablation: $(STAMPS)/venv ## The ablation table: A/A false alarms and planted +3/+5/+10 % recall with each layer of the rule switched off, on ten stored runs (docs/method.md)
	nice $(PY) tests/perf_ablation.py $(BENCH_ABLATION_ARGS)

bench-hostile-records: $(STAMPS)/venv ## Issue 59's attack cases on the lab's records as processes: tracebacks, hangs (20 s), writes outside the run, exit 0 on garbage, peak RSS each
	$(PY) tests/perf_hostile_records.py $(HOSTILE_ARGS)

bench-record-memory: $(STAMPS)/venv ## Peak RSS of every record reader's command on hostile records against its largest legitimate input; fails over 2x
	$(PY) tests/perf_record_memory.py
