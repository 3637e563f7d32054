"""Seeded synthetic tracks with known changes, in memory: what `make bench-history` scores change points on.

historygen writes whole runs to disk, which is what the timing needs; scoring
recall and precision needs many rows of several kinds, each with its changes
known, and is quicker on tracks built in memory (tracks.Track, as the index
would give them). The noise is historygen's model: every row its own sample
spread, every run its own level (RUN_SD), a share of samples slowed by
interference (SPIKE_SHARE), and here also a few *outlier runs* whose every
sample is slowed (a machine slowed for the whole of one run).

Kinds of rows (a Scenario each):
- none: no change (every change point found there is false);
- single: one change of 3–25 %, anywhere at least 5 runs from either end;
- excursion: +size at `at`, back at `at + lifetime` (a regression fixed soon after);
- multi: 2–3 changes of 3–25 % (either sign), at least 8 runs apart.
"""

import random
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import resultgen
from historygen import RUN_SD, SPIKE_SHARE

from vmparity.history import tracks

OUTLIER_RUNS = (0, 2)  # outlier runs a row gets, drawn uniformly in this range
OUTLIER_FACTOR = (1.15, 1.5)  # every sample of an outlier run slowed by this much
EDGE = 5  # runs kept free of changes at either end: a change needs runs on both sides to be seen


@dataclass
class Change:
    at: int  # index of the first run at the new level
    factor: float

    @property
    def size_pct(self):
        """The change as a percentage of the level before it (its magnitude)."""
        return abs(self.factor - 1) * 100


@dataclass
class Row:
    kind: str
    cv: float  # the samples' spread
    changes: list = field(default_factory=list)


def _size(rng, low=3.0, high=25.0):
    s = rng.uniform(low, high) / 100
    return 1 + s if rng.random() < 0.5 else 1 - s


def single(rng, runs):
    return [Change(rng.randrange(EDGE, runs - EDGE + 1), _size(rng))]


def multi(rng, runs, apart=8, tries=1000):
    """2–3 changes at least `apart` runs from each other and EDGE from the ends."""
    k = rng.choice([2, 3])
    for _ in range(tries):
        at = sorted(rng.sample(range(EDGE, runs - EDGE + 1), k))
        if all(b - a >= apart for a, b in zip(at, at[1:])):
            return [Change(i, _size(rng)) for i in at]
    raise ValueError(f"cannot place {k} changes {apart} runs apart in {runs} runs")


def excursion(at, lifetime, size=0.15):
    return [Change(at, 1 + size), Change(at + lifetime, 1 / (1 + size))]


def samples(rng, runs, count, cv, changes, outliers=OUTLIER_RUNS):
    """runs × count samples of one row: level 1 with its changes, run levels, spikes and outlier runs."""
    level = np.ones(runs)
    for c in changes:
        level[c.at:] *= c.factor
    noise = np.exp(rng.normal(0, cv, (runs, count)))
    run_level = np.exp(rng.normal(0, RUN_SD, runs))[:, None]
    spikes = np.where(rng.random((runs, count)) < SPIKE_SHARE, rng.uniform(1.2, 2.0, (runs, count)), 1.0)
    out = 10.0 * level[:, None] * run_level * noise * spikes
    for i in rng.choice(runs, size=int(rng.integers(outliers[0], outliers[1] + 1)), replace=False):
        out[i] *= rng.uniform(*OUTLIER_FACTOR)
    return out


def track(name, values, run_ids, higher_better=False):
    """A tracks.Track of a runs × count array of samples, as the index would give it."""
    runs, count = values.shape
    med = np.median(values, axis=1)
    n = np.full(runs, count, dtype=np.int64)
    nan = np.full(runs, np.nan)
    t = tracks.Track("synth", "metal", name, "ns/op", higher_better, run_ids, n, med, nan, nan.copy(),
                     values.ravel().astype(float), np.arange(runs, dtype=np.int64) * count)
    t.series = [tracks.Series(0, runs, {}, {})]
    return t


def run_ids(runs):
    return tuple(f"2026-01-01T00-00-00Z-{i:05d}" for i in range(runs))


@dataclass
class History:
    rows: list  # Row
    tracks: list  # tracks.Track, one per row


def history(seed, rows=40, runs=80, count=6, kinds=("multi",), cv=(0.005, 0.05), outliers=OUTLIER_RUNS,
            changes=None):
    """A seeded history of `rows` rows of `runs` runs, each row of a kind drawn from kinds (or with the given
    changes, one list for every row). Row spreads are uniform in cv."""
    rng, nrng = random.Random(seed), np.random.default_rng(seed)
    ids = run_ids(runs)
    out = History([], [])
    for r in range(rows):
        kind = rng.choice(kinds)
        row = Row(kind, rng.uniform(*cv))
        if changes is not None:
            row.changes = list(changes)
        elif kind == "single":
            row.changes = single(rng, runs)
        elif kind == "multi":
            row.changes = multi(rng, runs)
        elif kind != "none":
            raise ValueError(kind)
        out.rows.append(row)
        values = samples(nrng, runs, count, row.cv, row.changes, outliers)
        out.tracks.append(track(f"BenchmarkSynth/row={r:03d}", values, ids))
    return out


def lifetime_history(lifetime, rows=10, runs=80, seed=1, cv=0.01, at=40):
    """The issue's rows: +15 % at run `at`, back at at + lifetime; 6 samples a run, 1 % noise."""
    return history(seed, rows=rows, runs=runs, kinds=("excursion",), cv=(cv, cv), outliers=(0, 0),
                   changes=excursion(at, lifetime))


def commit(i):
    return f"{i:08x}" + "c0ffee" * 5 + "00"


def write(h, runs_dir, rows=None, target="metal", **header_keys):
    """The history as result files, one run directory per run, one benchmark per row (rows: the indices of
    the rows to write, default all): for what goes through the index and the command line. header_keys
    (underscores for dashes) replace keys of the header, e.g. target_kind="tcg-guest"."""
    rows = range(len(h.tracks)) if rows is None else rows
    first = h.tracks[0]
    for i, run_id in enumerate(first.run_ids):
        d = Path(runs_dir) / run_id
        d.mkdir(parents=True, exist_ok=True)
        header = dict(resultgen.METAL, **{"run-id": run_id, "target": target, "count": str(first.n[i]),
                                          "commit": commit(i), "branch": "main", "dirty": "no"},
                      **{k.replace("_", "-"): v for k, v in header_keys.items()})
        lines = [f"{k}: {v}".rstrip() for k, v in header.items()]
        for r in rows:
            t = h.tracks[r]
            lines += [f"{t.name} 1000000 {v!r} ns/op" for v in t.samples(i).tolist()]
        (d / f"{target}.txt").write_text("\n".join(lines) + "\n")


def median_series(t):
    """What a method that reads one number per run sees: the run medians, as a list."""
    return [float(v) for v in t.median]


MATCH_RUNS = 1  # a change found within this many runs of an injected one, with its sign, finds it
NEAR_RUNS = 3  # a found change this close to an injected one is misplaced, not invented


@dataclass
class Score:
    """Found change points (track index, run index, signed size) against the injected ones."""
    injected: list = field(default_factory=list)  # (size_pct, found: bool, placement error or None)
    found: int = 0
    matched: int = 0  # found ones within MATCH_RUNS of an injected one of the same sign
    false: int = 0  # found ones with no injected change within NEAR_RUNS

    def add(self, rows, found):
        """found: per row, a list of (run index, sign: +1 slower / −1 faster)."""
        for row, got in zip(rows, found):
            free = list(got)
            self.found += len(got)
            for c in row.changes:
                sign = 1 if c.factor > 1 else -1
                near = [g for g in free if g[1] == sign and abs(g[0] - c.at) <= NEAR_RUNS]
                best = min(near, key=lambda g: abs(g[0] - c.at), default=None)
                if best is not None and abs(best[0] - c.at) <= MATCH_RUNS:
                    free.remove(best)
                    self.matched += 1
                    self.injected.append((c.size_pct, True, abs(best[0] - c.at)))
                else:
                    self.injected.append((c.size_pct, False, None if best is None else abs(best[0] - c.at)))
            self.false += sum(1 for g in free if not any(abs(g[0] - c.at) <= NEAR_RUNS for c in row.changes))
        return self

    def recall(self, at_least):
        hits = [ok for size, ok, _ in self.injected if size >= at_least]
        return (sum(hits), len(hits))

    @property
    def precision(self):
        return self.matched / self.found if self.found else 1.0

    def placement(self):
        """{0: exact, 1: one run off, 2: more} over the injected changes that were found near their run."""
        out = {0: 0, 1: 0, 2: 0}
        for _, _, err in self.injected:
            if err is not None:
                out[min(err, 2)] += 1
        return out

