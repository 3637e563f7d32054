# vmparity — every entry point is a target here; `make help` lists them.
# Variables are `?=` so they can be overridden: `make lab-up PROFILE=full`.

SHELL        := /bin/bash
.DEFAULT_GOAL := help

ROOT         := $(abspath .)
BUILD        ?= $(ROOT)/build
BENCH_OUT    ?= $(BUILD)/bench
VENV         ?= $(ROOT)/.venv
PY           ?= $(VENV)/bin/python
VMPARITY     ?= $(VENV)/bin/vmparity
CACHE_DIR    ?= $(HOME)/.cache/vmparity
GOBIN_DIR    ?= $(ROOT)/build/gobin
BENCHSTAT    ?= $(GOBIN_DIR)/benchstat
PROFILE      ?= quick
# The Go release bench-src/go/go.mod's `go` line names. `make deps` fetches a
# toolchain of that version into GO_TOOLCHAIN_DIR only when `go` is missing or
# older (Debian 12's golang-go is 1.19); absent otherwise, and harmless on PATH.
GO_MIN_VERSION   ?= $(shell awk '$$1 == "go" {print $$2; exit}' bench-src/go/go.mod)
GO_TOOLCHAIN_DIR ?= $(CACHE_DIR)/go-$(GO_MIN_VERSION)
export PATH  := $(VENV)/bin:$(GOBIN_DIR):$(GO_TOOLCHAIN_DIR)/bin:$(PATH)

# Each component contributes its targets and adds its test suites to
# CHECK_TARGETS (no guest, container or rack: `make check`) or to TEST_TARGETS
# (real daemons); `make test` runs both (mk/suites.mk).
CHECK_TARGETS :=
TEST_TARGETS :=
# Every pytest run of a suite prints its slowest tests, so that the next slow
# test is visible the day it lands.
PYTEST_FLAGS ?= --durations=10 --durations-min=0.5
include mk/deps.mk
include $(sort $(filter-out mk/deps.mk,$(wildcard mk/*.mk)))

.PHONY: help clean

help: ## List every target with its one-line description (coloured on a terminal only)
	@if [ -t 1 ]; then on=$$(printf '\033[36m'); off=$$(printf '\033[0m'); fi; \
	grep -hE '^[a-zA-Z0-9_.-]+:.*## ' $(MAKEFILE_LIST) \
	  | sort -u | awk -v on="$$on" -v off="$$off" 'BEGIN {FS = ":.*## "}; {printf "  %s%-16s%s %s\n", on, $$1, off, $$2}'

clean: ## Remove build outputs (keeps results/ and the image cache)
	rm -rf $(BUILD)
