"""The report's *History* section: this run against the earlier runs of the same host.

Present only when the run is stored under a runs directory that holds
earlier runs of one of its targets on the same host. It says which rows
moved at this run and why when the fingerprint changed with them (the
explain rules, applied to the run before and this one), and lists the change
points found earlier in the same tracks (vmparity.history.changepoints).
"""

import sqlite3
from pathlib import Path

from ..decide import explain
from .. import history, stats
from ..errors import InputError
from ..history import changepoints, explain_change
from ..history.render import change_sentence, changed_keys
from ..render.escape import md_code, md_text
from ..render import fold

MAX_MOVED = 20  # rows listed as moved at this run; the rest are counted
MAX_EARLIER = 10  # earlier change points listed
MAX_RUNS = 3  # runs named where most earlier rows stepped


def history_section(ctx, method=None):
    run_dir = Path(ctx.run_dir)
    if run_dir.parent.name != "runs":
        return None  # a run outside a results tree has no history to look at
    method = method or changepoints.Method()
    try:
        h = history.load(run_dir.parent, until=ctx.run_id, warn=lambda m: None)
    except (InputError, sqlite3.Error, OSError):
        return None  # the history is an extra: a report never fails for it
    mine = {(f.host, t) for (r, t), f in h.files.items() if r == ctx.run_id}
    tracks = [t for t in h.tracks if (t.host, t.target) in mine and t.run_ids[-1] == ctx.run_id]
    if not any(len(t.run_ids) > 1 for t in tracks):
        return None
    cps, tests = changepoints.detect(tracks, method)
    earlier = sorted({r for t in tracks for r in t.run_ids[:-1]})
    hosts = ", ".join(md_code(x) for x in sorted({t.host for t in tracks}))
    out = ["## History", "",
           f"This run against {len(earlier)} earlier run(s) of host {hosts} (since {md_code(earlier[0])}). "
           f"Change points: {md_text(method.describe(tests))}.", ""]
    out += _fingerprint_changes(tracks, h)
    moved = _moved_here(tracks, cps, h, ctx.run_id, method)
    out += moved or ["No row moved at this run.", ""]
    out += _earlier(cps, ctx.run_id, h)
    return "\n".join(out)


def _earlier(cps, run_id, h):
    """The MAX_EARLIER latest change points before this run (run ids sort by time), newest first."""
    before = sorted((cp for cp in cps if cp.run_id != run_id),
                    key=lambda cp: (cp.track.target, cp.track.name, cp.track.unit))
    before.sort(key=lambda cp: cp.run_id, reverse=True)  # stable: one run's rows stay in name order
    if not before:
        return []
    shown = before[:MAX_EARLIER]
    head = (f"the {len(shown)} latest of {len(before)}, newest first" if len(before) > len(shown)
            else "newest first")
    return ([f"**Earlier change points in these tracks** ({head}):", ""]
            + [f"- {md_code(cp.track.name)} on {md_code(cp.track.target)} ({md_code(cp.track.unit)}) moved "
               + change_sentence(cp, h.provenance, md_code) for cp in shown]
            + [""] + _busiest_runs(before))


def _busiest_runs(before):
    """One line on the MAX_RUNS runs at which most earlier rows stepped: where a host's history moved as
    a whole (a new kernel, another machine under the same name) rather than row by row."""
    per_run = {}
    for cp in before:
        rows, targets, keys = per_run.setdefault(cp.run_id, (set(), set(), set()))
        rows.add((cp.track.target, cp.track.name, cp.track.unit))
        targets.add(cp.track.target)
        keys.update(cp.changed or ())
    if len(per_run) < 2:
        return []
    top = sorted(per_run.items(), key=lambda kv: (-len(kv[1][0]), kv[0]))[:MAX_RUNS]
    parts = []
    for run_id, (rows, targets, keys) in top:
        why = f"; the fingerprint changed {', '.join(md_code(k) for k in sorted(keys))}" if keys else ""
        parts.append(f"{md_code(run_id)} ({len(rows)} row{'' if len(rows) == 1 else 's'} of {len(targets)} target(s){why})")
    return [f"The earlier change points lie at {len(per_run)} runs; most rows stepped at " + ", ".join(parts) + ".", ""]


def _fingerprint_changes(tracks, h):
    seen, out = {}, []
    for t in tracks:
        last = t.series[-1]
        if last.changed and last.start == len(t.run_ids) - 1 and t.target not in seen:
            seen[t.target] = True
            prev = t.run_ids[-2]
            out.append(f"- {md_code(t.target)}: the fingerprint changed {md_text(changed_keys(last.changed))} "
                       f"since run {md_code(prev)} (commit {md_code(h.provenance(prev, t.target)['commit'])}).")
    return (["**Fingerprint changes at this run:**", ""] + out + [""]) if out else []


def _moved_here(tracks, cps, h, run_id, method):
    """Rows that moved at this run: change points found here, and, where the fingerprint changed here,
    rows that differ from the run before (Mann–Whitney, α, as compare) by at least --min-change."""
    items = [(cp.track, cp.pct, cp.p, cp.verdict, cp.changed, "change point") for cp in cps if cp.run_id == run_id]
    done = {id(i[0]) for i in items}
    changed_here = [t for t in tracks if len(t.run_ids) > 1 and t.series[-1].start == len(t.run_ids) - 1
                    and t.series[-1].changed and id(t) not in done]
    pairs = [(t.samples(len(t.run_ids) - 2), t.samples(len(t.run_ids) - 1)) for t in changed_here]
    for t, cmp in zip(changed_here, stats.compare_many(pairs, method.alpha)):
        pct = stats.pct_change(t.median[-2], t.median[-1])
        if cmp.significant and (pct is None or abs(pct) >= method.min_change):
            verdict = "changed" if t.higher_better is None or pct is None else (
                "better" if (pct > 0) == t.higher_better else "worse")
            items.append((t, pct, cmp.p, verdict, t.series[-1].changed, "against the run before"))
    if not items:
        return []
    items.sort(key=lambda i: -(abs(i[1]) if i[1] is not None else float("inf")))
    rules = explain.load_rules()
    # folded: the list can be long (a kernel change moves hundreds of rows) and the report leads with the summary
    out = [f"**Moved at this run** ({len(items)} row(s), largest first):", "",
           fold.open_(f"the {min(len(items), MAX_MOVED)} largest moves").rstrip("\n"), ""]
    for t, pct, p, verdict, changed, how in items[:MAX_MOVED]:
        prev, now = t.run_ids[-2], t.run_ids[-1]
        pa, pb = h.provenance(prev, t.target), h.provenance(now, t.target)
        line = (f"- {md_code(t.name)} ({md_code(t.unit)}) on {md_code(t.target)} moved "
                f"{'?' if pct is None else f'{pct:+.0f} %'} ({verdict}, p = {p:.2g}, {how}) at run {md_code(now)}, "
                f"commit {md_code(pb['commit'])} (previous run {md_code(prev)}, commit {md_code(pa['commit'])})")
        if changed:
            line += "; the fingerprint changed " + ", ".join(md_code(k) for k in changed) + " at the same run"
        out.append(line + ".")
        for e in explain_change.at_change(t.name, t.unit, pct, p, verdict, h.config(prev, t.target),
                                          h.config(now, t.target), prev, now, rules):
            out.append(f"  - {md_text(e.rule['title'])} ({md_code(e.rule['id'])}): {md_text(e.cause)} "
                       f"Fix: {md_text(e.fix)}")
    if len(items) > MAX_MOVED:
        out.append(f"- … and {len(items) - MAX_MOVED} more (`vmparity history` lists every row).")
    return out + [fold.close().rstrip("\n"), ""]
