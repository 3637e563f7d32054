# `make bench-suite`: measure the suite against its performance targets
# (quick < 60 s, full < 10 min, noise <= 5 %, clock vDSO/syscall >= 5x on
# tsc, memcpy 10 MiB within 20 % of streamcopy) and print the figures.
# BENCH_SUITE_FULL=false skips the (up to 10 minute) full-profile timing.

BENCH_SUITE_DIR  ?= $(BUILD)/bench-suite
BENCH_SUITE_FULL ?= true
BENCH_SUITE_BIN  := $(BUILD)/tools/benchsuite

.PHONY: bench-suite

$(BENCH_SUITE_BIN): $(GO_SOURCES)
	@mkdir -p $(@D)
	cd $(GO_SRC) && $(GO) build -o $(abspath $@) ./cmd/benchsuite

bench-suite: bench $(BENCHSTAT) $(BENCH_SUITE_BIN) ## Time quick/full runs, measure noise, clock ratio and memcpy vs streamcopy; print the report
	$(BENCH_SUITE_BIN) --bench-dir $(BENCH_OUT) --benchstat $(BENCHSTAT) --out-dir $(BENCH_SUITE_DIR) --full=$(BENCH_SUITE_FULL)
