"""One track's runs packed into arrays: how the index stores a track and history reads it.

A track (one benchmark row and unit of one target on one host) is stored as
one row of parallel arrays in run-id order, so that reading a thousand runs
of it is one row and a few numpy views, not a thousand rows of Python
objects. Adding, changing or removing a run rewrites the arrays of the
tracks it is in (merge, without).
"""

from dataclasses import dataclass

import numpy as np

RUN_ID_SEP = "\0"  # cannot occur in a directory name


class Corrupt(ValueError):
    """A stored row that does not decode to a track's runs: the index is a cache, so its
    reader builds it again from the files (history.load) instead of failing."""
UNKNOWN_DIRECTION = -1  # `higher` of a unit whose direction the file does not declare


@dataclass
class Runs:
    run_ids: tuple  # sorted
    higher: np.ndarray  # int8: 1 higher is better, 0 lower is better, UNKNOWN_DIRECTION
    n: np.ndarray  # int64: samples per run
    median: np.ndarray  # float64
    lo: np.ndarray  # float64, nan where the interval is unbounded (too few samples)
    hi: np.ndarray
    samples: np.ndarray  # float64, every run's samples one after the other

    @property
    def starts(self):
        """Where each run's samples begin in `samples`."""
        starts = np.zeros(len(self.n), dtype=np.int64)
        np.cumsum(self.n[:-1], out=starts[1:])
        return starts

    def to_row(self):
        return (RUN_ID_SEP.join(self.run_ids).encode(), self.higher.tobytes(), self.n.tobytes(),
                self.median.tobytes(), self.lo.tobytes(), self.hi.tobytes(), self.samples.tobytes())

    @classmethod
    def from_row(cls, run_ids, higher, n, median, lo, hi, samples, split=None):
        """split: {run_ids blob: tuple}, shared by the rows read together: most tracks have the same runs, and
        share one tuple of them."""
        try:
            ids = split.get(run_ids) if split is not None else None
            if ids is None:
                ids = tuple(run_ids.decode().split(RUN_ID_SEP))
                if split is not None:
                    split[run_ids] = ids
            runs = cls(ids, np.frombuffer(higher, dtype=np.int8),
                       np.frombuffer(n, dtype=np.int64), np.frombuffer(median), np.frombuffer(lo),
                       np.frombuffer(hi), np.frombuffer(samples))
        except (AttributeError, TypeError, ValueError) as e:  # not bytes, not UTF-8, not whole numbers
            raise Corrupt(f"a track's row does not decode: {e}") from None
        # one entry per run in every array, and the samples the counts say: what every reader indexes by
        k = len(ids)
        if not (len(runs.higher) == len(runs.n) == len(runs.median) == len(runs.lo) == len(runs.hi) == k) \
                or (runs.n < 0).any() or int(runs.n.sum()) != len(runs.samples):
            raise Corrupt(f"a track's row holds arrays of other lengths than its {k} runs")
        return runs

    def take(self, idx):
        """The runs at the indices idx (an integer array), in that order."""
        starts = self.starts
        pieces = [self.samples[s:s + k] for s, k in zip(starts[idx].tolist(), self.n[idx].tolist())]
        return Runs(tuple(self.run_ids[i] for i in idx.tolist()), self.higher[idx], self.n[idx], self.median[idx],
                    self.lo[idx], self.hi[idx], np.concatenate(pieces) if pieces else np.empty(0))

    def without(self, run_ids):
        """These runs but those in the set run_ids; self when none of them is here."""
        keep = [i for i, r in enumerate(self.run_ids) if r not in run_ids]
        if len(keep) == len(self.run_ids):
            return self
        return self.take(np.array(keep, dtype=np.int64))


class Builder:
    """Collects a track's new runs one at a time, as the run files are read."""

    def __init__(self):
        self.run_ids, self.higher, self.n, self.median, self.lo, self.hi, self.samples = [], [], [], [], [], [], []

    def add(self, run_id, higher, center, lo, hi, values):
        self.run_ids.append(run_id)
        self.higher.append(UNKNOWN_DIRECTION if higher is None else int(higher))
        self.n.append(len(values))
        self.median.append(center)
        self.lo.append(lo)
        self.hi.append(hi)
        self.samples.append(values)

    def runs(self):
        bound = np.array([self.lo, self.hi], dtype=float)
        bound[~np.isfinite(bound)] = np.nan  # an infinite bound is an unbounded one
        return Runs(tuple(self.run_ids), np.array(self.higher, dtype=np.int8), np.array(self.n, dtype=np.int64),
                    np.array(self.median, dtype=float), bound[0], bound[1],
                    np.concatenate(self.samples).astype(float, copy=False))


def merge(parts):
    """One Runs of every run in parts (no run in two of them), in run-id order; None without any run."""
    parts = [p for p in parts if p is not None and p.run_ids]
    if not parts:
        return None
    if len(parts) == 1:
        joined = parts[0]
    else:
        fields = ("higher", "n", "median", "lo", "hi", "samples")
        arrays = [np.concatenate([getattr(p, f) for p in parts]) for f in fields]
        joined = Runs(tuple(r for p in parts for r in p.run_ids), *arrays)
    ids = joined.run_ids
    if all(a < b for a, b in zip(ids, ids[1:])):
        return joined
    return joined.take(np.array(sorted(range(len(ids)), key=ids.__getitem__), dtype=np.int64))
