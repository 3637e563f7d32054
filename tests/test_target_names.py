"""Target names and kinds have one definition (vmparity.results.targets); the Ansible roles
reach it through the `vmparity` role's filter plugin, checked here with the
real ansible-playbook on localhost (no daemon involved)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vmparity.results import targets
from vmparity.repro.verdicts import reference_metal

REPO = Path(__file__).resolve().parents[1]
ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")


def test_names_of_each_target():
    assert targets.metal_target() == "metal" and targets.metal_target("-rack02") == "metal-rack02"
    assert targets.guest_target("nosmt") == "guest-nosmt"
    assert targets.guest_target("nosmt", "-rack02") == "guest-nosmt-rack02"
    assert targets.container_target("quota") == "container-quota"
    assert targets.guest_variant("guest-smt-topoext") == "smt-topoext"
    assert targets.guest_variant("container-quota") is None
    assert targets.container_variant("container-quota") == "quota"
    assert targets.aa_control_of("metal-rack01") == "metal-aa-rack01"


def test_kind_follows_what_runs_the_target():
    assert [targets.target_kind(r) for r in ("host", "kvm", "qemu", "docker")] == list(targets.KINDS)
    with pytest.raises(ValueError, match="unknown runner 'xen'"):
        targets.target_kind("xen")


def test_patterns_cover_rack_suffixes_and_hosts_own_their_targets():
    assert targets.matches("guest-nosmt-rack02", "guest-nosmt")
    assert targets.matches("guest-nosmt", "guest-*")
    assert not targets.matches("guest-nosmtx", "guest-nosmt")
    assert targets.on_host_of("guest-nosmt-rack02", "metal-rack02")
    assert not targets.on_host_of("guest-nosmt-rack02", "metal-rack01")
    assert targets.on_host_of("guest-nosmt", "metal")
    assert not targets.on_host_of("guest-nosmt", "container-quota")


class _Target:
    def __init__(self, kind="metal"):
        self.kind = kind


def test_reference_metal_is_the_targets_own_host():
    targets = {n: _Target() for n in ("metal-a", "metal-b-a", "guest-x-b-a", "guest-y-a")}
    # both suffixes fit guest-x-b-a; the longer one is its host
    assert reference_metal(targets, "guest-x-b-a") is targets["metal-b-a"]
    assert reference_metal(targets, "guest-y-a") is targets["metal-a"]
    single = {"metal": _Target(), "guest-x": _Target("kvm-guest")}
    assert reference_metal(single, "guest-x") is single["metal"]
    unnamed = {"host1": _Target("kvm-guest"), "host2": _Target("metal")}
    assert reference_metal(unnamed, "host1") is unnamed["host2"]


PLAY = textwrap.dedent("""\
    - name: The vmparity role's filters
      hosts: localhost
      connection: local
      gather_facts: false
      roles:
        - role: vmparity
      tasks:
        - name: Print what the filters return
          ansible.builtin.debug:
            msg: >-
              {{ {'metal': '-rack02' | vmparity_metal_target,
                  'guest': 'nosmt' | vmparity_guest_target('-rack02'),
                  'container': 'quota' | vmparity_container_target(''),
                  'kinds': ['qemu', 'kvm', 'docker'] | map('vmparity_target_kind') | list,
                  'interventions': ['nosmt', 'nosmt+clocksource-tsc', '', 'quota+seccomp-unconfined']
                                   | vmparity_interventions} | to_json }}
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_the_roles_get_names_and_kinds_from_the_filter_plugin(tmp_path):
    (tmp_path / "play.yml").write_text(PLAY)
    env = dict(os.environ, ANSIBLE_ROLES_PATH=str(REPO / "ansible" / "roles"), ANSIBLE_STDOUT_CALLBACK="json",
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    run = subprocess.run([str(ANSIBLE_PLAYBOOK), str(tmp_path / "play.yml")], capture_output=True, text=True,
                         env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    task = json.loads(run.stdout)["plays"][0]["tasks"][-1]
    assert json.loads(task["hosts"]["localhost"]["msg"]) == {
        "metal": "metal-rack02", "guest": "guest-nosmt-rack02", "container": "container-quota",
        "kinds": ["tcg-guest", "kvm-guest", "container"],
        "interventions": ["nosmt+clocksource-tsc", "quota+seccomp-unconfined"]}


def test_a_target_with_a_fix_applied_is_measured_only_when_named():
    # lab verify leaves `<target>+<fix>` targets running; the next lab-up must not measure them
    import importlib.util
    from pathlib import Path

    from vmparity.results.targets import is_intervention

    assert is_intervention("container-quota+seccomp-unconfined") and not is_intervention("container-quota")
    assert not is_intervention("guest-nosmt~base") and not is_intervention("metal-rack1")
    path = Path(__file__).resolve().parent.parent / "ansible/roles/bench/filter_plugins/vmparity_lab.py"
    spec = importlib.util.spec_from_file_location("vmparity_lab_filters", path)
    filters = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(filters)
    without = filters.FilterModule().filters()["vmparity_without_interventions"]
    assert without(["metal", "metal-aa", "guest-hpet-clock", "guest-hpet-clock+clocksource-tsc"]) == [
        "metal", "metal-aa", "guest-hpet-clock"]
