"""Rules that had two definitions which disagreed (issue 22), each now written once:
how a name is escaped, a benchmark's family, which metal a target belongs to,
what an option value may be, and the figures counted from a table."""

import historygen as hg
import pytest

from vmparity.decide import crossrun, explain, figures, noise
from vmparity.history import index
from vmparity.query import names
from vmparity.render import explanation
from vmparity.repro import verdicts
from vmparity.results import targets

HOSTILE = "BenchmarkEvil/\x1b]8;;http://evil.example\x07click\x1b]8;;\x07/\u202eexe.txt"


@pytest.fixture
def hostile_history(tmp_path):
    plan = hg.Plan(runs=12, targets=["metal"], rows=1, count=6, names=[HOSTILE])
    hg.write(plan, tmp_path / "runs")
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_history_escapes_names_as_compare_does(hostile_history, cli, fmt):
    """Defect 1: `vmparity history` printed an OSC 8 hyperlink and a U+202E live."""
    r = cli("history", "--results-dir", hostile_history, "--format", fmt, "--tracks")
    assert r.code == 0, r.err
    assert "\x1b" not in r.out and "\x07" not in r.out and "\u202e" not in r.out
    assert "\\x1b]8;;http://evil.example\\x07click" in r.out and "\\u202e" in r.out


def test_family_is_one_definition():
    """Defect 2: explain's family kept the GOMAXPROCS suffix the noise band's family strips."""
    assert names.family("BenchmarkFoo-8") == "BenchmarkFoo"
    assert names.family("BenchmarkClock/clock=monotonic/path=vdso-4") == "BenchmarkClock"
    assert explain.family("BenchmarkFoo-8") == names.split_name("BenchmarkFoo-8")[0]
    for user in (explain, noise, crossrun, figures, explanation):
        assert user.family is names.family, user.__name__


def test_which_metal_a_target_belongs_to_is_one_rule():
    """Defect 3: history took the first metal whose suffix fits, the report and the
    repro verdicts the longest."""
    metals = {"metal-1": "host-one", "metal-rack-1": "host-rack-one"}
    assert targets.metal_of("guest-nosmt-rack-1", list(metals)) == "metal-rack-1"
    assert index.lab_host("guest-nosmt-rack-1", metals) == "host-rack-one"
    assert targets.metal_of("guest-nosmt-2", list(metals)) is None
    assert crossrun.controls_of(["metal-1", "metal-rack-1", "guest-a-rack-1"])["guest-a-rack-1"][0] == "metal-rack-1"
    assert verdicts.metal_of is targets.metal_of


@pytest.mark.parametrize("argv, option", [
    (["history", "--alpha", "1.5"], "--alpha"),
    (["history", "--alpha", "nan"], "--alpha"),
    (["history", "--window", "0"], "--window"),
    (["history", "--min-change", "-1"], "--min-change"),
    (["power", "RUN", "--rows", "0"], "--rows"),
    (["power", "RUN", "--trials", "-2"], "--trials"),
    (["lab", "variants", "containers", "--host-cpus", "0"], "--host-cpus"),
    (["lab", "domain-xml", "nosmt", "--ssh-port", "70000"], "--ssh-port"),
])
def test_bad_option_values_are_usage_errors(cli, tmp_path, argv, option):
    """Defect 5: bare float/int options took any value; each is now checked where it is parsed."""
    r = cli("--results-dir", tmp_path, *argv)
    assert r.code == 2 and option in r.err and "usage:" in r.err, r.err


def test_computed_once():
    """Defect 4: the table's warnings, the per-target counts, grouping cells by sample size
    and the assume=exact rule each had two or three copies."""
    import numpy as np

    from vmparity import stats, table
    from vmparity.report import sections
    from vmparity.stats import exact
    from vmparity.table import _cellstats, _rowstore

    assert not hasattr(stats, "summarize_exact") and not hasattr(stats, "compare_exact")
    assert not hasattr(_cellstats, "_by_size") and not hasattr(stats, "_group_by_len")
    assert _rowstore.exact is exact and sections.figures is figures
    assert table.Table([], [], [], 0.05, 0.95).warnings() == {}  # no second walk over row objects
    # one grouping, whatever the order of the sizes: the same numbers as one at a time
    samples = [[1, 2, 3], [4, 5, 6, 7], [3, 2, 1], [9], [7, 6, 5, 4]]
    assert [s.center for s in stats.summarize_many(samples)] == [stats.summarize_many([s])[0].center for s in samples]
    pairs = [(a, b) for a in samples for b in samples]
    assert [c.p for c in stats.compare_many(pairs)] == [stats.compare_many([pr])[0].p for pr in pairs]
    assert list(stats.by_size(np.array([3, 1, 3, 2]))) and [k for k, _ in stats.by_size([3, 1, 3, 2])] == [1, 2, 3]
    assert exact.summarize([3, 4, 3]) == (3.0, 3.0, 4.0) and exact.warnings(3, 4) and not exact.warnings(3, 3)
