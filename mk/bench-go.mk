# Go parts of the suite (bench-src/go): snowflake, envprobe, benchrun.
# Static binaries (CGO_ENABLED=0) so one build runs on metal, guests and
# containers alike; -trimpath and an empty build id keep them reproducible.

GO          ?= go
GO_SRC      ?= bench-src/go
GO_CMDS     := snowflake envprobe benchrun
GO_SOURCES  := $(shell find $(GO_SRC) -name '*.go' -o -name '*.s' -o -name 'go.mod' -o -name 'go.sum')
GO_BUILD    ?= CGO_ENABLED=0 $(GO) build -trimpath -ldflags='-s -w -buildid='

BENCH_BINS += $(addprefix $(BENCH_OUT)/,$(GO_CMDS))

.PHONY: bench-go test-bench-go

bench-go: $(addprefix $(BENCH_OUT)/,$(GO_CMDS)) ## Build the static Go benchmark binaries (snowflake, envprobe, benchrun)

# go-toolchain first (order-only: it only checks the version when Go is new enough),
# so that `make bench` builds with the Go that go.mod names on any machine.
$(addprefix $(BENCH_OUT)/,$(GO_CMDS)): $(BENCH_OUT)/%: $(GO_SOURCES) | go-toolchain
	@mkdir -p $(@D)
	cd $(GO_SRC) && $(GO_BUILD) -o $(abspath $@) ./cmd/$*

CHECK_TARGETS += test-bench-go
# The race detector needs cgo (gcc); only the tests use it, the shipped
# binaries stay static (GO_BUILD).
test-bench-go: bench $(BENCHSTAT) $(STAMPS)/venv ## Go unit tests (snowflake, envprobe, benchrun), again under the race detector, and the benchrun→vmparity check→benchstat end-to-end test
	cd $(GO_SRC) && $(GO) vet ./... && $(GO) test ./...
	cd $(GO_SRC) && CGO_ENABLED=1 $(GO) test -race ./...
	$(GO_SRC)/e2e/quick-benchstat.sh $(BENCH_OUT) $(BENCHSTAT) $(VMPARITY)
