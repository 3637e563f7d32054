"""`vmparity history` output: text, Markdown and JSON, from the tracks and their change points."""

import json
import math

import numpy as np

from ..render.escape import md_code, md_text, terminal
from ..results import provenance
from . import excursions
from .columns import RunColumns, floats, intervals, nums, rows


def num(v):
    return "?" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"


def bound(v, inf):
    return inf if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"


def pct(v):
    return "?" if v is None else f"{v:+.1f} %"


def direction(hb):
    return "higher is better" if hb else "lower is better" if hb is not None else "direction unknown"


def changed_keys(changed):
    return ", ".join(f"{k} {a or '(empty)'} → {b or '(empty)'}" for k, (a, b) in changed.items())


def change_sentence(cp, prov, code=str):
    """`+100.3 % (worse) at run X, commit c (previous run Y, commit d); p=…; fingerprint changed k`."""
    t = cp.track
    now, before = prov(cp.run_id, t.target), prov(cp.previous_run_id, t.target)
    s = (f"{pct(cp.pct)} ({cp.verdict}) at run {code(cp.run_id)}, commit {code(provenance.label(now))} "
         f"(previous run {code(cp.previous_run_id)}, commit {code(provenance.label(before))}); "
         f"p = {cp.p:.2g}, {cp.n_before} runs before, {cp.n_after} after")
    if cp.changed:
        s += "; the fingerprint changed " + ", ".join(code(k) for k in cp.changed) + " at the same run"
    return s


TEXT_ROW = "%s%10.4g  %-22s %d"  # run columns, median, 95 % CI, n: the header's widths, the median as num()
TEXT_ROW_NAN = "%s%10s  %-22s %d"  # the same with the median formatted by nums(), where one is nan (`?`)
MARKDOWN_ROW = "%s%s | [%s, %s] | %d |"


def text(history, cps, method, tests, out):
    by_track, away = _by_track(cps), _excursions_by_track(cps)
    prov = history.provenance
    # a history prints a few hundred thousand rows: columns.py formats them a track at a time, and they are
    # written as they come (one string of every track would be copied, and encoded, at once)
    runs = RunColumns(prov, lambda run_id, p: terminal(f"  {run_id:<34} {provenance.label(p):<18} {p['branch']:<12} "))
    for t in history.tracks:
        out.write(terminal(f"{t.host} · {t.target} · {t.name} · {t.unit}") + f" ({direction(t.higher_better)})\n"
                  f"  {'run':<34} {'commit':<18} {'branch':<12} {'median':>10}  {'95% CI':<22} n\n")
        if np.isnan(t.median).any():
            row, median = TEXT_ROW_NAN, nums(t.median)
        else:
            row, median = TEXT_ROW, t.median.tolist()
        cols = (runs.of(t), median, intervals(t.lo, t.hi), t.n.tolist())
        for s in t.series:
            if s.changed:
                out.write(terminal(f"  -- new series from run {t.run_ids[s.start]}: {changed_keys(s.changed)}") + "\n")
            out.write(rows(row, cols, s.start, s.stop))
            out.write("\n")
        for cp in by_track.get(id(t), []):
            out.write(terminal("  change: " + change_sentence(cp, prov)) + "\n")
        for ex in away.get(id(t), []):
            out.write(terminal("  excursion: " + excursions.sentence(ex, prov)) + "\n")
        out.write("\n")
    out.write(f"{len(history.tracks)} track(s), {len(cps)} change point(s){_excursion_count(away)}; "
              f"{method.describe(tests)}.\n")


def markdown(history, cps, method, tests, out):
    by_track, away = _by_track(cps), _excursions_by_track(cps)
    prov = history.provenance
    runs = RunColumns(prov, lambda run_id, p: f"| {md_code(run_id, True)} | {md_code(provenance.label(p), True)} | "
                                              f"{md_code(p['branch'], True)} | ")
    parts = ["# History", "", f"{len(history.tracks)} track(s), {len(cps)} change point(s){_excursion_count(away)}. "
             f"Change points: {md_text(method.describe(tests))}.", ""]
    for t in history.tracks:
        parts.append(f"### {md_code(t.name)} on {md_code(t.target)} (host {md_code(t.host)}), "
                     f"{md_code(t.unit)}, {direction(t.higher_better)}")
        parts.append("")
        for cp in by_track.get(id(t), []):
            parts.append("- moved " + change_sentence(cp, prov, md_code))
        for ex in away.get(id(t), []):
            parts.append("- excursion: " + excursions.sentence(ex, prov, md_code))
        parts += ["", "| run | commit | branch | median | 95 % CI | n |", "|---|---|---|--:|---|--:|"]
        cols = (runs.of(t), nums(t.median), nums(t.lo, "-∞"), nums(t.hi, "∞"), t.n.tolist())
        for s in t.series:
            if s.changed:
                parts.append(f"| **new series**: {md_text(changed_keys(s.changed))} | | | | | |")
            parts.append(rows(MARKDOWN_ROW, cols, s.start, s.stop))
        parts.append("")
    out.write("\n".join(parts) + "\n")


def as_json(history, cps, method, tests, out):
    by_track, away = _by_track(cps), _excursions_by_track(cps)
    prov = history.provenance
    runs = RunColumns(prov, lambda run_id, p: dict(run_id=run_id, **p))
    head = {"schema": "vmparity-history/1",
            "method": {"window": method.window, "alpha": method.alpha, "min_change_pct": method.min_change,
                       "noise_sigmas": method.noise_sigmas, "tests": tests,
                       "p_threshold": method.alpha / tests if tests else None},
            "tracks": []}
    # json.dumps, not json.dump: dump streams through the pure-Python encoder, dumps uses the C one (10x
    # faster). One document, written a track at a time: `{…,"tracks":[` + the tracks + `]}`
    out.write(_dumps(head)[:-len("]}")])
    for i, t in enumerate(history.tracks):
        per_run = [{**base, "median": m, "lo": lo, "hi": hi, "n": n} for base, m, lo, hi, n in
                   zip(runs.of(t), floats(t.median), floats(t.lo), floats(t.hi), t.n.tolist())]
        series = [{"fingerprint": s.fingerprint, "changed": {k: list(v) for k, v in s.changed.items()},
                   "runs": per_run[s.start:s.stop]} for s in t.series]
        track = {
            "host": t.host, "target": t.target, "benchmark": t.name, "unit": t.unit,
            "higher_is_better": t.higher_better, "series": series,
            "change_points": [{"run_id": cp.run_id, "previous_run_id": cp.previous_run_id,
                               "commit": prov(cp.run_id, t.target)["commit"],
                               "previous_commit": prov(cp.previous_run_id, t.target)["commit"],
                               "pct": cp.pct, "p": cp.p, "verdict": cp.verdict, "runs_before": cp.n_before,
                               "runs_after": cp.n_after, "fingerprint_changed": {k: list(v) for k, v in cp.changed.items()}}
                              for cp in by_track.get(id(t), [])],
            "excursions": [excursions.as_json(ex, prov) for ex in away.get(id(t), [])]}
        out.write(("," if i else "") + _dumps(track))
    out.write("]}\n")


def _dumps(doc):
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=_plain)


def _plain(value):
    """A numpy number as the Python one json writes (a numpy integer among the values once made it fail)."""
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _excursions_by_track(cps):
    out = {}
    for ex in excursions.find(cps):
        out.setdefault(id(ex.track), []).append(ex)
    return out


def _excursion_count(away):
    n = sum(map(len, away.values()))
    return f", {n} excursion(s) (a change and the one that undid it)" if n else ""


def _by_track(cps):
    out = {}
    for cp in cps:
        out.setdefault(id(cp.track), []).append(cp)
    return out


FORMATS = {"text": text, "markdown": markdown, "json": as_json}
