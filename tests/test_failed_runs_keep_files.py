"""A command that fails on a bad record loses or overwrites nothing already stored (issue 59, DESIGN.md
"it never destroys results already stored"): `lab verify` (deriving a plan, storing verdicts), `lab
merge-rounds`, `lab added-round`, `lab confirm-round`, `ingest` (--force, --fill-in) and the history index
built again leave every file of the runs byte for byte as it was."""

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

RUNS = Path(__file__).resolve().parent.parent / "results" / "runs"
LAB_RUN = "2026-11-28T08-43-58Z-lab-quick"
VERIFY_RUN = "2026-11-27T20-55-29Z-verify-quick"
VERIFIED_RUN = "2026-11-27T20-39-11Z-lab-quick"


def _copy(tmp_path, run):
    dst = tmp_path / "results" / "runs" / run
    shutil.copytree(RUNS / run, dst)
    return dst


def files_of(root):
    """{relative path: bytes} of every file under root (links as their target's name)."""
    out = {}
    for directory, _, names in os.walk(root):
        for name in names:
            p = Path(directory) / name
            out[str(p.relative_to(root))] = os.readlink(p).encode() if p.is_symlink() else p.read_bytes()
    return out


def failed(r, *words):
    assert r.code == 2 and "Traceback" not in r.err, r
    for w in words:
        assert w in r.err, (w, r.err)


def _break_result_file(path):
    path.write_text(path.read_text() + "BenchmarkBroken 12 not-a-number ns/op\n")


def test_lab_verify_that_cannot_derive_its_plan_again_keeps_the_stored_plan(cli, tmp_path):
    run = _copy(tmp_path, VERIFIED_RUN)
    _break_result_file(run / "guest-nosmt.txt")
    before = files_of(tmp_path)
    failed(cli("--results-dir", tmp_path / "results", "lab", "verify", run, "--rederive"), "guest-nosmt.txt")
    assert files_of(tmp_path) == before


def test_lab_verify_that_cannot_judge_the_measured_run_keeps_both_runs(cli, tmp_path):
    verified, verify = _copy(tmp_path, VERIFIED_RUN), _copy(tmp_path, VERIFY_RUN)
    _break_result_file(verify / "metal.txt")
    before = files_of(tmp_path)
    failed(cli("--results-dir", tmp_path / "results", "lab", "verify", verified, "--measured", verify.name), "metal.txt")
    assert files_of(tmp_path) == before


def test_lab_verify_whose_links_file_is_refused_writes_no_verdicts(cli, tmp_path):
    verified, verify = _copy(tmp_path, VERIFIED_RUN), _copy(tmp_path, VERIFY_RUN)
    (verified / "verifications.json").write_text('{"verified-by": "x"}')
    before = files_of(tmp_path)
    failed(cli("--results-dir", tmp_path / "results", "lab", "verify", verified, "--measured", verify.name),
           "verifications.json", "verified-by")
    assert files_of(tmp_path) == before  # verdicts.json and the plan of the verify run included


@pytest.fixture
def merged_staging(tmp_path, cli):
    """A staging run of one host (three rounds of metal and its A/A pass) merged once."""
    run = tmp_path / "stage" / "run"
    for k in (1, 2, 3):
        d = run / "rounds" / str(k)
        d.mkdir(parents=True)
        (d / "host-localhost.json").write_text(json.dumps({"host": "localhost", "round": k, "seed": 5,
                                                           "order": ["metal", "metal-aa"], "hygiene": {},
                                                           "timings": {}}))
        for t in ("metal", "metal-aa"):
            shutil.copy(RUNS / LAB_RUN / f"{t}.txt", d / f"{t}.txt")
    assert cli("lab", "merge-rounds", run).code == 0
    assert (run / "rounds.json").is_file() and (run / "metal.txt").is_file()
    return run


@pytest.mark.parametrize("bad,words", [
    ("ab.json", "ab.json"),
    ("rounds/isolation-localhost.json", "isolation-localhost.json"),
    ("rounds/added-stop-localhost.json", "added-stop-localhost.json"),
    ("rounds/failed-localhost.json", "failed-localhost.json"),
])
def test_a_merge_that_stops_on_a_record_keeps_the_earlier_merge(cli, merged_staging, bad, words):
    (merged_staging / bad).write_text('"not a record"')
    (merged_staging / "rounds" / "3" / "metal.txt").write_text(  # what a second merge would change
        (merged_staging / "rounds" / "3" / "metal.txt").read_text().replace("vmparity-format: 1", "vmparity-format: 1\n# x"))
    before = files_of(merged_staging)
    failed(cli("lab", "merge-rounds", merged_staging), words)
    assert files_of(merged_staging) == before


@pytest.mark.parametrize("command", [("added-round", "--host", "localhost"),
                                     ("confirm-round", "--host", "localhost")])
def test_a_second_pass_that_stops_on_a_round_keeps_what_is_stored(cli, merged_staging, command):
    (merged_staging / "rounds" / "2" / "host-localhost.json").write_text("[]")
    before = files_of(merged_staging)
    failed(cli("lab", *command, merged_staging), "rounds/2/host-localhost.json")
    assert files_of(merged_staging) == before


def test_ingest_force_with_a_bad_file_keeps_the_stored_run(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    bad = tmp_path / "metal.txt"
    shutil.copy(run / "metal.txt", bad)
    _break_result_file(bad)
    before = files_of(tmp_path / "results")
    failed(cli("--results-dir", tmp_path / "results", "ingest", "--run-id", LAB_RUN, "--force", bad), "metal.txt")
    assert files_of(tmp_path / "results") == before


def test_ingest_fill_in_of_a_target_the_run_does_not_miss_keeps_the_stored_run(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    rec = json.loads((run / "rounds.json").read_text())
    (tmp_path / "rounds.json").write_text(json.dumps(rec))
    rec.update(partial=True, **{"missing-rounds": {"guest-nosmt": [1]}})
    (run / "rounds.json").write_text(json.dumps(rec))
    shutil.copy(run / "metal.txt", tmp_path / "metal.txt")
    before = files_of(tmp_path / "results")
    failed(cli("--results-dir", tmp_path / "results", "ingest", "--run-id", LAB_RUN, "--fill-in",
               "--rounds", tmp_path / "rounds.json", tmp_path / "metal.txt"), "finished in the stored run")
    assert files_of(tmp_path / "results") == before


def test_an_index_built_again_and_a_run_it_skips_leave_every_run_as_it_was(cli, tmp_path):
    _copy(tmp_path, LAB_RUN)
    bad = _copy(tmp_path, VERIFIED_RUN)
    assert cli("--results-dir", tmp_path / "results", "history").code == 0
    db = sqlite3.connect(tmp_path / "results" / ".index.sqlite")
    db.execute("UPDATE runs SET run_id = run_id || '-renamed'")  # rows that disagree: the refresh cannot go on with them
    db.commit()
    db.close()
    _break_result_file(bad / "metal.txt")  # changed since the index: read again, and skipped
    before = files_of(tmp_path / "results" / "runs")
    r = cli("--results-dir", tmp_path / "results", "history")
    assert r.code == 0, r
    assert "built it again" in r.err and f"skipped run {VERIFIED_RUN}" in r.err, r.err
    assert files_of(tmp_path / "results" / "runs") == before
