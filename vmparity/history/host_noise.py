"""How noisy the host was in this run, against its own usual: the A/A pair's
round-to-round scatter beside the same figure on the machine's other stored runs.

Every band and minimum detectable effect of a run is calibrated on its A/A pair
(paired.py), so a run on a host in a noisy hour is quiet and deaf at once: its
report lists few differences because it could see only large ones. The
sensitivity table says how large; this says why, and whether it is the host's
usual. The figure is the median over the A/A pair's rows (speed units, six or more
paired rounds) of the spread of log(metal-aa / metal) from round to round, with
time rows at an equal core clock as the paired rule judges them (coreclock.py);
the history is the newest RUNS runs before it of the same machine (the
`machine` key) and the same kind and profile (`…-lab-quick`), read from their
metal and metal-aa files and rounds.json alone. A run is *noisier than usual* when its
scatter is at least NOISIER times the median of at least MIN_HISTORY_RUNS of them:
evidence for the reader, not a decision (docs/noise.md, "The
host's noise against its usual").
"""

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..results import inputs, machine, round_record
from ..results.spec import speed_units
from ..results.targets import AA_CONTROL, METAL
from ..stats import sensitivity
from ..decide import coreclock, paired

RUNS = 16
MIN_HISTORY_RUNS = 4
NOISIER = 2.0
_ALPHA = 0.05
_KIND = re.compile(r"Z-(?P<kind>[^/]+)$")  # run ids end "…T22-54-06Z-lab-quick"


@dataclass
class HostNoise:
    scatter_pct: float  # this run's A/A scatter
    rows: int  # the A/A rows it is the median of
    kind: str  # the runs compared: "lab-quick"
    history: list = field(default_factory=list)  # [(run name, scatter %)] newest first

    @property
    def usual(self):
        """(median, lowest, highest) of the history's scatter, or None with too few runs."""
        if len(self.history) < MIN_HISTORY_RUNS:
            return None
        v = [s for _, s in self.history]
        return float(np.median(v)), min(v), max(v)

    @property
    def times_usual(self):
        u = self.usual
        return self.scatter_pct / u[0] if u and u[0] > 0 else math.nan

    @property
    def noisier(self):
        # against the median, not the highest: one noisy run before it must not hide the next
        return self.usual is not None and self.times_usual >= NOISIER

    def sentence(self):
        """One plain sentence (escape it for the medium)."""
        head = (f"the A/A pair's round-to-round scatter was {self.scatter_pct:.1f} % (median of {self.rows} rows)")
        u = self.usual
        if u is None:
            return (f"{head}; this machine has {len(self.history)} earlier {self.kind} run(s) stored, too few "
                    f"(fewer than {MIN_HISTORY_RUNS}) to say whether that is its usual")
        usual = (f"on this machine's {len(self.history)} runs of {self.kind} before it, it was {u[1]:.1f}–{u[2]:.1f} % "
                 f"(median {u[0]:.1f} %)")
        if self.noisier:
            return (f"{head}; {usual}. The host was {self.times_usual:.1f}x noisier than its usual in this run: every "
                    "band and minimum detectable effect is wider for it, and a difference smaller than those may be "
                    "there unseen; the same code at a quieter hour sees more")
        return f"{head}; {usual}: within the host's usual"


def scatter(metal_rf, aa_rf, record):
    """(median scatter %, rows) of the A/A pair of one run, or None when no row has enough paired rounds."""
    metal, aa, _ = coreclock.pair_at_equal_clock(round_record.per_round(metal_rf, record),
                                                 round_record.per_round(aa_rf, record))
    speed = speed_units()
    spreads = []
    for (_, unit), d in paired.pair_differences(metal, aa).items():
        if unit not in speed:
            continue
        ev = paired.evidence(d)
        if sensitivity.signed_rank_reachable(ev.n, _ALPHA) and math.isfinite(ev.spread):
            spreads.append(ev.spread)
    if not spreads:
        return None
    return math.expm1(float(np.median(spreads))) * 100, len(spreads)


def assess(run_dir, files):
    """HostNoise of the run at run_dir (its loaded files), or None when it has no A/A pair
    measured in paired rounds. The history: the runs before it in run_dir's parent (run ids
    sort by time), so a report written again later says what it said."""
    by_target = {rf.target: rf for rf in files}
    record = round_record.load(run_dir)
    if METAL not in by_target or AA_CONTROL not in by_target or not record:
        return None
    this = scatter(by_target[METAL], by_target[AA_CONTROL], record)
    kind = _kind(run_dir)
    if this is None or kind is None:
        return None
    out = HostNoise(this[0], this[1], kind)
    who = machine.of_run(files)
    if who is None:
        return out
    profile = by_target[METAL].config.get("profile")
    for other in sorted((p for p in run_dir.parent.iterdir() if p.is_dir()), reverse=True):
        if len(out.history) >= RUNS:
            break
        if other.name >= run_dir.name or _kind(other) != kind:  # the runs before it: a report stays as written
            continue
        figure = _figure_of(other, who, profile)
        if figure is not None:
            out.history.append((other.name, figure))
    return out


def _kind(run_dir):
    m = _KIND.search(run_dir.name)
    return m.group("kind") if m else None


def _figure_of(run_dir, who, profile):
    """The scatter of another stored run of machine `who` and the same profile; None when it is
    not one (another machine, no A/A pair, no rounds) or cannot be read: no evidence either way."""
    metal_rf = inputs.stored_file(run_dir, METAL)
    # metal's header says whose run it is: another machine's run is not read further
    if metal_rf is None or machine.of_config(metal_rf.config) != who or metal_rf.config.get("profile") != profile:
        return None
    aa_rf = inputs.stored_file(run_dir, AA_CONTROL)
    try:
        record = round_record.load(run_dir)
    except (InputError, OSError):
        return None
    if aa_rf is None or not record:
        return None
    figure = scatter(metal_rf, aa_rf, record)
    return figure[0] if figure else None
