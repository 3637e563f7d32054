"""The result-file parser: what it reads, and the clear error for each kind of bad input."""

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmparity.errors import InputError
from vmparity.query.names import param_number, split_name
from vmparity.results.check import check
from vmparity.results.file import parse_file, parse_text

HEADER = "vmparity-format: 1\ntarget: metal\ntarget-kind: metal\n"


def test_reads_header_units_and_values(testdata):
    rf = parse_file(testdata / "run-a" / "guest-nosmt.txt")
    assert rf.target == "guest-nosmt"
    assert rf.config["nt-threshold"] == "0xc0000"
    assert rf.config["glibc-tunables"] == ""  # an empty value is a value
    b = rf.benchmarks["BenchmarkMemcpy/link=static/tunable=default/size=1024"]
    assert b.units == ("ns/op", "B/s")
    assert len(b.values[0]) == 8 and len(b.values[1]) == 8
    assert rf.higher_is_better("B/s") and not rf.higher_is_better("ns/op")


def test_unit_line_declares_a_custom_unit_and_its_direction():
    rf = parse_text(HEADER + "Unit hits/op better=higher\nBenchmarkX 10 3 hits/op\n", "f.txt")
    assert rf.higher_is_better("hits/op")
    assert list(rf.benchmarks["BenchmarkX"].values[0]) == [3.0]


def test_comment_and_blank_lines_are_skipped():
    rf = parse_text(HEADER + "# physical floor 244 ns\n\nBenchmarkX 10 3 ns/op\n", "f.txt")
    assert list(rf.benchmarks) == ["BenchmarkX"]


def test_names_split_into_parameters_and_procs():
    assert split_name("BenchmarkSnowflake/impl=twitter/procs=4-4") == ("BenchmarkSnowflake", {"impl": "twitter", "procs": "4"}, 4)
    assert split_name("BenchmarkMemcpy/size=1024")[1] == {"size": "1024"}
    assert param_number("0x3000000") == 0x3000000
    assert param_number("unknown (no sysfs)") is None


BAD = [
    ("empty", "", "empty file", None),
    ("header only", HEADER, "no `Benchmark…` result lines", None),
    ("no iterations", HEADER + "BenchmarkX/size=1024 \n", "missing iteration count", 4),
    ("truncated after iterations", HEADER + "BenchmarkX 100\n", "missing measurements", 4),
    ("value without unit", HEADER + "BenchmarkX 100 21.3 ns/op 48.1\n", "missing units", 4),
    ("bad iterations", HEADER + "BenchmarkX many 21.3 ns/op\n", "iteration count 'many'", 4),
    ("non-ASCII iterations", HEADER + "BenchmarkX \u00b2 21.3 ns/op\n", "ASCII digits", 4),
    ("arabic-indic iterations", HEADER + "BenchmarkX \u0661\u0660 21.3 ns/op\n", "ASCII digits", 4),
    ("iterations beyond 64 bits", HEADER + "BenchmarkX " + "1" + "0" * 40 + " 21.3 ns/op\n", "64-bit", 4),
    ("nan", HEADER + "BenchmarkX 100 21.3 ns/op\nBenchmarkX 100 NaN ns/op\n", "value 'NaN'", 5),
    ("infinite", HEADER + "BenchmarkX 100 inf ns/op\n", "finite", 4),
    ("out of range", HEADER + "BenchmarkX 100 1e400 ns/op\n", "finite", 4),
    ("underscore", HEADER + "BenchmarkX 100 1_0 ns/op\n", "expected a number", 4),
    ("not a number", HEADER + "BenchmarkX 100 fast ns/op\n", "expected a number", 4),
    ("bad unit line", HEADER + "Unit B/s better=sideways\nBenchmarkX 100 1 B/s\n", "better=higher|lower", 4),
    ("unit line without unit", HEADER + "Unit\nBenchmarkX 100 1 B/s\n", "missing unit", 4),
    ("form feed keeps line numbers", HEADER + "note: a\fb\nBenchmarkX 100 x ns/op\n", "expected a number", 5),
    ("vertical tab keeps line numbers", "a: \v\x1c\x85\u2028\nBenchmarkX 100 x ns/op\n", "expected a number", 2),
]


@pytest.mark.parametrize("content,expected,line", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_names_file_line_and_expectation(content, expected, line):
    with pytest.raises(InputError) as e:
        parse_text(content, "bad.txt")
    assert expected in str(e.value)
    assert e.value.path == "bad.txt"
    assert e.value.line == line
    assert str(e.value).startswith(f"bad.txt:{line}:" if line else "bad.txt:")


GO_TEST_OUTPUT = """goos: linux
goarch: amd64
pkg: strconv
cpu: AMD EPYC 7B13
BenchmarkAtof64Decimal-2
BenchmarkAtof64Decimal-2   \t 1000000\t        21.50 ns/op\t   0 B/op\t   0 allocs/op
BenchmarkAtof64Decimal-2   \t 1000000\t        22.00 ns/op\t   0 B/op\t   0 allocs/op
PASS
ok  \tstrconv\t1.234s
"""


def test_go_test_output_is_read_as_benchstat_reads_it():
    rf = parse_text(GO_TEST_OUTPUT, "go.txt")
    assert rf.config == {"goos": "linux", "goarch": "amd64", "pkg": "strconv", "cpu": "AMD EPYC 7B13"}
    (b,) = rf.benchmarks.values()
    assert b.name == "BenchmarkAtof64Decimal-2" and b.units == ("ns/op", "B/op", "allocs/op")
    assert list(b.values[0]) == [21.5, 22.0]
    assert [t for _, t in rf.skipped] == ["BenchmarkAtof64Decimal-2", "PASS", "ok  \tstrconv\t1.234s"]


def test_configuration_changing_part_way_starts_a_new_section():
    rf = parse_text("note: before\nBenchmarkX 1 1 ns/op\nnote: after\nBenchmarkX 1 2 ns/op\n"
                    "note: before\nBenchmarkX 1 3 ns/op\n", "n.txt")
    assert [s.config for s in rf.sections] == [{"note": "before"}, {"note": "after"}]
    assert [list(s.benchmarks["BenchmarkX"].values[0]) for s in rf.sections] == [[1, 3], [2]]
    assert rf.config_change_line == 3


def test_any_unit_is_read_and_unit_lines_give_direction_and_assumption():
    rf = parse_text("Unit text-bytes assume=exact better=lower\nBenchmarkX 1 3 GB/s 5 text-bytes\n", "u.txt")
    assert rf.higher_is_better("GB/s") is None  # nobody said
    assert rf.higher_is_better("text-bytes") is False and rf.assume == {"text-bytes": "exact"}


def test_crlf_lines_and_signed_and_hex_values_as_go_reads_them():
    rf = parse_text("BenchmarkX 1 -2.5 delta/op 0x1p3 x/op\r\nBenchmarkX +3 1e3 delta/op 8 x/op\r\n", "c.txt")
    b = rf.benchmarks["BenchmarkX"]
    assert list(b.values[0]) == [-2.5, 1000.0] and list(b.values[1]) == [8.0, 8.0]


def test_lab_check_is_strict(testdata):
    check(parse_file(testdata / "run-a" / "metal.txt"))  # complete: no error
    for text, expected, line in [
        (HEADER + "BenchmarkX 100 1 ns/op\n", "missing required key(s)", 4),
        (GO_TEST_OUTPUT, "truncated result line", 5),
        (HEADER + "Hello World\nBenchmarkX 100 1 ns/op\n", "cannot read 'Hello World'", 4),
        (HEADER + "BenchmarkX 100 1 ns/op\ntarget: other\nBenchmarkX 100 1 ns/op\n", "changes after the first result line", 5),
        (HEADER + "BenchmarkX 100 1 furlongs/op\n", "unknown unit 'furlongs/op'", 4),
        (HEADER + "BenchmarkX 0 1 ns/op\n", "positive integer", 4),
        (HEADER + "BenchmarkX 10 -1 ns/op\n", "non-negative", 4),
        (HEADER + "BenchmarkX 10 1 ns/op\nBenchmarkX 10 1 ns/op 3 B/s\n", "mixed units", 4),
    ]:
        with pytest.raises(InputError) as e:
            check(parse_text(text, "lab.txt"))
        assert expected in str(e.value) and e.value.line == line, (text, str(e.value))


def test_fingerprint_missing_keys_are_named(testdata):
    rf = parse_text(HEADER + "BenchmarkX 100 1 ns/op\n", "f.txt")
    with pytest.raises(InputError, match="missing required key.*nt-threshold"):
        rf.require_fingerprint()


def test_only_regular_files_within_the_size_limit(tmp_path, monkeypatch):
    fifo = tmp_path / "fifo.txt"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        parse_file(fifo)  # returns at once: a FIFO is never opened for a writer to fill
    (tmp_path / "zero.txt").symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not a regular file"):
        parse_file(tmp_path / "zero.txt")
    (tmp_path / "loop.txt").symlink_to(tmp_path / "loop.txt")
    with pytest.raises(InputError, match="cannot open"):
        parse_file(tmp_path / "loop.txt")
    big = tmp_path / "big.txt"
    big.write_text("BenchmarkX 1 1 ns/op\n" * 100)
    monkeypatch.setenv("VMPARITY_MAX_FILE_BYTES", "1000")
    with pytest.raises(InputError, match="over the limit of 1000 bytes"):
        parse_file(big)
    monkeypatch.setenv("VMPARITY_MAX_FILE_BYTES", "lots")
    with pytest.raises(InputError, match="VMPARITY_MAX_FILE_BYTES"):
        parse_file(big)
    monkeypatch.delenv("VMPARITY_MAX_FILE_BYTES")
    long = tmp_path / "long.txt"
    long.write_text("BenchmarkX 1 1 ns/op\n# " + "x" * 70_000 + "\n")
    with pytest.raises(InputError) as e:
        parse_file(long)
    assert e.value.line == 2 and "longer than" in str(e.value)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="no such result file"):
        parse_file(tmp_path / "nope.txt")
    with pytest.raises(InputError, match="is a directory"):
        parse_file(tmp_path)


# Fuzzing: whatever the text, the parser returns a ResultFile or raises
# InputError — never another exception.
LINE = st.one_of(
    st.text(max_size=40),
    st.builds(lambda k, v: f"{k}: {v}", st.from_regex(r"[a-z][a-z0-9-]{0,8}", fullmatch=True), st.text(max_size=10)),
    st.builds(
        lambda n, it, pairs: " ".join([f"Benchmark{n}", it] + [f"{v} {u}" for v, u in pairs]),
        st.text(alphabet="abcXYZ/=-0123", max_size=12),
        st.one_of(st.integers(-5, 10**9).map(str), st.text(max_size=4)),
        st.lists(st.tuples(
            st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=5)),
            st.sampled_from(["ns/op", "B/s", "x/op", "", "cycles/op"])), max_size=4),
    ),
    st.builds(lambda u, kv: f"Unit {u} {kv}", st.sampled_from(["x/op", "B/s", ""]), st.text(max_size=15)),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(LINE, max_size=12))
def test_fuzz_parser_never_crashes(lines):
    try:
        rf = parse_text("\n".join(lines), "fuzz.txt")
    except InputError as e:
        assert str(e).startswith("fuzz.txt")
        return
    for b in rf.benchmarks.values():
        assert len(b.values) == len(b.units)
        assert all(np.isfinite(v).all() for v in b.values)
    try:
        check(rf)
    except InputError as e:
        assert str(e).startswith("fuzz.txt")


def test_interleaved_benchmarks_keep_their_values_in_line_order():
    rf = parse_text("BenchmarkA 1 1 x/op\nBenchmarkB 1 10 y/op 11 x/op\nBenchmarkA 1 2 x/op 3 y/op\n"
                    "BenchmarkB 1 12 y/op\nBenchmarkA 1 4 x/op 5 x/op\n", "i.txt")
    a, b = rf.benchmarks["BenchmarkA"], rf.benchmarks["BenchmarkB"]
    assert a.units == ("x/op", "y/op") and [list(v) for v in a.values] == [[1, 2, 4, 5], [3]]
    assert b.units == ("y/op", "x/op") and [list(v) for v in b.values] == [[10, 12], [11]]
    assert (a.line, b.line) == (1, 2) and list(rf.benchmarks) == ["BenchmarkA", "BenchmarkB"]
