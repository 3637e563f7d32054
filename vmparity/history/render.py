"""`vmparity history` output: text, Markdown and JSON, from the tracks and their change points."""

import json
import math

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


def text(history, cps, method, tests, out):
    by_track = _by_track(cps)
    lines = []
    prov = history.provenance
    for t in history.tracks:
        lines.append(f"{t.host} · {t.target} · {t.name} · {t.unit} ({direction(t.higher_better)})")
        lines.append(f"  {'run':<34} {'commit':<18} {'branch':<12} {'median':>10}  {'95% CI':<22} n")
        for s in t.series:
            if s.changed:
                lines.append(f"  -- new series from run {t.run_ids[s.start]}: {changed_keys(s.changed)}")
            for i in range(s.start, s.stop):
                p = prov(t.run_ids[i], t.target)
                ci = f"[{bound(t.lo[i], '-∞')}, {bound(t.hi[i], '∞')}]"
                lines.append(f"  {t.run_ids[i]:<34} {provenance.label(p):<18} {p['branch']:<12} "
                             f"{num(t.median[i]):>10}  {ci:<22} {t.n[i]}")
        for cp in by_track.get(id(t), []):
            lines.append("  change: " + change_sentence(cp, prov))
        lines.append("")
    lines.append(f"{len(history.tracks)} track(s), {len(cps)} change point(s); {method.describe(tests)}.")
    out.write("\n".join(lines) + "\n")


def markdown(history, cps, method, tests, out):
    by_track = _by_track(cps)
    prov = history.provenance
    parts = ["# History", "", f"{len(history.tracks)} track(s), {len(cps)} change point(s). "
             f"Change points: {md_text(method.describe(tests))}.", ""]
    for t in history.tracks:
        parts.append(f"### {md_code(t.name)} on {md_code(t.target)} (host {md_code(t.host)}), "
                     f"{md_code(t.unit)}, {direction(t.higher_better)}")
        parts.append("")
        for cp in by_track.get(id(t), []):
            parts.append("- moved " + change_sentence(cp, prov, md_code))
        parts += ["", "| run | commit | branch | median | 95 % CI | n |", "|---|---|---|--:|---|--:|"]
        for s in t.series:
            if s.changed:
                parts.append(f"| **new series**: {md_text(changed_keys(s.changed))} | | | | | |")
            for i in range(s.start, s.stop):
                p = prov(t.run_ids[i], t.target)
                parts.append(f"| {md_code(t.run_ids[i])} | {md_code(provenance.label(p))} | {md_code(p['branch'])} | "
                             f"{num(t.median[i])} | [{bound(t.lo[i], '-∞')}, {bound(t.hi[i], '∞')}] | {t.n[i]} |")
        parts.append("")
    out.write("\n".join(parts) + "\n")


def as_json(history, cps, method, tests, out):
    by_track = _by_track(cps)
    prov = history.provenance

    def f(v):
        return None if v is None or math.isnan(v) else float(v)

    doc = {"schema": "vmparity-history/1",
           "method": {"window": method.window, "alpha": method.alpha, "min_change_pct": method.min_change,
                      "noise_sigmas": method.noise_sigmas, "tests": tests,
                      "p_threshold": method.alpha / tests if tests else None},
           "tracks": []}
    for t in history.tracks:
        series = []
        for s in t.series:
            series.append({"fingerprint": s.fingerprint, "changed": {k: list(v) for k, v in s.changed.items()},
                           "runs": [dict(run_id=t.run_ids[i], **prov(t.run_ids[i], t.target), median=f(t.median[i]),
                                         lo=f(t.lo[i]), hi=f(t.hi[i]), n=int(t.n[i])) for i in range(s.start, s.stop)]})
        doc["tracks"].append({
            "host": t.host, "target": t.target, "benchmark": t.name, "unit": t.unit,
            "higher_is_better": t.higher_better, "series": series,
            "change_points": [{"run_id": cp.run_id, "previous_run_id": cp.previous_run_id,
                               "commit": prov(cp.run_id, t.target)["commit"],
                               "previous_commit": prov(cp.previous_run_id, t.target)["commit"],
                               "pct": cp.pct, "p": cp.p, "verdict": cp.verdict, "runs_before": cp.n_before,
                               "runs_after": cp.n_after, "fingerprint_changed": {k: list(v) for k, v in cp.changed.items()}}
                              for cp in by_track.get(id(t), [])]})
    json.dump(doc, out, ensure_ascii=False, separators=(",", ":"))  # compact: the C encoder, 10x faster than indent
    out.write("\n")


def _by_track(cps):
    out = {}
    for cp in cps:
        out.setdefault(id(cp.track), []).append(cp)
    return out


FORMATS = {"text": text, "markdown": markdown, "json": as_json}
