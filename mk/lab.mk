# The lab: Ansible provisions metal, TCG/KVM guests and containers, runs the
# suite everywhere in interleaved rounds (with the A/A control metal-aa) and
# collects the results. docs/lab.md, ansible/.

#> the inventory lab-up provisions (the local machine); a rack: ansible/inventories/<rack>
LAB_INVENTORY    ?= $(ROOT)/ansible/inventories/local
ANSIBLE_PLAYBOOK ?= $(VENV)/bin/ansible-playbook
#> extra ansible-playbook arguments of every lab playbook (e.g. -e bench_count=20)
LAB_ARGS         ?=
# The run id of lab-up ("" = UTC time + profile). The id of a stored partial
# run fills in the targets it is missing; a complete run's id is refused.
#> the run id of lab-up (empty: UTC time + profile); a partial run's id fills it in
LAB_RUN_ID       ?=
LAB_TEST_ARGS    ?=
# The minutes lab-up's site.yml may take, from provisioning to the report: the
# rounds are planned to fit them and stop at their deadline (docs/lab.md, "A
# time budget"). 0 = no budget: the profile's rounds in full. 13: on a 2-core
# TCG machine a fresh clone's lab-up then took 14 min 7-14 s in all (the image
# built cold beside the install), and its ten planned rounds and two or three
# for the wide rows found planted +10 % in 88-96 % of the containers' rows where
# 11 minutes (eight planned, one wide) found 87-90 % (docs/notes/lab-timings.md,
# "The default budget").
#> lab-up: the minutes from provisioning to the report; rounds are planned to fit (0: no budget); given on the command line, lab-ab, lab-verify and kvm-lab take it too
LAB_MINUTES      ?= 13
LAB_PLAYBOOKS    := $(ROOT)/ansible/playbooks
#> where runs are stored (runs/<run-id>/) and read from
RESULTS_DIR      ?= $(ROOT)/results

# Every ansible-playbook of the lab reads ansible/ansible.cfg.
LAB_ANSIBLE := env ANSIBLE_CONFIG=$(ROOT)/ansible/ansible.cfg $(ANSIBLE_PLAYBOOK) -i $(LAB_INVENTORY) \
  -e vmparity_cache_dir=$(CACHE_DIR) -e bench_results_dir=$(abspath $(RESULTS_DIR))

.PHONY: lab-up bench-lab lab-noise lab-power lab-down lab-lint test-lab test-lab-e2e test-lab-repro

# The lab's one pipeline, for lab-up, bench-lab and repro alike: the build
# steps on the controller (LAB_BUILD), then ansible/playbooks/site.yml, whose
# plays are the lab's phases (provision, run in rounds and collect, report);
# Ansible prints each role's time (profile_roles).
LAB_BUILD := deps bench image
LAB_SITE   = $(LAB_ANSIBLE) $(LAB_PLAYBOOKS)/site.yml

# Each step is timed; the image step says whether it was cold (built) or warm
# (cached), so a cold and a warm lab-up can be read off their output. The image
# (debootstrap: network and disk) needs only the Debian packages, so it is
# built beside the rest of deps and bench (pip, Go: network and CPU), which
# saves about a minute cold; its output follows theirs, in one piece.
LAB_IMAGE_LOG ?= $(BUILD)/lab-image.log
lab-up: ## Install what is missing, build, provision the local lab, run PROFILE (quick) everywhere in LAB_MINUTES (13), report
	@set -euo pipefail; start=$$(date +%s); times=""; \
	phase() { local name=$$1; shift; local t=$$(date +%s); echo "==> lab-up: $$name"; "$$@"; \
	  times+="$$(printf '  %-34s %6ss' "$$name" "$$(( $$(date +%s) - t ))")"$$'\n'; }; \
	if [ -e "$(CACHE_DIR)/image/current/recipe.sha256" ]; then image=warm; else image=cold; fi; \
	run_id="$(LAB_RUN_ID)"; [ -n "$$run_id" ] || run_id=$$(date -u +%Y-%m-%dT%H-%M-%SZ)-lab-$(PROFILE); \
	phase apt-deps $(MAKE) --no-print-directory apt-deps; \
	mkdir -p $(dir $(LAB_IMAGE_LOG)); image_start=$$(date +%s); \
	$(MAKE) --no-print-directory image > $(LAB_IMAGE_LOG) 2>&1 & image_pid=$$!; \
	trap 'kill $$image_pid 2>/dev/null || true' EXIT; \
	echo "==> lab-up: image ($$image) beside the other steps, output in $(LAB_IMAGE_LOG)"; \
	for step in $(filter-out image,$(LAB_BUILD)); do phase "$$step" $(MAKE) --no-print-directory $$step; done; \
	image_wait() { local rc=0; wait $$image_pid || rc=$$?; trap - EXIT; sed 's/^/image| /' $(LAB_IMAGE_LOG); \
	  echo "image: $$(( $$(date +%s) - image_start ))s in all, beside the steps above"; return $$rc; }; \
	phase "image ($$image), the wait for it" image_wait; \
	site_log=$(BUILD)/lab-up-$$run_id.log; \
	site() { echo "    the whole Ansible output: $$site_log"; \
	  $(LAB_SITE) -e bench_profile=$(PROFILE) -e bench_run_id=$$run_id \
	    -e bench_minutes=$(LAB_MINUTES) -e bench_started=$$(date +%s) $(LAB_ARGS) 2>&1 \
	  | tee $$site_log | awk -f $(ROOT)/mk/lab-progress.awk; }; \
	phase "site.yml: provision, run $(PROFILE) in $(LAB_MINUTES) min, report" site; \
	echo; echo "lab-up: per-step times ($$image image cache)"; printf '%s' "$$times"; \
	printf '  %-34s %6ss\n' "total" "$$(( $$(date +%s) - start ))"; \
	echo "lab-up: can these differences be trusted? (vmparity noise $$run_id)"; \
	$(VMPARITY) --results-dir $(RESULTS_DIR) noise $$run_id | sed 's/^/  /'; \
	echo "lab-up: report in $(RESULTS_DIR)/runs/$$run_id/ (report.md, report.html)"

bench-lab: ## Like lab-up with the full profile (long: TCG guests run many times slower)
	@$(MAKE) --no-print-directory lab-up PROFILE=full LAB_MINUTES=0

#> lab-noise: print this stored run's noise instead of running lab-up
NOISE_RUN ?=
lab-noise: ## Measure the lab's noise: run lab-up and print its A/A and per-target figures (NOISE_RUN=<id>: only print a stored run's)
	@set -euo pipefail; \
	if [ -z "$(NOISE_RUN)" ]; then $(MAKE) --no-print-directory lab-up; fi; \
	run="$(NOISE_RUN)"; [ -n "$$run" ] || run=$$(ls -1 $(RESULTS_DIR)/runs | grep -- '-lab-' | sort | tail -1); \
	echo "lab-noise: $$run"; $(VMPARITY) --results-dir $(RESULTS_DIR) noise $$run

#> lab-power: the run planted into (empty: the newest lab run)
POWER_RUN  ?=
POWER_ARGS ?=
lab-power: $(STAMPS)/venv ## Plant known shifts into a copy of the newest lab run (POWER_RUN=<id>): recall per effect size and false alarms
	@set -euo pipefail; run="$(POWER_RUN)"; \
	[ -n "$$run" ] || run=$$(ls -1 $(RESULTS_DIR)/runs | grep -- '-lab-' | sort | tail -1); \
	[ -n "$$run" ] || { echo "lab-power: no lab run in $(RESULTS_DIR)/runs; run make lab-up first" >&2; exit 2; }; \
	echo "lab-power: $$run"; $(VMPARITY) --results-dir $(RESULTS_DIR) power $$run $(POWER_ARGS)

lab-down: $(STAMPS)/venv ## Remove every domain, overlay, container and image the lab made, and nothing else
	$(LAB_ANSIBLE) $(LAB_PLAYBOOKS)/lab-down.yml $(LAB_ARGS)

lab-lint: $(STAMPS)/venv ## Lint the playbooks and roles (ansible-lint, production profile)
	cd $(ROOT)/ansible && $(VENV)/bin/ansible-lint --profile production playbooks roles

# tests/lab in two halves, two isolated labs that `make test` runs side by side
# (mk/suites.mk): the repro lab (metal and one container) and every other file.
# LAB_TEST_ARGS may select nothing in one half (-k): pytest's "no test ran"
# (exit 5) fails the half only when no LAB_TEST_ARGS narrowed it.
LAB_REPRO_TESTS ?= tests/lab/test_repro.py
lab_pytest = $(PY) -m pytest -q $(PYTEST_FLAGS) -m lab $(1) $(LAB_TEST_ARGS) \
  || { rc=$$?; [ $$rc = 5 ] && [ -n "$(strip $(LAB_TEST_ARGS))" ] && echo "no test selected here by LAB_TEST_ARGS"; }

test-lab: test-lab-e2e test-lab-repro ## End-to-end lab test: real libvirtd, qemu (TCG here), dockerd and Ansible (both halves)

test-lab-e2e: $(STAMPS)/venv bench image ## The lab end to end (tests/lab but the repro test): guests, containers, rounds, faults, Fabric, teardown
	$(call lab_pytest,tests/lab $(addprefix --ignore=,$(LAB_REPRO_TESTS)))

test-lab-repro: $(STAMPS)/venv bench image ## `make repro` end to end on metal and the CPU-quota container (tests/lab/test_repro.py)
	$(call lab_pytest,$(LAB_REPRO_TESTS))

TEST_TARGETS += test-lab-e2e test-lab-repro
CHECK_TARGETS += lab-lint
