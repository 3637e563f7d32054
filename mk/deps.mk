# Dependencies: Debian packages, the Python virtual environment, Go tools.
# Each step leaves a stamp so a second `make` does not repeat it.

APT_PACKAGES ?= build-essential pkg-config python3-venv python3-dev \
  qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-dev \
  docker.io debootstrap e2fsprogs openssh-client linux-perf valgrind \
  binutils procps iproute2 libxml2-utils
STAMPS := $(BUILD)/stamps
# The x/perf version bench-src/go/go.mod pins, so the tests compare with the benchstat the suite builds against.
BENCHSTAT_VERSION ?= $(shell awk '$$1 == "golang.org/x/perf" {print $$2}' bench-src/go/go.mod)

.PHONY: deps apt-deps venv go-tools

deps: apt-deps venv go-tools ## Install Debian packages, the Python venv and benchstat

apt-deps: $(STAMPS)/apt ## Install the Debian packages the lab and the tests need
$(STAMPS)/apt: mk/deps.mk
	@mkdir -p $(@D)
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "apt: installing $$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@touch $@

venv: $(STAMPS)/venv ## Create .venv and install vmparity with its test and lab extras
$(STAMPS)/venv: pyproject.toml $(STAMPS)/apt
	@mkdir -p $(@D)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,lab]'
	@touch $@

go-tools: $(BENCHSTAT) ## Install benchstat from the Go module proxy
$(BENCHSTAT):
	@mkdir -p $(GOBIN_DIR)
	GOBIN=$(GOBIN_DIR) go install golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION)
