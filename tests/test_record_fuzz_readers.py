"""Fuzzing the records test_record_fuzz.py leaves out (issue 59): manifests, the history index (an
SQLite file with its bytes or its values corrupted), verifications.json, an A/B run's records (ab.json
of a staging run, rounds.json of a stored A/B run), the variants files, a host's cpuinfo copy and a
scenarios file (explain --rules is decide's, issue 56's to change). Each reader takes the input or refuses it naming the file; each
command ends in exit 0 or 2, never a traceback. Examples are few and inputs small: seconds a test.
"""

import json
import shutil
import sqlite3
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import historygen as hg
from test_record_fuzz import JSON, _cli, _mutated, _takes_or_refuses
from vmparity.lab import verify
from vmparity.results import manifest

REPO = Path(__file__).resolve().parent.parent
RUNS = REPO / "results" / "runs"
LAB_RUN = RUNS / "2026-11-28T08-43-58Z-lab-quick"
AB_RUN = RUNS / "2026-11-26T12-41-12Z-ab-quick"
VERIFIED_RUN = RUNS / "2026-11-27T20-39-11Z-lab-quick"
VERIFY_RUN = RUNS / "2026-11-27T20-55-29Z-verify-quick"


def fuzz(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _fresh(tmp_path, run, *names):
    """A copy of run under tmp_path/runs (without its plots), replaced on every example."""
    d = tmp_path / "runs" / run.name
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(run, d, ignore=shutil.ignore_patterns("*.png", "report.md"))
    return d


# --- manifests -----------------------------------------------------------------------------------

MANIFEST_LINES = (AB_RUN / "MANIFEST~base.sha256").read_text().splitlines()


@st.composite
def manifests(draw):
    """A real manifest with a line replaced, dropped or added, or arbitrary bytes."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.binary(max_size=200))
    lines = list(MANIFEST_LINES)
    i = draw(st.integers(0, len(lines)))
    line = draw(st.text(max_size=80) | st.sampled_from(["", " ", "0" * 64 + "  ", "0" * 64 + "  x\x00y", "\ufeff"]))
    what = draw(st.sampled_from(["replace", "insert", "drop"]))
    if what == "insert" or i == len(lines):
        lines.insert(i, line)
    elif what == "replace":
        lines[i] = line
    else:
        del lines[i]
    return "\n".join(lines).encode("utf-8", "surrogatepass")


@fuzz(100)
@given(text=manifests())
def test_a_manifest_is_taken_or_refused_by_name(tmp_path, text):
    path = tmp_path / "MANIFEST~base.sha256"
    path.write_bytes(text)
    if _takes_or_refuses(lambda: manifest.read(path), path):
        manifest.digests(manifest.read(path))


@fuzz(3)  # pr-comment --ab takes two seconds: the reader above gets the examples
@given(text=manifests())
def test_pr_comment_ab_on_a_fuzzed_base_manifest_ends_in_exit_0_or_2(tmp_path, text):
    run = _fresh(tmp_path, AB_RUN)
    (run / "MANIFEST~base.sha256").write_bytes(text)
    _cli("pr-comment", "--ab", run)


# --- the history index ---------------------------------------------------------------------------

def _index(tmp_path):
    """(results/ of three small synthetic runs, its index restored to as it was built): the index built
    once per test, checkpointed into one file, and copied back before every example."""
    results, pristine = tmp_path / "results", tmp_path / "pristine.sqlite"
    path = results / ".index.sqlite"
    if not pristine.exists():
        hg.write(hg.Plan(runs=3, targets=["metal"], rows=2, seed=2), results / "runs")
        assert _cli("--results-dir", results, "history") == 0
        db = sqlite3.connect(path)
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        shutil.copy(path, pristine)
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copy(pristine, path)
    return results, path, pristine


SQL_VALUES = st.none() | st.integers(-2**63, 2**63 - 1) | st.floats() | st.text(max_size=20) | st.binary(max_size=40)


@fuzz(40)
@given(data=st.data())
def test_history_on_an_index_with_any_value_replaced_ends_in_exit_0(tmp_path, data):
    results, path, _ = _index(tmp_path)
    db = sqlite3.connect(path)
    table = data.draw(st.sampled_from(["tracks", "files", "runs", "meta"]))
    columns = [r[1] for r in db.execute(f"PRAGMA table_info({table})")]
    column = data.draw(st.sampled_from(columns))
    try:
        db.execute(f"UPDATE {table} SET {column} = ?", (data.draw(SQL_VALUES),))
        db.commit()
    except sqlite3.IntegrityError:  # a NOT NULL column: sqlite keeps that value from any writer
        pass
    db.close()
    assert _cli("--results-dir", results, "history") == 0  # a cache that fails is built again, never fatal


@fuzz(40)
@given(data=st.data())
def test_history_on_an_index_with_its_bytes_overwritten_ends_in_exit_0(tmp_path, data):
    results, path, pristine = _index(tmp_path)
    raw = bytearray(pristine.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        chunk = data.draw(st.binary(min_size=1, max_size=64))
        raw[at:at + len(chunk)] = chunk
    if data.draw(st.booleans()):
        raw = raw[:data.draw(st.integers(0, len(raw)))]  # cut short, as a full disk leaves it
    path.write_bytes(bytes(raw))
    assert _cli("--results-dir", results, "history") == 0


# --- verifications.json --------------------------------------------------------------------------

LINKS = json.loads((VERIFIED_RUN / "verifications.json").read_text())


@fuzz(100)
@given(data=st.data())
def test_verifications_are_taken_or_refused_by_name(tmp_path, data):
    run = tmp_path / "runs" / VERIFIED_RUN.name
    run.mkdir(parents=True, exist_ok=True)
    (run / "verifications.json").write_text(json.dumps(_mutated(data.draw, LINKS)))
    _takes_or_refuses(lambda: verify.read_verdicts(run), run / "verifications.json")


@fuzz(2)  # a report takes seconds (its plots): the reader above gets the examples
@given(data=st.data())
def test_report_on_fuzzed_verifications_ends_in_exit_0_or_2(tmp_path, data):
    run = _fresh(tmp_path, VERIFIED_RUN)
    _fresh(tmp_path, VERIFY_RUN)
    (run / "verifications.json").write_text(json.dumps(_mutated(data.draw, LINKS)))
    _cli("report", run, "--out", tmp_path / "out")


# --- an A/B run's records --------------------------------------------------------------------------

AB_ROUNDS = json.loads((AB_RUN / "rounds.json").read_text())


@fuzz(5)
@given(data=st.data())
def test_pr_comment_ab_on_a_fuzzed_rounds_json_ends_in_exit_0_or_2(tmp_path, data):
    run = _fresh(tmp_path, AB_RUN)
    (run / "rounds.json").write_text(json.dumps(_mutated(data.draw, AB_ROUNDS)))
    _cli("pr-comment", "--ab", run)


@fuzz(25)
@given(value=st.one_of(JSON, st.fixed_dictionaries({"base-ref": JSON, "base-commit": JSON})))
def test_the_merge_on_a_fuzzed_ab_record_ends_in_exit_0_or_2(tmp_path, value):
    run = tmp_path / "stage"
    shutil.rmtree(run, ignore_errors=True)
    for k in (1, 2, 3):
        d = run / "rounds" / str(k)
        d.mkdir(parents=True)
        (d / "host-localhost.json").write_text(json.dumps({"host": "localhost", "round": k, "seed": 5,
                                                           "order": ["metal", "metal-aa"], "hygiene": {},
                                                           "timings": {}}))
        for t in ("metal", "metal-aa"):
            shutil.copy(LAB_RUN / f"{t}.txt", d / f"{t}.txt")
    (run / "ab.json").write_text(json.dumps(value))
    if _cli("lab", "merge-rounds", run) == 0:
        _cli("noise", run)


# --- the variants files, a host's cpuinfo, scenarios and rules (YAML and text the CLI reads) --------

def _yaml_mutated(draw, path):
    return yaml.safe_dump(_mutated(draw, yaml.safe_load(path.read_text())), sort_keys=False)


@fuzz(40)
@given(data=st.data())
def test_lab_variants_guests_on_a_fuzzed_variants_file_ends_in_exit_0_or_2(tmp_path, data):
    path = tmp_path / "variants.yml"
    path.write_text(_yaml_mutated(data.draw, REPO / "vm-templates" / "variants.yml"))
    accel = data.draw(st.sampled_from([[], ["--accel", "qemu"], ["--accel", "kvm"]]))
    _cli("lab", "variants", "guests", path, "--json", *accel)
    _cli("lab", "domain-xml", "nosmt", "--variants", path, "--accel", "qemu", "--ssh-port", "2222",
         "--image-dir", tmp_path, "--overlay", "o.qcow2", "--console-log", "c.log")


@fuzz(40)
@given(data=st.data())
def test_lab_variants_containers_on_a_fuzzed_variants_file_ends_in_exit_0_or_2(tmp_path, data):
    path = tmp_path / "variants.yml"
    path.write_text(_yaml_mutated(data.draw, REPO / "docker" / "variants.yml"))
    _cli("lab", "variants", "containers", path, "--json", "--host-cpus", "2")


CPUINFO = "vendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 svm topoext\n"


@fuzz(40)
@given(text=st.text(max_size=300) | st.builds(lambda a, b: a + CPUINFO + b, st.text(max_size=40), st.text(max_size=40)))
def test_lab_variants_guests_on_a_fuzzed_host_cpuinfo_ends_in_exit_0_or_2(tmp_path, text):
    path = tmp_path / "cpuinfo"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    _cli("lab", "variants", "guests", "--accel", "kvm", "--host-cpu", path, "--json")


@fuzz(40)
@given(data=st.data())
def test_lab_repro_plan_on_a_fuzzed_scenarios_file_ends_in_exit_0_or_2(tmp_path, data):
    path = tmp_path / "scenarios.yml"
    path.write_text(_yaml_mutated(data.draw, REPO / "vmparity" / "repro" / "scenarios.yaml"))
    _cli("lab", "repro-plan", "--scenarios", path)
