"""The verdict on an explanation whose fix the lab applied: verified, partly, refuted.

`vmparity lab verify` measures, in the same rounds, metal (with its A/A pass),
the original target and the intervention target (the original with only the
fix applied). Per explained row it knows:

- before: the original's change against metal, and whether it is beyond noise
  (decide/noise.py, this run's A/A control);
- after: the intervention target's change against metal, and whether that is
  beyond noise;
- moved: whether the intervention target differs from the original beyond
  noise (significant and beyond the band between the two), and in which
  direction.

The rule, over the rows whose difference showed again (before beyond noise):

- share of the gap closed, per row 1 − log(after) / log(before) (log ratios to
  metal), and its median over the rows; its interval: the medians over the
  rows of each share minus and plus the row's uncertainty, the band between
  the target and its fix over the row's gap (a move within that band is
  noise, so the share is known no better than that; 0 where the band is not
  known);
- **verified**: the share's whole interval lies at or above VERIFIED_SHARE
  (50 %), and at least half the rows either moved toward metal beyond noise
  or are now within noise of metal: shown, as a seed verdict is shown when
  its whole interval clears the bar. Either half will do: a row the fix took
  from beyond noise of metal to within it has closed its gap by the run's
  own rule, even where one slow repetition a side leaves the U test between
  the target and its fix short of α at five values each (container-nolimit's
  system-call clock rows on `2026-12-06T19-52-40Z-verify-quick`: 14 of 14
  within noise of metal after the fix, 100 % of the gap closed, 88 … 111 %,
  and 2 of 14 "moved", where container-quota's were 12 of 14);
- **partly**: some row moved toward metal beyond noise and the median share
  is above 0, short of verified; the share and its interval are given. A cut
  on the interval, not on the median: two guests whose fixes closed 48 % and
  53 % of the gap with intervals that both straddle half get the same verdict
  (issue 56), partly, until more rounds narrow them;
- **refuted**: no row moved toward metal beyond noise (the fix changed nothing
  beyond noise, or made it worse): the rule matched the wrong cause; but only
  where the run could have seen the fix work, that is, where closing a row's
  gap whole would have been a move beyond the band between the target and
  its fix, and the U test between them can reach α with the values each
  side has (RowEffect.visible);
- **inconclusive**: the difference did not show beyond noise in this run, so
  there is nothing for the fix to close; or no row moved and every gap is
  within the band between the target and its fix, so that not even a fix
  that closed it whole could have shown (a 3 % gap in a five-round verify
  run whose band there is 4 %: more rounds decide); or another fix measured on the same
  rows, one that keeps what this fix changes, closed the gap about as far
  (closed_alike): every intervention target is a new instance of the target,
  and a difference that lived in the old instance closes under any fix.

*Not testable here* is decided before anything is measured (the plan says why).
"""

import math
from dataclasses import dataclass, field
from statistics import median

VERIFIED_SHARE = 0.5  # a fix that closes at least half the gap (median over the rows) is verified
VERDICTS = ("verified", "partly", "refuted", "inconclusive", "not testable here")


@dataclass
class RowEffect:
    name: str
    unit: str
    before: float  # % change of the original target against metal in the verify run
    after: float  # % change of the intervention target against metal
    before_beyond: bool  # the original's difference is beyond noise
    after_beyond: bool  # the intervention target's difference from metal is beyond noise
    moved: bool  # the intervention target differs from the original beyond noise
    # closing the gap whole would be a move beyond the band between the original and the
    # intervention target: the run could have seen the fix work on this row
    visible: bool = True
    band: float = None  # that band, % (None: not known)


# Why a verdict is what it is (Verdict.why): render/verification.py says each in words.
NOT_SHOWN = "not-shown"  # the explained difference did not show beyond noise in this run
CLOSED = "closed"  # verified: most rows moved toward metal, the gap closed (interval at or above VERIFIED_SHARE)
SOME_CLOSED = "some-closed"  # partly: some rows moved toward metal, short of verified
UNSEEABLE = "unseeable"  # nothing moved, and no gap was wider than the band: not even a whole closure could show
AWAY = "away"  # refuted: the fix moved rows away from metal
UNCHANGED = "unchanged"  # refuted: the fix changed no row beyond noise although the run could have seen it


@dataclass
class Verdict:
    verdict: str
    share: float = None  # median share of the gap closed (0..1, may exceed 1 or go below 0), None when untested
    share_interval: tuple = None  # (low, high) of that share (share_interval), None when untested
    rows: int = 0  # rows whose difference showed again
    moved: int = 0  # of those, rows the fix moved toward metal beyond noise
    closed: int = 0  # of those, rows now within noise of metal
    why: str = ""  # NOT_SHOWN, CLOSED, …: the case of the rule that gave the verdict
    measured: int = 0  # rows measured, shown or not
    away: int = 0  # rows the fix moved away from metal beyond noise (AWAY)
    gap: float = None  # the largest gap, % (UNSEEABLE)
    band: float = None  # the narrowest band between the target and its fix, % (UNSEEABLE; None when not known)
    effects: list = field(default_factory=list)


def _log(pct):
    return math.log1p(pct / 100) if pct is not None and pct > -100 else None


def share_closed(before, after):
    """The share of a row's gap to metal that the fix closed, from % changes against metal
    (1: all of it, 0: none, below 0: wider than before); None when there was no gap."""
    lb, la = _log(before), _log(after)
    if lb is None or la is None or lb == 0:
        return None
    return 1 - la / lb


def share_interval(shown):
    """(low, high) of the median share of the gap closed over the rows `shown` (RowEffects with a
    gap): the medians of each row's share minus and plus the band between the target and its fix
    as a share of the row's gap (log ratios); a row whose band is not known counts as exact."""
    lows, highs = [], []
    for e in shown:
        s = share_closed(e.before, e.after)
        u = abs(_log(e.band) / _log(e.before)) if e.band is not None and _log(e.band) is not None else 0.0
        lows.append(s - u)
        highs.append(s + u)
    return median(lows), median(highs)


def _toward(e):
    """The fix moved the row toward metal (beyond noise)."""
    s = share_closed(e.before, e.after)
    return e.moved and s is not None and s > 0


def judge(effects):
    """The Verdict of one intervention on the rows of one explanation (RowEffect list); why it
    is that verdict is data (Verdict.why and the numbers), said in words by render/verification.py."""
    shown = [e for e in effects if e.before_beyond and share_closed(e.before, e.after) is not None]
    if not shown:
        return Verdict("inconclusive", why=NOT_SHOWN, measured=len(effects), effects=effects)
    share = median(share_closed(e.before, e.after) for e in shown)
    low, high = share_interval(shown)
    moved = sum(1 for e in shown if _toward(e))
    closed = sum(1 for e in shown if not e.after_beyond)
    n = len(shown)
    base = dict(share=share, share_interval=(low, high), rows=n, moved=moved, closed=closed, effects=effects,
                measured=len(effects))
    if low >= VERIFIED_SHARE - 1e-9 and (2 * moved >= n or 2 * closed >= n):
        return Verdict("verified", why=CLOSED, **base)
    if moved and share > 0:
        return Verdict("partly", why=SOME_CLOSED, **base)
    away = sum(1 for e in shown if e.moved and not _toward(e))
    if not moved and not away and not any(e.visible for e in shown):
        bands = [e.band for e in shown if e.band is not None]
        return Verdict("inconclusive", why=UNSEEABLE, gap=max(abs(e.before) for e in shown),
                       band=min(bands) if bands else None, **base)
    return Verdict("refuted", why=AWAY if away else UNCHANGED, away=away, **base)


# A sibling that closed the gap within this much of the fix's own share closed it alike
ALIKE_SHARE = 0.25


def closed_alike(v, mine, siblings, judged):
    """The sibling intervention (of the same original target, measured on the same rows) that
    changes none of the fields `mine` changes and yet closed the gap about as far (its verified or
    partly share within ALIKE_SHARE of v's): a control the lab measured for free. Each
    intervention target is made anew (a container started again, a guest booted again), so a
    difference that lived in the original instance (its pages, its placement) closes under any
    fix; only a fix that closes more than such a control is shown to be the cause. None when v
    did not close the gap or no sibling closed it alike."""
    if v.verdict not in ("verified", "partly") or v.share is None:
        return None
    fields = {c["field"] for c in mine.get("changes") or []}
    for s in siblings:
        other = judged.get(s["target"])
        if (s["target"] == mine["target"] or other is None or other.share is None
                or other.verdict not in ("verified", "partly") or fields & {c["field"] for c in s.get("changes") or []}):
            continue
        if other.share >= v.share - ALIKE_SHARE:
            return s
    return None


def carrier(verdicts):
    """Of several interventions measured on the same rows ({intervention: Verdict}), the one
    that carries the difference: the verified or partly one with the largest share; None when none does."""
    ranked = [(v.verdict == "verified", v.share, name) for name, v in verdicts.items()
              if v.verdict in ("verified", "partly") and v.share is not None]
    return max(ranked)[2] if ranked else None
