"""Option values are checked in one place (vmparity/options.py) for every command that takes them."""

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
