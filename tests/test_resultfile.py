"""The result-file parser: what it reads, and the clear error for each kind of bad input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vmparity.errors import InputError
from vmparity.names import param_number, split_name
from vmparity.resultfile import _parse_fast, _parse_strict, parse_file, parse_text

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
    ("header only", HEADER, "only a header", None),
    ("truncated", HEADER + "BenchmarkX/size=1024\n", "truncated result line", 4),
    ("truncated after iterations", HEADER + "BenchmarkX 100 21.3\n", "truncated result line", 4),
    ("odd fields", HEADER + "BenchmarkX 100 21.3 ns/op 48.1\n", "odd number of fields", 4),
    ("bad iterations", HEADER + "BenchmarkX many 21.3 ns/op\n", "iterations 'many'", 4),
    ("zero iterations", HEADER + "BenchmarkX 0 21.3 ns/op\n", "positive integer", 4),
    ("unknown unit", HEADER + "BenchmarkX 100 21.3 furlongs/op\n", "unknown unit 'furlongs/op'", 4),
    ("mixed units", HEADER + "BenchmarkX 100 21.3 ns/op\nBenchmarkX 100 0.02 sec/op\n", "mixed units for BenchmarkX", 5),
    ("nan", HEADER + "BenchmarkX 100 21.3 ns/op\nBenchmarkX 100 NaN ns/op\n", "value NaN", 5),
    ("negative", HEADER + "BenchmarkX 100 -4 ns/op\n", "finite, non-negative", 4),
    ("infinite", HEADER + "BenchmarkX 100 inf ns/op\n", "finite, non-negative", 4),
    ("not a number", HEADER + "BenchmarkX 100 fast ns/op\n", "expected a number", 4),
    ("garbage line", HEADER + "Hello World\nBenchmarkX 100 1 ns/op\n", "cannot read 'Hello World'", 4),
    ("bad unit line", HEADER + "Unit B/s better=sideways\nBenchmarkX 100 1 B/s\n", "better=higher|lower", 4),
    ("config changes mid-file", HEADER + "BenchmarkX 100 1 ns/op\ntarget: other\n", "changes after the first result line", 5),
]


@pytest.mark.parametrize("content,expected,line", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_bad_input_names_file_line_and_expectation(content, expected, line):
    with pytest.raises(InputError) as e:
        parse_text(content, "bad.txt")
    assert expected in str(e.value)
    assert e.value.path == "bad.txt"
    assert e.value.line == line
    assert str(e.value).startswith(f"bad.txt:{line}:" if line else "bad.txt:")


def test_fingerprint_missing_keys_are_named(testdata):
    rf = parse_text(HEADER + "BenchmarkX 100 1 ns/op\n", "f.txt")
    with pytest.raises(InputError, match="missing required key.*nt-threshold"):
        rf.require_fingerprint()
    parse_file(testdata / "run-a" / "metal.txt").require_fingerprint()  # complete: no error


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
        assert all((v >= 0).all() for v in b.values)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12))
def test_fuzz_bulk_pass_agrees_with_line_by_line_pass(lines):
    """The bulk pass may only accept what the strict pass accepts, with the same values."""
    text = "\n".join(lines)
    fast = _parse_fast(text.splitlines(), "f.txt")
    if fast is None:
        return
    strict = _parse_strict(text.splitlines(), text, "f.txt")
    assert fast.config == strict.config and list(fast.benchmarks) == list(strict.benchmarks)
    for name, b in fast.benchmarks.items():
        assert b.units == strict.benchmarks[name].units
        assert [list(v) for v in b.values] == [list(v) for v in strict.benchmarks[name].values]
