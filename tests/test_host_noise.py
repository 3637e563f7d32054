"""The host's noise against its usual (vmparity/history/host_noise.py): the A/A pair's
round-to-round scatter of a run beside the same figure on the machine's earlier runs,
in the report's noise paragraph and `vmparity noise`."""

import pytest

import resultgen as g
from vmparity.history import host_noise
from vmparity.report import context
from vmparity.report.run_quality import noise
from vmparity.results import inputs

QUIET = dict(count=10, noise=0.005, rounds_record=True, machine="m1")


def _run(runs, day, kind="lab-quick", **kw):
    return g.lab_run(runs / f"2026-01-{day:02d}T00-00-00Z-{kind}", seed=day, **{**QUIET, **kw})


def _assess(run):
    loaded = inputs.load(run)
    return host_noise.assess(loaded.path, loaded.files)


@pytest.fixture
def history(tmp_path):
    runs = tmp_path / "runs"
    for day in range(1, 6):
        _run(runs, day)
    return runs


def test_a_run_in_a_noisy_hour_is_told_so_against_the_machines_usual(history, cli):
    run = _run(history, 10, noise=0.05)
    h = _assess(run)
    assert [name for name, _ in h.history] == [f"2026-01-0{d}T00-00-00Z-lab-quick" for d in (5, 4, 3, 2, 1)]
    median, low, high = h.usual
    assert 0.3 < low <= median <= high < 1.5  # ±0.5 % per value: √2 × that round to round
    assert 5 < h.scatter_pct < 10 and h.noisier and h.times_usual > 4
    assert "noisier than its usual" in h.sentence() and "5 runs of lab-quick before it" in h.sentence()
    ctx, _ = context.build(run, draw_plots=False)
    assert "\n\n⚠ **The host's noise:**" in noise(ctx)
    r = cli("noise", run)
    assert r.code == 0 and "WARNING host noise: the A/A pair's round-to-round scatter was" in r.out


def test_a_run_like_the_others_is_within_the_usual(history):
    h = _assess(_run(history, 10))
    assert not h.noisier and h.sentence().endswith("within the host's usual")


def test_one_noisy_run_before_does_not_hide_the_next(history):
    _run(history, 6, noise=0.05)
    h = _assess(_run(history, 10, noise=0.04))
    assert h.scatter_pct < h.usual[2] and h.noisier  # below the noisy one, twice the usual


def test_a_little_noisier_is_not_yet_a_warning(history):
    h = _assess(_run(history, 10, noise=0.008))  # above every earlier run, but not twice their median
    assert h.scatter_pct > h.usual[2] and h.times_usual < host_noise.NOISIER and not h.noisier


def test_too_few_earlier_runs_say_so(tmp_path):
    runs = tmp_path / "runs"
    _run(runs, 1)
    h = _assess(_run(runs, 2, noise=0.05))
    assert h.usual is None and not h.noisier
    assert "1 earlier lab-quick run(s) stored, too few" in h.sentence()


def test_only_earlier_runs_of_the_same_machine_kind_and_profile_count(history):
    _run(history, 6, machine="m2")  # another machine
    _run(history, 7, kind="ab-quick")  # another kind of run
    other_profile = _run(history, 8)
    for f in ("metal.txt", "metal-aa.txt"):
        p = other_profile / f
        p.write_text(p.read_text().replace("profile: quick", "profile: full"))
    broken = _run(history, 9)
    (broken / "rounds.json").write_text("{not json")  # unreadable: no evidence either way, no error
    bad_metal = _run(history, 10)
    (bad_metal / "metal.txt").write_text("BenchmarkX 1 oops ns/op\n")  # as unreadable as a file can be
    run = _run(history, 11)
    _run(history, 12, noise=0.05)  # after it: a report written again later says what it said
    assert [name[:10] for name, _ in _assess(run).history] == ["2026-01-05", "2026-01-04", "2026-01-03",
                                                               "2026-01-02", "2026-01-01"]


def test_no_figure_without_rounds_or_an_aa_pair(tmp_path):
    run = g.lab_run(tmp_path / "2026-01-01T00-00-00Z-lab-quick", seed=1, count=10, noise=0.005)
    assert _assess(run) is None  # no rounds.json: nothing pairs
    paired = _run(tmp_path, 2)
    (paired / "metal-aa.txt").unlink()
    assert _assess(paired) is None


def test_the_pr_comment_warns_when_a_side_ran_on_a_noisy_host(history, cli):
    head = _run(history, 10, noise=0.05)
    r = cli("pr-comment", history / "2026-01-05T00-00-00Z-lab-quick", head)
    assert "**A noisy host:** head's run `2026-01-10T00-00-00Z-lab-quick`" in r.out
    assert "base's run" not in r.out
    slower = _run(history, 11, noise=0.05, effect=("Snowflake", 1.5))
    gated = cli("pr-comment", history / "2026-01-05T00-00-00Z-lab-quick", slower, "--fail-on-regression", "10")
    # the gate stays shut, and says which side to doubt
    assert gated.code == 1 and "head's run 2026-01-11T00-00-00Z-lab-quick was measured on a host" in gated.err
    quiet = cli("pr-comment", history / "2026-01-04T00-00-00Z-lab-quick", history / "2026-01-05T00-00-00Z-lab-quick")
    assert quiet.code == 0 and "A noisy host" not in quiet.out
