"""The records the lab keeps (rounds.json and the staging records, verify plans, manifests, the
variants files, the history index), made hostile as an attacker would on copies of committed
runs: every command that reads one refuses it with exit 2 and a message naming the file, never
a traceback, a hang, a memory blow-up or a write outside the run (issue 59).

The `cli` fixture calls main() in-process, so a traceback fails the test as itself.
"""

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile_record_cases import add_round_mixing_utc_offsets, staging_run

RUNS = Path(__file__).resolve().parent.parent / "results" / "runs"
LAB_RUN = "2026-11-28T08-43-58Z-lab-quick"
VERIFY_RUN = "2026-11-27T20-55-29Z-verify-quick"
AB_RUN = "2026-11-26T12-41-12Z-ab-quick"


def refused(r, *words):
    assert r.code == 2, r
    assert r.err.startswith("vmparity") and "Traceback" not in r.err, r.err
    for w in words:
        assert w in r.err, (w, r.err)


def _copy(tmp_path, run):
    dst = tmp_path / "results" / "runs" / run
    shutil.copytree(RUNS / run, dst)
    return dst


def _files_under(root):
    return {p for p in root.rglob("*")}


@pytest.fixture
def staging(tmp_path):
    """A staging run of one host: three rounds of metal and its A/A pass, from a committed run's values."""
    return staging_run(tmp_path / "a" / "b" / "c" / "stage" / "run")


@pytest.mark.parametrize("host", ["../../../../outside/evil", "/tmp/vmparity-evil", "..", ".hidden", "a/b", "-x", ""])
@pytest.mark.parametrize("command", [("added-round",), ("confirm-round",)])
def test_a_host_name_that_is_a_path_is_refused_and_nothing_is_written(cli, tmp_path, staging, host, command):
    before = _files_under(tmp_path)
    refused(cli("lab", *command, f"--host={host}", staging), "--host", "cannot name a file")
    assert _files_under(tmp_path) == before
    assert not Path("/tmp/vmparity-evil").exists()


@pytest.mark.parametrize("command", [("added-round",), ("confirm-round",)])
def test_a_plain_host_name_still_plans(cli, staging, command):
    r = cli("lab", *command, "--host", "localhost", staging)
    assert r.code == 0, r
    assert "round" in json.loads(r.out)


def test_a_verify_plan_left_as_a_dangling_symlink_out_of_the_run_is_refused_not_written_through(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    outside = tmp_path / "outside" / "plan.json"
    outside.parent.mkdir()
    (run / "verify-plan.json").unlink(missing_ok=True)
    os.symlink(outside, run / "verify-plan.json")
    refused(cli("--results-dir", tmp_path / "results", "lab", "verify", run), "verify-plan.json",
            f"a symbolic link to {outside}, outside the run")
    assert not outside.exists()
    assert os.readlink(run / "verify-plan.json") == str(outside)  # left for its owner to look at


def test_a_verify_plan_linked_inside_the_run_is_read_as_the_plan(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    plain = cli("--results-dir", tmp_path / "results", "lab", "verify", run)
    assert plain.code == 0, plain
    (run / "kept").mkdir()
    (run / "verify-plan.json").rename(run / "kept" / "plan.json")
    os.symlink("kept/plan.json", run / "verify-plan.json")  # a link that stays in the run shows only its data
    linked = cli("--results-dir", tmp_path / "results", "lab", "verify", run)
    assert (linked.code, linked.out) == (0, plain.out)


@pytest.mark.parametrize("run_name", ["../../../outside", "/etc", 7])
def test_a_link_to_a_verify_run_that_is_a_path_is_refused(cli, tmp_path, run_name):
    run = _copy(tmp_path, LAB_RUN)
    (run / "verifications.json").write_text(json.dumps({"verified-by": [{"run": run_name, "verdicts": {}}]}))
    refused(cli("--results-dir", tmp_path / "results", "report", run, "--out", tmp_path / "out"),
            "verifications.json", "verified-by/0/run")


BILLION_LAUGHS = "".join(f"{x}: &{x} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
                         for p, x in zip([None, *"abcdefgh"], "abcdefghi"))


@pytest.mark.parametrize("text,words", [
    (BILLION_LAUGHS, ["aliases", "expand to more than"]),
    ("a: " + "[" * 10_000 + "]" * 10_000 + "\n", ["nested deeper than"]),
])
@pytest.mark.parametrize("kind", ["guests", "containers"])
def test_a_variants_file_that_would_blow_up_when_walked_is_refused(cli, tmp_path, text, words, kind):
    bomb = tmp_path / "bomb.yml"
    bomb.write_text(text)
    assert len(BILLION_LAUGHS) < 400  # the bomb: 372 bytes
    refused(cli("lab", "variants", kind, bomb), "bomb.yml", *words)


def test_a_variants_file_with_a_few_aliases_is_still_read(cli, tmp_path):
    src = (Path(__file__).resolve().parent.parent / "vm-templates" / "variants.yml").read_text()
    assert cli("lab", "variants", "guests", tmp_path / "missing.yml").code == 2
    path = tmp_path / "variants.yml"
    # an anchor and an alias, as yaml.safe_dump writes for a subtree shared twice
    src = src.replace("  nosmt:\n    topology: {sockets: 1, cores: 2, threads: 1}",
                      "  nosmt:\n    topology: &two-cores {sockets: 1, cores: 2, threads: 1}")
    src += "  nosmt-again:\n    topology: *two-cores\n"
    path.write_text(src)
    r = cli("lab", "variants", "guests", path, "--json")
    assert r.code == 0, r
    assert json.loads(r.out)["nosmt-again"]["topology"]["cores"] == 2


def _rounds_mutated(tmp_path, run, mutate):
    run_dir = _copy(tmp_path, run)
    path = run_dir / "rounds.json"
    rec = json.loads(path.read_text())
    mutate(rec)
    path.write_text(json.dumps(rec))
    return run_dir


def _add_remeasure(rec, **fields):  # a key of the runs before 2026-12-06, still read
    rec.setdefault("remeasured", []).append(dict({"target": "metal", "round": 1, "job": "memcpy", "host": "localhost",
                                                  "status": "measured again", "shift-pct": 46.7}, **fields))


WRONG_ROUNDS = {  # the shapes, and the field each message must name
    "hosts-a-list": (lambda r: r.update(hosts=[]), "field hosts: expected a mapping"),
    "a-string-among-rounds": (lambda r: r["hosts"]["localhost"].append("x"), "field hosts/localhost/"),
    "shift-pct-a-string": (lambda r: _add_remeasure(r, **{"shift-pct": "46.7"}), "shift-pct: expected a number"),
    "ab-a-string": (lambda r: r.update(ab="main"), "field ab: expected a mapping"),
    "order-a-string": (lambda r: r["hosts"]["localhost"][0].update(order="metal"), "order: expected a list"),
    "a-target-that-is-a-path": (lambda r: r["hosts"]["localhost"][0]["order"].append("../../x"), "order/"),
    "missing-rounds-not-numbers": (lambda r: r.update({"missing-rounds": {"metal": ["1"]}}), "missing-rounds/metal/0"),
    "a-round-without-order": (lambda r: r["hosts"]["localhost"][0].pop("order"), "hosts/localhost/0"),
    "the-record-a-list": (lambda r: (r.clear(), r.update(schema="vmparity-rounds/1", hosts={"h": [[]]})), "hosts/h/0"),
}


@pytest.mark.parametrize("case", WRONG_ROUNDS)
@pytest.mark.parametrize("command", [("noise",), ("compare", "--by", "target"), ("report", "--out", "OUT")])
def test_rounds_json_of_the_wrong_shape_names_the_field(cli, tmp_path, case, command):
    mutate, words = WRONG_ROUNDS[case]
    run = _rounds_mutated(tmp_path, LAB_RUN, mutate)
    argv = [tmp_path / "out" if a == "OUT" else a for a in command]
    refused(cli(argv[0], run, *argv[1:]), "rounds.json", words)


@pytest.mark.parametrize("case", ["ab-a-string", "shift-pct-a-string", "hosts-a-list"])
def test_rounds_json_of_the_wrong_shape_in_an_ab_run_is_refused_by_pr_comment(cli, tmp_path, case):
    mutate, words = WRONG_ROUNDS[case]
    refused(cli("pr-comment", "--ab", _rounds_mutated(tmp_path, AB_RUN, mutate)), "rounds.json", words)


def test_every_committed_rounds_json_has_the_shape(tmp_path):
    from vmparity.results import round_record
    runs = [p.parent for p in RUNS.glob("*/rounds.json")]
    assert len(runs) >= 10  # every run results/README.md lists has one
    for run in runs:
        assert round_record.load(run)["hosts"]


def _fifo(path):
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _dev_zero(path):
    path.unlink(missing_ok=True)
    os.symlink("/dev/zero", path)


def _sparse(path):
    path.unlink(missing_ok=True)
    with open(path, "wb") as f:
        f.truncate(200 * 1024 * 1024)  # 200 MB of nothing, on no disk


def _nested(opening, closing):
    return lambda path: path.write_text(opening * 10_000 + "1" + closing * 10_000)


NOT_A_RECORD = {  # what takes a record's place, and what the message says
    "fifo": (_fifo, "expected a regular file"),
    "dev-zero": (_dev_zero, "a symbolic link to /dev/zero, outside the run"),  # a record is read only from inside its run
    "sparse-200-MB": (_sparse, "bytes: expected a JSON record of at most"),
    "10000-brackets": (_nested("[", "]"), "nested deeper than"),
    "10000-objects": (_nested('{"a":', "}"), "nested deeper than"),
}


@pytest.mark.parametrize("case", NOT_A_RECORD)
@pytest.mark.parametrize("record,run,command", [
    ("rounds.json", LAB_RUN, ("noise", "RUN")),
    ("rounds.json", AB_RUN, ("pr-comment", "--ab", "RUN")),
    ("verify-plan.json", LAB_RUN, ("lab", "verify", "RUN")),
    ("verdicts.json", VERIFY_RUN, ("report", "RUN", "--out", "OUT")),
])
def test_a_record_that_is_no_json_record_is_refused_before_it_is_read(cli, tmp_path, case, record, run, command):
    make, words = NOT_A_RECORD[case]
    run_dir = _copy(tmp_path, run)
    make(run_dir / record)
    refused(cli(*[{"RUN": run_dir, "OUT": tmp_path / "out"}.get(a, a) for a in command]), record, words)


@pytest.mark.parametrize("case", NOT_A_RECORD)
def test_a_staging_round_record_that_is_no_json_record_is_refused(cli, staging, case):
    make, words = NOT_A_RECORD[case]
    make(staging / "rounds" / "2" / "host-localhost.json")
    refused(cli("lab", "added-round", "--host", "localhost", staging), "host-localhost.json", words)


@pytest.mark.parametrize("text,words", [("[]", "expected a mapping, got []"),
                                        ('{"host": "localhost", "round": 2}', "missing field 'order'"),
                                        ('{"host": "localhost", "round": "2", "order": []}', "field round")])
@pytest.mark.parametrize("command", [("added-round",), ("merge-rounds",)])
def test_a_staging_round_record_of_the_wrong_shape_is_named(cli, staging, text, words, command):
    (staging / "rounds" / "2" / "host-localhost.json").write_text(text)
    host = () if command == ("merge-rounds",) else ("--host", "localhost")
    refused(cli("lab", *command, *host, staging), "rounds/2/host-localhost.json", words)


def test_a_record_of_many_tiny_values_is_refused_before_it_is_parsed(cli, tmp_path):
    run_dir = _copy(tmp_path, LAB_RUN)
    (run_dir / "rounds.json").write_text("[" + ",".join(["{}"] * 1_000_000) + "]")  # 3 MB, 885 MB once parsed
    refused(cli("noise", run_dir), "rounds.json", "values, expected at most")


def test_a_result_file_of_one_200_mb_line_is_refused_at_its_first_64_kib(tmp_path):
    import resource
    from vmparity.errors import InputError
    from vmparity.results.file import parse_file
    path = tmp_path / "metal.txt"
    with open(path, "wb") as f:  # written in chunks: the test itself must not hold 200 MB
        f.write(b"Benchmark")
        for _ in range(200):
            f.write(b"x" * (1024 * 1024))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputError, match="line longer than"):
        parse_file(path)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50 * 1024  # KiB: it held no 200 MB


NOT_A_MANIFEST = {
    "fifo": (_fifo, "expected a regular file"),
    "dev-zero": (_dev_zero, "a symbolic link to /dev/zero, outside the run"),
    "sparse-200-MB": (_sparse, "bytes: expected a manifest"),
    "another-line": (lambda p: p.write_text("not a digest  benchrun\n"), "expected a `sha256sum` line"),
}


@pytest.mark.parametrize("case", NOT_A_MANIFEST)
@pytest.mark.parametrize("name", ["MANIFEST~base.sha256", "MANIFEST.sha256"])
@pytest.mark.parametrize("command", [("pr-comment", "--ab"), ("power",)])
def test_a_manifest_that_is_none_is_refused_not_hung_on_or_passed_over(cli, tmp_path, case, name, command):
    make, words = NOT_A_MANIFEST[case]
    run_dir = _copy(tmp_path, AB_RUN)
    make(run_dir / name)
    refused(cli(*command, run_dir), name, words)


@pytest.mark.parametrize("case", ["hosts-a-list", "a-string-among-rounds", "shift-pct-a-string", "order-a-string"])
def test_a_malformed_earlier_run_of_the_machine_is_left_out_of_the_host_history_not_fatal(cli, tmp_path, case):
    run = _copy(tmp_path, LAB_RUN)
    earlier = run.with_name(LAB_RUN.replace("T08-43-58Z", "T07-00-00Z"))  # same machine and kind, sorts before it
    shutil.copytree(run, earlier)
    path = earlier / "rounds.json"
    rec = json.loads(path.read_text())
    WRONG_ROUNDS[case][0](rec)
    path.write_text(json.dumps(rec))
    r = cli("noise", run)
    assert r.code == 0, r
    clean = cli("noise", _copy(tmp_path / "alone", LAB_RUN))
    assert r.out == clean.out  # the malformed run is no evidence: as if it were not there


def test_an_added_round_mixing_utc_offsets_and_local_times_is_named(cli, staging):
    add_round_mixing_utc_offsets(staging)
    refused(cli("lab", "added-round", "--host", "localhost", staging), "rounds/4/host-localhost.json",
            "timings/metal/", "no UTC offset")


@pytest.mark.parametrize("name,text,words", [
    ("rounds/failed-localhost.json", "[]", "expected a mapping"),
    ("rounds/failed-localhost.json", '{"host": "localhost", "failed": {"metal": "oops"}}', "field failed/metal"),
    ("rounds/isolation-localhost.json", '"x"', "expected a mapping"),
    ("rounds/added-stop-localhost.json", "[1]", "expected a mapping"),
    ("ab.json", '"main"', "expected a mapping"),
    ("ab.json", '{"base-ref": ["main"]}', "field base-ref"),
])
def test_a_staging_record_of_the_wrong_shape_stops_the_merge_with_its_name(cli, staging, name, text, words):
    (staging / name).write_text(text)
    refused(cli("lab", "merge-rounds", staging), name.split("/")[-1], words)
    assert not (staging / "rounds.json").exists()


def _json_mutated(tmp_path, run, name, mutate):
    run_dir = _copy(tmp_path, run)
    rec = json.loads((run_dir / name).read_text())
    mutate(rec)
    (run_dir / name).write_text(json.dumps(rec))
    return run_dir


@pytest.mark.parametrize("mutate,words", [
    (lambda p: p.update(explanations="x"), "field explanations: expected a list"),
    (lambda p: p.update(interventions=[1]), "field interventions/0: expected a mapping"),
    (lambda p: p["interventions"][0].update(target="../../x"), "field interventions/0/target"),
    (lambda p: p.update(jobs=[]), "field jobs: expected a mapping"),
    (lambda p: p["explanations"][0].update(rows=[["only a name"]]), "explanations/0/rows/0"),
])
def test_a_verify_plan_of_the_wrong_shape_names_the_field(cli, tmp_path, mutate, words):
    run = _json_mutated(tmp_path, VERIFY_RUN, "verify-plan.json", mutate)
    refused(cli("lab", "verify", run), "verify-plan.json", words)


@pytest.mark.parametrize("mutate,words", [
    (lambda v: v.update(verdicts="x"), "field verdicts: expected a list"),
    (lambda v: v.update(verdicts=[1]), "field verdicts/0: expected a mapping"),
    (lambda v: v["verdicts"][0].update(share="0.5"), "field verdicts/0/share"),
    (lambda v: v.update(bisection={}), "field bisection: expected a list"),
    (lambda v: v.update(format="another"), "field format"),
])
def test_verdicts_of_the_wrong_shape_name_the_field(cli, tmp_path, mutate, words):
    run = _json_mutated(tmp_path, VERIFY_RUN, "verdicts.json", mutate)
    refused(cli("report", run, "--out", tmp_path / "out"), "verdicts.json", words)


def test_every_committed_verify_plan_and_verdicts_have_the_shape():
    from vmparity.lab import interventions, verify
    plans = [p.parent for p in RUNS.glob("*/verify-plan.json")]
    assert len(plans) >= 4  # the verified lab runs and their verify runs (results/README.md)
    assert all(interventions.read_plan(run)["interventions"] is not None for run in plans)
    found = [verify.read_verdicts(run)[0] for run in RUNS.iterdir()]
    assert sum(v is not None for v in found) >= 2


def test_an_effect_that_would_make_a_value_infinite_is_blamed_on_the_option(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    refused(cli("power", run, "--effects", "1e308,-99.9999999", "--rows", "2", "--trials", "1"),
            "--effects", "beyond a finite number")


def test_power_copies_a_run_without_its_fifos(cli, tmp_path):
    run = _copy(tmp_path, LAB_RUN)
    os.mkfifo(run / "notes")
    r = cli("power", run, "--effects", "20", "--rows", "2", "--trials", "1")
    assert r.code == 0, r
    os.symlink("/dev/zero", run / "zero")  # a copy would take in what it points to
    refused(cli("power", run, "--effects", "20", "--rows", "2", "--trials", "1"), "zero", "outside the run")


def _renamed_base(tmp_path, prefix):
    """The A/B run with container-quota's BASE side holding other benchmarks: `prefix` renames every
    result line that starts with it (BenchmarkMemcpy: some of them; Benchmark: all)."""
    run = _copy(tmp_path, AB_RUN)
    f = run / "container-quota~base.txt"
    f.write_text("\n".join("BenchmarkOld" + line[len("Benchmark"):] if line.startswith(prefix) else line
                           for line in f.read_text().split("\n")))
    return run


def test_sides_that_hold_different_benchmarks_are_named_not_counted_as_the_codes_changes(cli, tmp_path):
    clean = cli("pr-comment", "--ab", _copy(tmp_path / "clean", AB_RUN))
    r = cli("pr-comment", "--ab", _renamed_base(tmp_path, "BenchmarkMemcpy"))
    assert r.code == 0, r
    assert "different benchmarks" not in clean.out
    assert "**The two sides hold different benchmarks**" in r.out and "`container-quota`: 312 row(s) only on BASE" in r.out
    row = next(line for line in r.out.split("\n") if line.startswith("| `container-quota`"))
    assert row.split("|")[7].strip() == "0", row  # by the code (unexplained): none of the one-sided rows


def test_the_gate_fails_a_target_whose_sides_share_no_benchmark(cli, tmp_path):
    run = _renamed_base(tmp_path, "Benchmark")
    r = cli("pr-comment", "--ab", run, "--fail-on-regression", "5")
    assert r.code == 1, r
    assert "container-quota share no benchmark" in r.err
    assert cli("pr-comment", "--ab", _copy(tmp_path / "clean", AB_RUN), "--fail-on-regression", "50").code == 0


def test_a_manifest_that_is_not_its_sides_build_is_named_and_no_row_is_taken_for_the_same_binary(cli, tmp_path):
    run = _copy(tmp_path, AB_RUN)
    clean = cli("pr-comment", "--ab", run)
    assert "**Same binaries:**" in clean.out and "disagree" not in clean.out
    manifest = run / "MANIFEST~base.sha256"
    text = manifest.read_text()
    manifest.write_text(("0" if text[0] != "0" else "1") + text[1:])  # one digest changed: another build
    r = cli("pr-comment", "--ab", run)
    assert r.code == 0, r
    assert "**Manifests disagree with the results:** `MANIFEST~base.sha256`" in r.out
    assert "**Same binaries:**" not in r.out and "same binary: noise" not in r.out


@pytest.mark.parametrize("make,words", [
    (_fifo, "expected a regular file"),
    (_dev_zero, "expected a regular file"),
    (lambda p: p.write_text(BILLION_LAUGHS), "expand to more than"),
    (lambda p: p.write_text("- " + "[" * 10_000 + "]" * 10_000 + "\n"), "nested deeper than"),
])
def test_a_rules_file_that_would_hang_or_blow_up_is_refused(cli, tmp_path, make, words):
    run = _copy(tmp_path, LAB_RUN)
    rules = tmp_path / "rules.yaml"
    make(rules)
    refused(cli("explain", run / "metal.txt", run / "guest-nosmt.txt", "--rules", rules), "rules.yaml", words)


@pytest.mark.parametrize("case", ["fifo", "dev-zero"])
def test_a_round_file_that_is_no_file_stops_the_merge_with_its_name(cli, staging, case):
    make, words = NOT_A_RECORD[case]
    make(staging / "rounds" / "2" / "metal.txt")
    refused(cli("lab", "merge-rounds", staging), "rounds/2/metal.txt", words)
