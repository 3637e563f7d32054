"""The lab's two actions (action_plugins/), with which a round costs the controller and a TCG
guest less per repetition: vmparity_run (the vmparity role's, so every role has it) runs benchrun
through the target's shell, no Python there (ansible.builtin.command starts Python on the target
for every repetition, which a TCG guest emulates for seconds), and the bench role's vmparity_keep
keeps its output on the controller in the controller's own process (a copy task takes two module
runs a file). What each does, that the rounds use them, and, with the real ansible-playbook on
localhost (no daemon involved), that they work as tasks."""

import json
import os
import re
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from vmparity.lab import source_file

REPO = Path(__file__).resolve().parents[1]
ROLES = REPO / "ansible" / "roles"
ROLE = ROLES / "bench"
ANSIBLE_PLAYBOOK = Path(sys.executable).with_name("ansible-playbook")


def _playbook(play, *args):
    """The real ansible-playbook on localhost with the lab's roles, from play's directory; JSON output."""
    env = dict(os.environ, ANSIBLE_ROLES_PATH=str(ROLES), ANSIBLE_STDOUT_CALLBACK="json",
               ANSIBLE_LOCALHOST_WARNING="false", ANSIBLE_INVENTORY_UNPARSED_WARNING="false",
               PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    return subprocess.run([str(ANSIBLE_PLAYBOOK), "-i", "localhost,", *args, str(play)],
                          capture_output=True, text=True, env=env, cwd=play.parent, timeout=300)


def _plugin(name, role="bench"):
    pytest.importorskip("ansible", reason="ansible is the lab extra's")
    return source_file.load(name, ROLES / role / "action_plugins" / f"{name}.py")


def _keep():
    return _plugin("vmparity_keep").keep


def test_keep_writes_the_text_and_says_when_nothing_changed(tmp_path):
    keep = _keep()
    dest = tmp_path / "guest-nosmt.txt"
    assert keep("vmparity-format: 1\nBenchmarkX 1 2 ns/op\n", dest) is True
    assert dest.read_text() == "vmparity-format: 1\nBenchmarkX 1 2 ns/op\n"
    assert stat.S_IMODE(dest.stat().st_mode) == 0o644
    assert keep("vmparity-format: 1\nBenchmarkX 1 2 ns/op\n", dest) is False
    assert keep("other\n", dest, "0600") is True and dest.read_text() == "other\n"
    assert stat.S_IMODE(dest.stat().st_mode) == 0o600
    assert keep("other\n", dest, "0644") is True  # the mode alone changed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["guest-nosmt.txt"]  # no temporary file left


def test_keep_into_a_missing_directory_fails_and_leaves_nothing(tmp_path):
    keep = _keep()
    with pytest.raises(FileNotFoundError):
        keep("x", tmp_path / "no-such-dir" / "f.txt")
    assert list(tmp_path.iterdir()) == []


PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      vars:
        out: "{{ playbook_dir }}/out"
        stdout: "vmparity-format: 1\\ntarget: guest-nosmt\\nBenchmarkClock/clock=realtime 1 20.5 ns/op"
      tasks:
        - name: Load the bench role (its plugins), run none of its tasks
          ansible.builtin.import_role:
            name: bench
            tasks_from: assert.yml
          when: false
        - name: Keep a repetition
          vmparity_keep:
            content: "{{ stdout }}\\n"
            dest: "{{ out }}/rep.txt"
            mode: "0644"
          register: first
        - name: Keep it again
          vmparity_keep:
            content: "{{ stdout }}\\n"
            dest: "{{ out }}/rep.txt"
          register: again
        - name: Keep a round's record (JSON text, which a template gives back as data)
          vmparity_keep:
            content: >-
              {{ {'round': 1, 'order': ['metal', 'guest-nosmt'], 'timings': {}} | to_nice_json }}
            dest: "{{ out }}/host-localhost.json"
            mode: "0644"
        - name: Keep into a directory that does not exist
          vmparity_keep:
            content: x
            dest: "{{ out }}/missing/rep.txt"
          register: missing
          ignore_errors: true
        - name: Say what happened
          ansible.builtin.debug:
            msg: "{{ {'first': first.changed, 'again': again.changed, 'missing': missing.failed,
                      'why': missing.msg | default('')} | to_json }}"
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_the_bench_role_keeps_files_on_the_controller_with_its_action(tmp_path):
    (tmp_path / "play.yml").write_text(PLAY)
    (tmp_path / "out").mkdir()
    run = _playbook(tmp_path / "play.yml")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    said = json.loads(json.loads(run.stdout)["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"])
    assert said["first"] is True and said["again"] is False
    assert said["missing"] is True and "missing/rep.txt" in said["why"]
    assert (tmp_path / "out" / "rep.txt").read_text() == (
        "vmparity-format: 1\ntarget: guest-nosmt\nBenchmarkClock/clock=realtime 1 20.5 ns/op\n")
    record = json.loads((tmp_path / "out" / "host-localhost.json").read_text())
    assert record == {"round": 1, "order": ["metal", "guest-nosmt"], "timings": {}}


def _tasks(path):
    out = []

    def walk(items):
        for t in items or []:
            out.append(t)
            for key in ("block", "rescue", "always"):
                walk(t.get(key))
    walk(yaml.safe_load(path.read_text()))
    return out


@pytest.mark.parametrize("name,action", [("run_target.yml", "vmparity_repetition"), ("round.yml", "vmparity_keep")])
def test_the_rounds_keep_their_files_without_a_module_run(name, action):
    # a repetition's output kept by the task that ran it (run_target), a round's record by its own
    # task (round): the copy module is not used
    tasks = _tasks(ROLE / "tasks" / name)
    keeps = [t for t in tasks if action in t and "keep" in t[action] or "dest" in t.get(action, {})]
    assert keeps, f"{name} keeps nothing with {action}"
    assert not [t["name"] for t in tasks if "ansible.builtin.copy" in t or "copy" in t]


def test_run_quotes_every_word_and_adds_the_environment():
    shell_command = _plugin("vmparity_run", "vmparity").shell_command
    argv = ["sh", "-c", 'printf "%s|" "$VMPARITY_X" "$GLIBC_TUNABLES" "$@"', "sh", "a b", "it's", "$HOME", "*", ""]
    env = {"VMPARITY_X": "x y; true", "GLIBC_TUNABLES": "glibc.cpu.x86_non_temporal_threshold=0xc000000"}
    run = subprocess.run(["/bin/sh", "-c", shell_command(argv, env)], capture_output=True, text=True,
                         env={"PATH": os.environ["PATH"], "HOME": "/nowhere"}, check=True)
    assert run.stdout == "x y; true|glibc.cpu.x86_non_temporal_threshold=0xc000000|a b|it's|$HOME|*||"
    assert shell_command(["/var/tmp/vmparity-bench/benchrun", "--count", "1"]) == \
        "/var/tmp/vmparity-bench/benchrun --count 1"
    with pytest.raises(ValueError):
        shell_command(["true"], {"NOT A NAME": "1"})
    with pytest.raises(ValueError):
        shell_command([], {})


RUN_PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      tasks:
        - name: Load the guests role (its plugins and its dependency's), run none of its tasks
          ansible.builtin.import_role:
            name: guests
            tasks_from: clock.yml
          when: false
        - name: Run a program with more environment
          vmparity_run:
            argv: [sh, -c, 'printf "%s|%s\\\\n\\\\n" "$GOMAXPROCS" "$1"; echo progress >&2', sh, "x y"]
            env: {GOMAXPROCS: "1"}
          register: ran
        - name: Run one that fails
          vmparity_run:
            argv: [sh, -c, 'echo out; echo "benchrun: memcpy failed" >&2; exit 3']
          register: failed
          ignore_errors: true
        - name: Say what happened
          ansible.builtin.debug:
            msg: "{{ {'ran': ran, 'failed': failed} | to_json }}"
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_every_role_runs_programs_through_the_shell_with_the_vmparity_action(tmp_path):
    import datetime

    (tmp_path / "play.yml").write_text(RUN_PLAY)
    before = datetime.datetime.now()
    run = _playbook(tmp_path / "play.yml")
    after = datetime.datetime.now()
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    said = json.loads(json.loads(run.stdout)["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"])
    ran, failed = said["ran"], said["failed"]
    # stdout as command gives it (trailing newlines stripped), stderr apart, never mixed in
    assert ran["rc"] == 0 and ran["stdout"] == "1|x y" and ran["stderr"] == "progress"
    assert ran["changed"] is True and not ran.get("failed")
    # the controller's clock, in command's format
    start, end = (datetime.datetime.strptime(ran[k], "%Y-%m-%d %H:%M:%S.%f") for k in ("start", "end"))
    assert before <= start <= end <= after
    assert failed["failed"] is True and failed["rc"] == 3
    assert failed["stdout"] == "out" and failed["stderr"] == "benchrun: memcpy failed"


def test_the_rounds_run_benchrun_without_python_on_the_target():
    tasks = _tasks(ROLE / "tasks" / "run_target.yml")
    runs = [t for t in tasks if "vmparity_repetition" in t]
    assert len(runs) == 1
    assert {k: runs[0]["vmparity_repetition"][k] for k in ("argv", "env")} == {
        "argv": "{{ bench_benchrun_argv }}", "env": "{{ bench_benchrun_env }}"}
    # benchrun's last line, its own time, is what the controller's is checked against
    line = "benchrun: wrote - (2 result lines, profile smoke, count 1) in 12.3s"
    assert re.search(runs[0]["vmparity_repetition"]["clock_check"], line).group(1) == "12.3"
    assert runs[0]["delegate_to"] == "{{ bench_target.host }}"
    assert not [t["name"] for t in tasks if "ansible.builtin.command" in t or "environment" in t]
    # the repetition's action is the vmparity role's run action with the keep and the isolation added
    action = _plugin("vmparity_repetition")
    assert issubclass(action.ActionModule, action._run.ActionModule)
    assert action._run.ActionModule._VALID_ARGS < action.ActionModule._VALID_ARGS


def test_a_clock_that_did_not_keep_time_is_named_either_way_and_a_right_one_passes():
    disagreement = _plugin("vmparity_run", "vmparity").clock_disagreement
    said = "[1/2] rep 1/1 clock ... 0.10s\nbenchrun: wrote - (9 result lines, profile verify, count 1) in {}s"
    pattern = r"benchrun: wrote .* in ([0-9.]+)s$"
    # the nested host's freshly booted guest: 198 s on the controller's clock, 0.2 s on its own
    slow = disagreement(pattern, said.format("0.2"), 198.0)
    assert slow and "ran slow" in slow and "0.2 s" in slow and "198.0 s" in slow
    assert "ran fast" in disagreement(pattern, said.format("60.0"), 20.0)
    # connection and start-up on a busy TCG guest are allowed for: 12 s around 3 s of its own
    assert disagreement(pattern, said.format("3.0"), 12.0) is None
    assert disagreement(pattern, said.format("25.1"), 27.9) is None
    # the last such line counts; none at all (a program that does not time itself) is no disagreement
    assert disagreement(pattern, said.format("0.2") + "\n" + said.format("190.0"), 198.0) is None
    assert disagreement(pattern, "benchrun: memcpy failed", 198.0) is None


CLOCK_CHECK_PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      vars:
        # says it took no time at all, though it slept 2 s: at its first run only, or every time
        lie: >-
          n=$(cat {{ playbook_dir }}/runs 2>/dev/null || echo 0); echo $((n + 1)) > {{ playbook_dir }}/runs;
          sleep 2; echo "value $n"; if [ "$n" -lt "$1" ]; then s=0.0; else s=2.0; fi;
          echo "benchrun: wrote - (1 result lines, profile smoke, count 1) in ${s}s" >&2
      tasks:
        - name: Load the guests role (its plugins and its dependency's), run none of its tasks
          ansible.builtin.import_role:
            name: guests
            tasks_from: clock.yml
          when: false
        - name: Run one whose clock is wrong {{ wrong }} time(s)
          vmparity_run:
            argv: [sh, -c, "{{ lie }}", sh, "{{ wrong }}"]
            clock_check: 'benchrun: wrote .* in ([0-9.]+)s$'
            clock_ratio: 1.2
            clock_slack: 0.5
          register: ran
          ignore_errors: true
        - name: Say what happened
          ansible.builtin.debug:
            msg: "{{ ran | to_json }}"
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
@pytest.mark.parametrize("wrong", [0, 1, 2])
def test_a_run_whose_clock_disagrees_is_made_once_more_and_fails_if_it_disagrees_again(tmp_path, wrong):
    (tmp_path / "play.yml").write_text(CLOCK_CHECK_PLAY)
    run = _playbook(tmp_path / "play.yml", "-e", f"wrong={wrong}")
    said = json.loads(json.loads(run.stdout)["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"])
    runs = int((tmp_path / "runs").read_text())
    if wrong == 0:
        assert runs == 1 and not said.get("failed") and "clock_retried" not in said and said["stdout"] == "value 0"
    elif wrong == 1:
        # the second run is the one kept: its output, its times
        assert runs == 2 and not said.get("failed") and said["stdout"] == "value 1", said
        assert "ran slow" in said["clock_retried"]
        assert "ran slow" in run.stdout + run.stderr  # the warning the user sees
    else:
        assert runs == 2 and said["failed"] and "ran slow" in said["msg"] and "twice" in said["msg"], said


DEPLOY_PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      vars:
        bench_staging_dir: "{{ playbook_dir }}/stage"
        bench_deploy: {local: "{{ playbook_dir }}/build", remote: "{{ playbook_dir }}/remote/vmparity-bench"}
        bench_target: {host: localhost, target: metal}
      tasks:
        - name: Load the bench role (its plugins), run none of its tasks
          ansible.builtin.import_role:
            name: bench
            tasks_from: assert.yml
          when: false
        - name: Deploy
          ansible.builtin.include_role:
            name: bench
            tasks_from: deploy.yml
        - name: Say what happened
          ansible.builtin.debug:
            msg: "{{ {'deployed': bench_deployed.rc, 'unpacked': bench_unpacked.rc | default(None)} | to_json }}"
    """)


def _deploy(tmp_path, archive_from):
    """Pack archive_from as deploy_all.yml would (named by build/'s manifest) and run deploy.yml."""
    import hashlib

    manifest = (tmp_path / "build" / "MANIFEST.sha256").read_bytes()
    stage = tmp_path / "stage"
    stage.mkdir(exist_ok=True)
    name = hashlib.sha256(manifest).hexdigest()  # the vmparity_bench_archive filter's name
    subprocess.run(["tar", "-C", str(archive_from), "-czf", str(stage / f"bench-{name}.tar.gz"), "."], check=True)
    run = _playbook(tmp_path / "play.yml")
    out = json.loads(run.stdout)
    return run.returncode, out


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_the_binaries_are_streamed_in_once_and_checked_on_arrival(tmp_path):
    (tmp_path / "play.yml").write_text(DEPLOY_PLAY)
    build = tmp_path / "build"
    build.mkdir()
    for name, text in (("benchrun", "#!/bin/sh\necho run\n"), ("clock", "binary\0data" * 1000)):
        (build / name).write_text(text)
    subprocess.run("sha256sum benchrun clock > MANIFEST.sha256", shell=True, cwd=build, check=True)
    # first: missing, so copied, unpacked and checked in one stream
    rc, out = _deploy(tmp_path, build)
    assert rc == 0, json.dumps(out)[-3000:]
    said = json.loads(out["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"])
    assert said["deployed"] != 0 and said["unpacked"] == 0
    remote = tmp_path / "remote" / "vmparity-bench"
    assert (remote / "clock").read_bytes() == (build / "clock").read_bytes()
    assert (remote / "MANIFEST.sha256").read_text() == (build / "MANIFEST.sha256").read_text()
    # again: the same binaries are there, nothing is copied
    rc, out = _deploy(tmp_path, build)
    said = json.loads(out["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"])
    assert rc == 0 and said == {"deployed": 0, "unpacked": None}
    # an archive whose binary does not match the manifest (damaged on the way) stops the play, naming it
    damaged = tmp_path / "damaged"
    subprocess.run(["cp", "-r", str(build), str(damaged)], check=True)
    (damaged / "clock").write_text("something else")
    (remote / "clock").write_text("stale")
    rc, out = _deploy(tmp_path, damaged)
    assert rc != 0
    failed = [h for t in out["plays"][0]["tasks"] for h in t["hosts"].values() if h.get("failed")]
    assert failed and "do not match MANIFEST.sha256" in failed[-1]["msg"] and "clock: FAILED" in failed[-1]["msg"]


def test_the_isolation_runs_in_the_controllers_process_only_on_the_controller():
    action = _plugin("vmparity_isolate")
    assert action.runs_here("local", False) and action.runs_here("ansible.builtin.local", False)
    assert not action.runs_here("ssh", False) and not action.runs_here("local", True)
    module = action._module()
    # the action's parameters are the module's, checked as its argument_spec would
    assert set(module.PARAMS) == {"state", "state_file", "holder", "measuring", "guest_prefix", "guest_match", "pin"}
    got = action.params({"state_file": "/var/tmp/x.json", "measuring": "vmparity-nosmt", "pin": "false"}, module.PARAMS)
    assert got["state"] == "confined" and got["pin"] is False and got["measuring"] == "vmparity-nosmt"
    for bad in ({"state_file": "/x", "state": "off"}, {"measuring": "x"}, {"state_file": "/x", "nope": 1},
                {"state_file": "/x", "pin": "maybe"}):
        with pytest.raises((ValueError, TypeError)):
            action.params(bad, module.PARAMS)


def test_restoring_with_no_holder_left_changes_nothing_in_the_controllers_process(tmp_path):
    # the action's path on the controller: module.apply in this process (restoring an empty state moves nothing)
    module = _plugin("vmparity_isolate")._module()
    changed, isolation = module.apply(dict(module.PARAMS, state="restored", state_file=str(tmp_path / "s.json"),
                                           holder="t@localhost"))
    assert changed is False and isolation == {"restored": [], "errors": [], "held-by-others": []}
    assert json.loads((tmp_path / "s.json").read_text()) == {"holders": {}, "procs": {}}
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(module.StateError):
        module.apply(dict(module.PARAMS, state="restored", state_file=str(tmp_path / "bad.json")))


VIEW_PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      tasks:
        - name: What this host sees, checked as a guest's view is (verify.yml)
          ansible.builtin.import_role:
            name: guests
            tasks_from: verify.yml
          vars:
            guests_verify: true
            guests_expect: {cpus_online: "CPUS"}
            guests_variants_source: variants.yml
            guests_variant_name: here
            guests_domain_xml_file: here.xml
        - name: Say what it saw
          ansible.builtin.debug:
            msg: "{{ guests_view.stdout }}"
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_a_guests_view_is_read_through_its_shell_and_checked(tmp_path):
    # verify.yml hands guest_view.sh's text to sh -c on the target: here, this host is the target
    cpus = subprocess.run(["getconf", "_NPROCESSORS_ONLN"], capture_output=True, text=True, check=True).stdout.strip()
    results = {}
    for name, expect in (("right", cpus), ("wrong", str(int(cpus) + 1))):
        (tmp_path / f"{name}.yml").write_text(VIEW_PLAY.replace("CPUS", expect))
        run = _playbook(tmp_path / f"{name}.yml")
        results[name] = (run.returncode, json.loads(run.stdout))
    rc, out = results["right"]
    assert rc == 0, json.dumps(out)[-3000:]
    seen = out["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"]  # JSON text: the template gives data back
    assert seen["cpus_online"] == cpus and seen["vdso"] in ("yes", "no") and seen["clocksource"]
    rc, out = results["wrong"]
    failed = [h for t in out["plays"][0]["tasks"] for h in t["hosts"].values() if h.get("failed")]
    assert rc != 0 and failed and f"the guest sees cpus_online={cpus}" in json.dumps(failed)


def test_the_guests_checks_run_without_python_on_the_guest():
    clock = _tasks(ROLES / "guests" / "tasks" / "clock.yml")
    view = _tasks(ROLES / "guests" / "tasks" / "verify.yml")
    runs = [t["vmparity_run"] for t in clock if "vmparity_run" in t]
    assert [r["argv"][0] for r in runs] == ["date", "date"]
    assert not [t["name"] for t in clock + view if "ansible.builtin.command" in t or "ansible.builtin.script" in t]
    # clock.yml, before verify.yml in the same play, waits for the login through the shell too: its first
    # command keeps trying, where wait_for_connection would start Python there (its ping module)
    assert runs[0]["wait_for_login"] == "{{ guests_connect_timeout }}" and "wait_for_login" not in runs[1]
    assert not [t for t in clock + view if "ansible.builtin.wait_for_connection" in t]


LOGIN_PLAY = textwrap.dedent("""\
    - hosts: nobody
      gather_facts: false
      tasks:
        - name: Load the vmparity role (its action), run none of its tasks
          ansible.builtin.import_role:
            name: vmparity
          when: false
        - name: Log in where nothing answers
          vmparity_run:
            argv: ["true"]
            wait_for_login: "{{ wait }}"
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
@pytest.mark.parametrize("wait", [0, 5])
def test_a_login_that_fails_is_tried_again_until_wait_for_login_runs_out(tmp_path, wait):
    import datetime
    import socket

    with socket.socket() as s:  # a loopback port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "play.yml").write_text(LOGIN_PLAY)
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump({"all": {"hosts": {"nobody": {
        "ansible_host": "127.0.0.1", "ansible_port": port, "ansible_connection": "ssh",
        "ansible_ssh_common_args": "-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes"}}}}))
    run = _playbook(tmp_path / "play.yml", "-i", str(tmp_path / "hosts.yml"), "-e", f"wait={wait}")
    task = json.loads(run.stdout)["plays"][0]["tasks"][-1]
    result = task["hosts"]["nobody"]
    assert run.returncode != 0 and result.get("unreachable"), result
    when = {k: datetime.datetime.fromisoformat(v.replace("Z", "+00:00")) for k, v in task["task"]["duration"].items()}
    took = (when["end"] - when["start"]).total_seconds()
    # tried again every 2 s until the wait ran out (a refused port fails in milliseconds), not once;
    # without a wait, once
    assert (wait - 2 <= took < wait + 10) if wait else took < 2, took


def test_lab_verify_writes_the_verify_runs_report_once():
    # site.yml's report play carries the tag lab-verify skips; lab-verify writes both reports after the verdicts
    site = yaml.safe_load((REPO / "ansible" / "playbooks" / "site.yml").read_text())
    report = [p for p in site if p.get("name") == "Report the run"]
    assert len(report) == 1 and report[0]["tags"] == ["report"]
    assert not [p for p in site if "report" in (p.get("tags") or []) and p is not report[0]]
    mk = (REPO / "mk" / "verify.mk").read_text()
    assert "$(LAB_VERIFY_ANSIBLE) $(LAB_PLAYBOOKS)/site.yml $$args --skip-tags report " in mk
    assert mk.count("report $$r > /dev/null &") == 1


CLOCK_PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      vars:
        guests_connect_timeout: 30
        guests_clock_slack: 5
        ansible_python_interpreter: "{{ ansible_playbook_python }}"
      tasks:
        - name: The guests' clock check, on a clock that is right
          ansible.builtin.include_role:
            name: guests
            tasks_from: clock.yml
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_the_guests_clock_check_leaves_a_right_clock_alone(tmp_path):
    # the condition allows for the read's own duration (a TCG guest can take seconds to answer) and
    # must template on a real play: here the clock is the controller's, so nothing is set
    (tmp_path / "play.yml").write_text(CLOCK_PLAY)
    run = _playbook(tmp_path / "play.yml")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    tasks = {t["task"]["name"]: t["hosts"]["localhost"] for t in json.loads(run.stdout)["plays"][0]["tasks"]}
    setting = tasks["guests : Set the clock of a guest that is off the controller's (resumed from a pause)"]
    assert setting.get("skipped") and not setting.get("changed"), setting


REPETITION_PLAY = textwrap.dedent("""\
    - hosts: localhost
      gather_facts: false
      connection: local
      vars:
        out: "{{ playbook_dir }}/out"
        said: >-
          printf 'vmparity-format: 1\\ntarget: metal\\nBenchmarkClock/clock=realtime 1 20.5 ns/op\\n\\n';
          echo "benchrun: wrote - (1 result lines, profile smoke, count 1) in 0.0s" >&2
      tasks:
        - name: Load the bench role (its plugins and its dependency's), run none of its tasks
          ansible.builtin.import_role:
            name: bench
            tasks_from: assert.yml
          when: false
        - name: One repetition, kept under the target's name
          vmparity_repetition:
            argv: [sh, -c, "{{ said }}"]
            clock_check: 'benchrun: wrote .* in ([0-9.]+)s$'
            target: metal-aa
            keep: "{{ out }}/metal-aa.txt"
            timings: "{{ out }}/timings-localhost.json"
          register: ran
        - name: Another target of the same round, its times beside the first's
          vmparity_repetition:
            argv: [sh, -c, "{{ said }}"]
            target: metal
            keep: "{{ out }}/metal.txt"
            timings: "{{ out }}/timings-localhost.json"
          register: ran2
        - name: One that fails keeps nothing
          vmparity_repetition:
            argv: [sh, -c, 'echo out; echo "benchrun: memcpy failed" >&2; exit 3']
            target: container-nolimit
            keep: "{{ out }}/container-nolimit.txt"
            timings: "{{ out }}/timings-localhost.json"
          register: failed
          ignore_errors: true
        - name: One on a target that cannot be reached (nothing listens on port 1)
          vmparity_repetition:
            argv: ["true"]
            target: guest-gone
            keep: "{{ out }}/guest-gone.txt"
          delegate_to: gone
          vars:
            ansible_connection: ssh
            ansible_host: 127.0.0.1
            ansible_port: 1
            ansible_ssh_common_args: -o ConnectTimeout=5 -o BatchMode=yes
          register: gone
          ignore_errors: true
          ignore_unreachable: true
        - name: Say what happened
          ansible.builtin.debug:
            msg: "{{ {'ran': ran, 'ran2': ran2, 'failed': failed, 'gone': gone} | to_json }}"
    """)


@pytest.mark.skipif(not ANSIBLE_PLAYBOOK.exists(), reason="ansible-playbook is the lab extra's")
def test_a_repetition_runs_keeps_its_output_and_makes_an_unreachable_target_a_failure(tmp_path):
    (tmp_path / "play.yml").write_text(REPETITION_PLAY)
    (tmp_path / "out").mkdir()
    run = _playbook(tmp_path / "play.yml")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    said = json.loads(json.loads(run.stdout)["plays"][0]["tasks"][-1]["hosts"]["localhost"]["msg"])
    ran, failed, gone = said["ran"], said["failed"], said["gone"]
    # run as vmparity_run runs (its result, the controller's clock), kept relabelled with a newline
    assert ran["rc"] == 0 and not ran.get("failed") and ran["start"] <= ran["end"]
    assert (tmp_path / "out" / "metal-aa.txt").read_text() == (
        "vmparity-format: 1\ntarget: metal-aa\nBenchmarkClock/clock=realtime 1 20.5 ns/op\n")
    assert failed["failed"] is True and failed["rc"] == 3 and "memcpy failed" in failed["stderr"]
    # a failure, not unreachable: the play host stays in the play and a rescue records it
    assert gone["failed"] is True and not gone.get("unreachable"), gone
    assert gone["msg"].startswith("guest-gone (gone) is unreachable: ")
    # each kept run's start and end, as the controller timed them, in the host's file of the round
    assert json.loads((tmp_path / "out" / "timings-localhost.json").read_text()) == {
        "metal-aa": {"start": ran["start"], "end": ran["end"]},
        "metal": {"start": said["ran2"]["start"], "end": said["ran2"]["end"]}}
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["metal-aa.txt", "metal.txt",
                                                                     "timings-localhost.json"]


def test_a_repetition_releases_the_guest_and_confines_it_again_whatever_happens(monkeypatch):
    # the order of the isolation's two calls around the run, in the controller's process: the
    # calls themselves are vmparity_isolate's (tests/test_isolation.py)
    action = _plugin("vmparity_repetition")
    calls = []

    class Isolation:
        PARAMS = _plugin("vmparity_isolate")._module().PARAMS
        StateError = RuntimeError

        @staticmethod
        def apply(params):
            calls.append(params["measuring"])
            return True, {}

    monkeypatch.setattr(action, "_isolation_module", lambda: Isolation)
    for outcome in ("ran", "unreachable"):
        calls.clear()

        def run(self, tmp=None, task_vars=None, outcome=outcome):
            calls.append(f"run {sorted(self._task.args)}")
            if outcome == "unreachable":
                raise action.AnsibleConnectionFailure("refused")
            return {"failed": True, "rc": 1}

        monkeypatch.setattr(action._run.ActionModule, "run", run)
        task = type("Task", (), {"args": {"argv": ["true"], "target": "guest-nosmt", "keep": "/nowhere/x.txt",
                                          "isolate": {"state_file": "/s.json", "measuring": "vmparity-nosmt"}},
                                 "delegate_to": "guest-nosmt"})()
        module = action.ActionModule.__new__(action.ActionModule)
        module._task = task
        result = module.run(task_vars={})
        assert calls == ["vmparity-nosmt", "run ['argv']", ""], outcome
        assert result["failed"] and sorted(task.args) == ["argv", "isolate", "keep", "target"]
        if outcome == "unreachable":
            assert result["msg"] == "guest-nosmt (guest-nosmt) is unreachable: refused"


def test_a_repetition_is_one_task_and_a_remote_guests_isolation_wraps_it():
    # every task costs the controller ~0.08 s, skipped or not: a repetition is the run, which keeps its
    # result and its times, and the round's record reads the times from the file they went to
    tasks = yaml.safe_load((ROLE / "tasks" / "run_target.yml").read_text())
    assert len(tasks) == 1 and len(tasks[0]["block"]) == 1 and "always" not in tasks[0]
    run = tasks[0]["block"][0]
    assert "when" not in run
    record = next(t for t in _tasks(ROLE / "tasks" / "round.yml") if "vmparity_keep" in t)
    name = run["vmparity_repetition"]["timings"].rsplit("/", 1)[1]
    assert name == "timings-{{ inventory_hostname }}.json" and name in record["vars"]["bench_round_timings_file"]
    assert "bench_round_timings_file" in record["vmparity_keep"]["content"]
    # where the isolation cannot be done in the repetition's own task, it is done around it, whatever
    # happens: released, measured (the same two tasks), confined again
    wrapped = yaml.safe_load((ROLE / "tasks" / "run_target_isolated.yml").read_text())[0]
    assert wrapped["block"][0]["vmparity_isolate"]["measuring"] == "{{ bench_target_domain }}"
    assert wrapped["block"][1]["ansible.builtin.include_tasks"] == "run_target.yml"  # the same task
    assert "measuring" not in wrapped["always"][0]["vmparity_isolate"]
    include = next(t for t in _tasks(ROLE / "tasks" / "round.yml") if "Run the targets" in t.get("name", ""))
    assert "run_target_isolated.yml" in include["ansible.builtin.include_tasks"]
    assert "not bench_isolation_here" in include["ansible.builtin.include_tasks"]
    # only where the rounds' isolation confined anything: a host of one CPU gives no CPU to a guest
    start = next(t for t in _tasks(ROLE / "tasks" / "rounds.yml") if t.get("name") == "Start the clock of the rounds")
    assert "'bench-cpu' in" in start["ansible.builtin.set_fact"]["bench_isolation_guests"]
    assert "bench_isolation_guests" in include["vars"]["bench_release_guest"]
    # which the include decides once, for its choice of file and for the repetition's own isolation
    assert "bench_release_guest" in include["ansible.builtin.include_tasks"]
    assert "bench_release_guest" in run["vmparity_repetition"]["isolate"]
