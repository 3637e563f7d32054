# vmparity history: the index, change points and their benchmark.

BENCH_HISTORY_RUNS ?= 1000
BENCH_HISTORY_ROWS ?= 300
BENCH_HISTORY_DIR  ?= $(BUILD)/bench-history
BENCH_HISTORY_SEED ?= 12
# the seeded synthetic histories the change points are scored on (40 rows x 80 runs each), beside Apache Otava
BENCH_HISTORY_QUALITY_SEEDS ?= 1,2,3,4

.PHONY: bench-history

bench-history: $(STAMPS)/venv $(STAMPS)/bench-extra ## Time `vmparity history` over 1,000 synthetic runs x 300 rows (warm < 2 s) and score its change points beside Apache Otava's (recall by size, placement, false ones; a regression fixed 5-25 runs later)
	$(PY) tests/perf_history.py --runs $(BENCH_HISTORY_RUNS) --rows $(BENCH_HISTORY_ROWS) --dir $(BENCH_HISTORY_DIR) --seed $(BENCH_HISTORY_SEED)
	$(PY) tests/perf_history_quality.py --seeds $(BENCH_HISTORY_QUALITY_SEEDS)

# Apache Otava, the change-point detector bench-history measures vmparity against: the bench extra only,
# never a dependency of vmparity itself
$(STAMPS)/bench-extra: pyproject.toml $(STAMPS)/venv
	$(PY) -m pip install -q -e '.[bench]'
	@touch $@
