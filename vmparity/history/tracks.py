"""Tracks and series: what history lines up.

A *track* is one benchmark row (name and unit) of one target on one host,
every run of it in time order. Time order is run-id order: the lab's run-ids
begin with the UTC time the run started (`2026-11-23T03-58-01Z-…`).

A *series* is a stretch of a track whose fingerprint (the series keys of
format.yaml: cpu, kernel, glibc, nt-threshold, clocksource, …) stays the
same: like-for-like runs. A run whose fingerprint differs starts a new series,
and the series says which keys changed from what to what.
"""

from bisect import bisect_right
from dataclasses import dataclass, field

import numpy as np

from ..results import provenance
from ..results.spec import series_keys
from .index import fingerprint
from .packed import UNKNOWN_DIRECTION

NAME_ONLY_KEYS = (".name", ".fullname", ".unit")


@dataclass
class Series:
    start: int  # index of its first run in the track
    stop: int  # one past its last run
    fingerprint: dict
    changed: dict  # key -> (value before, value here); empty for a track's first series


@dataclass
class Track:
    host: str
    target: str
    name: str
    unit: str
    higher_better: object  # True, False or None (direction unknown)
    run_ids: tuple  # in run-id order; tracks with the same runs share one tuple
    n: np.ndarray
    median: np.ndarray
    lo: np.ndarray  # nan where the interval is unbounded (too few samples)
    hi: np.ndarray
    values: np.ndarray  # samples of the track's stored runs, run after run (packed.Runs.samples)
    starts: np.ndarray  # where each run's samples begin in values
    series: list = field(default_factory=list)

    def samples(self, i):
        start = self.starts[i]
        return self.values[start:start + self.n[i]]

    def pooled(self, start, stop):
        return np.concatenate([self.samples(i) for i in range(start, stop)])

    @property
    def key(self):
        return self.host, self.target, self.name, self.unit


@dataclass
class History:
    tracks: list
    files: dict  # (run_id, target) -> index.FileInfo

    def config(self, run_id, target):
        return self.files[(run_id, target)].config

    def provenance(self, run_id, target):
        # asked once per printed run of every track: made once per file
        cache = self.__dict__.setdefault("_prov", {})
        key = (run_id, target)
        if key not in cache:
            cache[key] = provenance.of(self.files[key].head)
        return cache[key]


def load(index, filter_text=None, until=None, only=None):
    """Every track in the index, filtered like `compare --filter`.

    until: leave out runs whose id sorts after it (a report looks back from its run);
    only: a set of (host, target) to keep.
    """
    files = index.files()
    keep_row, keep_run = _row_filter(filter_text, files)
    keys = series_keys()
    series_of = {}  # (target, run ids) -> series: the tracks of one target mostly share their runs
    tracks = []
    for (host, target, name, unit), runs in index.tracks():
        if only is not None and (host, target) not in only:
            continue
        if keep_row is not None and not keep_row(name, unit):
            continue
        run_ids = runs.run_ids
        stop = len(run_ids) if until is None else bisect_right(run_ids, until)
        sel = slice(0, stop)  # a slice keeps the arrays views of the stored ones
        if keep_run is not None:
            sel = np.flatnonzero([keep_run(r, target, name, unit) for r in run_ids[:stop]])
            run_ids = tuple(run_ids[i] for i in sel.tolist())
        elif stop < len(run_ids):
            run_ids = run_ids[:stop]
        if not run_ids:
            continue
        higher = int(runs.higher[sel][-1])
        t = Track(host, target, name, unit, None if higher == UNKNOWN_DIRECTION else bool(higher), run_ids,
                  runs.n[sel], runs.median[sel], runs.lo[sel], runs.hi[sel], runs.samples, runs.starts[sel])
        key = (target, run_ids)
        if key not in series_of:
            series_of[key] = split_series([fingerprint(files[(r, target)].head, keys) for r in run_ids])
        t.series = [Series(s.start, s.stop, s.fingerprint, s.changed) for s in series_of[key]]
        tracks.append(t)
    tracks.sort(key=lambda t: t.key)
    return History(tracks, files)


def split_series(fingerprints):
    """Series of a track from each run's fingerprint tuple (series_keys order)."""
    keys = series_keys()
    out = []
    for i, fp in enumerate(fingerprints):
        if out and fingerprints[i - 1] == fp:
            out[-1].stop = i + 1
            continue
        changed = {}
        if out:
            prev = fingerprints[i - 1]
            changed = {k: (a, b) for k, a, b in zip(keys, prev, fp) if a != b}
        out.append(Series(i, i + 1, dict(zip(keys, fp)), changed))
    return out


def _row_filter(text, files):
    """(keep_row, keep_run): predicates (name, unit) -> bool and (run_id, target, name, unit) -> bool;
    None where every row or run is kept."""
    if not text or text.strip() in ("", "*"):
        return None, None
    from ..query.filter import Filter  # only with --filter: a history without one need not compile it

    f = Filter(text)
    if all(k in NAME_ONLY_KEYS or k.startswith("/") for k in f.keys()):
        # the answer depends on the name and unit only: decide once per track, not once per run
        return (lambda name, unit: f.match("", {}, name, unit)), None

    def keep_run(run_id, target, name, unit):
        return f.match(run_id, files[(run_id, target)].config, name, unit)
    return None, keep_run
