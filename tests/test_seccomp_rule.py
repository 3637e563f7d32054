"""The seccomp rule: syscall-path rows slower in a container whose calls pass a BPF filter."""

import random

import resultgen
from vmparity import explain, inputs, table


def test_syscall_rows_in_a_filtered_container_are_explained(tmp_path):
    metal = dict(resultgen.METAL, seccomp="disabled")
    box = dict(resultgen.METAL, target="container-nolimit", seccomp="filter (1 filters)", **{"target-kind": "container"})
    rng = random.Random(3)
    files = []
    for cfg, slow in ((metal, 1.0), (box, 1.3)):
        benches = resultgen.suite(cfg, rng, count=6)
        for name, units in benches.items():
            if "/path=syscall" in name:
                units["ns/op"] = [v * slow for v in units["ns/op"]]
        files.append(resultgen.write(tmp_path / f"{cfg['target']}.txt", cfg, benches))
    t = table.build(inputs.load_all(files))
    res = explain.explain(t, t.configs, explain.load_rules())
    e = {x.rule["id"]: x for x in res.explanations}["seccomp-syscalls"]
    assert {f.name for f in e.rows} == {"BenchmarkClock/clock=monotonic/path=syscall", "BenchmarkClock/clock=realtime/path=syscall"}
    assert "On container-nolimit the process runs under a seccomp filter" in e.cause
    assert "seccomp=unconfined" in e.fix
    assert not [f for f in res.unexplained if "/path=syscall" in f.name]
