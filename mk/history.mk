# vmparity history: the index, change points and their benchmark.

BENCH_HISTORY_RUNS ?= 1000
BENCH_HISTORY_ROWS ?= 300
BENCH_HISTORY_DIR  ?= $(BUILD)/bench-history
BENCH_HISTORY_SEED ?= 12

.PHONY: bench-history

bench-history: $(STAMPS)/venv ## Time `vmparity history` over 1,000 synthetic runs x 300 rows (warm < 2 s, cold index < 60 s) and check its change points
	$(PY) tests/perf_history.py --runs $(BENCH_HISTORY_RUNS) --rows $(BENCH_HISTORY_ROWS) --dir $(BENCH_HISTORY_DIR) --seed $(BENCH_HISTORY_SEED)
