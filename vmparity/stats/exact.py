"""Samples of a unit declared exact (`Unit <unit> assume=exact`, benchmath.AssumeExact):
every value should be the same, so the summary is the most common value with the
range as its interval, a varying value is a warning, and any difference is real."""

import numpy as np

P_VALUE = 0.0  # benchmath reports p = 0 for a difference under assume=exact: any change is real


def summarize(values):
    """(centre, low, high): the most common value, and the range as its interval."""
    vals = np.sort(np.asarray(values, dtype=float))
    uniq, counts = np.unique(vals, return_counts=True)
    return float(uniq[int(np.argmax(counts))]), float(vals[0]), float(vals[-1])


def warnings(lo, hi):
    """The summary's warnings: one when the values are not all one value."""
    return [f"exact distribution expected, but values range from {lo:g} to {hi:g}"] if lo != hi else []
