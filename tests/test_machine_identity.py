"""Which machine: the `machine` key decides like-for-like, not host names
(vmparity/results/machine.py; envprobe's side is bench-src/go/envprobe/machine.go)."""

import resultgen as g
from test_crossrun import make_run
from vmparity.results import machine
from vmparity.results.file import parse_text


def _rehost(run, target, host):
    path = run / f"{target}.txt"
    path.write_text(path.read_text().replace(f"host: {g.METAL['host']}", f"host: {host}", 1))


def _comment(cli, runs):
    r = cli("--results-dir", runs.parent, "pr-comment", "base", "head")
    assert r.code == 0, r.err
    return r.out


def test_containers_renamed_every_run_are_the_same_machine(tmp_path, cli):
    runs = tmp_path / "runs"
    base, head = (make_run(runs, rid, seed, machine="65e24fbad22abc53") for rid, seed in (("base", 1), ("head", 2)))
    _rehost(base, "container-quota", "26af38fea30d")
    _rehost(head, "container-quota", "d43b6c3d733c")
    assert "Not a like-for-like comparison" not in _comment(cli, runs)


def test_two_machines_both_called_vm_are_told_apart(tmp_path, cli):
    runs = tmp_path / "runs"
    make_run(runs, "base", 1, machine="65e24fbad22abc53")
    make_run(runs, "head", 2, machine="0b7d1e9a44c2f310")
    out = _comment(cli, runs)
    assert "Not a like-for-like comparison" in out and "`machine`" in out and "`host`" not in out.split("\n\n")[1]


def test_files_without_the_key_keep_the_host_check(tmp_path, cli):
    runs = tmp_path / "runs"
    base, head = make_run(runs, "base", 1), make_run(runs, "head", 2)
    _rehost(base, "container-quota", "26af38fea30d")
    _rehost(head, "container-quota", "d43b6c3d733c")
    out = _comment(cli, runs)
    assert "Not a like-for-like comparison" in out and "`host`" in out


def test_a_runs_machine_is_its_metals_and_unknown_is_none():
    def rf(target, value):
        return parse_text(f"target: {target}\nmachine: {value}\nBenchmarkX 1 2 ns/op\n")

    assert machine.of_run([rf("container-quota", "aaa"), rf("metal", "bbb")]) == "bbb"
    assert machine.of_run([rf("metal", "unknown (neither machine-id nor product-uuid readable)"),
                           rf("guest-nosmt", "ccc")]) == "ccc"
    assert machine.of_run([rf("guest-a", "x"), rf("guest-b", "y")]) is None
    assert machine.of_config({"host": "vm"}) is None
