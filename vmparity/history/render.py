"""`vmparity history` output: text, Markdown and JSON, from the tracks and their change points."""

import json
import math

import numpy as np

from .. import provenance


def md_code(text):
    """A Markdown code span that a `|` or a backtick in the value cannot break out of."""
    return "`" + str(text).replace("`", "'").replace("|", "\\|") + "`"


def md_text(text):
    return str(text).replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`").replace("<", "&lt;")


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


TEXT_ROW = "%s%10.4g  %-22s %d"  # run columns, median, 95 % CI, n; the same text as num() in the header's widths
TEXT_ROW_NAN = "%s%10s  %-22s %d"  # the same with the median formatted by nums(): one that is nan prints `?`
MARKDOWN_ROW = "%s%s | [%s, %s] | %d |"


def text(history, cps, method, tests, out):
    by_track = _by_track(cps)
    prov = history.provenance
    # a history prints a few hundred thousand rows: every column is formatted a track at a time, and each
    # track written on its own (one string of every track would be copied, and encoded, at once)
    runs = RunColumns(prov, lambda run_id, p: f"  {run_id:<34} {provenance.label(p):<18} {p['branch']:<12} ")
    for t in history.tracks:
        lines = [f"{t.host} · {t.target} · {t.name} · {t.unit} ({direction(t.higher_better)})",
                 f"  {'run':<34} {'commit':<18} {'branch':<12} {'median':>10}  {'95% CI':<22} n"]
        if np.isnan(t.median).any():
            rows = list(map(TEXT_ROW_NAN.__mod__, zip(runs.of(t), nums(t.median), intervals(t), t.n.tolist())))
        else:
            rows = list(map(TEXT_ROW.__mod__, zip(runs.of(t), t.median.tolist(), intervals(t), t.n.tolist())))
        for s in t.series:
            if s.changed:
                lines.append(f"  -- new series from run {t.run_ids[s.start]}: {changed_keys(s.changed)}")
            lines += rows[s.start:s.stop]
        for cp in by_track.get(id(t), []):
            lines.append("  change: " + change_sentence(cp, prov))
        lines.append("\n")
        out.write("\n".join(lines))
    out.write(f"{len(history.tracks)} track(s), {len(cps)} change point(s); {method.describe(tests)}.\n")


def intervals(track):
    """`[lo, hi]` of every run of track, bound() at each end, in one format per run."""
    lo_nan, hi_nan = np.isnan(track.lo), np.isnan(track.hi)
    if not hi_nan.any():
        if lo_nan.all():  # few samples: bounded above only, the common case of 5 samples
            return map("[-∞, %.4g]".__mod__, track.hi.tolist())
        if not lo_nan.any():
            return map("[%.4g, %.4g]".__mod__, zip(track.lo.tolist(), track.hi.tolist()))
    return map("[%s, %s]".__mod__, zip(nums(track.lo, "-∞"), nums(track.hi, "∞")))


def markdown(history, cps, method, tests, out):
    by_track = _by_track(cps)
    prov = history.provenance
    runs = RunColumns(prov, lambda run_id, p: f"| {md_code(run_id)} | {md_code(provenance.label(p))} | "
                                              f"{md_code(p['branch'])} | ")
    parts = ["# History", "", f"{len(history.tracks)} track(s), {len(cps)} change point(s). "
             f"Change points: {md_text(method.describe(tests))}.", ""]
    for t in history.tracks:
        parts.append(f"### {md_code(t.name)} on {md_code(t.target)} (host {md_code(t.host)}), "
                     f"{md_code(t.unit)}, {direction(t.higher_better)}")
        parts.append("")
        for cp in by_track.get(id(t), []):
            parts.append("- moved " + change_sentence(cp, prov, md_code))
        parts += ["", "| run | commit | branch | median | 95 % CI | n |", "|---|---|---|--:|---|--:|"]
        rows = list(map(MARKDOWN_ROW.__mod__, zip(runs.of(t), nums(t.median), nums(t.lo, "-∞"), nums(t.hi, "∞"),
                                                  t.n.tolist())))
        for s in t.series:
            if s.changed:
                parts.append(f"| **new series**: {md_text(changed_keys(s.changed))} | | | | | |")
            parts += rows[s.start:s.stop]
        parts.append("")
    out.write("\n".join(parts) + "\n")


def as_json(history, cps, method, tests, out):
    by_track = _by_track(cps)
    prov = history.provenance
    runs = RunColumns(prov, lambda run_id, p: dict(run_id=run_id, **p))
    doc = {"schema": "vmparity-history/1",
           "method": {"window": method.window, "alpha": method.alpha, "min_change_pct": method.min_change,
                      "noise_sigmas": method.noise_sigmas, "tests": tests,
                      "p_threshold": method.alpha / tests if tests else None},
           "tracks": []}
    for t in history.tracks:
        per_run = [{**base, "median": m, "lo": lo, "hi": hi, "n": n} for base, m, lo, hi, n in
                   zip(runs.of(t), floats(t.median), floats(t.lo), floats(t.hi), t.n.tolist())]
        series = [{"fingerprint": s.fingerprint, "changed": {k: list(v) for k, v in s.changed.items()},
                   "runs": per_run[s.start:s.stop]} for s in t.series]
        doc["tracks"].append({
            "host": t.host, "target": t.target, "benchmark": t.name, "unit": t.unit,
            "higher_is_better": t.higher_better, "series": series,
            "change_points": [{"run_id": cp.run_id, "previous_run_id": cp.previous_run_id,
                               "commit": prov(cp.run_id, t.target)["commit"],
                               "previous_commit": prov(cp.previous_run_id, t.target)["commit"],
                               "pct": cp.pct, "p": cp.p, "verdict": cp.verdict, "runs_before": cp.n_before,
                               "runs_after": cp.n_after, "fingerprint_changed": {k: list(v) for k, v in cp.changed.items()}}
                              for cp in by_track.get(id(t), [])]})
    # dumps, not dump: json.dump streams through the pure-Python encoder, dumps uses the C one (10x faster)
    out.write(json.dumps(doc, ensure_ascii=False, separators=(",", ":")))
    out.write("\n")


class RunColumns:
    """The columns a run prints the same in every track of its target (run-id, commit, branch), made once."""

    def __init__(self, prov, make):
        self.prov, self.make, self.by_target = prov, make, {}

    def of(self, track):
        """The columns of each run of track, in its order."""
        target = track.target
        cols = self.by_target.get(target)
        if cols is None:
            cols = self.by_target[target] = _Columns(lambda run_id: self.make(run_id, self.prov(run_id, target)))
        return map(cols.__getitem__, track.run_ids)


class _Columns(dict):
    def __init__(self, make):
        super().__init__()
        self.make = make

    def __missing__(self, run_id):
        value = self[run_id] = self.make(run_id)
        return value


def nums(values, missing="?"):
    """num() of every value of an array (bound() with missing for the interval ends), at list speed."""
    nan = np.isnan(values)
    if nan.all():
        return [missing] * len(values)
    out = list(map("%.4g".__mod__, values.tolist()))  # the same text as f"{v:.4g}"
    for i in np.flatnonzero(nan).tolist():
        out[i] = missing
    return out


def floats(values):
    """The values of an array as JSON numbers, None (null) for nan."""
    return [None if v != v else v for v in values.tolist()]


def _by_track(cps):
    out = {}
    for cp in cps:
        out.setdefault(id(cp.track), []).append(cp)
    return out


FORMATS = {"text": text, "markdown": markdown, "json": as_json}
