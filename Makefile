# vmparity — every entry point is a target here; `make help` lists them.
# Variables are `?=` so they can be overridden: `make lab-up PROFILE=full`.

SHELL        := /bin/bash
.DEFAULT_GOAL := help

ROOT         := $(abspath .)
#> where every build output goes (make clean removes it)
BUILD        ?= $(ROOT)/build
BENCH_OUT    ?= $(BUILD)/bench
VENV         ?= $(ROOT)/.venv
PY           ?= $(VENV)/bin/python
VMPARITY     ?= $(VENV)/bin/vmparity
#> the guest image, the history index and a fetched Go toolchain, kept across make clean
CACHE_DIR    ?= $(HOME)/.cache/vmparity
GOBIN_DIR    ?= $(ROOT)/build/gobin
BENCHSTAT    ?= $(GOBIN_DIR)/benchstat
#> benchrun's profile: quick (minutes) or full (long under TCG)
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
#> extra pytest arguments of every Python suite (e.g. -x, -k NAME)
PYTEST_FLAGS ?= --durations=10 --durations-min=0.5
include mk/deps.mk
include $(sort $(filter-out mk/deps.mk,$(wildcard mk/*.mk)))

.PHONY: help clean

# `make help`'s groups: what a user of the lab runs, and the lab's other
# targets; every other target is listed under develop (mk/help.sh).
HELP_USE := lab-up lab-down lab-ab lab-verify repro deps laptop clean help
HELP_LAB := rack-demo rack-down kvm-up kvm-down kvm-lab kvm-verify lab-noise lab-power bench-lab \
  repro-stability bench bench-c bench-go image docker-image variants-check apt-deps go-toolchain go-tools \
  venv laptop-venv ansible-collections
# The variables `make help` lists: each `?=` line right below a `#> text` line.
HELP_VARS = $(shell sed -n '/^\#> /{n;s/^\([A-Z0-9_]*\) *?=.*/\1/p;}' $(MAKEFILE_LIST))

help: ## List the targets by group (use, lab, develop) and the variables you can set; colour on a terminal only
	@HELP_VALUES="$$(printf '%s\t%s\n' $(foreach v,$(HELP_VARS),'$(v)' '$($(v))'))" \
	  mk/help.sh "$(HELP_USE)" "$(HELP_LAB)" $(MAKEFILE_LIST)

clean: ## Remove build outputs (keeps results/ and the image cache)
	rm -rf $(BUILD)
