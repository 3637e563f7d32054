# `make repro`: every seed's experiment as a lab scenario. The
# scenarios (vmparity/repro/scenarios.yaml) say which targets and which
# benchrun jobs each seed needs; the plan (`vmparity lab repro-plan`) starts
# only those guests and containers, runs only those jobs on each, stores one
# run, and the report's Reproductions section gives every seed a verdict on
# every target.
#   make repro                                   every target the scenarios name
#   make repro REPRO_TARGETS="metal container-quota" PROFILE=quick

#> repro: the targets to run on (empty: every target the scenarios name)
REPRO_TARGETS ?=
REPRO_RUN_ID  ?=
REPRO_PLAN_DIR ?= $(BUILD)/repro-plan

.PHONY: repro repro-stability

repro: ## Run every seed's scenario on the lab's targets (PROFILE, REPRO_TARGETS) and report a verdict per seed and target
	@set -euo pipefail; \
	run_id="$(REPRO_RUN_ID)"; [ -n "$$run_id" ] || run_id=$$(date -u +%Y-%m-%dT%H-%M-%SZ)-repro-$(PROFILE); \
	echo "==> repro: $(LAB_BUILD)"; \
	$(MAKE) --no-print-directory $(LAB_BUILD); \
	echo "==> repro: plan (targets: $(if $(strip $(REPRO_TARGETS)),$(REPRO_TARGETS),every one a scenario names))"; \
	provision=$$($(VMPARITY) lab repro-plan --variants $(VARIANTS_FILE) --containers $(CONTAINER_VARIANTS_FILE) \
	  --targets "$(REPRO_TARGETS)" --profile $(PROFILE) --write $(REPRO_PLAN_DIR)); \
	cat $(REPRO_PLAN_DIR)/bench-vars.json; \
	echo "==> repro: site.yml (provision, run $(PROFILE), report) as $$run_id"; \
	$(LAB_SITE) $$provision -e @$(REPRO_PLAN_DIR)/bench-vars.json \
	  -e bench_profile=$(PROFILE) -e bench_run_id=$$run_id $(LAB_ARGS); \
	$(PY) -m vmparity.repro $(RESULTS_DIR)/runs/$$run_id; \
	echo "repro: report with the Reproductions section in $(RESULTS_DIR)/runs/$$run_id/ (report.md, report.html)"

.PHONY: test-repro-verdicts
CHECK_TARGETS += test-repro-verdicts

test-repro-verdicts: $(STAMPS)/venv ## Unit tests of the seed scenarios, verdicts and their Markdown (tests/repro)
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) tests/repro -m "not lab"

# Two back-to-back repro runs must give the same verdict for every seed and
# target that is decided in both (reproduced / not reproduced); the pairs that
# flip are printed and fail the target.
repro-stability: ## Run `make repro` twice and print every seed/target verdict that differs between the two
	@set -euo pipefail; stamp=$$(date -u +%Y-%m-%dT%H-%M-%SZ); \
	$(MAKE) --no-print-directory repro REPRO_RUN_ID=$$stamp-repro-$(PROFILE)-a; \
	$(MAKE) --no-print-directory repro REPRO_RUN_ID=$$stamp-repro-$(PROFILE)-b; \
	$(PY) -m vmparity.repro.stability $(RESULTS_DIR)/runs/$$stamp-repro-$(PROFILE)-a $(RESULTS_DIR)/runs/$$stamp-repro-$(PROFILE)-b
