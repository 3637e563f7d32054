"""Option values are checked in one place (vmparity/options.py) for every command that takes them."""

import argparse

import pytest

import resultgen


@pytest.fixture
def run(tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    for config in (resultgen.METAL, resultgen.NOSMT_GUEST):
        resultgen.target_file(d, config, count=5)
    return d


def commands(run, tmp_path):
    """Every command taking --alpha, with otherwise valid arguments."""
    a, b = run / "metal.txt", run / "guest-nosmt.txt"
    return {"compare": ["compare", a, b], "explain": ["explain", a, b],
            "report": ["report", run, "--out", tmp_path / "out"], "pr-comment": ["pr-comment", run, run]}


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "1", "7", "-0.1", "x", ""])
@pytest.mark.parametrize("command", ["compare", "explain", "report", "pr-comment"])
def test_alpha_must_be_a_probability(cli, run, tmp_path, command, value):
    r = cli(*commands(run, tmp_path)[command], f"--alpha={value}")
    assert r.code == 2 and "--alpha" in r.err and "Traceback" not in r.err, r
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["nan", "0", "1", "7", "95"])
def test_confidence_must_be_a_probability(cli, run, tmp_path, value):
    r = cli(*commands(run, tmp_path)["compare"], f"--confidence={value}")
    assert r.code == 2 and "--confidence" in r.err and "between 0 and 1" in r.err, r


@pytest.mark.parametrize("value", ["nan", "-5", "inf"])
@pytest.mark.parametrize("command", ["compare", "pr-comment"])
def test_fail_on_regression_must_be_a_finite_percentage(cli, run, tmp_path, command, value):
    r = cli(*commands(run, tmp_path)[command], f"--fail-on-regression={value}")
    assert r.code == 2 and "--fail-on-regression" in r.err, r


@pytest.mark.parametrize("command", ["compare", "explain", "report", "pr-comment"])
def test_a_valid_alpha_is_taken(cli, run, tmp_path, command):
    r = cli(*commands(run, tmp_path)[command], "--alpha", "0.01")
    assert r.code == 0, r


# One vocabulary across the commands (issue 57): --format, --results-dir on either side of the command,
# --alpha explained everywhere, benchstat's single-dash spellings.

FORMAT_WORDS = ["text", "markdown", "csv", "json"]


def subcommands():
    from vmparity.cli import _parser

    p = _parser()
    (sub,) = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def option(parser, name):
    return next((a for a in parser._actions if name in a.option_strings), None)


@pytest.mark.parametrize("command", ["compare", "explain", "noise", "power", "history"])
def test_format_is_one_vocabulary_with_text_the_default(command):
    fmt = option(subcommands()[command], "--format")
    assert fmt is not None and fmt.default == "text" and fmt.help
    assert [c for c in FORMAT_WORDS if c in fmt.choices] == list(fmt.choices), fmt.choices


def test_every_alpha_says_what_it_is():
    for name, parser in subcommands().items():
        alpha = option(parser, "--alpha")
        assert alpha is None or (alpha.help and "0.05" in alpha.help), name


@pytest.fixture
def results(tmp_path):
    """A results tree holding two lab runs (run-ids r1 and r2)."""
    d = tmp_path / "results"
    for run_id, seed in (("r1", 1), ("r2", 2)):
        resultgen.lab_run(d / "runs" / run_id, seed=seed, count=6)
    return d


READERS = {"compare": ["compare", "r1", "r2"], "explain": ["explain", "r1", "r2"], "noise": ["noise", "r1"],
           "history": ["history"], "export": ["export", "r1", "--format", "bmf"], "pr-comment": ["pr-comment", "r1", "r2"],
           "report": ["report", "r1", "--out", "OUT"]}


@pytest.mark.parametrize("command", READERS)
def test_results_dir_before_or_after_the_command(cli, results, tmp_path, command):
    args = [str(tmp_path / "out") if a == "OUT" else a for a in READERS[command]]
    before = cli("--results-dir", results, *args)
    after = cli(*args, "--results-dir", results)
    assert before.code == after.code == 0 and before.out == after.out, (before, after)
    for name in ("ingest", "power"):
        assert option(subcommands()[name], "--results-dir") is not None
    (lab,) = [a for a in subcommands()["lab"]._actions if isinstance(a, argparse._SubParsersAction)]
    assert option(lab.choices["verify"], "--results-dir") is not None


def test_benchstat_single_dash_spellings_are_the_double_dash_options(cli, run):
    a, b = run / "metal.txt", run / "guest-nosmt.txt"
    want = cli("compare", a, b, "--alpha", "0.01", "--format", "csv")
    got = cli("compare", "-alpha", "0.01", "-format=csv", a, b)
    assert got.code == 0 and got.out == want.out
    assert cli("compare", a, b, "-confidence", "0.9", "-row", ".name", "-col", ".file").code == 0
    # `-table ''`, as benchstat is run on two lab files, and -ignore
    assert cli("compare", "-table", "", a, b, "--format", "csv").out == cli("compare", a, b, "--format", "csv").out
    assert cli("compare", "-ignore", "/size", a, b).code == 0


# the old benchstat's -delta-test and -sort: every option of today's benchstat is vmparity's too
@pytest.mark.parametrize("spelling", ["-delta-test", "-sort=delta"])
def test_a_benchstat_option_vmparity_lacks_is_refused_with_the_hint(cli, run, spelling):
    r = cli("compare", spelling, run / "metal.txt")
    assert r.code == 2 and "Traceback" not in r.err
    assert "two dashes" in r.err and f"--{spelling[1:].split('=')[0]}" in r.err


def test_compare_still_takes_the_old_name_of_text(cli, run):
    a, b = run / "metal.txt", run / "guest-nosmt.txt"
    assert cli("compare", a, b, "--format", "table").out == cli("compare", a, b).out


def test_an_option_value_that_starts_with_a_dash_is_left_as_it_is(cli, run):
    r = cli("compare", run / "metal.txt", run / "guest-nosmt.txt", "--filter", "-name", "-format", "csv")
    assert r.code == 2 and "--filter" in r.err and "two dashes" not in r.err  # the filter's own error


def test_dash_o_writes_what_stdout_would_and_keeps_the_file_on_bad_input(cli, run, tmp_path):
    a, b = run / "metal.txt", run / "guest-nosmt.txt"
    dest = tmp_path / "cmp.md"
    r = cli("compare", a, b, "-format", "markdown", "-o", dest)
    assert r.code == 0 and r.out == "" and dest.read_text() == cli("compare", a, b, "--format", "markdown").out
    # a tripped gate is an answer: the file is written and the status is 1
    gated = cli("compare", a, b, "--fail-on-regression", "1", "--output", dest)
    assert gated.code == 1 and "significant regression" in gated.err and "BenchmarkMemcpy" in dest.read_text()
    kept = dest.read_text()
    bad = cli("compare", a, tmp_path / "missing.txt", "-o", dest)
    assert bad.code == 2 and dest.read_text() == kept and sorted(p.name for p in tmp_path.iterdir()) == ["cmp.md", "run"]  # no temporary left
    nowhere = cli("explain", a, b, "-o", tmp_path / "no-such-dir" / "x.txt")
    assert nowhere.code == 2 and "no-such-dir/x.txt: cannot write the output there" in nowhere.err
