"""Tracks and series: what history lines up.

A *track* is one benchmark row (name and unit) of one target on one host,
every run of it in time order. Time order is run-id order: the lab's run-ids
begin with the UTC time the run started (`2026-11-23T03-58-01Z-…`).

A *series* is a stretch of a track whose fingerprint (the series keys of
format.yaml: cpu, kernel, glibc, nt-threshold, clocksource, …) stays the
same: like-for-like runs. A run whose fingerprint differs starts a new series,
and the series says which keys changed from what to what.
"""

from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter

import numpy as np

from .. import provenance
from ..benchfilter import Filter
from ..formatspec import series_keys
from .index import fingerprint

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
    run_ids: list
    n: np.ndarray
    median: np.ndarray
    lo: np.ndarray  # nan where the interval is unbounded (too few samples)
    hi: np.ndarray
    blobs: list  # packed doubles, one per run
    series: list = field(default_factory=list)

    def samples(self, i):
        return np.frombuffer(self.blobs[i], dtype=float)

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
        # asked once per printed run of every track: read each file's header once
        cache = self.__dict__.setdefault("_prov", {})
        key = (run_id, target)
        if key not in cache:
            cache[key] = provenance.of(self.config(run_id, target))
        return cache[key]


def load(index, filter_text=None, until=None, only=None):
    """Every track in the index, filtered like `compare --filter`.

    until: leave out runs whose id sorts after it (a report looks back from its run);
    only: a set of (host, target) to keep.
    """
    files = index.files()
    keep = _row_filter(filter_text, files)
    fps = {k: fingerprint(f.config) for k, f in files.items()}
    tracks = []
    for (host, target, name, unit), grp in groupby(index.results(until), key=itemgetter(0, 1, 2, 3)):
        if only is not None and (host, target) not in only:
            continue
        rows = list(grp)
        if keep is not None:
            rows = [r for r in rows if keep(r[4], target, name, unit)]
            if not rows:
                continue
        _, _, _, _, run_ids, higher, n, med, lo, hi, blobs = zip(*rows)
        t = Track(host, target, name, unit, None if higher[-1] is None else bool(higher[-1]), list(run_ids),
                  np.array(n), np.array(med, dtype=float), _bound(lo), _bound(hi), list(blobs))
        t.series = split_series([fps[(r, target)] for r in run_ids])
        tracks.append(t)
    tracks.sort(key=lambda t: t.key)
    return History(tracks, files)


def _bound(values):
    return np.array([np.nan if v is None else v for v in values], dtype=float)


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
    """A predicate (run_id, target, name, unit) -> bool, or None to keep every row."""
    if not text or text.strip() in ("", "*"):
        return None
    f = Filter(text)
    name_only = all(k in NAME_ONLY_KEYS or k.startswith("/") for k in f.keys())
    cache = {}
    if name_only:
        # the answer depends on the name and unit only: decide once per row, not once per run
        def keep(run_id, target, name, unit):
            k = (name, unit)
            if k not in cache:
                cache[k] = f.match("", {}, name, unit)
            return cache[k]
        return keep

    def keep(run_id, target, name, unit):
        return f.match(run_id, files[(run_id, target)].config, name, unit)
    return keep
