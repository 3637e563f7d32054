# `make check` and `make test`: which suites, in which lanes. Every component
# adds its suites to CHECK_TARGETS (no guest, container or rack) or to
# TEST_TARGETS (real libvirtd, qemu, dockerd, Ansible); mk/suites.sh builds
# what the suites share first (alone), then runs the lanes side by side, each
# lane's suites one after another, and ends with one line per suite and its time.
# A suite left out of every lane is refused, not skipped.
#   make check                    # before pushing: minutes, no daemon
#   make test                     # everything (CI): check's suites and the end-to-end ones
#   make test TEST_LANE_1=        # one lane: every suite one after another

SUITES_LOG_DIR ?= $(BUILD)/suites
# Built first, alone, so that two lanes never build the same thing at once.
CHECK_BEFORE   ?= deps bench
TEST_BEFORE    ?= deps bench image
# Lane 1 of check: the longest suite; lane 2: the others.
CHECK_LANE_1   ?= test-py
# Lane 1 of test: the suites that run TCG guests, one after another: the
# image, the lab end to end, the rack. Side by side they gained little (both
# are CPU-bound on 2 cores: 1,130 s together against about 1,240 s in turn)
# and starved guests fail timing checks (a guest's clock drifts, and one run
# saw two targets' spans overlap). The repro lab joins them: no two suites
# that drive dockerd, libvirtd or guests run at once, and so does the nested
# KVM host (test-kvm), last. Not beside rack-test in lane 2 either: tried in a
# fresh clone's CI (2026-12-07), rack-test took 630 s instead of 426, and the
# nested host's hpet guest did not reach SSH in 300 s, then its host stopped
# answering. Lane 2: check's suites, which need no daemon.
TEST_LANE_1    ?= test-image test-lab-e2e test-lab-repro rack-test test-kvm
# First in lane 2: the install routes' downloads and builds, beside the image
# test and the lab's start, not beside the lab's verify test at the end of
# test-lab-e2e, whose verdicts a busy core can move.
TEST_LANE_2_FIRST ?= test-install

check_lanes = "$(CHECK_LANE_1)" "$(filter-out $(CHECK_LANE_1),$(CHECK_TARGETS))"
test_lanes  = "$(TEST_LANE_1)" "$(TEST_LANE_2_FIRST) $(filter-out $(TEST_LANE_1) $(TEST_LANE_2_FIRST),$(CHECK_TARGETS) $(TEST_TARGETS))"

.PHONY: check test

check: ## Before pushing: every test that needs no guest, container or rack (unit tests, self-tests, linters, schemas, golden files), in minutes
	@MAKE="$(MAKE)" mk/suites.sh "make check" $(SUITES_LOG_DIR)/check "$(CHECK_BEFORE)" "$(CHECK_TARGETS)" $(check_lanes)

test: ## Install what is missing, build, and run every test: check's and the end-to-end lab, rack and image suites (CI runs this)
	@MAKE="$(MAKE)" mk/suites.sh "make test" $(SUITES_LOG_DIR)/test "$(TEST_BEFORE)" "$(CHECK_TARGETS) $(TEST_TARGETS)" $(test_lanes)
