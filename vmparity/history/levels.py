"""A track's run levels as the change-point steps read them: one number per run, and its noise.

A run's level is the quartile of its samples on the fast side (the lower
quartile where lower is better, the upper where higher is better, the
median where the direction is unknown): interference only ever slows a
sample, and a run with two or three slowed samples of six must not pass for
a slower level, which its median does. y is the log of each run's level
where every level is positive (a 10 % shift then weighs the same at any
level, and a change's size is a ratio), the levels themselves otherwise (a
row that crosses zero). Runs whose level is not a number are left out (runs
maps y back to the track's runs).
σ_run is the run-to-run noise of y: 1.4826 · MAD of the differences of
consecutive levels, / √2. A median of differences is robust to the few that
straddle a real change and to outlier runs; where more than half the
differences are 0 (a quantised value) the mean absolute deviation stands in.
"""

import math
from dataclasses import dataclass

import numpy as np

MEDIAN_SD_FACTOR = 1.25  # sd of a median ≈ 1.25 × sd of a mean, for normal data
MAD_TO_SD = 1.4826
MEAN_AD_TO_SD = math.sqrt(math.pi / 2)


@dataclass
class Level:
    y: np.ndarray  # per kept run: log median, or the median where a track's medians are not all positive
    runs: np.ndarray  # the track's run index of each value of y
    sigma: float  # σ_run of y
    log: bool

    @property
    def size_scale(self):
        """What a relative size is multiplied by to compare it with differences of y: 1 for logs, the typical
        magnitude of the values otherwise."""
        return 1.0 if self.log else float(np.median(np.abs(self.y))) or 1.0


FAST_QUANTILE = {True: 0.75, False: 0.25, None: 0.5}  # by higher_better: the side interference does not reach


def of_all(tracks):
    """The Level of each track (None for one without two runs with a level); σ_run of tracks of one length
    at once, as rows of one array (a median a track would be most of the time of a long history)."""
    out = []
    for t in tracks:
        med = run_levels(t)
        finite = np.isfinite(med)
        runs = np.arange(len(med)) if finite.all() else np.flatnonzero(finite)
        if len(runs) < 2:
            out.append(None)
            continue
        m = med[runs]
        log = bool((m > 0).all())
        out.append(Level(np.log(m) if log else m, runs, 0.0, log))
    by_length = {}
    for lv in out:
        if lv is not None and len(lv.y) >= 5:
            by_length.setdefault(len(lv.y), []).append(lv)
    for same in by_length.values():
        for lv, sigma in zip(same, _run_noise_rows(np.array([lv.y for lv in same]))):
            lv.sigma = float(sigma)
    return out


def of(track):
    return of_all([track])[0]


def _run_noise_rows(y):
    """run_noise of each row of y (rows of 5 values or more)."""
    d = np.diff(y, axis=1)
    dev = np.abs(d - np.median(d, axis=1)[:, None])
    mad = np.median(dev, axis=1)
    return np.where(mad > 0, MAD_TO_SD * mad, MEAN_AD_TO_SD * dev.mean(axis=1)) / math.sqrt(2)


def run_levels(track):
    """Each run's fast-side quartile of its samples (FAST_QUANTILE); nan for a run without samples. The runs
    of one sample count at once, as rows of one array (np.quantile a run at a time was most of the time of a
    history whose runs' counts differ)."""
    q = FAST_QUANTILE[track.higher_better]
    n = np.asarray(track.n)
    starts = np.asarray(track.starts)
    if len(n) and (n == n[0]).all() and n[0] > 0:  # the common case: every run the same count, one array
        return _quantile_rows(track.values[starts[:, None] + np.arange(n[0])], q)
    out = np.full(len(n), np.nan)
    for k in np.unique(n[n > 0]).tolist():
        rows = np.flatnonzero(n == k)
        out[rows] = _quantile_rows(track.values[starts[rows][:, None] + np.arange(k)], q)
    return out


def _quantile_rows(x, q):
    """np.quantile(x, q, axis=1) (its linear interpolation) from one sort: a third of its time on short rows."""
    s = np.sort(x, axis=1)
    h = (x.shape[1] - 1) * q
    lo = int(h)
    out = s[:, lo] if lo + 1 >= x.shape[1] else s[:, lo] + (h - lo) * (s[:, lo + 1] - s[:, lo])
    return np.where(np.isnan(s[:, -1]), np.nan, out)  # a sort puts nan last; np.quantile's answer is nan


def run_noise(y):
    """σ_run of a series of levels (0 with fewer than 5)."""
    return float(_run_noise_rows(np.asarray(y, dtype=float)[None])[0]) if len(y) >= 5 else 0.0


def quantile(x, q):
    """np.quantile(x, q) of a 1-D array, as _quantile_rows computes it."""
    return float(_quantile_rows(x[None], q)[0])


def size_bar(level, min_change_pct):
    """The least difference of y a change must have to be at least min_change_pct percent."""
    return math.log1p(min_change_pct / 100.0) * level.size_scale
