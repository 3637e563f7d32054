# A rack's controller (an ops laptop) or an analyst's machine, without root
# or apt: `make laptop` is `make venv bench` by pip and the Go module proxy
# alone. It needs python3 with its venv module, curl, and a C compiler with
# static glibc for the C benchmarks; the guest image is built where root is
# (docs/tutorial.md, README "On a rack, from a laptop").

LAPTOP_EXTRAS ?= laptop
# The Python the venv is made from (>= 3.11, with its venv module).
#> laptop: the Python (>= 3.11, with venv) the .venv is made from
PYTHON3       ?= python3

.PHONY: laptop laptop-venv test-install

laptop: laptop-venv ## Without root or apt: .venv (vmparity, Ansible, Fabric from pip), the Ansible collections, and `make bench` with its own Go
	@command -v $(BENCH_CC) >/dev/null || { echo "laptop: make bench needs $(BENCH_CC) with static glibc" \
	  "(Debian: build-essential), or copy build/bench/ from a machine that built it" >&2; exit 2; }
	@$(MAKE) --no-print-directory bench

laptop-venv: $(STAMPS)/laptop ## Only .venv with vmparity, Ansible and Fabric from pip, and the Ansible collections (no root, no apt)

# Its own stamp: `make venv` (the lab's extras, after the apt step) is a
# superset and keeps its own.
$(STAMPS)/laptop: pyproject.toml ansible/requirements.yml
	@mkdir -p $(@D)
	@$(PYTHON3) -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "laptop: $(PYTHON3) is older than 3.11 or has no venv module (Debian: python3-venv);" \
	  "any Python >= 3.11 with it will do: make laptop PYTHON3=/path/to/python3" >&2; exit 2; }
	test -x $(PY) || $(PYTHON3) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[$(LAPTOP_EXTRAS)]'
	$(ANSIBLE_GALAXY) collection install -r ansible/requirements.yml
	@touch $@

# Both routes in, tried as a laptop user would (tests/install): an unprivileged
# user, a copy of the repository, a HOME of its own, PyPI and the Go module
# proxy. Minutes of downloads and builds, so a suite of `make test`, not of
# `make check`.
test-install: $(STAMPS)/venv ## Try `pip install .` and `make laptop` as a user without root, in a copy of the repository (downloads and builds anew: minutes)
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) -m install tests/install

TEST_TARGETS += test-install
