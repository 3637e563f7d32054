"""An A/B run's rows whose program BASE and HEAD ran byte-identical (lab/ab_compare.py,
results/manifest.py): beyond noise they are the run's own false alarms, not the code's, so
they stay out of the code's rows and of the regression gate, and the comment counts them."""

import hashlib
import re

import resultgen as g
from vmparity.decide import gate
from vmparity.lab import ab_compare
from vmparity.render import ab_md
from vmparity.results import inputs, manifest
from vmparity.results.targets import BASE_SIDE

TARGET = "container-nolimit"
# a 10 % shift of HEAD's clock rows, which a run whose clock binary did not change can only owe to the host
SHIFTED = dict(count=8, noise=0.005, drift=0.08, effect=(TARGET, "Clock", 1.10))
PROGRAMS = ("benchrun", "memcpy-static", "clock", "snowflake")


def _digest(program, side=""):
    return (program + side).encode().hex().ljust(64, "0")[:64]


def _manifests(run, changed=()):
    """MANIFEST.sha256 (HEAD) and MANIFEST~base.sha256 (BASE): `changed` programs differ. Each side's
    files record the sha256 of their manifest as `binary-sha256`, as benchrun's do (manifest.disagreeing)."""
    for name, side in ((manifest.NAME, "head"), (manifest.BASE_NAME, "base")):
        text = "".join(f"{_digest(p, side if p in changed else '')}  {p}\n" for p in PROGRAMS)
        (run / name).write_text(text, encoding="utf-8")
        digest = hashlib.sha256(text.encode()).hexdigest()
        for f in run.glob("*.txt"):
            if f.stem.endswith(BASE_SIDE) == (side == "base"):
                f.write_text(re.sub(r"(?m)^binary-sha256: .*$", f"binary-sha256: {digest}", f.read_text()))
    return run


def _pair(run):
    ab = ab_compare.analyse(inputs.load(run))
    return ab, next(p for p in ab.pairs if p.target == TARGET)


def _clock_rows_beyond(p):
    return [d for r in p.table.rows for c, d in r.deltas.items()
            if c == TARGET and "Clock" in r.name and d.comparison.significant and not d.within_noise]


def test_rows_of_a_program_both_sides_ran_alike_are_noise_not_the_code(tmp_path):
    run = _manifests(g.ab_run(tmp_path / "r-ab-quick", seed=3, **SHIFTED), changed=("snowflake",))
    ab, p = _pair(run)
    assert ab.same_programs == {"benchrun", "memcpy-static", "clock"}
    shifted = _clock_rows_beyond(p)
    assert len(shifted) == 5 and all(d.same_binary and d.verdict == "worse" for d in shifted)
    assert p.result.unexplained == [] and len(p.result.same_binary) == 5
    assert gate.regressions_over(p.table, 5) == []
    beyond, rows = ab.same_binary_rows()
    # over both pairs (metal's and the container's), every row but snowflake's
    assert beyond == 5 and rows == 2 * sum(1 for r in p.table.rows if "Snowflake" not in r.name)
    text = ab_md.noise(ab)
    assert "byte-identical `benchrun`, `clock`, `memcpy-static`" in text and f"5 of their {rows} rows" in text
    assert "(same binary: noise)" in ab_md.changed(ab, 10 ** 6)[0]


def test_a_program_whose_binary_changed_is_the_codes(tmp_path):
    run = _manifests(g.ab_run(tmp_path / "r-ab-quick", seed=3, **SHIFTED), changed=("clock",))
    ab, p = _pair(run)
    shifted = _clock_rows_beyond(p)
    assert len(shifted) == 5 and not any(d.same_binary for d in shifted)
    assert len(p.result.unexplained) == 5 and p.result.same_binary == []
    assert len(gate.regressions_over(p.table, 5)) == 5


def test_a_changed_runner_leaves_no_row_to_noise(tmp_path):
    # benchrun runs and times every program: with it changed, any row may be the code's
    run = _manifests(g.ab_run(tmp_path / "r-ab-quick", seed=3, **SHIFTED), changed=("benchrun",))
    ab, p = _pair(run)
    assert ab.same_programs == frozenset() and ab_md.same_binary(ab) == ""
    assert len(gate.regressions_over(p.table, 5)) == 5


def test_a_run_without_both_manifests_compares_as_before(tmp_path):
    run = g.ab_run(tmp_path / "r-ab-quick", seed=3, **SHIFTED)
    (run / manifest.NAME).write_text(f"{_digest('benchrun')}  benchrun\n", encoding="utf-8")
    ab, p = _pair(run)
    assert ab.same_programs == frozenset()
    assert len(p.result.unexplained) == 5


def test_manifest_lines_in_text_and_binary_mode():
    text = f"{_digest('a')}  clock\n{_digest('b')} *memcpy-static\nnot a line\n"
    assert manifest.digests(text) == {"clock": _digest("a"), "memcpy-static": _digest("b")}


def test_a_manifest_that_is_not_its_sides_build_takes_no_row_for_the_same_binary(tmp_path):
    run = _manifests(g.ab_run(tmp_path / "r-ab-quick", seed=3, **SHIFTED), changed=("snowflake",))
    (run / manifest.BASE_NAME).write_text((run / manifest.BASE_NAME).read_text().replace("  clock", "  clock2"))
    ab, p = _pair(run)
    assert ab.same_programs == frozenset() and [m[0] for m in ab.manifests_disagree] == [manifest.BASE_NAME]
    assert len(p.result.unexplained) == 5 and p.result.same_binary == []
    assert "Manifests disagree" in ab_md.noise(ab)
