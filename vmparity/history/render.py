"""`vmparity history` output: text, Markdown and JSON, from the tracks and their change points."""

import json
import math

import numpy as np

from ..render.escape import md_code, md_text, terminal
from ..render.text import output_width, wrap
from ..results import provenance
from . import excursions
from .columns import TOO_FEW, RunColumns, floats, intervals, nums, rows


def num(v):
    return "?" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"


def interval(lo, hi):
    """A run's 95 % interval, or `n too small` where its samples bound none at one end."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return TOO_FEW
    return f"[{lo:.4g}, {hi:.4g}]"


def pct(v):
    if v is None:
        return "?"
    s = f"{v:+.1f}"
    return ("0.0" if s in ("+0.0", "-0.0") else s) + " %"


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


def summary(history, cps, method, away):
    """The answer first: how many tracks, how many change points beyond the floor, which way."""
    verdicts = {}
    for cp in cps:
        verdicts[cp.verdict] = verdicts.get(cp.verdict, 0) + 1
    how = ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items(), key=lambda x: (-x[1], x[0])))
    return (f"{len(history.tracks)} track(s), {len(cps)} change point(s) of at least {method.min_change:g} %"
            f"{' (' + how + ')' if how else ''}{_excursion_count(away)}")


def largest(items, size, top):
    """(the `top` items of the largest |size| first, how many are left out); top None: all of them."""
    ranked = sorted(items, key=lambda x: -abs(size(x)) if size(x) is not None else 0.0)
    if top is None or len(ranked) <= top:
        return ranked, 0
    return ranked[:top], len(ranked) - top


def _left_out(count, what):
    return f"{count} more {what} not shown: --top N shows more, --all every one" if count else ""


TEXT_ROW = "%s%10.4g  %-22s %d"  # run columns, median, 95 % CI, n: the header's widths, the median as num()
TEXT_ROW_NAN = "%s%10s  %-22s %d"  # the same with the median formatted by nums(), where one is nan (`?`)
MARKDOWN_ROW = "%s%s | %s | %d |"


def _track_title(t):
    return terminal(f"{t.host} · {t.target} · {t.name} · {t.unit}") + f" ({direction(t.higher_better)})"


def text(history, cps, method, tests, out, top=None, tracks=False):
    """The summary first; then the change points and excursions, largest first (at most `top` of each;
    None: all), or with tracks=True every run of every track; the method last. Its sentences wrap at the
    width of $COLUMNS or the terminal (a run-id never breaks)."""
    by_track, away = _by_track(cps), _excursions_by_track(cps)
    prov = history.provenance
    width = output_width(out)

    def say(line):  # wrapped under its own indent (render.text.wrap)
        out.write("\n".join(wrap(line, width)) + "\n")

    say(summary(history, cps, method, away) + ".")
    out.write("\n")
    if tracks:
        _text_tracks(history, by_track, away, prov, out)
    else:
        shown, more = largest(cps, lambda cp: cp.pct, top)
        if shown:
            say(f"Change points, largest first ({len(shown)} of {len(cps)}; --tracks prints every run of every "
                f"track):")
        for cp in shown:
            say(f"  {_track_title(cp.track)}")
            say(terminal("    change: " + change_sentence(cp, prov)))
        if more:
            say(f"  {_left_out(more, 'change point(s)')}")
        trips = [ex for exs in away.values() for ex in exs]
        shown, more = largest(trips, lambda ex: ex.away.pct, top)
        if shown:
            out.write("\n")
            say(f"Excursions, largest first ({len(shown)} of {len(trips)}):")
        for ex in shown:
            say(f"  {_track_title(ex.track)}")
            say(terminal("    excursion: " + excursions.sentence(ex, prov)))
        if more:
            say(f"  {_left_out(more, 'excursion(s)')}")
        if cps:
            out.write("\n")
    say(f"Change points: {method.describe(tests)}.")


def _text_tracks(history, by_track, away, prov, out):
    # a history prints a few hundred thousand rows: columns.py formats them a track at a time, and they are
    # written as they come (one string of every track would be copied, and encoded, at once)
    runs = RunColumns(prov, lambda run_id, p: terminal(f"  {run_id:<34} {provenance.label(p):<18} {p['branch']:<12} "))
    for t in history.tracks:
        out.write(_track_title(t) + "\n"
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


def markdown(history, cps, method, tests, out, top=None, tracks=False):
    by_track, away = _by_track(cps), _excursions_by_track(cps)
    prov = history.provenance
    parts = ["# History", "", md_text(summary(history, cps, method, away)) + ".", ""]
    if tracks:
        parts += _markdown_tracks(history, by_track, away, prov)
    else:
        shown, more = largest(cps, lambda cp: cp.pct, top)
        if shown:
            parts += [f"## Change points, largest first ({len(shown)} of {len(cps)})", ""]
        for cp in shown:
            t = cp.track
            parts.append(f"- {md_code(t.name)} on {md_code(t.target)} (host {md_code(t.host)}), {md_code(t.unit)}: "
                         + change_sentence(cp, prov, md_code))
        if more:
            parts.append(f"- {md_text(_left_out(more, 'change point(s)'))}")
        trips = [ex for exs in away.values() for ex in exs]
        shown, more = largest(trips, lambda ex: ex.away.pct, top)
        if shown:
            parts += ["", f"## Excursions, largest first ({len(shown)} of {len(trips)})", ""]
        for ex in shown:
            t = ex.track
            parts.append(f"- {md_code(t.name)} on {md_code(t.target)} (host {md_code(t.host)}), {md_code(t.unit)}: "
                         + excursions.sentence(ex, prov, md_code))
        if more:
            parts.append(f"- {md_text(_left_out(more, 'excursion(s)'))}")
        if cps:
            parts.append("")
    parts += [f"Change points: {md_text(method.describe(tests))}.", ""]
    out.write("\n".join(parts))


def _markdown_tracks(history, by_track, away, prov):
    runs = RunColumns(prov, lambda run_id, p: f"| {md_code(run_id, True)} | {md_code(provenance.label(p), True)} | "
                                              f"{md_code(p['branch'], True)} | ")
    parts = []
    for t in history.tracks:
        parts.append(f"### {md_code(t.name)} on {md_code(t.target)} (host {md_code(t.host)}), "
                     f"{md_code(t.unit)}, {direction(t.higher_better)}")
        parts.append("")
        for cp in by_track.get(id(t), []):
            parts.append("- moved " + change_sentence(cp, prov, md_code))
        for ex in away.get(id(t), []):
            parts.append("- excursion: " + excursions.sentence(ex, prov, md_code))
        parts += ["", "| run | commit | branch | median | 95 % CI | n |", "|---|---|---|--:|---|--:|"]
        cols = (runs.of(t), nums(t.median), intervals(t.lo, t.hi), t.n.tolist())
        for s in t.series:
            if s.changed:
                parts.append(f"| **new series**: {md_text(changed_keys(s.changed))} | | | | | |")
            parts.append(rows(MARKDOWN_ROW, cols, s.start, s.stop))
        parts.append("")
    return parts


def as_json(history, cps, method, tests, out, top=None, tracks=True):
    """Every track, run and change point: JSON is for programs (top and tracks are the text views')."""
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
