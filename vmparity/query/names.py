"""Benchmark names, with their one definition here: a name's parts, its family, its job.

`BenchmarkMemcpy/link=static/size=1024-2` -> base `BenchmarkMemcpy`, parameters
{link: static, size: 1024}, GOMAXPROCS 2. The family is the base: what the
noise band, the cross-run drift, the lab's figures and the explain rules group
rows by. (Target names and kinds are results/targets.py.)
"""

import math
from functools import lru_cache

# 18 decimal digits always fit a signed 64-bit integer, as Go's GOMAXPROCS does.
PROCS_MAX_DIGITS = 18


@lru_cache(maxsize=None)
def split_name(name):
    """Return (base, {key: value}, procs) for a Go benchmark name.

    The trailing `-N` GOMAXPROCS suffix Go appends (`procs=4-4`) is stripped
    from the last part and returned as `procs` (None when absent). Like Go's
    benchfmt, only ASCII digits make a suffix (`-²` or `-١` stay part of the
    name), and one too long for a 64-bit count stays part of the name too.
    """
    parts = name.split("/")
    procs = None
    last = parts[-1]
    head, dash, tail = last.rpartition("-")
    if dash and head and tail.isascii() and tail.isdigit() and len(tail) <= PROCS_MAX_DIGITS:
        parts[-1], procs = head, int(tail)
    base = parts[0]
    params = {}
    for part in parts[1:]:
        key, eq, value = part.partition("=")
        if eq:
            params[key] = value
    return base, params, procs


def job_of(name):
    """The benchrun job that measures a benchmark (bench-src/go/benchrun/jobs.go):
    `memcpy-<link>/tunable=<variant>` for memcpy, the program's name otherwise
    (`BenchmarkClock/...` -> `clock`). What an added round runs as one piece."""
    base, params, _ = split_name(name)
    program = base.removeprefix("Benchmark").lower()
    if program == "memcpy" and "link" in params and "tunable" in params:
        return f"memcpy-{params['link']}/tunable={params['tunable']}"
    return program


def param_number(value):
    """A parameter or header value as a finite number (`1024`, `0x3000000`, `4.0`), else None.

    ASCII only, as Go writes numbers: Python would also read `١٠` as 10. An
    integer beyond 64 bits, a float beyond float range, or NaN is not a size
    anyone can plot or compare with, so it is None too.
    """
    if value is None:
        return None
    text = str(value).strip().split()[0] if str(value).strip() else ""
    if not text.isascii():
        return None
    try:
        number = int(text, 0)
        return number if abs(number) < 2**64 else None
    except ValueError:  # also a decimal of more digits than int() accepts
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def family(name):
    """A benchmark's family: its base name, without parameters or GOMAXPROCS suffix
    (BenchmarkClock/clock=… -> BenchmarkClock, BenchmarkFoo-8 -> BenchmarkFoo)."""
    return split_name(name)[0]
