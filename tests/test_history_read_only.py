"""Reading never needs to write: where results/.index.sqlite cannot be written (a read-only results directory,
a full disk) `vmparity history` keeps its index in the user's cache directory, or in memory, and says so once;
`vmparity report` on a full disk names the file it could not write.

Running as root, a chmod does not make a directory unwritable: a directory where the index file should be
stands in for a read-only place (sqlite cannot open it), and an sqlite write that fails with "database or
disk is full" for a full disk."""

import errno
import json
import sqlite3
from pathlib import Path

import historygen as hg
import pytest

from vmparity.history import index


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    plan = hg.Plan(runs=12, targets=["metal"], rows=2, seed=3)
    hg.write(plan, tmp_path / "results" / "runs")
    return tmp_path / "results"


def history_json(cli, results):
    r = cli("--results-dir", results, "history", "--format", "json")
    assert r.code == 0 and "Traceback" not in r.err, r.err
    return json.loads(r.out), r.err


def notes(err):
    return [line for line in err.splitlines() if "cannot write the history index" in line]


def test_an_unwritable_index_place_keeps_the_index_in_the_cache_directory_and_says_so_once(cli, results, tmp_path):
    want, err = history_json(cli, results)
    assert not notes(err)
    index.remove_files(results / index.INDEX_NAME)
    (results / index.INDEX_NAME).mkdir()  # what sqlite cannot open, as it cannot create a file in a read-only directory
    got, err = history_json(cli, results)
    assert got == want
    (note,) = notes(err)
    assert str(results / index.INDEX_NAME) in note and str(index.cache_path(results / "runs")) in note
    assert index.cache_path(results / "runs").is_file()
    assert sorted(p.name for p in results.iterdir()) == [index.INDEX_NAME, "runs"]  # nothing written there


def test_with_no_writable_place_at_all_the_index_lives_in_memory(cli, results, tmp_path, monkeypatch):
    want, _ = history_json(cli, results)
    index.remove_files(results / index.INDEX_NAME)
    (results / index.INDEX_NAME).mkdir()
    (tmp_path / "blocked").write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "blocked"))
    got, err = history_json(cli, results)
    assert got == want
    (note,) = notes(err)
    assert "kept it in memory" in note


def test_a_full_disk_keeps_the_index_elsewhere_and_leaves_no_file_behind(cli, results, monkeypatch):
    asked = results / index.INDEX_NAME
    merge = index.Index._merge

    def disk_full_beside_runs(self, pending):
        if Path(str(self.path)) == asked:
            raise sqlite3.OperationalError("database or disk is full")
        return merge(self, pending)

    monkeypatch.setattr(index.Index, "_merge", disk_full_beside_runs)
    doc, err = history_json(cli, results)
    assert len(doc["tracks"]) == 2
    (note,) = notes(err)
    assert "database or disk is full" in note
    assert not asked.exists() and not Path(f"{asked}-wal").exists()


def test_report_on_a_full_disk_names_the_file_it_could_not_write(cli, results, monkeypatch):
    run = sorted((results / "runs").iterdir())[-1]
    real = Path.write_bytes

    def full(self, data):
        if self.name.startswith(".report.md"):
            raise OSError(errno.ENOSPC, "No space left on device", str(self))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    r = cli("--results-dir", results, "report", run.name)
    assert r.code == 2 and "Traceback" not in r.err
    assert f"{run / 'report.md'}: cannot write the report: No space left on device" in r.err
    assert "expected a readable result file" not in r.err
    assert not [p for p in run.iterdir() if p.name.startswith(".report.md")]
