"""Usage errors read as text, a closed pipe is not a regression, a mistyped --by key is an error."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vmparity.cli import CLOSED_PIPE

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "results" / "runs" / "2026-11-24T08-46-26Z-repro-quick-a"


@pytest.mark.parametrize("argv", [["-V"], ["compare", "--format", "yaml", "a", "b"]])
def test_usage_errors_print_line_breaks_not_escapes(cli, argv):
    r = cli(*argv)
    assert r.code == 2
    assert "\\x0a" not in r.err and "\nusage: vmparity" in r.err


def test_usage_errors_still_escape_other_control_characters(cli):
    r = cli("compare", "--format", "te\x1b[31mxt", "a")
    assert r.code == 2 and "\x1b" not in r.err and "\\x1b" in r.err


class _Closed:
    def write(self, s):
        raise BrokenPipeError


def test_a_closed_output_is_not_a_regression_in_process(testdata):
    from vmparity.cli import main

    code = main(["compare", str(testdata / "run-a"), str(testdata / "run-b"), "--fail-on-regression", "1"], _Closed(), _Closed())
    assert code == CLOSED_PIPE != 1


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_compare_into_head_exits_141_quietly(fmt):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = f"{sys.executable} -m vmparity compare {RUN} {RUN.with_name(RUN.name[:-1] + 'b')} --format {fmt} | head -1"
    p = subprocess.run(["bash", "-c", f"set -o pipefail; {cmd} >/dev/null"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == CLOSED_PIPE, p.stderr
    assert p.stderr == ""


def test_a_mistyped_by_key_names_the_keys_there_are(cli):
    r = cli("compare", RUN, "--by", "targte")
    assert r.code == 2 and r.out == ""
    assert "'targte'" in r.err and "did you mean 'target'?" in r.err and "target-kind" in r.err


def test_a_known_key_and_the_special_keys_still_make_columns(cli, testdata):
    assert cli("compare", testdata / "run-a", "--by", "target").code == 0
    assert cli("compare", testdata / "run-a", testdata / "run-b", "--col", ".file").code == 0
