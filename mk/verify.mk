# `make lab-verify`: test a lab run's explanations. From the run's explanations
# (vmparity lab verify RUN) one intervention target per (target, fix) — the same
# guest or container with only that fix: a derived variant in the variant
# files' own format, or more environment — provisioned by the same roles and
# measured in interleaved rounds with the original target, metal and metal-aa
# as a new run; then a verdict per explanation, stored with both runs, and
# both reports show it (docs/lab.md, "Verified explanations").
#   make lab-verify                                         the newest lab run, every intervention
#   make lab-verify LAB_VERIFY_RUN=<id> LAB_VERIFY_TARGETS="guest-hpet-clock container-*"
#   make lab-verify LAB_VERIFY_REDERIVE=1                   the plan derived again with today's rules
#   make lab-verify LAB_VERIFY_HOST=rack02                  a rack run: one host at a time, against its metal
#   make lab-verify LAB_MINUTES=8                           rounds planned to fit 8 minutes (at least 5)

#> lab-verify: the run whose explanations are tested (empty: the newest lab run)
LAB_VERIFY_RUN     ?=
#> lab-verify: globs over the targets to measure (empty: every one)
LAB_VERIFY_TARGETS ?=
#> lab-verify: of a run of several rack hosts, the host to verify (empty: the host of LAB_VERIFY_TARGETS)
LAB_VERIFY_HOST    ?=
# Rounds of the verify run; TCG guests take the first 5 of them (the U test between a target and its fix needs 4 a side, and one spare).
LAB_VERIFY_ROUNDS  ?= 5
# A time budget, given on the command line (make lab-verify LAB_MINUTES=8): the minutes from lab-verify's
# start to its verdicts; the rounds are planned to fit them once the targets are up, at least 5 of every
# target, TCG guests too, and at most LAB_VERIFY_MOST_ROUNDS (vmparity/lab/budget-verify.yaml), a round
# that would end after the deadline not started. Without it, LAB_VERIFY_ROUNDS rounds.
LAB_VERIFY_MINUTES  = $(filter-out 0,$(if $(filter command line environment,$(origin LAB_MINUTES)),$(LAB_MINUTES)))
#> lab-verify: with LAB_MINUTES given, the most rounds its budget may plan
LAB_VERIFY_MOST_ROUNDS ?= 10
# What the end of lab-verify does to its intervention guests: paused (the next lab-verify resumes them) or
# destroyed (powered off, booted again next time; for a lab shared with checkouts older than this one).
LAB_VERIFY_GUESTS_STOP ?= paused
# Bisection of the rows no rule explains: at most this many one-field steps (0 = none).
LAB_VERIFY_BISECT  ?= 0
LAB_VERIFY_PROFILE ?= $(PROFILE)
LAB_VERIFY_DIR     ?= $(BUILD)/lab-verify
# Non-empty: derive the plan again from the run's explanations (the rules changed since it was stored);
# the verify runs that measured the old plan keep their own copy of it.
LAB_VERIFY_REDERIVE ?=
# The build steps first (the lab test, which made them already, sets it empty).
LAB_VERIFY_BUILD   ?= $(LAB_BUILD)
# Which lab: ansible-playbook with its inventory (this host's lab; `make kvm-verify` gives the nested
# KVM host's, as from a laptop), and the runs whose newest is verified when LAB_VERIFY_RUN is empty.
LAB_VERIFY_ANSIBLE ?= $(LAB_ANSIBLE)
LAB_VERIFY_RUNS    ?= -lab-

.PHONY: lab-verify

lab-verify: ## Apply each explanation's fix of a lab run (LAB_VERIFY_RUN, default the newest) to a copy of its target, measure again, store verdicts
	@set -euo pipefail; start=$$(date +%s); \
	run="$(LAB_VERIFY_RUN)"; [ -n "$$run" ] || run=$$(ls -1 $(RESULTS_DIR)/runs | grep -- '$(LAB_VERIFY_RUNS)' | sort | tail -1); \
	[ -n "$$run" ] || { echo "lab-verify: no run named *$(LAB_VERIFY_RUNS)* in $(RESULTS_DIR)/runs; run make lab-up (make kvm-lab) first" >&2; exit 2; }; \
	verify_id=$$(date -u +%Y-%m-%dT%H-%M-%SZ)-verify-$(LAB_VERIFY_PROFILE); \
	$(if $(strip $(LAB_VERIFY_BUILD)),echo "==> lab-verify: $(LAB_VERIFY_BUILD)"; $(MAKE) --no-print-directory $(LAB_VERIFY_BUILD);) \
	echo "==> lab-verify: the interventions of $$run ($(if $(strip $(LAB_VERIFY_TARGETS)),$(LAB_VERIFY_TARGETS),every target))"; \
	rm -rf $(LAB_VERIFY_DIR); \
	args=$$($(VMPARITY) --results-dir $(RESULTS_DIR) lab verify $$run --targets "$(LAB_VERIFY_TARGETS)" --host "$(LAB_VERIFY_HOST)" \
	  --rounds $(if $(LAB_VERIFY_MINUTES),$(LAB_VERIFY_MOST_ROUNDS) --budget,$(LAB_VERIFY_ROUNDS)) --bisect $(LAB_VERIFY_BISECT) $(if $(strip $(LAB_VERIFY_REDERIVE)),--rederive) \
	  --write $(LAB_VERIFY_DIR)); \
	echo "==> lab-verify: site.yml (provision the intervention targets, $(if $(LAB_VERIFY_MINUTES),rounds of $(LAB_VERIFY_PROFILE) in $(LAB_VERIFY_MINUTES) min,$(LAB_VERIFY_ROUNDS) rounds of $(LAB_VERIFY_PROFILE))) as $$verify_id"; \
	t=$$(date +%s); rc=0; \
	$(LAB_VERIFY_ANSIBLE) $(LAB_PLAYBOOKS)/site.yml $$args --skip-tags report -e bench_profile=$(LAB_VERIFY_PROFILE) -e bench_run_id=$$verify_id \
	  $(if $(LAB_VERIFY_MINUTES),-e bench_minutes=$(LAB_VERIFY_MINUTES) -e bench_started=$$start -e bench_budget_config=verify) $(LAB_ARGS) || rc=$$?; \
	site_s=$$(( $$(date +%s) - t )); \
	echo "==> lab-verify: pause the intervention guests, stop the intervention containers (beside the verdicts;" \
	  "the next lab-verify resumes them, lab-down removes them; output in $(LAB_VERIFY_DIR)/verify-stop.log)"; \
	$(LAB_VERIFY_ANSIBLE) $(LAB_PLAYBOOKS)/verify-stop.yml -e guests_intervention_stop=$(LAB_VERIFY_GUESTS_STOP) $(LAB_ARGS) > $(LAB_VERIFY_DIR)/verify-stop.log 2>&1 & stop_pid=$$!; \
	stopped() { local s=0; wait $$stop_pid || s=$$?; [ $$s = 0 ] && return 0; cat $(LAB_VERIFY_DIR)/verify-stop.log; \
	  echo "lab-verify: could not stop the intervention targets (make lab-down removes them)" >&2; return $$s; }; \
	if [ $$rc != 0 ]; then \
	  [ ! -d $(RESULTS_DIR)/runs/$$verify_id ] || $(VMPARITY) --results-dir $(RESULTS_DIR) report $$verify_id > /dev/null || true; \
	  stopped || true; exit $$rc; fi; \
	echo "==> lab-verify: verdicts"; \
	$(VMPARITY) --results-dir $(RESULTS_DIR) lab verify $$run --measured $$verify_id --seconds $$(( $$(date +%s) - start )); \
	echo "==> lab-verify: the reports of $$verify_id and $$run, side by side"; \
	pids=""; for r in $$verify_id $$run; do $(VMPARITY) --results-dir $(RESULTS_DIR) report $$r > /dev/null & pids+=" $$!"; done; \
	for p in $$pids; do wait $$p; done; \
	stopped; \
	echo "lab-verify: took $$(( $$(date +%s) - start )) s$(if $(LAB_VERIFY_MINUTES), of a budget of $(LAB_VERIFY_MINUTES) min,)" \
	  "(site.yml $$site_s s: provision, rounds, report);" \
	  "the verdicts beside each explanation in" \
	  "$(RESULTS_DIR)/runs/$$run/report.md and $(RESULTS_DIR)/runs/$$verify_id/report.md"
