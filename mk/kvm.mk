# The KVM path on a machine without KVM: the rack bed's nested KVM hosts
# (tests/rack/kvm_host.py), TCG guests of the lab's image whose emulated CPU
# has AMD-V, so libvirt inside them runs real KVM guests. Each is one more rack
# host to the controller: site.yml provisions it over SSH through the same
# roles, and accel auto picks KVM there. docs/kvm.md.

KVM_BED_DIR     ?= $(BUILD)/kvm-bed
#> kvm-up, kvm-lab: the nested KVM hosts, a core each (kvm01 runs guest-nosmt, kvm02 guest-hpet-clock)
KVM_HOSTS       ?= kvm01,kvm02
# The nested host's guests are emulated underneath: a few rounds show what KVM
# configures (topology, features, clock); timing needs real hardware. Four: the
# fewest at which the U test can call a row different at all (4 a side at
# alpha 0.05), so that kvm-verify finds explanations to test in the run.
#> kvm-lab: benchrun's profile on the nested KVM host
KVM_PROFILE     ?= smoke
#> kvm-lab: rounds on the nested KVM host
KVM_ROUNDS      ?= 4
KVM_RUN_ID      ?=
# kvm-lab in a time budget: LAB_MINUTES on its command line (make kvm-lab LAB_MINUTES=8) plans the
# rounds to fit it (vmparity lab budget: each kind's floor, up to KVM_MOST_ROUNDS) instead of KVM_ROUNDS
KVM_MINUTES      = $(filter-out 0,$(if $(filter command line environment,$(origin LAB_MINUTES)),$(LAB_MINUTES)))
#> kvm-lab: with LAB_MINUTES given, the most rounds its budget may plan
KVM_MOST_ROUNDS ?= 10
KVM_TEST_ARGS   ?=
KVM_LAPTOP       = $(KVM_BED_DIR)/laptop
# ansible-playbook as from a laptop, with the bed's rack inventory (kvm-lab, kvm-verify)
KVM_ANSIBLE      = $(KVM_LAPTOP) ansible-playbook -i $(KVM_BED_DIR)/inventory \
  -e bench_results_dir=$(abspath $(RESULTS_DIR)) -e bench_staging_dir=$(abspath $(KVM_BED_DIR))/staging
# kvm-verify: the run whose explanations are tested (default: the newest kvm-lab run), and its rounds
# (KVM guests take every round: the U test between a guest and its fix needs 4 a side, one spare)
KVM_VERIFY_RUN    ?=
KVM_VERIFY_ROUNDS ?= 5

.PHONY: kvm-lab kvm-up kvm-down kvm-verify test-kvm
TEST_TARGETS += test-kvm

kvm-up: $(STAMPS)/venv bench image ## Bring the nested KVM hosts up (TCG VMs whose guests are KVM guests) and leave them to try; kvm-down removes them
	$(PY) tests/rack/bed.py up --dir $(KVM_BED_DIR) --hosts $(KVM_HOSTS)
	@echo "kvm-up: the nested KVM hosts $(KVM_HOSTS) are up. As from a laptop:"
	@echo "  $(KVM_LAPTOP) ssh kvm01 virsh list --all"
	@echo "  $(KVM_LAPTOP) ansible-playbook -i $(KVM_BED_DIR)/inventory ansible/playbooks/site.yml -e bench_profile=smoke"

kvm-lab: kvm-up ## The KVM path end to end here: the nested KVM hosts, their KVM guests (nosmt, hpet-clock) checked against their variants, KVM_PROFILE (smoke) in KVM_ROUNDS rounds or in LAB_MINUTES, report
	@set -euo pipefail; start=$$(date +%s); \
	run_id="$(KVM_RUN_ID)"; [ -n "$$run_id" ] || run_id=$$(date -u +%Y-%m-%dT%H-%M-%SZ)-kvm-$(KVM_PROFILE); \
	$(KVM_ANSIBLE) $(LAB_PLAYBOOKS)/site.yml -e bench_profile=$(KVM_PROFILE) -e bench_run_id=$$run_id \
	  $(if $(KVM_MINUTES),-e bench_count=$(KVM_MOST_ROUNDS) -e bench_minutes=$(KVM_MINUTES) -e bench_started=$$start,-e bench_count=$(KVM_ROUNDS)) \
	  $(LAB_ARGS); \
	echo "kvm-lab: site.yml took $$(( $$(date +%s) - start ))s$(if $(KVM_MINUTES), (budget $(KVM_MINUTES) min)); report in $(RESULTS_DIR)/runs/$$run_id/ (report.md, report.html)"

# A run of several hosts is verified one host at a time (lab-verify's LAB_VERIFY_HOST): each host in turn,
# unless LAB_VERIFY_TARGETS or LAB_VERIFY_HOST names one.
kvm_verify_hosts = $(if $(strip $(LAB_VERIFY_TARGETS) $(LAB_VERIFY_HOST)),$(or $(LAB_VERIFY_HOST),-),$(subst $(comma), ,$(KVM_HOSTS)))
comma := ,

kvm-verify: kvm-up ## Test a kvm-lab run's explanations on KVM guests: each fix (clocksource, tunable, topology) applied to a copy of its guest on its nested host, measured again, verdicts stored (make lab-verify's method)
	@rc=0; for h in $(kvm_verify_hosts); do \
	  $(MAKE) --no-print-directory lab-verify LAB_VERIFY_ANSIBLE='$(KVM_ANSIBLE)' LAB_VERIFY_RUNS=-kvm- \
	    LAB_VERIFY_RUN=$(KVM_VERIFY_RUN) LAB_VERIFY_ROUNDS=$(KVM_VERIFY_ROUNDS) LAB_VERIFY_PROFILE=$(KVM_PROFILE) \
	    LAB_VERIFY_DIR=$(KVM_BED_DIR)/verify LAB_VERIFY_BUILD= LAB_VERIFY_HOST=$${h#-} || rc=$$?; \
	done; exit $$rc

kvm-down: $(STAMPS)/venv ## Remove the nested KVM hosts of kvm-up/kvm-lab and their guests (their disk stays as a cache; twice is harmless)
	$(PY) tests/rack/bed.py down --dir $(KVM_BED_DIR)

test-kvm: $(STAMPS)/venv bench image ## The KVM path end to end on the nested KVM hosts: KVM guests provisioned over SSH, checked, measured, explained; a variant the CPU lacks refused; teardown
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) -m rack tests/rack/test_kvm.py $(KVM_TEST_ARGS)
