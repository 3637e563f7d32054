"""One judgement (issue 56): compare, explain, noise and the report give the same rows
beyond noise, with the same sizes, for every target of committed lab runs.

Each command is asked as a user would: `compare RUN --by target`, `compare
RUN/metal.txt RUN/<target>.txt`, `explain RUN/metal.txt RUN/<target>.txt`,
`noise RUN --format json`, and the report's own context (the sections render
from it). The runs are every committed run with an A/A control: quiet and
noisy lab-quick runs, the repro and verify runs, the nested KVM host's run
(targets with a host suffix) and the A/B runs (their HEAD side is what the
report judges against metal). History is read from an empty results
directory: it adds words to an unexplained row, never a verdict.
"""

import io
import json
import math
from pathlib import Path

import pytest

from vmparity.decide import figures, policy
from vmparity.report import context
from vmparity.results.targets import is_aa_control, is_base_side

RUNS_DIR = Path(__file__).resolve().parent.parent / "results" / "runs"
# every committed run with an A/A control (the "every committed lab run"); the first is also
# asked at another α
RUNS = ["2026-11-28T08-43-58Z-lab-quick"] + sorted(
    p.name for p in RUNS_DIR.iterdir()
    if p.name != "2026-11-28T08-43-58Z-lab-quick" and any(p.glob("metal-aa*.txt")))


def _beyond_compare(doc, target):
    """{(benchmark, unit): pct} of a target's rows compare's JSON calls beyond noise."""
    return {(r["benchmark"], r["unit"]): d["pct"] for r in doc["rows"] for c, d in r["deltas"].items()
            if c == target and d["significant"] and not d.get("within-noise", False)}


def _beyond_explain(doc):
    rows = [f for e in doc["explanations"] for f in e["rows"]] + doc["unexplained"]
    return {(f["benchmark"], f["unit"]): f["pct"] for f in rows if f["only-on"] is None}


def _beyond_report(result):
    rows = [f for e in result.explanations for f in e.rows] + result.unexplained
    return {(f.name, f.unit): f.pct for f in rows if not f.side}


def _same(a, b):
    return a.keys() == b.keys() and all(math.isclose(a[k], b[k], rel_tol=1e-9, abs_tol=1e-9) for k in a)


@pytest.mark.parametrize("run_id, alpha", [(r, 0.05) for r in RUNS] + [(RUNS[0], 0.01)])
def test_every_command_gives_the_same_rows_and_sizes(cli, tmp_path, run_id, alpha):
    """At the run's α, whatever it is: at 0.01 too (every test takes it, docs/noise.md)."""
    run = RUNS_DIR / run_id
    a = ("--alpha", str(alpha))
    ctx, _ = context.build(run, alpha, results_dir=tmp_path, err=io.StringIO(), draw_plots=False)
    (view,) = ctx.hosts  # one host per run here: its metal is the table's baseline
    metal = view.metal
    noise_doc = json.loads(cli("--results-dir", tmp_path, "noise", run, "--format", "json", *a).out)
    by_target = json.loads(cli("--results-dir", tmp_path, "compare", run, "--by", "target", "--format", "json", *a).out)
    noise_counts = {t["target"]: t["beyond"] for t in noise_doc["targets"]}
    report_counts = {f.target: f.beyond for f in figures.per_target(view.table, view.explained)}
    assert noise_counts == report_counts and noise_counts
    targets = [t for t in view.explained if not is_aa_control(t) and not is_base_side(t)]
    assert targets
    # the A/A pass's column: beyond noise in the rows of the run's A/A figure, the one `noise` leads with
    pm = figures.paired_model(view.table.noise[0])
    if pm is not None:
        aa = view.table.noise[0].aa
        assert set(_beyond_compare(by_target, aa)) == {(n, u) for n, u, _, _ in pm.beyond_rows}, aa
    # every row names the test that decided it, one of the in-run policy's
    tests = {d["test"] for r in by_target["rows"] for d in r["deltas"].values()}
    assert tests and tests <= set(policy.IN_RUN.tests), tests
    for target in targets:
        report = _beyond_report(view.explained[target])
        assert len(report) == report_counts[target], target
        files = (run / f"{metal}.txt", run / f"{target}.txt")
        pair = json.loads(cli("--results-dir", tmp_path, "compare", *files, "--format", "json", *a).out)
        explained = json.loads(cli("--results-dir", tmp_path, "explain", *files, "--format", "json", *a).out)
        assert pair["policy"] == by_target["policy"] == explained["policy"] == "in-run"
        for name, got in (("compare RUN --by target", _beyond_compare(by_target, target)),
                          ("compare FILES", _beyond_compare(pair, target)), ("explain FILES", _beyond_explain(explained))):
            assert _same(got, report), (target, name, sorted(got.keys() ^ report.keys())[:5])


def test_plain_files_name_their_policy(cli, testdata, monkeypatch):
    """Files with no A/A control beside them are benchstat's case, and the output says so."""
    monkeypatch.chdir(testdata)
    r = cli("compare", "run-a/metal.txt", "run-a/guest-nosmt.txt")
    assert r.code == 0 and r.out.startswith("policy: plain-files (")
    doc = json.loads(cli("explain", "run-a/metal.txt", "run-a/guest-nosmt.txt", "--format", "json").out)
    assert doc["policy"] == "plain-files"


def test_the_a_a_pass_named_as_an_operand_is_the_plain_pair(cli, tmp_path):
    """metal against its own A/A pass is what benchstat would compare: no run to judge it by."""
    run = RUNS_DIR / RUNS[0]
    doc = json.loads(cli("--results-dir", tmp_path, "compare", run / "metal.txt", run / "metal-aa.txt",
                         "--format", "json").out)
    assert doc["policy"] == "plain-files"
