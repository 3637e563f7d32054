"""The strict check of a lab result file: what `vmparity check`, ingest,
explain and report require on top of what any Go benchmark file may hold.

A lab file is written by benchrun, so anything a reader of other people's
files would skip is a sign of a broken run here: a stray line, a second
configuration, a unit nobody declared, a missing fingerprint key.
"""

from ..errors import InputError
from .spec import known_units, required_keys


def check(rf, keys=None):
    """Raise InputError naming the file, the line and what a lab file must hold.

    keys: the fingerprint keys required (default: format.yaml's); () for a
    benchmark program's own output, which benchrun completes with them."""
    for lineno, text in rf.skipped:
        if text.startswith("Benchmark"):
            raise InputError(rf.path, f"truncated result line {text!r}: expected "
                                      "`<name> <iterations> <value> <unit>`", lineno)
        raise InputError(
            rf.path,
            f"cannot read {text!r}: expected a `key: value` configuration line, "
            "a `Unit <unit> better=higher|lower` line or a `Benchmark…` result line",
            lineno,
        )
    if rf.config_change_line is not None:
        raise InputError(
            rf.path,
            f"configuration key {rf.config_change_key!r} changes after the first result line "
            f"(line {rf.first_result_line}); expected every configuration line in the header",
            rf.config_change_line,
        )
    if rf.nonpositive_iterations_line is not None:
        raise InputError(rf.path, "iteration count: expected a positive integer", rf.nonpositive_iterations_line)
    known = known_units()
    for b in rf.benchmarks.values():
        for unit, values in zip(b.units, b.values):
            if unit not in known and unit not in rf.declared_units:
                raise InputError(
                    rf.path,
                    f"unknown unit {unit!r} in {b.name}: expected one of " + ", ".join(sorted(known))
                    + " or a unit declared by a `Unit <unit> better=higher|lower` line",
                    b.line,
                )
            if (values < 0).any():
                raise InputError(rf.path, f"negative value for {unit} of {b.name}: expected a non-negative number", b.line)
        if len({len(v) for v in b.values}) > 1:
            raise InputError(rf.path, f"mixed units for {b.name}: its lines do not all report "
                                      f"{' '.join(b.units)}; expected the same units on every line", b.line)
    missing = [k for k in (required_keys() if keys is None else keys) if k not in rf.config]
    if missing:
        raise InputError(
            rf.path,
            "fingerprint is missing required key(s) " + ", ".join(missing)
            + " (expected `key: value` lines in the header, see docs/formats.md)",
            rf.first_result_line or None,
        )
    return rf
