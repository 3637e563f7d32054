"""vmparity compare: golden files for every format, pivots, the regression gate."""

import csv
import io
import json
import math
import re
import subprocess
from pathlib import Path

import pytest

import golden
import resultgen
from vmparity import table
from vmparity.decide import figures
from vmparity.render.fmt import MDE_NOTE
from vmparity.results import inputs


@pytest.fixture
def in_testdata(testdata, monkeypatch):
    monkeypatch.chdir(testdata)  # short, stable labels in the output


@pytest.mark.parametrize("fmt,ext", [("text", "txt"), ("markdown", "md"), ("csv", "csv"), ("json", "json")])
def test_compare_two_files_golden(cli, in_testdata, fmt, ext):
    r = cli("compare", "run-a/metal.txt", "run-a/guest-nosmt.txt", "--format", fmt)
    assert r.code == 0, r.err
    golden.check(f"compare-metal-vs-nosmt.{ext}", r.out)


@pytest.mark.parametrize("fmt,ext", [("text", "txt"), ("markdown", "md")])
def test_compare_by_target_golden(cli, in_testdata, fmt, ext):
    r = cli("compare", "run-a", "--by", "target", "--format", fmt)
    assert r.code == 0, r.err
    golden.check(f"compare-run-a-by-target.{ext}", r.out)


def test_by_target_puts_metal_first_and_compares_every_target(cli, in_testdata):
    data = json.loads(cli("compare", "run-a", "--by", "target", "--format", "json").out)
    assert data["columns"][0] == "metal"
    assert set(data["columns"]) == {"metal", "guest-nosmt", "guest-hpet", "container-quota"}
    row = next(r for r in data["rows"] if r["benchmark"].endswith("size=4194304") and r["unit"] == "B/s")
    assert row["deltas"]["guest-nosmt"]["verdict"] == "worse"
    assert row["deltas"]["guest-hpet"]["verdict"] == "~"


def test_two_runs_compare_target_by_target(cli, in_testdata):
    data = json.loads(cli("compare", "run-a", "run-b", "--format", "json").out)
    groups = {r["group"] for r in data["rows"]}
    assert groups == {"metal", "guest-nosmt", "guest-hpet", "container-quota"}
    row = next(r for r in data["rows"] if r["group"] == "metal" and r["benchmark"] == "BenchmarkClock/clock=monotonic/path=vdso")
    assert row["deltas"]["run-b"]["verdict"] == "worse" and row["deltas"]["run-b"]["pct"] > 15


def test_fail_on_regression_gate(cli, in_testdata):
    r = cli("compare", "run-a/metal.txt", "run-b/metal.txt", "--fail-on-regression", "10")
    assert r.code == 1 and "BenchmarkClock/clock=monotonic/path=vdso" in r.err
    assert cli("compare", "run-a/metal.txt", "run-b/metal.txt", "--fail-on-regression", "50").code == 0


def test_alpha_changes_what_is_significant(cli, in_testdata):
    def n_sig(alpha):
        d = json.loads(cli("compare", "run-a/metal.txt", "run-a/guest-hpet.txt", "--format", "json", "--alpha", alpha).out)
        return sum(dd["significant"] for r in d["rows"] for dd in r["deltas"].values())
    assert n_sig("0.001") <= n_sig("0.05") < n_sig("0.5")


def test_usage_errors_exit_2(cli, in_testdata):
    assert cli("compare").code == 2
    r = cli("compare", "run-a/metal.txt", "run-b/metal.txt", "--alpha", "3")
    assert r.code == 2 and "--alpha" in r.err
    r = cli("compare", "run-a", "--by", "target", "--baseline", "nope")
    assert r.code == 2 and "nope" in r.err


def test_by_target_puts_the_lab_metal_first_even_when_the_host_is_a_container(cli, tmp_path):
    # a CI runner is often itself a container: its `metal` target says so in target-kind,
    # yet it stays the reference the lab measures everything else against
    for target, kind in (("container-a", "container"), ("metal", "container"), ("container-b", "container")):
        resultgen.target_file(tmp_path, {**resultgen.METAL, "target": target, "target-kind": kind})
    data = json.loads(cli("compare", tmp_path, "--by", "target", "--format", "json").out)
    assert data["columns"] == ["metal", "container-a", "container-b"]


def test_a_lab_run_gives_each_row_its_noise_verdict_and_sensitivity_in_json_and_csv(cli, tmp_path):
    # a machine reading compare's output gets what the table marks "(noise)" and each row's
    # minimum detectable effect, the same figures the report sums up per family
    run = resultgen.lab_run(tmp_path / "r-lab-quick", seed=3, effect=("Snowflake", 1.05), rounds_record=True,
                            count=10, noise=0.005, drift=0.08)
    t = table.build([inputs.load(run)], by="target")
    want = {(c, n, u): m for c, n, u, m in figures.row_mdes(t)}
    assert want and all(math.isfinite(m) and m > 0 for m in want.values())
    data = json.loads(cli("compare", run, "--by", "target", "--format", "json").out)
    got = {(c, r["benchmark"], r["unit"]): d for r in data["rows"] for c, d in r["deltas"].items()}
    assert all(math.isclose(got[k]["mde-pct"], m) for k, m in want.items())
    beyond = {k for k, d in got.items() if d["significant"] and not d["within-noise"]}
    assert beyond and all("Snowflake" in name for _, name, _ in beyond)  # the planted 5 % only
    lines = list(csv.DictReader(io.StringIO(cli("compare", run, "--by", "target", "--format", "csv").out)))
    by_key = {(x["column"], x["benchmark"], x["unit"]): x for x in lines}
    assert all(math.isclose(float(by_key[k]["mde_pct"]), m, rel_tol=1e-3) for k, m in want.items())
    assert {k for k, x in by_key.items() if x["significant"] == "true" and x["within_noise"] == "false"} == beyond
    # a +0.5 % that every round shows is significant, yet no larger than the run's noise floor
    small = resultgen.lab_run(tmp_path / "s-lab-quick", seed=3, effect=("Snowflake", 1.005), rounds_record=True,
                              count=10, noise=0.0005, drift=0.0)
    within = {(c, r.name, r.unit) for r in table.build([inputs.load(small)], by="target").rows
              for c, d in r.deltas.items() if d.within_noise}
    assert any("Snowflake" in name for _, name, _ in within)
    data = json.loads(cli("compare", small, "--by", "target", "--format", "json").out)
    assert {(c, r["benchmark"], r["unit"]) for r in data["rows"] for c, d in r["deltas"].items()
            if d["within-noise"]} == within


def test_two_files_without_an_aa_control_have_no_noise_fields(cli, in_testdata):
    data = json.loads(cli("compare", "run-a/metal.txt", "run-a/guest-nosmt.txt", "--format", "json").out)
    assert all("within-noise" not in d and "mde-pct" not in d for r in data["rows"] for d in r["deltas"].values())


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_a_lab_runs_unchanged_rows_say_what_they_could_have_seen(cli, tmp_path, fmt):
    run = resultgen.lab_run(tmp_path / "r-lab-quick", seed=3, rounds_record=True, count=10, noise=0.005, drift=0.08)
    t = table.build([inputs.load(run)], by="target")
    quiet = [(r, c) for r in t.rows for c, d in r.deltas.items() if d.verdict == "~" and r.name.startswith("BenchmarkClock")]
    assert quiet
    out = cli("compare", run, "--by", "target", "--format", fmt).out
    assert all(f"~ (±{figures.row_mde(t, r, c):.1f}%)" in out for r, c in quiet)
    assert MDE_NOTE in out.replace("\\", "")
    # two files of the run are the run (issue 56): the same marks for the target named
    pair = cli("compare", tmp_path / "r-lab-quick" / "metal.txt", tmp_path / "r-lab-quick" / "container-nolimit.txt",
               "--format", fmt).out
    assert pair.startswith("policy: in-run (")
    assert all(f"~ (±{figures.row_mde(t, r, c):.1f}%)" in pair for r, c in quiet if c == "container-nolimit")
    # the same two files without their run's A/A control beside them: a plain ~ and no legend for it
    (tmp_path / "plain").mkdir()
    for name in ("metal.txt", "container-nolimit.txt"):
        (tmp_path / "plain" / name).write_bytes((tmp_path / "r-lab-quick" / name).read_bytes())
    plain = cli("compare", tmp_path / "plain" / "metal.txt", tmp_path / "plain" / "container-nolimit.txt",
                "--format", fmt).out
    assert "(±" not in plain and "minimum detectable effect" not in plain and plain.startswith("policy: plain-files (")


RUN = Path(__file__).resolve().parent.parent / "results" / "runs" / "2026-11-28T08-43-58Z-lab-quick"
EARLIER = RUN.with_name("2026-11-28T05-52-05Z-lab-quick")


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("operands", [("metal.txt", "container-nolimit.txt"), ("--by", "target"), ("two runs",)],
                         ids=["two-files", "by-target", "two-runs"])
def test_the_table_fits_the_width_and_cuts_no_cell(cli, monkeypatch, tmp_path, columns, operands):
    args = (["--results-dir", tmp_path, "compare", EARLIER, RUN] if operands == ("two runs",)  # no history to read
            else ["compare", RUN, *operands] if operands[0] == "--by" else ["compare", *(RUN / o for o in operands)])
    wide = cli(*args)
    monkeypatch.setenv("COLUMNS", str(columns))
    r = cli(*args)
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert max(map(len, lines)) <= columns, max(lines, key=len)
    assert "…" not in r.out and "…" not in wide.out
    # every cell of the unlimited table is still there, n included (a chunked table repeats the baseline)
    cell = r"\S+ ± \S+|p=\S+ n=\S+"
    assert set(re.findall(cell, r.out)) == set(re.findall(cell, wide.out))
    assert len(re.findall(r"p=\S+ n=\d+", r.out)) == len(re.findall(r"p=\S+ n=\d+", wide.out))
    assert not any(ln.startswith("Benchmark") for ln in lines)
    if operands[0] == "metal.txt":
        # two files of one lab run are that run: metal's A/A pass, which judged the target, is shown beside it
        rows = json.loads(cli(*args, "--format", "json").out)["rows"]
        assert len(re.findall(r"p=\S+ n=\d+", r.out)) == sum(len(row["deltas"]) for row in rows)


def test_cells_read_as_benchstat_prints_them(cli, benchstat, testdata, monkeypatch):
    """Names without `Benchmark`, sec/op scaled to n/µ/m, B/s in Gi, one scale per row, as benchstat's text."""
    monkeypatch.chdir(testdata)
    files = ["run-a/metal.txt", "run-a/guest-nosmt.txt"]
    theirs = subprocess.run([benchstat, "-table", "", *files], capture_output=True, text=True, check=True).stdout

    def cells(text):
        out = set()
        for line in text.splitlines():
            found = re.findall(r"(\S+) ±\s*(\S+)", line)
            if found and not line.startswith(" "):
                out.add((line.split()[0], tuple(found)))
        return out

    mine = cli("compare", *files).out
    assert cells(theirs) and cells(mine) == cells(theirs)
    assert "sec/op (lower is better)" in mine and "B/s (higher is better)" in mine
    # Markdown (and so the PR comment) shows the same numbers in the same units, never `928.9m ns/iter`
    md = cli("compare", *files, "--format", "markdown").out
    md_cells = {(name[len("Benchmark"):], tuple(re.findall(r"(\S+) ± (\S+)", line)))
                for line in md.splitlines() if line.startswith("| `Benchmark")
                for name in [line.split("`")[1]]}
    assert md_cells == cells(theirs)
    assert "#### `sec/op` (lower is better)" in md and "`ns/op`" not in md


def test_two_runs_say_their_headline_first_on_stdout(cli, tmp_path):
    runs = ["--results-dir", tmp_path, "compare", EARLIER, RUN, "--filter", ".name:Clock"]  # no stored history
    r = cli(*runs)
    assert r.code == 0, r.err
    assert r.out.startswith("Two runs, each target against itself with the host's drift taken out: ")
    assert "drift taken out" not in r.err
    md = cli(*runs, "--format", "markdown")
    assert md.out.startswith("Two runs, each target") and "drift taken out" not in md.err
    js = cli(*runs, "--format", "json")
    json.loads(js.out)  # data only: the headline goes to stderr as a note
    assert "vmparity: note: two runs, each target against itself" in js.err


def test_changed_shows_only_the_rows_beyond_noise_and_says_how_many_it_hides(cli, tmp_path):
    # a lab run with a planted +5 % on Snowflake: --changed keeps exactly the rows the full table calls
    # beyond noise (significant, not within the A/A control's noise), in every format, and says so
    run = resultgen.lab_run(tmp_path / "r-lab-quick", seed=3, effect=("Snowflake", 1.05), rounds_record=True,
                            count=10, noise=0.005, drift=0.08)
    full = json.loads(cli("compare", run, "--by", "target", "--format", "json").out)
    beyond = [r for r in full["rows"] if any(d["significant"] and not d["within-noise"] for d in r["deltas"].values())]
    assert beyond and len(beyond) < len(full["rows"])
    r = cli("compare", run, "--by", "target", "--format", "json", "--changed")
    assert r.code == 0 and json.loads(r.out)["rows"] == beyond
    assert f"{len(beyond)} of {len(full['rows'])} row(s) differ beyond noise" in r.err  # data stays data only
    text = cli("compare", run, "--by", "target", "-changed")  # benchstat-style single dash too
    assert f"\n--changed: {len(beyond)} of {len(full['rows'])} row(s)" in text.out, text.out[:600]
    shown = [line for line in text.out.splitlines() if line.startswith("Snowflake") or line.startswith("Clock")]
    assert shown and all(line.startswith("Snowflake") for line in shown)
    lines = list(csv.DictReader(io.StringIO(cli("compare", run, "--by", "target", "--format", "csv", "--changed").out)))
    assert {x["benchmark"] for x in lines} == {r["benchmark"] for r in beyond}
    # the gate reads every row, not only those shown
    assert cli("compare", run, "--by", "target", "--changed", "--fail-on-regression", "1").code == \
        cli("compare", run, "--by", "target", "--fail-on-regression", "1").code


def test_changed_with_nothing_beyond_noise_says_so_and_shows_no_table(cli, in_testdata):
    r = cli("compare", "run-a/metal.txt", "run-a/metal.txt", "--changed")
    assert r.code == 0
    assert "\n--changed: 0 of " in r.out, r.out
    assert "vs base" not in r.out
