# A/B in one run: the suite built at BASE=<git ref> and at the working tree,
# both deployed to every target and run in the same interleaved rounds (each
# target's two sides next to each other, in a seeded order), with the A/A
# pair as in every run. A target whose kind takes too few rounds for any A/B
# test to reach significance (TCG guests: 3 of the quick profile's 10) is
# left out; rounds.json and the report name it. The precise way to judge a code change; comparing
# against stored runs is `vmparity pr-comment BASE HEAD` (docs/noise.md).

#> lab-ab: the git ref compared with the working tree (required)
BASE   ?=
# BASE's detached worktree (AB_DIR/src) and its own build (AB_DIR/src/build/bench).
AB_DIR ?= $(BUILD)/ab

# A/B decides a code change: its run keeps the profile's rounds (10) unless a
# budget is given on the command line (make lab-ab BASE=main LAB_MINUTES=15),
# which then plans both sides' rounds as lab-up's (docs/lab.md, "A time budget").
LAB_AB_MINUTES = $(if $(filter command line environment,$(origin LAB_MINUTES)),$(LAB_MINUTES),0)

.PHONY: lab-ab

# BASE is built by its own Makefile, without this make's command-line
# variables (a BUILD= or BENCH_OUT= here must not send BASE's build into the
# working tree's). The run is lab-up's, with the BASE side added to the bench
# role (bench_ab_*), so provisioning, rounds and the report are one path.
# A BASE whose benchrun has no --parts measures both sides in one piece: the two
# sides must be measured alike.
lab-ab: $(STAMPS)/venv ## A/B in one run: build BASE=<git ref> beside the working tree, run both in the same rounds on every target whose A/B can reach significance (not TCG guests' 3 rounds), report HEAD against BASE per target
	@set -euo pipefail; \
	[ -n "$(BASE)" ] || { echo "lab-ab: expected BASE=<git ref>, e.g. make lab-ab BASE=main" >&2; exit 2; }; \
	ab_vars=$$($(VMPARITY) lab ab --base '$(subst ','\'',$(BASE))' --dir $(AB_DIR) --repo $(ROOT)); \
	eval "$$ab_vars"; \
	echo "==> lab-ab: BASE $$ab_ref is $$ab_commit, checked out in $$ab_src"; \
	$(MAKE) --no-print-directory deps; \
	t=$$(date +%s); env -u MAKEFLAGS -u MFLAGS $(MAKE) --no-print-directory -C "$$ab_src" bench; \
	echo "lab-ab: BASE built in $$(( $$(date +%s) - t ))s"; \
	parts=""; base_help=$$("$$ab_bench/benchrun" --help 2>&1 || true); \
	case "$$base_help" in *-parts*) ;; *) parts="-e bench_parts=1"; \
	  echo "lab-ab: BASE's benchrun has no --parts (before 2026-11-27): both sides run their repetitions in one piece";; esac; \
	case "$$base_help" in *-share*) ;; *) parts="$$parts -e '{\"bench_share\":{}}'"; \
	  echo "lab-ab: BASE's benchrun has no --share (an older build): both sides run the profile's whole time";; esac; \
	run_id="$(LAB_RUN_ID)"; [ -n "$$run_id" ] || run_id=$$(date -u +%Y-%m-%dT%H-%M-%SZ)-ab-$(PROFILE); \
	$(MAKE) --no-print-directory lab-up LAB_RUN_ID=$$run_id LAB_MINUTES=$(LAB_AB_MINUTES) \
	  LAB_ARGS="$(LAB_ARGS) -e bench_ab_base_dir=$$ab_bench -e bench_ab_base_ref=$$ab_ref -e bench_ab_base_commit=$$ab_commit $$parts"; \
	echo "lab-ab: HEAD against BASE $$ab_ref per target: $(RESULTS_DIR)/runs/$$run_id/report.md; for a pull request:"; \
	echo "  $(VMPARITY) --results-dir $(RESULTS_DIR) pr-comment --ab $$run_id"
