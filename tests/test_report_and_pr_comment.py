"""vmparity report (Markdown + self-contained HTML with plots) and pr-comment (golden)."""

import base64
from pathlib import Path
import re

import pytest

import golden
from vmparity.commands.pr_comment import MARKER


@pytest.fixture
def in_testdata(testdata, monkeypatch):
    monkeypatch.chdir(testdata)


def test_report_writes_markdown_html_and_plots(cli, testdata, tmp_path):
    r = cli("report", testdata / "run-a", "--out", tmp_path)
    assert r.code == 0, r.err
    md = (tmp_path / "report.md").read_text()
    # summary verdicts first, details folded, plots linked
    assert md.index("| target | kind |") < md.index("## Why they differ") < md.index("## All results")
    assert "<details>" in md and "[memcpy bytes/s against size](memcpy.png)" in md
    assert re.search(r"\| `guest-nosmt` \| tcg-guest \| \d+ \| \d+ \| \d+ \| `nt-threshold`", md)
    for name in ("memcpy.png", "clock.png", "snowflake.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")
    html = (tmp_path / "report.html").read_text()
    assert 'src="memcpy.png"' not in html  # inlined, self-contained
    uris = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(uris) == 3 and base64.b64decode(uris[0]).startswith(b"\x89PNG")
    assert "<details>" in html and "<table>" in html


def test_report_refuses_a_single_file(cli, testdata, tmp_path):
    r = cli("report", testdata / "run-a" / "metal.txt", "--out", tmp_path)
    assert r.code == 2 and "run directory" in r.err


def test_report_includes_the_reproductions(cli, testdata, tmp_path):
    """A run with the seeds' benchmarks gets every seed's verdict in its report."""
    assert cli("report", testdata / "run-a", "--out", tmp_path).code == 0
    assert "## Reproductions" in (tmp_path / "report.md").read_text()


def test_pr_comment_golden(cli, in_testdata):
    r = cli("pr-comment", "run-a", "run-b")
    assert r.code == 0, r.err
    assert r.out.startswith(MARKER + "\n")
    golden.check("pr-comment-run-a-vs-run-b.md", r.out)


def test_pr_comment_gate(cli, in_testdata):
    r = cli("pr-comment", "run-a", "run-b", "--fail-on-regression", "5")
    assert r.code == 1 and "monotonic/path=vdso" in r.err
    assert r.out.startswith(MARKER)  # the comment is still written for the workflow to post


def test_pr_comment_fits_one_github_comment_on_the_committed_runs(cli):
    # two committed lab runs with rows beyond run-to-run noise (of two machines: the comment says so too)
    runs = Path(__file__).resolve().parent.parent / "results" / "runs"
    r = cli("pr-comment", runs / "2026-11-27T20-39-11Z-lab-quick", runs / "2026-11-28T08-43-58Z-lab-quick",
            "--full-report", "the artifact")
    assert r.code == 0, r.err
    assert len(r.out) <= 60_000 and r.out.startswith(MARKER)
    assert "largest changes first" in r.out and "The full report is in the artifact" in r.out
    sig = [ln for ln in r.out.splitlines() if ln.startswith("| ") and "%" in ln and "`Benchmark" in ln]
    # two runs are judged against run-to-run noise: the changed rows' table has the change after the host's drift (and clock)
    changes = [abs(float(ln.split("|")[8].strip().rstrip("%"))) for ln in sig]
    assert changes == sorted(changes, reverse=True) and changes


def test_pr_comment_says_when_base_and_head_ran_on_different_machines(cli, testdata, tmp_path):
    other = tmp_path / "metal.txt"
    other.write_text((testdata / "run-b" / "metal.txt").read_text().replace("cpu: AMD EPYC 7B13 64-Core Processor", "cpu: Intel Xeon"))
    r = cli("pr-comment", testdata / "run-a" / "metal.txt", other)
    assert r.code == 0, r.err
    first = r.out.split("\n\n")[1]
    assert "Not a like-for-like comparison" in first and "`cpu`" in first
