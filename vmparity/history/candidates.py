"""Step 1 of the change points: the runs worth testing, found on several scales at once.

A candidate is a run i where the mean of the G run levels from i on differs
from the mean of the G before i by at least 3 (Method.noise_sigmas) times what run-to-run
noise gives such a difference, and by at least half of --min-change, for a
window G of 4, 8 or W runs (W = --window): a moving sum (MOSUM) on three
scales. The small scale sees a change that another one follows a few runs
later (a regression fixed soon after: a window of W runs would straddle both
and see neither), the large one a small change far from any other. Means,
not medians, because a moving median is flat for G/2 runs around a step and
would put the candidate anywhere on that plateau, while a moving mean peaks
at the step; the levels are first clipped to 3 σ_run about a centred median
of 5 runs, so that an outlier run does not make a peak of its own. The
screen is deliberately loose: it only decides where segments.py tests, and
the family-wise bar is applied there.

Tracks of equal length are screened together, as rows of one array: a
history is hundreds of tracks of the same runs, and numpy's cost per call
would outweigh its work on one track.
"""

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

SCALES = (4, 8)  # windows besides --window; 4 is the shortest-lived change the screen is meant to see
SCREEN_SIZE = 0.5  # a candidate's local size must be at least this share of --min-change
CLIP_WIDTH, CLIP_SIGMAS = 5, 3.0  # the levels are clipped to 3 σ_run about a centred median of 5 runs
SCREEN_BLOCK = 64  # tracks screened in one array: bounds the memory of the sorted windows (64 × runs × W)


def scales(window):
    return sorted({min(g, window) for g in SCALES} | {window})


def screen(levels, method, min_run, block=SCREEN_BLOCK):
    """Per track level (levels.Level, or None: nothing to screen), the candidate run indices (into its y), no
    two closer than min_run runs, none with fewer than min_run runs before or after it. The peaks of the
    smallest scale come first, then those of each larger scale that are not near one already found: a moving
    mean of G runs is flat across an excursion shorter than G, and only the small scale's peak is at its end
    (bottom-up merging, as multiscale MOSUM does)."""
    out = [[] for _ in levels]
    by_length = {}
    for k, lv in enumerate(levels):
        if lv is not None and len(lv.y) >= 2 * min_run:
            by_length.setdefault(len(lv.y), []).append(k)
    size_bar = math.log1p(SCREEN_SIZE * method.min_change / 100.0)
    for R, ks in by_length.items():
        for s in range(0, len(ks), block):
            part = ks[s:s + block]
            y = np.array([levels[k].y for k in part])
            sigma = np.array([levels[k].sigma for k in part])
            size_scale = np.array([levels[k].size_scale for k in part])
            y = clipped(y, sigma)
            found = [[] for _ in part]
            for G in scales(method.window):  # the smallest scale first: its peaks are placed best
                if 2 * G > R:
                    continue
                z = _moving_z(y, G, sigma, size_scale, size_bar)
                z[:, :min_run] = 0
                z[:, R - min_run + 1:] = 0
                for kept, row in zip(found, z):
                    peaks = _peaks(row, min_run, method.noise_sigmas)
                    kept += [i for i in peaks if all(abs(i - j) >= min_run for j in kept)]
            for k, kept in zip(part, found):
                out[k] = kept
    return out


def _moving_z(y, G, sigma, size_scale, size_bar):
    """|mean(y[i:i+G]) − mean(y[i-G:i])| over its noise, per track row and run i (0 where not defined or
    smaller than size_bar in the track's size units)."""
    R = y.shape[1]
    c = np.zeros((y.shape[0], R + 1))
    np.cumsum(y, axis=1, out=c[:, 1:])
    sums = c[:, G:] - c[:, :-G]  # sums[:, s] = sum of runs s .. s+G-1
    d = np.zeros(y.shape)
    d[:, G:R - G + 1] = np.abs(sums[:, G:] - sums[:, :R - 2 * G + 1]) / G
    se = sigma * math.sqrt(2.0 / G)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(se[:, None] > 0, d / se[:, None], np.where(d > 0, np.inf, 0.0))
    z[d < size_bar * size_scale[:, None]] = 0
    return np.nan_to_num(z, nan=0.0)


def clipped(y, sigma, width=CLIP_WIDTH, sigmas=CLIP_SIGMAS):
    """y clipped to sigmas · σ_run about the median of the width runs centred on each (fewer at the ends)."""
    h = width // 2
    padded = np.concatenate([np.repeat(y[:, :1], h, axis=1), y, np.repeat(y[:, -1:], h, axis=1)], axis=1)
    centre = window_medians(padded, width)
    room = sigmas * sigma[:, None]
    return np.clip(y, centre - room, centre + room)


def _peaks(z, apart, bar):
    """Runs where z ≥ bar, strongest first, each at least `apart` runs from a stronger one."""
    idx = np.flatnonzero(z >= bar)
    if not len(idx):
        return []
    kept = []
    # ties (a quantised value) go to the earlier run, whatever the last bits of the sums say; a z beyond 1e299
    # (a noise of almost 0) rounds to inf, as strong as any
    with np.errstate(over="ignore"):
        order = np.argsort(-np.round(z[idx], 9), kind="stable")
    for i in idx[order].tolist():
        if all(abs(i - j) >= apart for j in kept):
            kept.append(i)
    return kept


def window_medians(x, W):
    """np.median of every W consecutive values of each row of x, bit for bit, from sorted windows (sorting
    rows of a few values is three times faster than np.median's partition)."""
    windows = sliding_window_view(x, W, axis=-1)
    if np.isnan(x).any():  # np.median's nan rule; a sort would move the nan out of the middle
        return np.median(windows, axis=-1)
    s = np.sort(windows, axis=-1)
    return s[..., W // 2] if W % 2 else (s[..., W // 2 - 1] + s[..., W // 2]) / 2
