"""History's rows formatted a track at a time, not a value at a time.

`vmparity history` prints every run of every track: a few hundred thousand
rows, and one `%` per value and row would be most of its time. Here a
column is formatted with one `%` per track (a template repeated once per
run), rows likewise, and the columns a run prints alike in every track of
its target are made once. The text is the same as render.num() and interval()
give value by value.
"""

from functools import lru_cache
from itertools import chain

import numpy as np

SEP = "\0"  # splits what one `%` formatted; a formatted number never holds it


class RunColumns:
    """The columns a run prints the same in every track of its target (run-id, commit, branch), made once."""

    def __init__(self, prov, make):
        self.prov, self.make, self.by_target, self.by_runs = prov, make, {}, {}

    def of(self, track):
        """The columns of each run of track, in its order."""
        target, run_ids = track.target, track.run_ids
        known = self.by_runs.get((target, id(run_ids)))  # the tracks of a target mostly share one run_ids tuple
        if known is not None and known[0] is run_ids:
            return known[1]
        cols = self.by_target.get(target)
        if cols is None:
            cols = self.by_target[target] = _Made(lambda run_id: self.make(run_id, self.prov(run_id, target)))
        made = list(map(cols.__getitem__, run_ids))
        self.by_runs[(target, id(run_ids))] = (run_ids, made)  # holding run_ids keeps its id from being reused
        return made


class _Made(dict):
    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, key):
        value = self[key] = self.make(key)
        return value


def rows(template, columns, start, stop):
    """template % (each column's value) for the runs start .. stop-1, one line each, in one `%`."""
    values = chain.from_iterable(zip(*(c[start:stop] for c in columns)))
    return _repeated(template, "\n", stop - start) % tuple(values)


def nums(values, missing="?"):
    """render.num() of every value of an array, `missing` for nan."""
    nan = np.isnan(values)
    if nan.all():
        return [missing] * len(values)
    out = _each("%.4g", values.tolist(), len(values))
    for i in np.flatnonzero(nan).tolist():
        out[i] = missing
    return out


def intervals(lo, hi):
    """`[lo, hi]` of every run, or `n too small` where the run's samples bound no interval at one end
    (5 samples bound no 95 % interval below: `[-∞, 10]` would read as a finding)."""
    lo_nan, hi_nan = np.isnan(lo), np.isnan(hi)
    if not lo_nan.any() and not hi_nan.any():
        return _each("[%.4g, %.4g]", list(chain.from_iterable(zip(lo.tolist(), hi.tolist()))), len(hi))
    out = [TOO_FEW] * len(lo)
    for i in np.flatnonzero(~(lo_nan | hi_nan)).tolist():
        out[i] = f"[{lo[i]:.4g}, {hi[i]:.4g}]"
    return out


TOO_FEW = "n too small"


def floats(values):
    """The values of an array as JSON numbers, None (null) for nan."""
    return [None if v != v else v for v in values.tolist()]


def _each(fmt, values, count):
    """fmt % each of count groups of values (fmt's fields each), as a list of strings, in one `%`."""
    return (_repeated(fmt, SEP, count) % tuple(values)).split(SEP)


@lru_cache(maxsize=32)
def _repeated(template, sep, count):
    return sep.join([template] * count)
