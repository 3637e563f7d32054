# The rack path, on a simulated rack (tests/rack/bed.py): two rack hosts as
# containers of the lab image with sshd on 127.0.0.1:2201/2202, each with its
# own dockerd and libvirtd, driven from this machine over SSH only, with an
# ordinary inventory made from ansible/inventories/rack-example.

RACK_BED_DIR ?= $(BUILD)/rack-bed
# The hosts rack-demo brings up: the two container hosts, and kvm01, the nested
# KVM host (a TCG VM whose guests are KVM guests, docs/kvm.md), when named:
#   make rack-demo RACK_HOSTS=rack01,rack02,kvm01
#> rack-demo: the simulated rack's hosts (add kvm01 for the nested KVM host)
RACK_HOSTS   ?= rack01,rack02

.PHONY: rack-test rack-demo rack-down
TEST_TARGETS += rack-test

rack-test: $(STAMPS)/venv bench image ## The rack path end to end: site.yml over SSH on a simulated two-host rack, one run, a host killed mid-run and filled in, fab, teardown
	$(PY) -m pytest -q -p no:cacheprovider $(PYTEST_FLAGS) -m rack tests/rack/test_rack.py

rack-demo: $(STAMPS)/venv bench image ## Bring the simulated rack up and leave it to try (ansible-playbook, ssh, fab as from a laptop); rack-down removes it
	$(PY) tests/rack/bed.py up --dir $(RACK_BED_DIR) --hosts $(RACK_HOSTS)
	@echo "rack-demo: the rack is up. As from a laptop:"
	@echo "  $(RACK_BED_DIR)/laptop ansible-playbook -i $(RACK_BED_DIR)/inventory ansible/playbooks/site.yml -e bench_profile=smoke"
	@echo "  $(RACK_BED_DIR)/laptop ssh rack01        $(RACK_BED_DIR)/laptop fab -H $(RACK_HOSTS) probe"
	@echo "  make rack-down                           # remove it"

rack-down: $(STAMPS)/venv ## Remove the simulated rack of rack-demo (its rack-host image stays as a cache)
	$(PY) tests/rack/bed.py down --dir $(RACK_BED_DIR)
