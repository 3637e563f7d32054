"""Change points: the runs at which a track's distribution moved, each with its sign and size.

The method (documented in docs/formats.md, "History"), in three steps over
each track's run levels (levels.py: log run medians and their run-to-run
noise σ_run):

1. Candidates (candidates.py): runs where a moving median of 4, 8 or W runs
   after differs from the one before by at least 3× its noise: a loose
   multi-scale screen, so that a change followed closely by another is seen
   by the short window and a small change far from any other by the long one.
2. Test (segments.py): every candidate against its neighbours, the segment
   from the change before it against the segment to the change after it
   (each cut to W runs, --window); a z test on σ_run with the Bonferroni bar
   α / m over every candidate run of every track (family-wise α over the
   whole history), and the size at least --min-change. The weakest failing
   candidate is dropped and its neighbours tested again, until all pass:
   recursive segmentation from the bottom up, so that a regression and its
   fix a few runs later are two changes, each with its own sign.
3. Place (segments.py): each change at the split of its samples into two
   levels with the least pinball loss at the lower quartile, within 2 runs.

A change is reported with the median of its runs' medians after against
before, and only when that too is at least --min-change (the floor the
output states).

Two changes of opposite sign whose second brings the track back near its
level before the first are an excursion (excursions.py).
"""

from dataclasses import dataclass

import numpy as np

from .. import stats
from . import candidates, levels, segments


@dataclass
class Method:
    window: int = 16
    alpha: float = 0.05
    min_change: float = 5.0  # percent
    noise_sigmas: float = 3.0  # the screen's bar: a candidate's local change over its noise (candidates.py)

    def check(self):
        from ..errors import InputError

        # --window and --alpha are checked as options (options.py); the percentage's upper bound is the method's
        if not self.min_change < 1000:
            raise InputError("--min-change", f"{self.min_change}: expected a percentage between 0 and 1000")
        return self

    def reaches_floor(self, pct):
        """Whether a change of pct percent, as reported (the median of the runs' medians after against
        before), is at least --min-change: the test sizes a change on the runs' fast-side quartiles
        (levels.py), and a change it kept may report a little less; none is printed below the floor."""
        return pct is None or abs(pct) >= self.min_change

    @property
    def scales(self):
        return candidates.scales(self.window)

    def describe(self, tests):
        return (f"candidates where a moving mean of {'/'.join(map(str, self.scales))} runs moves by "
                f"{self.noise_sigmas:g}× its noise, each tested against the segments to its neighbouring "
                f"changes (up to {self.window} runs, at least {segments.MIN_RUNS}), z test on the run-to-run noise, "
                f"Bonferroni over {tests} candidate runs (α = {self.alpha:g}, p ≤ {self.alpha / max(tests, 1):.2g}), the weakest "
                f"failing candidate dropped until all pass, size at least {self.min_change:g} %")


@dataclass
class ChangePoint:
    track: object  # tracks.Track
    at: int  # index of the first run after the change
    pct: float  # median of the segment after against before, in percent (None when before is 0)
    p: float
    n_before: int  # runs in each segment compared
    n_after: int
    changed: dict  # fingerprint keys that changed at this run: key -> (before, after)
    start: int = 0  # the runs compared: start .. at-1 before, at .. stop-1 after
    stop: int = 0

    @property
    def run_id(self):
        return self.track.run_ids[self.at]

    @property
    def previous_run_id(self):
        return self.track.run_ids[self.at - 1]

    @property
    def verdict(self):
        return verdict(self.track.higher_better, self.pct)


def verdict(higher_better, pct):
    if higher_better is None or pct is None:
        return "changed"
    return "better" if (pct > 0) == higher_better else "worse"


def detect(tracks, method=None):
    """(change points, number of candidates tested) over every track."""
    m = method or Method()
    tests = sum(max(0, len(t.run_ids) - 1) for t in tracks)
    if tests == 0:
        return [], 0
    p_max = m.alpha / tests
    lvs = levels.of_all(tracks)
    out = []
    for t, lv, found in zip(tracks, lvs, candidates.screen(lvs, m, segments.MIN_RUNS)):
        if found:
            kept = segments.fit(t, lv, found, m.window, p_max, m.min_change)
            changes = (_change_point(t, lv, test) for test in kept)
            out += [cp for cp in changes if m.reaches_floor(cp.pct)]
    out.sort(key=lambda c: (c.track.key, c.at))
    return out, tests


def _change_point(t, lv, test):
    # Python ints: the JSON output writes them as they are (a numpy integer made it fail)
    start, at, stop = int(lv.runs[test.lo]), int(lv.runs[test.at]), int(lv.runs[test.hi - 1]) + 1
    before = float(np.median(t.median[lv.runs[test.lo:test.at]]))
    after = float(np.median(t.median[lv.runs[test.at:test.hi]]))
    changed = next((s.changed for s in t.series if s.start == at), {})
    return ChangePoint(t, at, stats.pct_change(before, after), test.p, test.at - test.lo, test.hi - test.at, changed,
                       start, stop)

