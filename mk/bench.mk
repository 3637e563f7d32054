# `make bench`: every benchmark binary into $(BENCH_OUT) plus MANIFEST.sha256.
# The fragments bench-*.mk (read before this file) append to BENCH_BINS.

.PHONY: bench

bench: $(BENCH_OUT)/MANIFEST.sha256 ## Build every benchmark binary into build/bench with MANIFEST.sha256

$(BENCH_OUT)/MANIFEST.sha256: $(BENCH_BINS)
	@mkdir -p $(@D)
	cd $(BENCH_OUT) && sha256sum $(sort $(notdir $(BENCH_BINS))) > $(@F).tmp && mv $(@F).tmp $(@F)
	@echo "bench: $(words $(BENCH_BINS)) binaries in $(BENCH_OUT), manifest $(@)"
