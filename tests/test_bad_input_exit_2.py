"""Bad input is an error naming the file or option and what was expected, exit 2, never a traceback.

The `cli` fixture calls main() in-process, so an uncaught exception fails the
test with its traceback instead of passing as some other exit status.
"""

import os

import pytest

import resultgen
from vmparity.query.names import param_number, split_name


@pytest.fixture
def pair(tmp_path):
    a = resultgen.target_file(tmp_path, resultgen.METAL, count=5)
    b = resultgen.target_file(tmp_path, resultgen.NOSMT_GUEST, count=5)
    return a, b


def refused(r, *words):
    assert r.code == 2, r
    assert r.err.startswith("vmparity") and "Traceback" not in r.err, r.err
    for w in words:
        assert w in r.err, (w, r.err)


def test_symlink_loop_as_operand(cli, tmp_path):
    loop = tmp_path / "loop.txt"
    os.symlink(loop, loop)
    refused(cli("compare", loop), "loop.txt")


def test_symlink_loop_inside_a_run_directory(cli, tmp_path, pair):
    run = tmp_path / "run"
    run.mkdir()
    os.symlink(pair[0], run / "metal.txt")
    os.symlink(run / "loop.txt", run / "loop.txt")
    refused(cli("report", run, "--out", tmp_path / "out"), "loop.txt")


def test_run_id_of_245_characters(cli, tmp_path, pair):
    long_id = "r" * 245
    refused(cli("compare", long_id), "r" * 40)
    refused(cli("--results-dir", tmp_path / "results", "ingest", pair[0], "--run-id", long_id),
            "--run-id", "at most")
    assert not (tmp_path / "results" / "runs").exists() or not any((tmp_path / "results" / "runs").iterdir())


def test_manifest_that_is_not_utf8(cli, tmp_path, pair):
    manifest = tmp_path / "MANIFEST.sha256"
    manifest.write_bytes(b"\xff\xfe" + b"a" * 64 + b"  clock\n")
    refused(cli("--results-dir", tmp_path / "results", "ingest", pair[0], "--run-id", "r1", "--manifest", manifest),
            "MANIFEST.sha256", "UTF-8")
    assert not (tmp_path / "results" / "runs" / "r1").exists()


def test_results_dir_that_is_a_file(cli, tmp_path, pair):
    not_a_dir = tmp_path / "results"
    not_a_dir.write_text("x")
    for argv in (("ingest", pair[0], "--run-id", "r1"), ("compare", "r1")):
        refused(cli("--results-dir", not_a_dir, *argv), "--results-dir", "not a directory")
    assert not_a_dir.read_text() == "x"


@pytest.mark.parametrize("rules,words", [
    ("- id: x\n  title: t\n  when: [{benchmark: '(unclosed'}]\n  cause: c\n  fix: f\n", ["invalid regular expression", "(unclosed"]),
    ("- id: x\n  title: t\n  when: [{unit: '*'}]\n  cause: c\n  fix: f\n", ["invalid regular expression"]),
    ("- id: x\n  title: [unclosed\n", ["not valid YAML", "rules.yaml:3:"]),
    ("- id: x\n  title: t\n  when: [{differs: nt-threshold}]\n  cause: c\n  fix: f\n", ["differs", "list of header keys"]),
    ("- id: x\n  title: t\n  when: [{param-between: {param: size}}]\n  cause: c\n  fix: f\n", ["param-between"]),
    ("- id: x\n  title: t\n  when: [{benchmark: '.'}]\n  cause: 3\n  fix: f\n", ["cause", "text"]),
    ("- id: x\n  title: t\n  when: [{benchmark: '.'}]\n  cause: c\n  fix: f\n  evidence: null\n", ["evidence", "list"]),
    ("- id: x\n  title: t\n  when: [{benchmark: '.'}]\n  cause: '{{ 1 / 0 }}'\n  fix: f\n", ["rule x", "ZeroDivisionError"]),
    ("- id: x\n  title: t\n  when: [{benchmark: '.'}]\n  cause: \"{{ ''.__class__.__mro__ }}\"\n  fix: f\n", ["rule x"]),
])
def test_explain_rules_that_are_wrong(cli, tmp_path, pair, rules, words):
    path = tmp_path / "rules.yaml"
    path.write_text(rules)
    refused(cli("explain", *pair, "--rules", path), "rules.yaml", *words)


def test_explain_rules_that_are_not_utf8(cli, tmp_path, pair):
    path = tmp_path / "rules.yaml"
    path.write_bytes(b"- id: \xff\n")
    refused(cli("explain", *pair, "--rules", path), "rules.yaml", "UTF-8")


@pytest.mark.parametrize("suffix", ["²", "١٠", "9" * 5000, "9" * 19])
def test_a_procs_suffix_that_is_not_an_ascii_64_bit_count_stays_in_the_name(suffix):
    name = f"BenchmarkX/impl=a-{suffix}"
    assert split_name(name) == ("BenchmarkX", {"impl": f"a-{suffix}"}, None)
    assert split_name("BenchmarkX/impl=a-12") == ("BenchmarkX", {"impl": "a"}, 12)


def test_odd_procs_suffixes_compare_and_report(cli, tmp_path):
    text = resultgen.render(resultgen.METAL, resultgen.suite(resultgen.METAL, __import__("random").Random(1), 5))
    for suffix in ("²", "9" * 5000):
        text += "".join(f"BenchmarkX/procs=1-{suffix} 100 {10 + i} ns/op\n" for i in range(5))
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "metal.txt").write_text(text)
    guest = text.replace("target: metal", "target: guest-x").replace("target-kind: metal", "target-kind: kvm-guest")
    (tmp_path / "run" / "guest-x.txt").write_text(guest)
    assert cli("compare", tmp_path / "run", "--by", "target").code == 0
    assert cli("report", tmp_path / "run", "--out", tmp_path / "out").code == 0


@pytest.mark.parametrize("text,number", [("1024", 1024), ("0x3000000", 0x3000000), ("4.5", 4.5), ("٣٠٠", None),
                                         ("nan", None), ("inf", None), ("1e400", None), ("9" * 5000, None),
                                         ("0x" + "f" * 40, None), ("", None)])
def test_param_number_is_ascii_and_finite(text, number):
    assert param_number(text) == number
