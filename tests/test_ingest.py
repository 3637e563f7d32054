"""vmparity ingest: stores a run atomically and refuses bad input without touching stored runs."""

import hashlib
import json
import re
import shutil

import pytest


@pytest.fixture
def results(tmp_path):
    return tmp_path / "results"


def snapshot(path):
    return {p.relative_to(path): p.read_bytes() for p in path.rglob("*") if p.is_file()} if path.exists() else {}


def with_manifest(testdata, tmp_path):
    """Copies of run-a whose binary-sha256 is the sha256 of a manifest, as benchrun writes them."""
    manifest = tmp_path / "MANIFEST.sha256"
    manifest.write_text("a" * 64 + "  clock\n" + "b" * 64 + "  memcpy-static\n")
    digest = hashlib.sha256(manifest.read_bytes()).hexdigest()
    (tmp_path / "in").mkdir()
    files = []
    for f in sorted((testdata / "run-a").glob("*.txt")):
        text = re.sub(r"(?m)^binary-sha256: .*$", f"binary-sha256: {digest}", f.read_text())
        files.append(tmp_path / "in" / f.name)
        files[-1].write_text(text)
    return manifest, files


def test_ingest_stores_txt_env_json_and_manifest(cli, testdata, results, tmp_path):
    manifest, files = with_manifest(testdata, tmp_path)
    r = cli("--results-dir", results, "ingest", *files, "--run-id", "run-a", "--manifest", manifest)
    assert r.code == 0, r.err
    run = results / "runs" / "run-a"
    assert sorted(p.name for p in run.iterdir()) == sorted(
        [f.name for f in files] + [f.stem + ".env.json" for f in files] + ["MANIFEST.sha256"])
    assert (run / "metal.txt").read_bytes() == files[-1].read_bytes()  # stored verbatim
    env = json.loads((run / "guest-nosmt.env.json").read_text())
    assert env["nt-threshold"] == "0xc0000" and env["target-kind"] == "tcg-guest"
    assert not [p for p in (results / "runs").iterdir() if p.name.startswith(".")]  # no temp dir left
    # stored runs are found by run-id
    assert cli("--results-dir", results, "compare", "run-a", "--by", "target").code == 0


def test_manifest_must_match_the_binaries_of_the_results(cli, testdata, results, tmp_path):
    manifest, _ = with_manifest(testdata, tmp_path)
    r = cli("--results-dir", results, "ingest", testdata / "run-a" / "metal.txt", "--run-id", "m", "--manifest", manifest)
    assert r.code == 2 and "binary-sha256" in r.err and "metal.txt:" in r.err
    assert not (results / "runs" / "m").exists()


def test_refuses_to_overwrite_without_force(cli, testdata, results):
    f = testdata / "run-a" / "metal.txt"
    assert cli("--results-dir", results, "ingest", f, "--run-id", "r1").code == 0
    before = snapshot(results)
    r = cli("--results-dir", results, "ingest", testdata / "run-b" / "metal.txt", "--run-id", "r1")
    assert r.code == 2 and "already stored" in r.err and "--force" in r.err
    assert snapshot(results) == before
    r = cli("--results-dir", results, "ingest", testdata / "run-b" / "metal.txt", "--run-id", "r1", "--force")
    assert r.code == 0, r.err
    assert (results / "runs" / "r1" / "metal.txt").read_bytes() == (testdata / "run-b" / "metal.txt").read_bytes()


def bad_copy(tmp_path, testdata, name, edit):
    text = (testdata / "run-a" / "metal.txt").read_text()
    p = tmp_path / name
    p.write_text(edit(text))
    return p


BAD = {
    "empty": (lambda t: "", "empty file"),
    "truncated": (lambda t: t + "BenchmarkMemcpy/link=static\n", "truncated result line"),
    "odd": (lambda t: t + "BenchmarkMemcpy/link=static/tunable=default/size=256 10 1 ns/op 2\n", "missing units"),
    "unit": (lambda t: t.replace("ns/op", "ns/opp", 1), "unknown unit"),
    "nan": (lambda t: t.replace(" ns/op", " ns/op", 1) + "BenchmarkClock/clock=rdtsc/path=insn 10 nan ns/op\n", "value 'nan'"),
    "negative": (lambda t: t + "BenchmarkClock/clock=rdtsc/path=insn 10 -1 ns/op\n", "non-negative"),
    "mixed": (lambda t: t + "BenchmarkClock/clock=rdtsc/path=insn 10 1 ns/op 2 B/s\n", "mixed units"),
    "fingerprint": (lambda t: t.replace("nt-threshold: 0x1800000\n", ""), "missing required key(s) nt-threshold"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_is_refused_and_nothing_stored_changes(cli, testdata, results, tmp_path, case):
    assert cli("--results-dir", results, "ingest", testdata / "run-a" / "metal.txt", "--run-id", "keep").code == 0
    before = snapshot(results)
    edit, expected = BAD[case]
    bad = bad_copy(tmp_path, testdata, "bad.txt", edit)
    for run_id in ("keep", "new"):
        args = ["--results-dir", results, "ingest", testdata / "run-a" / "guest-hpet.txt", bad, "--run-id", run_id]
        r = cli(*args, *(["--force"] if run_id == "keep" else []))
        assert r.code == 2
        assert expected in r.err and str(bad) in r.err, r.err
        assert snapshot(results) == before


def test_two_files_claiming_one_target(cli, testdata, results, tmp_path):
    twin = tmp_path / "twin.txt"
    shutil.copy(testdata / "run-a" / "metal.txt", twin)
    r = cli("--results-dir", results, "ingest", testdata / "run-a" / "metal.txt", twin, "--run-id", "x")
    assert r.code == 2 and "claims target 'metal'" in r.err and "twin.txt:3" in r.err
    assert not (results / "runs" / "x").exists()


def test_missing_run_directory_and_bad_run_id(cli, results, testdata):
    r = cli("--results-dir", results, "compare", "no-such-run", "other")
    assert r.code == 2 and "no-such-run" in r.err and "run-id" in r.err
    r = cli("--results-dir", results, "ingest", testdata / "run-a" / "metal.txt", "--run-id", "../escape")
    assert r.code == 2 and "--run-id" in r.err
