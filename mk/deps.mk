# Dependencies: Debian packages, a Go toolchain when the system's is missing
# or older than bench-src/go/go.mod asks, the Python virtual environment, the
# Ansible collections the roles use, Go tools. Each step leaves a stamp (or
# its product) so a second `make` does not repeat it. apt needs root; a
# machine without it takes `make laptop` (mk/laptop.mk) instead.

# The last line: what the host_prep role would otherwise install on this host
# through Ansible (the modules its guests and containers roles run there, and
# apt's own bindings), so that a fresh `make lab-up` finds them in place.
APT_PACKAGES ?= build-essential pkg-config python3-venv python3-dev \
  qemu-system-x86 qemu-utils libvirt-daemon-system libvirt-dev \
  docker.io debootstrap e2fsprogs openssh-client linux-perf valgrind \
  binutils procps iproute2 libxml2-utils curl ca-certificates unzip \
  python3-apt python3-libvirt python3-lxml python3-docker
STAMPS := $(BUILD)/stamps
# The x/perf version bench-src/go/go.mod pins, so the tests compare with the benchstat the suite builds against.
BENCHSTAT_VERSION ?= $(shell awk '$$1 == "golang.org/x/perf" {print $$2}' bench-src/go/go.mod)

ANSIBLE_GALAXY   ?= $(VENV)/bin/ansible-galaxy

.PHONY: deps apt-deps go-toolchain venv ansible-collections go-tools

deps: apt-deps go-toolchain venv ansible-collections go-tools ## Install Debian packages, Go if too old, the Python venv, Ansible collections and benchstat

apt-deps: $(STAMPS)/apt ## Install the Debian packages the lab and the tests need
$(STAMPS)/apt: mk/deps.mk
	@mkdir -p $(@D)
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "apt: installing $$missing"; \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
	@touch $@

venv: $(STAMPS)/venv ## Create .venv and install vmparity with its test, lab and report extras
$(STAMPS)/venv: pyproject.toml $(STAMPS)/apt
	@mkdir -p $(@D)
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,lab,report]'
	@touch $@

# No apt step before it: the script needs only curl and python3, so a laptop
# without root gets its Go too (`make bench` asks for it; `make laptop`).
go-toolchain: ## Fetch the Go toolchain go.mod needs from the Go module proxy, if `go` is missing or older
	@mk/go-toolchain.sh "$(GO_MIN_VERSION)" "$(GO_TOOLCHAIN_DIR)"

ansible-collections: $(STAMPS)/collections ## Install the Ansible collections ansible/requirements.yml pins (minimum versions)
$(STAMPS)/collections: ansible/requirements.yml $(STAMPS)/venv
	@mkdir -p $(@D)
	$(ANSIBLE_GALAXY) collection install -r ansible/requirements.yml
	@touch $@

go-tools: $(BENCHSTAT) ## Install benchstat from the Go module proxy
$(BENCHSTAT): | go-toolchain
	@mkdir -p $(GOBIN_DIR)
	GOBIN=$(GOBIN_DIR) go install golang.org/x/perf/cmd/benchstat@$(BENCHSTAT_VERSION)
