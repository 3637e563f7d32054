"""The fence-buffer-size rule: the llc work walks a smaller buffer where less memory was there to size it
from (a 1 GiB container on a host with a 480 MiB L3), and only the leading byte count decides it."""

import random

import resultgen
from vmparity.decide import explain
from vmparity.results import inputs
from vmparity import table

LLC = "BenchmarkFence/work=llc/barrier=none"
DIV = "BenchmarkFence/work=div/barrier=none"


def _explain(tmp_path, metal_buffer, container_buffer, slow=0.6):
    metal = dict(resultgen.METAL, **{"fence-llc-buffer-bytes": metal_buffer})
    container = dict(resultgen.QUOTA_CONTAINER, **{"cpu-quota": "none", "fence-llc-buffer-bytes": container_buffer})
    rng = random.Random(7)
    files = []
    for cfg, factor in ((metal, 1.0), (container, slow)):
        benches = {LLC: {"ns/op": [21.0 * factor * rng.gauss(1, 0.01) for _ in range(6)]},
                   DIV: {"ns/op": [9.0 * rng.gauss(1, 0.01) for _ in range(6)]}}
        files.append(resultgen.write(tmp_path / f"{cfg['target']}.txt", cfg, benches))
    t = table.build(inputs.load_all(files))
    return explain.explain(t, t.configs, explain.load_rules())


def test_a_smaller_buffer_explains_the_llc_rows(tmp_path):
    res = _explain(tmp_path, "1073741824 (4x the L3 = 2013265920, cap min(1 GiB, MemAvailable/8) = 1073741824, capped)",
                   "67108864 (4x the L3 = 2013265920, cap min(1 GiB, the cgroup's room (limit - usage)/8) = 133993984, capped)")
    by_rule = {e.rule["id"]: e for e in res.explanations}
    assert "fence-buffer-size" in by_rule, [e.rule["id"] for e in res.explanations]
    e = by_rule["fence-buffer-size"]
    assert [f.name for f in e.rows] == [LLC]
    assert "container-quota" in e.cause and "8x 1073741824" in e.fix
    assert LLC not in {f.name for f in res.unexplained}


def test_the_same_buffer_with_another_note_is_not_a_cause(tmp_path):
    # MemAvailable/8 changes from process to process; the buffer it capped did not
    res = _explain(tmp_path, "134217728 (4x the L3 = 134217728, cap min(1 GiB, MemAvailable/8) = 1073741824)",
                   "134217728 (4x the L3 = 134217728, cap min(1 GiB, the cgroup's room (limit - usage)/8) = 133993984)")
    assert "fence-buffer-size" not in {e.rule["id"] for e in res.explanations}
    assert LLC in {f.name for f in res.unexplained}


def test_number_differs_is_checked_when_the_rules_load(tmp_path):
    bad = tmp_path / "rules.yaml"
    bad.write_text("- id: x\n  title: t\n  when:\n    - number-differs: fence-llc-buffer-bytes\n  cause: c\n  fix: f\n")
    try:
        explain.load_rules(bad)
    except Exception as e:  # the loader's InputError names the file and the rule
        assert "rules.yaml" in str(e) and "number-differs" in str(e)
    else:
        raise AssertionError("a number-differs that is not a list was accepted")
