"""Property: `vmparity history` answers every valid history in every format (text, markdown, json, --plot)
without a traceback, and its JSON is JSON. Random histories: any number of runs and rows, samples of any
sign and scale, ties, steps and excursions, both directions, fingerprint changes."""

import json
import tempfile
from pathlib import Path

import resultgen
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FORMATS = ["text", "markdown", "json"]

values = st.one_of(
    st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 1e-9, 123.5]),  # ties, zeros
)


@st.composite
def histories(draw):
    runs = draw(st.integers(1, 40))
    rows = draw(st.integers(1, 3))
    count = draw(st.integers(1, 6))
    base = draw(st.lists(values, min_size=rows, max_size=rows))
    noise = draw(st.floats(0, 0.2))
    steps = draw(st.lists(st.tuples(st.integers(0, max(runs - 1, 0)), st.floats(-3, 3)), max_size=3))
    seed = draw(st.integers(0, 2**16))
    higher = draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
    fingerprint_at = draw(st.one_of(st.none(), st.integers(0, max(runs - 1, 0))))
    return runs, rows, count, base, noise, steps, seed, higher, fingerprint_at


def write(history, runs_dir):
    import random

    runs, rows, count, base, noise, steps, seed, higher, fingerprint_at = history
    rng = random.Random(seed)
    for i in range(runs):
        run_id = f"2026-01-01T00-00-00Z-{i:05d}"
        header = dict(resultgen.METAL, **{"run-id": run_id, "target": "metal", "count": str(count),
                                          "commit": f"{i:040x}", "branch": "main", "dirty": "no"})
        if fingerprint_at is not None and i >= fingerprint_at:
            header["clocksource"] = "hpet"
        lines = [f"{k}: {v}".rstrip() for k, v in header.items()]
        lines += [f"Unit ops/s better={'higher' if h else 'lower'}" for h in higher[:1]]
        for r in range(rows):
            level = base[r] * (1 + sum(f for at, f in steps if i >= at))
            unit = "ops/s" if higher[r] else "ns/op"
            for _ in range(count):
                lines.append(f"BenchmarkProp/row={r} 1000 {level * (1 + rng.gauss(0, noise))!r} {unit}")
        d = Path(runs_dir) / run_id
        d.mkdir(parents=True)
        (d / "metal.txt").write_text("\n".join(lines) + "\n")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_every_format_answers_every_history(cli, history):
    with tempfile.TemporaryDirectory() as tmp:
        write(history, Path(tmp) / "runs")
        for fmt in FORMATS:
            r = cli("--results-dir", tmp, "history", "--format", fmt)
            assert r.code == 0 and "Traceback" not in r.err, (fmt, r.err)
            if fmt == "json":
                doc = json.loads(r.out)
                assert len(doc["tracks"]) == history[1]


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories())
def test_plots_answer_every_history(cli, history):
    with tempfile.TemporaryDirectory() as tmp:
        write(history, Path(tmp) / "runs")
        r = cli("--results-dir", tmp, "history", "--plot", Path(tmp) / "plots")
        assert r.code == 0 and "Traceback" not in r.err, r.err
        assert len(list((Path(tmp) / "plots").glob("*.png"))) == history[1]
