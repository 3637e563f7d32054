"""Target names and kinds have one definition (vmparity.names); the Ansible roles
reach it through the `vmparity` role's filter plugin, checked here with the
real ansible-playbook on localhost (no daemon involved)."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from vmparity.results import targets as names
from vmparity.repro.verdicts import reference_metal

REPO = Path(__file__).resolve().parents[1]
ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")


def test_names_of_each_target():
    assert names.metal_target() == "metal" and names.metal_target("-rack02") == "metal-rack02"
    assert names.guest_target("nosmt") == "guest-nosmt"
    assert names.guest_target("nosmt", "-rack02") == "guest-nosmt-rack02"
    assert names.container_target("quota") == "container-quota"
    assert names.guest_variant("guest-smt-topoext") == "smt-topoext"
    assert names.guest_variant("container-quota") is None
    assert names.container_variant("container-quota") == "quota"
    assert names.aa_control_of("metal-rack01") == "metal-aa-rack01"


def test_kind_follows_what_runs_the_target():
    assert [names.target_kind(r) for r in ("host", "kvm", "qemu", "docker")] == list(names.KINDS)
    with pytest.raises(ValueError, match="unknown runner 'xen'"):
        names.target_kind("xen")


def test_patterns_cover_rack_suffixes_and_hosts_own_their_targets():
    assert names.matches("guest-nosmt-rack02", "guest-nosmt")
    assert names.matches("guest-nosmt", "guest-*")
    assert not names.matches("guest-nosmtx", "guest-nosmt")
    assert names.on_host_of("guest-nosmt-rack02", "metal-rack02")
    assert not names.on_host_of("guest-nosmt-rack02", "metal-rack01")
    assert names.on_host_of("guest-nosmt", "metal")
    assert not names.on_host_of("guest-nosmt", "container-quota")


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
                  'kinds': ['qemu', 'kvm', 'docker'] | map('vmparity_target_kind') | list} | to_json }}
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
        "kinds": ["tcg-guest", "kvm-guest", "container"]}
