"""Shared fixtures for the vmparity tests: in-process CLI, generated files, benchstat."""

import io
import os
import shutil
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
sys.path.insert(0, str(TESTS))  # resultgen, golden

from vmparity.cli import main  # noqa: E402

# With VMPARITY_REQUIRE_LAB=1 (set by .ci/run) a skipped lab or rack test
# fails: a missing daemon or package must not pass silently.
REQUIRE_LAB = os.environ.get("VMPARITY_REQUIRE_LAB") == "1"
END_TO_END = (str(TESTS / "lab"), str(TESTS / "rack"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if REQUIRE_LAB and report.skipped and str(item.fspath).startswith(END_TO_END):
        report.outcome = "failed"
        report.longrepr = f"VMPARITY_REQUIRE_LAB=1 turns this skip into a failure: {report.longrepr}"


class Result:
    def __init__(self, code, out, err):
        self.code, self.out, self.err = code, out, err

    def __repr__(self):
        return f"Result(code={self.code}, err={self.err!r})"


@pytest.fixture
def cli(monkeypatch):
    """Run `vmparity ARGS…` in-process; returns code, stdout and stderr text. The tables
    get their natural width (no $COLUMNS of the terminal pytest runs in); a test sets
    COLUMNS itself to see them fitted."""
    monkeypatch.delenv("COLUMNS", raising=False)

    def run(*argv):
        out, err = io.StringIO(), io.StringIO()
        code = main([str(a) for a in argv], out, err)
        return Result(code, out.getvalue(), err.getvalue())

    return run


@pytest.fixture
def testdata():
    return TESTS / "testdata"


@pytest.fixture(scope="session")
def benchstat():
    """benchstat from $BENCHSTAT, build/gobin or PATH (`make go-tools` installs it)."""
    candidates = [os.environ.get("BENCHSTAT"), str(TESTS.parent / "build" / "gobin" / "benchstat"), shutil.which("benchstat")]
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    pytest.fail("benchstat not found: run `make go-tools` or set BENCHSTAT")
