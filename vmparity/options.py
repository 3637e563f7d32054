"""The checks of command-line option values, one per kind of value, shared by every command.

Each is an argparse `type=` function: a bad value becomes a usage error
naming the option and what was expected (exit 2) before any command runs.
"""

import argparse
import math
import os


def _number(text, kind=float, what="a number"):
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def probability(text):
    """--alpha, --confidence: a finite number strictly between 0 and 1."""
    value = _number(text)
    if not (math.isfinite(value) and 0 < value < 1):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number strictly between 0 and 1 (e.g. 0.05)")
    return value


def percent(text):
    """--fail-on-regression: a finite, non-negative percentage (NaN would never trip the gate)."""
    value = _number(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"{text!r}: expected a finite percentage >= 0 (e.g. 5)")
    return value


def at_least(low):
    """A whole number >= low: --window, --rows, --trials, --host-cpus (1), --max (0)."""
    def check(text):
        value = _number(text, int, "a whole number")
        if value < low:
            raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number of at least {low}")
        return value
    check.__name__ = f"at_least_{low}"
    return check


def port(text):
    """--ssh-port: a TCP port, 1 to 65535."""
    value = _number(text, int, "a whole number")
    if not 0 < value < 65536:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a TCP port between 1 and 65535")
    return value


def results_dir(text):
    """--results-dir: a directory, or a path where one can be made (not a file)."""
    if not text:
        raise argparse.ArgumentTypeError("expected a directory path, got an empty string")
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a directory; expected the results directory (holding runs/)")
    return text



def effects(text):
    """--effects: comma-separated non-zero finite percentages above -100 (e.g. -10,5,10)."""
    out = []
    for part in text.split(","):
        value = _number(part.strip())
        if not (math.isfinite(value) and value != 0 and value > -100):
            raise argparse.ArgumentTypeError(f"{part.strip()!r}: expected a non-zero percentage above -100 (e.g. -10,5,10)")
        out.append(value)
    return out
