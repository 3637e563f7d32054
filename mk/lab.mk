# The lab: Ansible provisions metal, TCG/KVM guests and containers, runs the
# suite everywhere in interleaved rounds (with the A/A control metal-aa) and
# collects the results. docs/lab.md, ansible/.

LAB_INVENTORY    ?= $(ROOT)/ansible/inventories/local
ANSIBLE_PLAYBOOK ?= $(VENV)/bin/ansible-playbook
VMPARITY         ?= $(VENV)/bin/vmparity
LAB_ARGS         ?=
# The run id of lab-up ("" = UTC time + profile). The id of a stored partial
# run fills in the targets it is missing; a complete run's id is refused.
LAB_RUN_ID       ?=
LAB_TEST_ARGS    ?=
LAB_PLAYBOOKS    := $(ROOT)/ansible/playbooks
RESULTS_DIR      ?= $(ROOT)/results

# Every ansible-playbook of the lab reads ansible/ansible.cfg.
LAB_ANSIBLE := env ANSIBLE_CONFIG=$(ROOT)/ansible/ansible.cfg $(ANSIBLE_PLAYBOOK) -i $(LAB_INVENTORY) \
  -e vmparity_cache_dir=$(CACHE_DIR) -e bench_results_dir=$(RESULTS_DIR)

.PHONY: lab-up bench-lab lab-noise lab-down lab-lint test-lab

# Each phase is timed; the image phase says whether it was cold (built) or
# warm (cached), so the two figures of the issue can be read off one run.
lab-up: ## Install what is missing, build, provision the local lab, run PROFILE (quick) everywhere, report
	@set -euo pipefail; start=$$(date +%s); times=""; \
	phase() { local name=$$1; shift; local t=$$(date +%s); echo "==> lab-up: $$name"; "$$@"; \
	  times+="$$(printf '  %-22s %6ss' "$$name" "$$(( $$(date +%s) - t ))")"$$'\n'; }; \
	if [ -e "$(CACHE_DIR)/image/current/recipe.sha256" ]; then image=warm; else image=cold; fi; \
	run_id="$(LAB_RUN_ID)"; [ -n "$$run_id" ] || run_id=$$(date -u +%Y-%m-%dT%H-%M-%SZ)-lab-$(PROFILE); \
	phase "deps" $(MAKE) --no-print-directory deps; \
	phase "bench (build)" $(MAKE) --no-print-directory bench; \
	phase "image ($$image)" $(MAKE) --no-print-directory image; \
	phase "provision" $(LAB_ANSIBLE) $(LAB_PLAYBOOKS)/lab-up.yml $(LAB_ARGS); \
	phase "run $(PROFILE) + collect" $(LAB_ANSIBLE) $(LAB_PLAYBOOKS)/bench.yml \
	  -e bench_profile=$(PROFILE) -e bench_run_id=$$run_id $(LAB_ARGS); \
	phase "report" $(VMPARITY) --results-dir $(RESULTS_DIR) report $$run_id; \
	echo; echo "lab-up: per-phase times ($$image image cache)"; printf '%s' "$$times"; \
	printf '  %-22s %6ss\n' "total" "$$(( $$(date +%s) - start ))"; \
	echo "lab-up: can these differences be trusted? (vmparity noise $$run_id)"; \
	$(VMPARITY) --results-dir $(RESULTS_DIR) noise $$run_id | sed 's/^/  /'; \
	echo "lab-up: report in $(RESULTS_DIR)/runs/$$run_id/ (report.md, report.html)"

bench-lab: ## Like lab-up with the full profile (long: TCG guests run many times slower)
	@$(MAKE) --no-print-directory lab-up PROFILE=full

NOISE_RUN ?=
lab-noise: ## Measure the lab's noise: run lab-up and print its A/A and per-target figures (NOISE_RUN=<id>: only print a stored run's)
	@set -euo pipefail; \
	if [ -z "$(NOISE_RUN)" ]; then $(MAKE) --no-print-directory lab-up; fi; \
	run="$(NOISE_RUN)"; [ -n "$$run" ] || run=$$(ls -1 $(RESULTS_DIR)/runs | grep -- '-lab-' | sort | tail -1); \
	echo "lab-noise: $$run"; $(VMPARITY) --results-dir $(RESULTS_DIR) noise $$run

lab-down: $(STAMPS)/venv ## Remove every domain, overlay, container and image the lab made, and nothing else
	$(LAB_ANSIBLE) $(LAB_PLAYBOOKS)/lab-down.yml $(LAB_ARGS)

lab-lint: $(STAMPS)/venv ## Lint the playbooks and roles (ansible-lint, production profile)
	cd $(ROOT)/ansible && $(VENV)/bin/ansible-lint --profile production playbooks roles

test-lab: $(STAMPS)/venv bench image lab-lint ## End-to-end lab test: real libvirtd, qemu (TCG here), dockerd and Ansible
	$(PY) -m pytest -q -m lab tests/lab $(LAB_TEST_ARGS)

TEST_TARGETS += test-lab
