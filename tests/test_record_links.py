"""A record of a run that is a symbolic link out of the run (issue 59): every reader refuses it with
exit 2 naming the file and saying it is a link outside the run, though the file it points to is a
valid record (so it is the link that is refused, not its content); nothing is written through it
or through a linked directory, and the file it points to is left as it was. A link that stays in
the run is followed: it shows only the run's own data.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile_record_cases import staging_run

RUNS = Path(__file__).resolve().parent.parent / "results" / "runs"
LAB_RUN = "2026-11-28T08-43-58Z-lab-quick"
VERIFY_RUN = "2026-11-27T20-55-29Z-verify-quick"
VERIFIED_RUN = "2026-11-27T20-39-11Z-lab-quick"  # the run VERIFY_RUN verifies
AB_RUN = "2026-11-26T12-41-12Z-ab-quick"


def _copy(tmp_path, run):
    dst = tmp_path / "results" / "runs" / run
    shutil.copytree(RUNS / run, dst)
    return dst


def _link_out(tmp_path, path):
    """Move the record at path out of the run and leave a link to it in its place; the moved file."""
    outside = tmp_path / "outside" / path.name
    outside.parent.mkdir(exist_ok=True)
    shutil.move(path, outside)
    os.symlink(outside, path)
    return outside


def refused_link(r, record, outside):
    assert r.code == 2, r
    assert "Traceback" not in r.err, r.err
    assert record in r.err and f"a symbolic link to {outside}, outside the run" in r.err, r.err


READERS = [  # (run, the record made a link, the command that reads it)
    (LAB_RUN, "rounds.json", ("noise", "RUN")),
    (LAB_RUN, "rounds.json", ("compare", "RUN", "--by", "target")),
    (LAB_RUN, "verify-plan.json", ("lab", "verify", "RUN")),
    (LAB_RUN, "metal-aa.txt", ("report", "RUN", "--out", "OUT")),
    (LAB_RUN, "guest-nosmt.txt", ("compare", "RUN", "--by", "target")),
    (VERIFY_RUN, "verdicts.json", ("report", "RUN", "--out", "OUT")),
    (AB_RUN, "MANIFEST~base.sha256", ("pr-comment", "--ab", "RUN")),
    (AB_RUN, "MANIFEST.sha256", ("pr-comment", "--ab", "RUN")),
    (AB_RUN, "rounds.json", ("pr-comment", "--ab", "RUN")),
    (AB_RUN, "container-quota~base.txt", ("pr-comment", "--ab", "RUN")),
    (LAB_RUN, "rounds.json", ("power", "RUN", "--effects", "20", "--rows", "2", "--trials", "1")),
]


@pytest.mark.parametrize("run,record,command", READERS, ids=lambda x: x if isinstance(x, str) else "-".join(x[:2]))
def test_a_record_linked_out_of_its_run_is_refused(cli, tmp_path, run, record, command):
    run_dir = _copy(tmp_path, run)
    if record == "verify-plan.json" and not (run_dir / record).exists():
        assert cli("--results-dir", tmp_path / "results", "lab", "verify", run_dir).code == 0
    outside = _link_out(tmp_path, run_dir / record)
    kept = outside.read_bytes()
    argv = [{"RUN": run_dir, "OUT": tmp_path / "out"}.get(a, a) for a in command]
    refused_link(cli("--results-dir", tmp_path / "results", *argv), record, outside)
    assert outside.read_bytes() == kept


def test_verifications_linked_out_of_the_run_are_refused_by_the_report_and_the_verify_store(cli, tmp_path):
    verified, verify = _copy(tmp_path, VERIFIED_RUN), _copy(tmp_path, VERIFY_RUN)
    links = verified / "verifications.json"
    outside = _link_out(tmp_path, links)
    kept = outside.read_bytes()
    refused_link(cli("report", verified, "--out", tmp_path / "out"), "verifications.json", outside)
    r = cli("--results-dir", tmp_path / "results", "lab", "verify", verified, "--measured", verify.name)
    refused_link(r, "verifications.json", outside)
    assert outside.read_bytes() == kept and links.is_symlink()


def test_a_linked_verdicts_file_is_replaced_by_the_verify_store_never_written_through(cli, tmp_path):
    verified, verify = _copy(tmp_path, VERIFIED_RUN), _copy(tmp_path, VERIFY_RUN)
    outside = _link_out(tmp_path, verify / "verdicts.json")
    kept = outside.read_bytes()
    r = cli("--results-dir", tmp_path / "results", "lab", "verify", verified, "--measured", verify.name)
    assert r.code == 0, r
    assert outside.read_bytes() == kept
    assert not (verify / "verdicts.json").is_symlink()
    assert json.loads((verify / "verdicts.json").read_text())["run"] == VERIFY_RUN


def test_a_link_that_stays_in_the_run_is_followed(cli, tmp_path):
    plain = cli("noise", _copy(tmp_path / "plain", LAB_RUN))
    run = _copy(tmp_path, LAB_RUN)
    (run / "records").mkdir()
    (run / "rounds.json").rename(run / "records" / "rounds.json")
    os.symlink("records/rounds.json", run / "rounds.json")
    r = cli("noise", run)
    assert (r.code, r.out) == (0, plain.out)


def test_a_run_directory_that_is_itself_a_link_is_read(cli, tmp_path):
    run = _copy(tmp_path / "store", LAB_RUN)
    (tmp_path / "runs").mkdir()
    os.symlink(run, tmp_path / "runs" / LAB_RUN)  # results/runs/<id> kept on another disk
    assert cli("noise", tmp_path / "runs" / LAB_RUN).code == 0


@pytest.fixture
def staging(tmp_path):
    """A staging run of one host, three rounds of metal and its A/A pass (as test_hostile_records')."""
    return staging_run(tmp_path / "stage" / "run")


STAGING_COMMANDS = [("merge-rounds",), ("added-round", "--host", "localhost"), ("confirm-round", "--host", "localhost")]


@pytest.mark.parametrize("record", ["rounds/2/host-localhost.json", "rounds/2/metal.txt"])
@pytest.mark.parametrize("command", STAGING_COMMANDS, ids=lambda c: c[0])
def test_a_staging_record_linked_out_of_the_run_is_refused(cli, tmp_path, staging, record, command):
    outside = _link_out(tmp_path, staging / record)
    kept = outside.read_bytes()
    refused_link(cli("lab", *command, staging), record.split("/")[-1], outside)
    assert outside.read_bytes() == kept


@pytest.mark.parametrize("written", ["metal.txt", "rounds.json"])
def test_the_merge_never_writes_through_a_link_where_its_output_goes(cli, tmp_path, staging, written):
    outside = tmp_path / "outside" / written
    outside.parent.mkdir()
    outside.write_text("kept\n")
    os.symlink(outside, staging / written)
    refused_link(cli("lab", "merge-rounds", staging), written, outside)
    assert outside.read_text() == "kept\n"


def test_the_merge_writes_over_a_link_that_stays_in_the_run_not_through_it(cli, staging):
    (staging / "notes.txt").write_text("kept\n")
    os.symlink("notes.txt", staging / "metal.txt")
    r = cli("lab", "merge-rounds", staging)
    assert r.code == 0, r
    assert (staging / "notes.txt").read_text() == "kept\n"
    assert not (staging / "metal.txt").is_symlink() and "BenchmarkMemcpy" in (staging / "metal.txt").read_text()


def partial_run(tmp_path):
    """A copy of the lab run stored as partial, guest-nosmt missing; (run, its file, the fill-in's rounds.json)."""
    run = _copy(tmp_path, LAB_RUN)
    rec = json.loads((run / "rounds.json").read_text())
    fill = tmp_path / "fill"
    fill.mkdir()
    (fill / "rounds.json").write_text(json.dumps(rec))
    shutil.move(run / "guest-nosmt.txt", fill / "guest-nosmt.txt")
    (run / "guest-nosmt.env.json").unlink()
    planned = sorted({r["round"] for recs in rec["hosts"].values() for r in recs if "guest-nosmt" in r["order"]})
    rec.update(partial=True, **{"missing-rounds": {"guest-nosmt": planned}})
    (run / "rounds.json").write_text(json.dumps(rec))
    return run, fill / "guest-nosmt.txt", fill / "rounds.json"


def test_ingest_fill_in_refuses_a_stored_run_with_a_link_out(cli, tmp_path):
    run, new, rounds = partial_run(tmp_path)
    argv = ("--results-dir", tmp_path / "results", "ingest", "--run-id", LAB_RUN, "--fill-in", "--rounds", rounds, new)
    outside = _link_out(tmp_path, run / "metal-aa.env.json")
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    refused_link(cli(*argv), "metal-aa.env.json", outside)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before
    os.unlink(run / "metal-aa.env.json")
    shutil.move(outside, run / "metal-aa.env.json")
    r = cli(*argv)  # the same fill-in with the file in its place
    assert r.code == 0, r
    assert (run / "guest-nosmt.txt").is_file() and not (run / "metal-aa.env.json").is_symlink()


def test_history_leaves_out_a_run_with_a_result_file_linked_out(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    outside = _link_out(tmp_path, run / "metal.txt")
    r = cli("--results-dir", tmp_path / "results", "history")
    assert r.code in (0, 2) and "Traceback" not in r.err, r
    assert f"a symbolic link to {outside}, outside the run" in r.err, r.err


def test_a_history_index_that_is_a_link_is_not_written_through(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # where it goes instead: never the user's own
    _copy(tmp_path, LAB_RUN)
    outside = tmp_path / "outside" / "index.sqlite"
    outside.parent.mkdir()
    outside.write_bytes(b"kept")
    os.symlink(outside, tmp_path / "results" / ".index.sqlite")
    r = cli("--results-dir", tmp_path / "results", "history")
    assert r.code == 0, r
    assert "is a symbolic link, and the index is never written through one" in r.err, r.err
    assert outside.read_bytes() == b"kept" and (tmp_path / "results" / ".index.sqlite").is_symlink()
    assert list((tmp_path / "cache" / "vmparity").glob("index-*.sqlite"))
