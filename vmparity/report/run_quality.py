"""The report's first lines: can the differences below be trusted? The run's
noise figure from its A/A control, the rounds that ran on a busy host, and
fingerprint keys that moved during the run. Every value is escaped: names
come from result files and process names from the host."""

import itertools
import math

from ..decide import bandwidth, clockcheck, figures
from ..results import round_record
from ..decide.noise import FLOOR_PCT, K_SE
from ..lab import added_rounds, budget as lab_budget
from ..stats.sensitivity import POWER
from ..render import fmt, run_figures
from ..render.escape import md_code, md_text
from ..results.targets import KVM_GUEST, TCG_GUEST


def noise(ctx):
    t = ctx.table
    if not t.noise:
        return ("**Noise:** this run has no A/A control (the host measured twice per round as `metal` and "
                "`metal-aa`), so significant differences below are not checked against the run's own noise.\n")
    out = []
    for m in t.noise:
        passes = (f"the A/A control ({md_code(m.metal)} measured twice in every round, the second pass "
                  f"as {md_code(m.aa)})")
        band = (f"max({FLOOR_PCT:g} %, {K_SE:g} standard errors of the change, from the row's own "
                f"repetitions, widened by what the A/A control shows for its benchmark); smaller ones are "
                f"listed as within noise (docs/noise.md)")
        pm = figures.paired_model(m)
        if pm is None:
            out.append(f"**Noise:** {passes} differs significantly in **{m.significant} of {m.rows} rows "
                       f"({100 * m.share:.1f} %)**. A difference counts as *beyond noise* when it is significant "
                       f"and larger than its row's band against both passes of {md_code(m.metal)}: {band}.")
            continue
        # The rule's own figure leads: it is the run's false-alarm rate. The U test's bare count,
        # which no row is judged by without its band, comes last: led by it, a noisy hour's report
        # read "9.7 %" where the rule's false alarms were 2.7 %.
        out.append(f"**Noise:** {passes} is beyond noise in **{len(pm.beyond_rows)} of {pm.rows} rows "
                   f"({100 * pm.share:.1f} %)**: the run's false alarms, under the rule every target below is "
                   f"judged by. Rows measured in enough rounds on both sides (six or more) are decided "
                   f"**round by round** (docs/noise.md, \"Paired by round\"): the target's ratio to both "
                   f"passes of {md_code(m.metal)} in each round, so a slow spell the round shared cancels; the "
                   f"signed-rank test on those ratios and a band from their spread, calibrated on the A/A pair's "
                   f"own rounds{_fast_level(pm)}. A row with fewer rounds is beyond noise when the U test on its "
                   f"repetitions calls it significant and it is larger than its band, {band}. By the U test alone, "
                   f"without a band or the pairing by round, the two passes differ in {m.significant} of "
                   f"{m.rows} rows ({100 * m.share:.1f} %).")
    if ctx.host_noise is not None:
        warn = "⚠ " if ctx.host_noise.noisier else ""
        out.append("")  # a paragraph of its own, so that a warning stands out
        out.append(f"{warn}**The host's noise:** {md_text(ctx.host_noise.sentence())} (docs/noise.md, "
                   "\"The host's noise against its usual\").")
    for f in figures.per_target(t, ctx.explained):
        out.append(f"- {md_code(f.target)} ({md_text(f.kind)}): **{f.beyond} of {f.rows} rows "
                   f"({100 * f.beyond_share:.1f} %) beyond noise**, {f.unexplained_words(' of them')}; "
                   f"{f.within} within noise")
    nested = emulated_host(t)
    if nested:
        out += ["", nested]
    return "\n".join(out) + "\n"


def levels(ctx):
    """The checks of the host's levels and the run's sensitivity: the core clock, the memory
    bandwidth, the minimum detectable effect per family. Method, read after the verdicts."""
    t = ctx.table
    return "\n".join(p for p in (core_clock(t), memory_bandwidth(t), sensitivity_table(t, ctx.mde_goals)) if p) + "\n"


def headline(ctx):
    """The run's trust in two sentences for the report's first screen: the A/A control's false
    alarms, and a warning when the host was noisier than its usual; the method comes later."""
    t = ctx.table
    if not t.noise:
        return ("**Noise:** no A/A control in this run, so the differences below are not checked against "
                "the run's own noise.")
    out = []
    for m in t.noise:
        pm = figures.paired_model(m)
        passes = f"the A/A control ({md_code(m.metal)} measured twice per round)"
        if pm is not None:  # the rule's own false alarms (the U test's bare count is the method's)
            out.append(f"**Noise:** {passes} is beyond noise in **{len(pm.beyond_rows)} of {pm.rows} rows "
                       f"({100 * pm.share:.1f} %)**, the run's false alarms under the rule every target is judged by.")
        else:
            out.append(f"**Noise:** {passes} differs significantly in **{m.significant} of {m.rows} rows "
                       f"({100 * m.share:.1f} %)**; a target's row counts only when it is significant and larger "
                       f"than the A/A control shows for its row.")
    if ctx.host_noise is not None and ctx.host_noise.noisier:
        out.append(f"⚠ The host was {ctx.host_noise.times_usual:.1f}x noisier than its usual: a difference smaller "
                   "than the run's minimum detectable effect may be there unseen.")
    return " ".join(out) + " How the run was judged, and how far to trust it: *Method and noise*, below."


def budget(ctx):
    """The run's time budget in a paragraph (make lab-up LAB_MINUTES=N): what it planned, how long
    the rounds took, the sensitivity it reached and what twice the time would have bought; "" for a
    run without one."""
    t = ctx.table
    kinds = {col: t.configs.get(("", col), {}).get("target-kind") for col in t.columns}
    got = lab_budget.reached(round_record.load(ctx.run_dir), figures.sensitivity(t, ctx.mde_goals), kinds)
    if got is None:
        return ""
    plan = got["plan"]
    by_kind = "".join(f", {md_text(k)} {n}" for k, n in (plan.get("rounds-by-kind") or {}).items())
    took = (f" The rounds took {lab_budget.duration(got['measured-seconds'])}"
            if got["measured-seconds"] is not None else "")
    skipped = sorted({k for h in got["hosts"].values() for k in h.get("skipped-rounds") or []})
    out = [f"**Budget:** {plan.get('minutes'):g} min from provisioning to this report (`LAB_MINUTES`), "
           f"{lab_budget.duration(plan.get('seconds-left-to-measure', 0))} of it left to measure once the lab was up: "
           f"{plan.get('planned-rounds')} planned rounds{by_kind} (times estimated from "
           f"{md_code(plan.get('estimates-from', '?'))}).{took}"
           + (f", and rounds {', '.join(map(str, skipped))} were skipped to keep to the deadline" if skipped else "")
           + ("." if took else "")]
    if plan.get("short"):
        out.append(f"⚠ {md_text(plan['short'])}.")
    if got["span"]:
        lo, hi = got["span"]
        mlo, mhi = got["more"]
        out.append(f"It reached a median minimum detectable effect of {lo:.1f}–{hi:.1f} % across the benchmark "
                   f"families of metal and the containers (*Sensitivity*, under *Method and noise*); "
                   f"{lab_budget.MORE_TIME:g}x the minutes of measuring would bring that to about "
                   f"{mlo:.1f}–{mhi:.1f} % (it falls as one over the square root of the rounds).")
    return " ".join(out)


def emulated_host(t):
    """A paragraph when the baseline metal is itself a TCG guest and KVM guests run on it (the rack
    bed's nested KVM host): what their configuration shows holds, their timings are the emulator's."""
    kind = lambda col: t.configs.get(("", col), {}).get("target-kind")  # noqa: E731
    metal = t.columns[0] if t.columns else None
    guests = [c for c in t.columns[1:] if kind(c) == KVM_GUEST]
    if metal is None or kind(metal) != TCG_GUEST or not guests:
        return ""
    return (f"**Emulated host:** {md_code(metal)}'s own fingerprint says `target-kind: tcg-guest`: this host is "
            f"itself a TCG guest (a nested KVM host, docs/kvm.md), so its KVM guests "
            f"({', '.join(md_code(g) for g in guests)}) are configured by KVM as on a rack host but run on "
            "QEMU's emulated CPU. What their configuration shows holds (topology, `topoext`, `nt-threshold`, "
            "the clocksource and whether clock reads stay in the vDSO, the PMU); their timings say nothing "
            "of real hardware, and the seeds that rest on timing are *cannot tell here* below.")


def core_clock(t):
    """Each target's core clock against metal's, and whether its time rows were compared at an equal clock."""
    return _checks_paragraph(
        "**Core clock:** the host moves its cores between turbo bins from one repetition to the next, and "
        "which bin a target's repetitions drew is not the target's doing. Where a target's clock, measured "
        "beside every measurement, is within noise of metal's round by round, its time rows are compared at "
        f"an equal clock (their core-clock twins' ratios, marked {fmt.EQUAL_CLOCK_MARK}); where it differs, as "
        f"measured ({clockcheck.DOC}).", figures.clock_checks(t), run_figures.clock_sentence)


def memory_bandwidth(t):
    """Each target's reference copy against metal's, and whether its large copies were compared at an equal bandwidth."""
    return _checks_paragraph(
        "**Memory bandwidth:** a copy of 4 MiB or more runs at the speed the host's shared cache and memory "
        "allow that moment, which other tenants' traffic sets. memcpy times those copies against a plain copy "
        "loop run beside them (`refcopies/op`). Where a target's loop is within noise of metal's round by "
        "round, its large copies' time rows are compared at an equal bandwidth (their reference twins' "
        f"ratios, marked {fmt.EQUAL_BANDWIDTH_MARK}); where it differs, as measured ({bandwidth.DOC}).",
        figures.bandwidth_checks(t), run_figures.bandwidth_sentence)


def _checks_paragraph(intro, checks, sentence):
    """A paragraph on a per-target check of a level of the host, one line per target; "" without checks."""
    if not checks:
        return ""
    return "\n".join([intro, "", *(f"- {md_code(target)}: {md_text(sentence(c))}" for target, c in checks.items())])


def sensitivity_table(t, goals=None):
    """How small a change the run could have seen: per benchmark family and target, the
    median and worst row's minimum detectable effect (80 % power); ⚠ on a family of a
    target the lab holds to a goal (goals: round_record.mde_goals) whose median is above it,
    and why no more rounds were added."""
    fams = figures.sensitivity(t, goals)
    if not fams:
        return ""
    targets = list(dict.fromkeys(f.target for f in fams))
    cells = {(f.family, f.unit, f.target): f for f in fams}
    keys = list(dict.fromkeys((f.family, f.unit) for f in fams))
    head = "| benchmark | unit | " + " | ".join(md_code(x, in_table=True) for x in targets) + " |"
    rows = [f"| {md_code(b, in_table=True)} | {md_code(u, in_table=True)} | "
            + " | ".join(_mde_cell(cells.get((b, u, x))) for x in targets) + " |" for b, u in keys]
    notes = [f"⚠ A family's median above the lab's goal of {goal:g} % (`bench_mde_goal`, for metal and the "
             "containers)." + (f" The rounds added for the wide rows stopped: {md_text(why)}." if why else "")
             + " More rounds (`bench_added_rounds_max`, `bench_added_seconds`) or a quieter hour narrow it."
             for goal, why in figures.above_goal_stops(fams, goals)]
    return "\n".join([f"**Sensitivity:** the smallest change this run would call beyond noise with {POWER:.0%} power "
                      "(minimum detectable effect), median / worst row of each benchmark family; a change below it "
                      "may be there unseen. `vmparity power RUN` checks these figures by planting known shifts.", "",
                      head, "|---|---|" + "--:|" * len(targets), *rows, *(x for note in notes for x in ("", note))])


def _mde_cell(f):
    if f is None:
        return "–"
    return ("⚠ " if f.above_goal else "") + f"{_pct(f.median)} / {_pct(f.worst)}"


def _pct(x):
    return f"{x:.1f} %" if math.isfinite(x) else "∞"


def hygiene(ctx):
    rec = round_record.load(ctx.run_dir)
    if rec is None:
        return ("**Rounds:** this run was measured target after target, not in interleaved rounds; drift of the "
                "machine between targets shows up as differences.\n")
    out = []
    for host, rs in rec["hosts"].items():
        seed = rs[0].get("seed") if rs else None
        planned = [r for r in rs if not r.get("added")]
        out.append(f"**Rounds:** {len(planned)} interleaved round(s) on {md_code(host)} (seed {md_text(seed)}); each "
                   f"measured the host's targets once, one at a time, in a shuffled order recorded in rounds.json.")
        out += _added(rs) + _confirmed(rs, ctx)
    out += _remeasured(rec.get("remeasured", []))
    for fill in rec.get("filled-in", []):
        out.append(f"- {', '.join(md_code(t) for t in fill['targets'])} measured later to fill in this run: "
                   f"{md_text(fill['note'])}")
    return "\n".join(out + _warnings(rec)) + "\n"


def warnings(ctx):
    """The rounds' warnings (a busy host, a fingerprint that moved, a partial run, a target or host
    that failed), one Markdown bullet each: the report says them on its first screen too."""
    rec = round_record.load(ctx.run_dir)
    return _warnings(rec) if rec is not None else []


def _warnings(rec):
    out = []
    for rs in rec["hosts"].values():
        for r in rs:
            h = r.get("hygiene") or {}
            busy = h.get("busy-processes", "none")
            if busy not in ("none", ""):
                out.append(f"- ⚠ round {md_text(r['round'])} started on a busy host: load "
                           f"{md_text(h.get('loadavg', '?'))}; busy: {md_code(busy)} "
                           f"(over {md_text(h.get('busy-threshold', 'the threshold'))})")
    for target, keys in rec.get("fingerprint-changed", {}).items():
        for key, values in keys.items():
            out.append(f"- ⚠ {md_code(target)}: {md_code(key)} changed during the run: " + _value_runs(values))
    if rec.get("partial"):
        out.append("- ⚠ **partial run**: some targets did not finish every round; their rows rest on fewer samples")
    for host, why in rec.get("failed-hosts", {}).items():
        out.append(f"- ⚠ host {md_code(host)} failed in round {md_text(why.get('round'))}: {md_text(why.get('msg', ''))}; "
                   "every target of it is missing from the rounds after")
    for target, why in rec.get("failed", {}).items():
        out.append(f"- ⚠ {md_code(target)} failed in round {md_text(why.get('round'))} on {md_code(why.get('host'))}: "
                   f"{md_text(why.get('msg', ''))}")
    for target, ks in rec.get("missing-rounds", {}).items():
        out.append(f"- ⚠ {md_code(target)}: rounds {md_text(', '.join(map(str, ks)))} did not finish")
    return out


def _value_runs(values):
    """A fingerprint key's value in each of a target's rounds, a run of rounds with the
    same value once: "`tsc` in 4 rounds → `hpet` in 6 rounds"."""
    runs = [(v, len(list(same))) for v, same in itertools.groupby(values)]
    return " → ".join(f"{md_code(v)} in {n} round{'s' if n > 1 else ''}" for v, n in runs)


def _added(rs):
    """The bullet on the rounds added for the rows whose minimum detectable effect was wide."""
    added = [r for r in rs if added_rounds.reason(r) == added_rounds.WIDE]
    if not added:
        return []
    first = added[0]["added"]
    jobs = sorted({j for r in added for j in r["added"].get("jobs", [])})
    targets = sorted({t for r in added for t in r.get("order", [])})
    rows = ", ".join(f"{n} of {md_code(t)}" for t, n in first.get("rows-above-goal", {}).items())
    return [f"- {len(added)} round(s) added after them for the rows whose minimum detectable effect was still above "
            f"{md_text(first.get('goal-pct'))} % ({rows} at first): only their jobs "
            f"({', '.join(md_code(j) for j in jobs)}), on {', '.join(md_code(t) for t in targets)} "
            "(docs/noise.md, *Rounds added for the wide rows*)."]


def _confirmed(rs, ctx):
    """The bullet on the rounds that measured the rows beyond noise again, and how many of
    those rows the run, decided on all its rounds, still calls beyond noise."""
    added = [r for r in rs if added_rounds.reason(r) == added_rounds.CONFIRM]
    if not added:
        return []
    first = added[0]["added"]
    flagged = {t: {tuple(row) for row in rows} for t, rows in first.get("rows-beyond-noise", {}).items()}
    per_target = ", ".join(f"{len(rows & _beyond_now(ctx, t))} of {len(rows)} of {md_code(t)}"
                           for t, rows in sorted(flagged.items()))
    targets = sorted({t for r in added for t in r.get("order", [])})
    return [f"- {len(added)} round(s) added to measure again the rows beyond noise that no rule "
            f"explains, and the A/A pair's, only their jobs "
            f"({', '.join(md_code(j) for j in first.get('jobs', []))}), on {', '.join(md_code(t) for t in targets)}; "
            f"decided on every round, still beyond noise: {per_target} (docs/noise.md, "
            "*Rows beyond noise measured again*)."]


def _beyond_now(ctx, target):
    """A target's rows beyond noise in the run: against its own host's metal, on a rack
    (report/hosts.py), where the run's table would hold it against the first host's."""
    views = [v for v in getattr(ctx, "hosts", None) or [] if target in v.table.columns]
    return figures.beyond_rows(views[0].table if views else ctx.table).get(target, set())


def _remeasured(records):
    """The line on an older run's re-measured repetitions (rounds.json `remeasured`, written
    until 2026-12-06): their values are in the files in place of the first ones."""
    redone = {(r["target"], r["round"], r["job"]) for r in records if r.get("status") == "measured again"}
    if not redone:
        return []
    return [f"- {len(redone)} repetition(s) a slow spell disturbed were measured again, the new values in place of "
            "the first (the lab stopped re-measuring on 2026-12-06: it did not pay, docs/method.md)."]


def _fast_level(pm):
    if pm.fast is None:
        return ""
    return ("; beside it, each row's fast level (the quartile of its rounds on the fast side, which the host's "
            "slow spells leave alone) against metal's, calibrated the same way: a row is beyond noise when either "
            "says so, and reports the fast level's change where that one does (docs/noise.md, \"The fast level\")")
