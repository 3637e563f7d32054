"""Excursions: a change and the one that undid it, told as one story with both ends named.

Two consecutive change points of a track with opposite signs are an
excursion when the second brings the track back near its level before the
first: what is left of the two together is less than half of the first
(`+15 %` then `−13 %` leaves `0 %`; `+15 %` then `−5 %` is two changes).
Told as "+15.0 % (worse) for runs X..Y (5 runs), then back", with the
commit that regressed (the first run of the excursion) and the one that
recovered (the first run back).
"""

from dataclasses import dataclass
from pathlib import Path

from ..results import provenance
from ..results.targets import TCG_ACROSS_RUNS, TCG_GUEST

RETURN_SHARE = 0.5  # what may remain of the first change, as a share of it, for the track to be "back"
MAX_NOTES = 5  # excursions a PR comment lists


@dataclass
class Excursion:
    away: object  # changepoints.ChangePoint: the change that left the level
    back: object  # the one that returned to it

    @property
    def track(self):
        return self.away.track

    @property
    def runs(self):
        """How many runs the track stayed away."""
        return self.back.at - self.away.at

    @property
    def first_run_id(self):
        return self.away.run_id

    @property
    def last_run_id(self):
        return self.back.previous_run_id

    @property
    def back_run_id(self):
        return self.back.run_id


def find(cps):
    """The excursions among change points (of any tracks, in (track, run) order as detect() gives them)."""
    out = []
    for a, b in zip(cps, cps[1:]):
        if a.track is b.track and _is_return(a.pct, b.pct):
            out.append(Excursion(a, b))
    return out


def _is_return(away, back):
    if away is None or back is None or (away > 0) == (back > 0) or away == 0:
        return False
    left = (1 + away / 100) * (1 + back / 100) - 1  # what remains of both, as a ratio less one
    return abs(left) * 100 < RETURN_SHARE * abs(away)


def sentence(ex, prov, code=str):
    """`+15.0 % (worse) for runs X..Y (5 runs), then back (−13.0 %): regressed at commit c (run X), recovered at
    commit d (run Z)`; the commits as provenance labels them (`?` where a run's file names none)."""
    t, away, back = ex.track, ex.away, ex.back
    regressed = provenance.label(prov(ex.first_run_id, t.target))
    recovered = provenance.label(prov(ex.back_run_id, t.target))
    return (f"{away.pct:+.1f} % ({away.verdict}) for runs {code(ex.first_run_id)}..{code(ex.last_run_id)} "
            f"({ex.runs} run{'s' if ex.runs != 1 else ''}), then back ({back.pct:+.1f} %): "
            f"{'regressed' if away.verdict == 'worse' else 'moved'} at commit {code(regressed)} "
            f"(run {code(ex.first_run_id)}), {'recovered' if away.verdict == 'worse' else 'back'} at commit "
            f"{code(recovered)} (run {code(ex.back_run_id)})")


def as_json(ex, prov):
    t = ex.track
    return {"first_run_id": ex.first_run_id, "last_run_id": ex.last_run_id, "back_run_id": ex.back_run_id,
            "runs": ex.runs, "pct": ex.away.pct, "back_pct": ex.back.pct, "verdict": ex.away.verdict,
            "commit": prov(ex.first_run_id, t.target)["commit"],
            "back_commit": prov(ex.back_run_id, t.target)["commit"]}


def pr_notes(head, results_dir=None):
    """Markdown lines for a PR comment: the excursions in the stored history of the head run's targets up to
    it, those that ended at the head first, then the latest (MAX_NOTES in all); [] when the head is not a run
    stored under a runs directory, or when there are none. Never raises: the history is an extra there."""
    import sqlite3

    from .. import history
    from ..results import inputs
    from ..errors import InputError
    from . import changepoints
    from ..render.escape import md_code

    try:
        run_dir = Path(inputs.resolve(head, results_dir))
        if not run_dir.is_dir() or run_dir.parent.name != "runs":
            return []
        h = history.load(run_dir.parent, until=run_dir.name, warn=lambda m: None)
        mine = {t for (r, t) in h.files if r == run_dir.name}
        tracks = [t for t in h.tracks if t.target in mine]
        cps, _ = changepoints.detect(tracks)
    except (InputError, sqlite3.Error, OSError):
        return []
    # A TCG guest's rows are the emulator's speed (targets.TCG_ACROSS_RUNS): the comment's cross-run
    # judgement leaves them untested, and so does this list.
    found, emulated = [], []
    for ex in find(cps):
        (emulated if _emulated(h, ex) else found).append(ex)
    if not found and not emulated:
        return []
    found.sort(key=lambda e: e.back_run_id, reverse=True)  # the latest first,
    found.sort(key=lambda e: e.back_run_id != run_dir.name)  # after those that ended at the head
    lines = ["", "### Excursions in the stored history", ""]
    for ex in found[:MAX_NOTES]:
        t = ex.track
        lines.append(f"- {md_code(t.name)} ({md_code(t.unit)}) on {md_code(t.target)}: "
                     + sentence(ex, h.provenance, md_code))
    if len(found) > MAX_NOTES:
        lines.append(f"- … and {len(found) - MAX_NOTES} more (`vmparity history` lists them all).")
    if emulated:
        lines.append(f"- {len(emulated)} on emulated (TCG) guests left out: their {TCG_ACROSS_RUNS} "
                     "(`vmparity history` lists them).")
    return lines + [""]


def _emulated(h, ex):
    """Whether the excursion's track was a TCG guest in a run at either end of it."""
    t = ex.track
    return any(h.config(run_id, t.target).get("target-kind") == TCG_GUEST
               for run_id in (ex.first_run_id, ex.back_run_id) if (run_id, t.target) in h.files)
