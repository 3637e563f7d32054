"""The history index: built from the files, re-read per run when a run is added, changed or removed."""

import os
import sqlite3

import historygen as hg
import numpy as np
import pytest

from vmparity import history
from vmparity.history import index, tracks


def write(tmp_path, runs=3):
    plan = hg.Plan(runs=runs, targets=["metal"], rows=2, seed=2)
    hg.write(plan, tmp_path / "results" / "runs")
    return plan, tmp_path / "results" / "runs"


def medians(runs_dir):
    ix = index.Index(runs_dir)
    try:
        counts = ix.refresh()
        return counts, {t.name: list(t.median) for t in tracks.load(ix).tracks}
    finally:
        ix.close()


def test_index_lives_beside_runs_and_is_rebuilt_only_for_changed_runs(tmp_path):
    plan, runs = write(tmp_path)
    counts, first = medians(runs)
    assert counts == (3, 0, 0) and (runs.parent / ".index.sqlite").is_file()
    assert medians(runs)[0] == (0, 0, 0)  # nothing changed: nothing re-read

    f = runs / plan.run_id(1) / "metal.txt"
    text = f.read_text().replace(f"{plan.name(0)} 1000000 ", f"{plan.name(0)} 1000000 9")
    f.write_text(text)
    os.utime(f, ns=(f.stat().st_mtime_ns + 10**9,) * 2)
    counts, second = medians(runs)
    assert counts == (0, 1, 0)
    assert second[plan.name(0)][1] > 10 * first[plan.name(0)][1]  # the new values, not the stored ones
    assert second[plan.name(1)] == first[plan.name(1)]

    hg.write(hg.Plan(runs=5, targets=["metal"], rows=2, seed=9), tmp_path / "more")
    os.rename(tmp_path / "more" / plan.run_id(4), runs / plan.run_id(4))
    assert medians(runs)[0] == (1, 0, 0)

    for p in (runs / plan.run_id(2)).iterdir():
        p.unlink()
    (runs / plan.run_id(2)).rmdir()
    counts, now = medians(runs)
    assert counts == (0, 0, 1) and len(now[plan.name(0)]) == 3


def test_index_matches_a_fresh_parse(tmp_path):
    plan, runs = write(tmp_path, runs=2)
    ix = index.Index(runs)
    ix.refresh()
    t = tracks.load(ix).tracks[0]
    ix.close()
    from vmparity.results.file import parse_file

    rf = parse_file(runs / plan.run_id(1) / "metal.txt")
    values = rf.benchmarks[t.name].values[0]
    assert np.array_equal(t.samples(1), values)
    assert t.median[1] == np.quantile(values, 0.5, method="median_unbiased")


def test_a_corrupt_or_old_index_is_rebuilt_from_the_files(tmp_path):
    plan, runs = write(tmp_path)
    medians(runs)
    (runs.parent / ".index.sqlite").write_bytes(b"not a database at all" * 100)
    for suffix in ("-wal", "-shm"):
        p = runs.parent / f".index.sqlite{suffix}"
        if p.exists():
            p.unlink()
    assert medians(runs)[0] == (3, 0, 0)
    db = sqlite3.connect(runs.parent / ".index.sqlite")
    db.execute("UPDATE meta SET value = 'old' WHERE key = 'schema'")
    db.commit()
    db.close()
    assert medians(runs)[0] == (3, 0, 0)


def test_provenance_keys_default_to_unknown_and_ingest_keeps_them(tmp_path, cli):
    import resultgen

    lines = [f"{k}: {v}".rstrip() for k, v in resultgen.METAL.items()]
    (tmp_path / "plain.txt").write_text("\n".join(lines + ["BenchmarkX 10 5 ns/op"] * 5) + "\n")
    given = lines + ["commit: 0123456789abcdef0123456789abcdef01234567", "branch: main", "dirty: yes"]
    (tmp_path / "given.txt").write_text("\n".join(given + ["BenchmarkX 10 6 ns/op"] * 5) + "\n")
    results = tmp_path / "results"
    assert cli("--results-dir", results, "ingest", tmp_path / "plain.txt", "--run-id", "r1").code == 0
    r = cli("--results-dir", results, "ingest", tmp_path / "given.txt", "--run-id", "r2")
    assert r.code == 0, r.err
    assert "commit: 0123456789abcdef0123456789abcdef01234567\nbranch: main\ndirty: yes\n" in \
        (results / "runs" / "r2" / "metal.txt").read_text()
    out = cli("--results-dir", results, "history", "--tracks").out
    assert "r1                                 unknown            unknown" in out
    assert "r2                                 0123456789ab+dirty main" in out


def test_a_track_is_keyed_by_the_machine_identity_where_files_record_one():
    from vmparity.history.index import lab_host, series_host

    same_name = [{"host": "vm", "machine": "a1b2c3"}, {"host": "vm", "machine": "d4e5f6"}]
    assert series_host(same_name[0]) != series_host(same_name[1])  # two machines that share a name
    assert series_host({"host": "vm"}) == "vm"  # files from before the key keep their series
    assert series_host({"host": "vm", "machine": "unknown (no /etc/machine-id)"}) == "vm"
    # a container's own host name changes every run; its run's metal decides
    metals = {"metal": series_host(same_name[0])}
    assert lab_host("container-nolimit", metals) == series_host(same_name[0])


def _history(cli, runs):
    return cli("--results-dir", runs.parent, "history")


@pytest.mark.parametrize("corruption", [
    "UPDATE tracks SET median = x'000102'",  # not whole float64s
    "UPDATE tracks SET n = x'0100000000000000'",  # one run's count for three runs
    "UPDATE tracks SET run_ids = x'ff'",  # not UTF-8
    "UPDATE files SET head = 'not json'",
    "UPDATE files SET config = '{'",
    "UPDATE files SET head = '[\"a\"]'",  # JSON, of another shape
])
def test_an_index_that_is_well_formed_but_does_not_decode_is_built_again_with_a_warning(cli, tmp_path, corruption):
    """The index is only a cache: a row that does not decode is no reason to stop, nor to trust it."""
    plan, runs = write(tmp_path)
    clean = _history(cli, runs)
    assert clean.code == 0, clean
    _corrupt(runs.parent / ".index.sqlite", corruption)
    r = _history(cli, runs)
    assert r.code == 0, r
    assert "does not decode" in r.err and "built it again" in r.err, r.err
    assert r.out == clean.out
    assert _history(cli, runs).err == ""  # built again for good: the next command reads it quietly


def test_an_index_in_the_cache_directory_that_does_not_decode_is_built_again(tmp_path):
    """Where results/ cannot be written the index lives in the user's cache directory (index.refreshed):
    the same holds there."""
    plan, runs = write(tmp_path)
    path = tmp_path / "cache" / "vmparity" / "index.sqlite"
    before = [list(t.median) for t in history.load(runs, index_path=path).tracks]
    _corrupt(path, "UPDATE tracks SET median = x'000102'")
    warned = []
    after = [list(t.median) for t in history.load(runs, index_path=path, warn=warned.append).tracks]
    assert len(before) == 2 and after == before
    assert len(warned) == 1 and str(path) in warned[0], warned


def _corrupt(path, statement):
    db = sqlite3.connect(path)
    db.execute(statement)
    db.commit()
    db.close()
