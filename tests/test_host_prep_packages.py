"""host_prep asks apt only for the packages that are missing: with every package
installed it never refreshes apt's cache, so a host with a stale cache and no
reachable mirror (an offline rack host; here once a broken /dev/null made every
`apt-get update` fail) is prepared all the same. The real ansible-playbook on
localhost runs the role's tasks/packages.yml; apt runs in check mode, which
computes what it would install without touching the cache or the system."""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TASKS = REPO / "ansible" / "roles" / "host_prep" / "tasks" / "packages.yml"
ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")

pytestmark = pytest.mark.skipif(shutil.which("dpkg-query") is None or not ANSIBLE_PLAYBOOK.exists(),
                                reason="needs Debian's dpkg-query and the lab extra's ansible-playbook")


def _run(tmp_path, packages):
    """The task results of packages.yml for `packages`, in check mode, by task name."""
    play = tmp_path / "play.yml"
    play.write_text(textwrap.dedent(f"""\
        - hosts: localhost
          connection: local
          gather_facts: false
          vars:
            host_prep_packages: {json.dumps(packages)}
            host_prep_apt_cache_valid_time: 0
          tasks:
            - ansible.builtin.import_tasks: {TASKS}
        """))
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_LOCALHOST_WARNING="false",
               ANSIBLE_INVENTORY_UNPARSED_WARNING="false")
    p = subprocess.run([str(ANSIBLE_PLAYBOOK), "-i", "localhost,", "--check", str(play),
                        "-e", f"ansible_python_interpreter={sys.executable}"],
                       capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    out = json.loads(p.stdout[p.stdout.index("{"):])
    return p.returncode, {t["task"]["name"]: t["hosts"]["localhost"] for t in out["plays"][0]["tasks"]}


def test_every_package_installed_asks_apt_nothing(tmp_path):
    rc, tasks = _run(tmp_path, ["coreutils", "dpkg"])
    assert rc == 0
    install = tasks["Install the packages the lab needs that are missing"]
    assert install.get("skipped") is True, install


def test_a_missing_package_is_the_only_one_apt_is_asked_for(tmp_path):
    rc, tasks = _run(tmp_path, ["coreutils", "vmparity-no-such-package"])
    install = tasks["Install the packages the lab needs that are missing"]
    assert not install.get("skipped"), install
    assert install["invocation"]["module_args"]["name"] == ["vmparity-no-such-package"]
