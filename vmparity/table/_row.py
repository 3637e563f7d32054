"""What one row of the comparison table holds, and how a change is judged.

table.build keeps the numbers of a big table packed (_rowstore.py) and hands
out rows that read them on demand; these are the plain rows that code
building a table by hand (a two-column view of a run, tests) uses. Both
answer the same attributes: group, name, unit, higher_better, cells,
deltas, spreads, and mark_within_noise().
"""

from dataclasses import dataclass, field

from .. import stats


@dataclass
class Delta:
    comparison: stats.Comparison
    pct: float  # None when the baseline is 0
    verdict: str  # better | worse | ~ | same | ?
    within_noise: bool = False  # significant, but no larger than the run's A/A control shows
    at_equal_clock: bool = False  # a time row judged on its core-clock twin (decide/clockcheck.py)
    at_equal_bandwidth: bool = False  # a large copy's time row judged on its reference twin (decide/bandwidth.py)
    # an A/B run's row whose program BASE and HEAD ran byte-identical (lab/ab_compare.py): not the code's
    same_binary: bool = False
    test: str = None  # which test decided the row where a rule chose between several (decide/policy.py), else None


@dataclass
class Row:
    group: str
    name: str
    unit: str
    higher_better: bool
    cells: dict  # column -> stats.Summary (missing columns absent)
    deltas: dict = field(default_factory=dict)  # column -> Delta (non-baseline columns)
    spreads: dict = field(default_factory=dict)  # column -> robust spread of its log values (noise.py)

    def mark_within_noise(self, column):
        self.deltas[column].within_noise = True


@dataclass
class GeomeanRow:
    group: str
    unit: str
    higher_better: bool
    values: dict  # column -> geomean of medians over rows present in every column
    pct: dict  # column -> change against the baseline's geomean


def verdict(cmp, pct, higher_better):
    if not cmp.significant:
        return "~"
    if pct is None:
        return "?"
    if pct == 0:
        return "same"
    if higher_better is None:
        return "changed"  # a unit of unknown direction: a `Unit <unit> better=…` line would say which
    return "better" if (pct > 0) == higher_better else "worse"


def geomean_row(group, unit, higher_better, columns, centers):
    """The geomean row of one group and unit; centers: column -> medians of the rows
    present in every column, in row order."""
    values = {c: stats.geomean(centers[c]) for c in columns}
    base = values[columns[0]]
    pct = {
        c: (stats.pct_change(base, values[c]) if base is not None and values[c] is not None else None)
        for c in columns[1:]
    }
    return GeomeanRow(group, unit, higher_better, values, pct)
