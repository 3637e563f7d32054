"""The report's first lines: can the differences below be trusted? The run's
noise figure from its A/A control, the rounds that ran on a busy host, and
fingerprint keys that moved during the run."""

from ..lab import figures, rounds
from ..noise import FAMILY_QUANTILE, FLOOR_PCT, family_summary


def noise(ctx):
    t = ctx.table
    if not t.noise:
        return ("**Noise:** this run has no A/A control (the host measured twice per round as `metal` and "
                "`metal-aa`), so significant differences below are not checked against the run's own noise.\n")
    out = []
    for m in t.noise:
        out.append(f"**Noise:** the A/A control (`{m.metal}` measured twice in every round, the second pass as "
                   f"`{m.aa}`) differs significantly in **{m.significant} of {m.rows} rows ({100 * m.share:.1f} %)**. "
                   f"A difference counts as *beyond noise* when it is significant and larger than "
                   f"max({FLOOR_PCT:g} %, the row's A/A change, the {100 * FAMILY_QUANTILE:.0f}th percentile of its "
                   f"benchmark's A/A changes); smaller ones are listed as within noise.")
    for f in figures.per_target(t, ctx.explained):
        out.append(f"- `{f.target}` ({f.kind}): **{f.beyond} of {f.rows} rows ({100 * f.beyond_share:.1f} %) beyond "
                   f"noise**, {f.unexplained} of them unexplained; {f.within} within noise")
    spread = [
        f"| `{base}` | {unit} | {q:.1f} % | {n} |" for m in t.noise for base, unit, q, n in family_summary(m)]
    out += ["", "<details><summary>A/A spread per benchmark</summary>", "",
            f"| benchmark | unit | {100 * FAMILY_QUANTILE:.0f}th pct of \\|Δ\\| (metal-aa vs metal) | rows |",
            "|---|---|--:|--:|", *spread, "", "</details>"]
    return "\n".join(out) + "\n"


def hygiene(ctx):
    rec = rounds.load_record(ctx.run_dir)
    if rec is None:
        return ("**Rounds:** this run was measured target after target, not in interleaved rounds; drift of the "
                "machine between targets shows up as differences.\n")
    out = []
    for host, rs in rec["hosts"].items():
        seed = rs[0].get("seed") if rs else None
        out.append(f"**Rounds:** {len(rs)} interleaved round(s) on `{host}` (seed {seed}); each measured every "
                   f"target once, in a shuffled order recorded in rounds.json.")
        for r in rs:
            h = r.get("hygiene") or {}
            busy = h.get("busy-processes", "none")
            if busy not in ("none", ""):
                out.append(f"- ⚠ round {r['round']} started on a busy host: load {h.get('loadavg', '?')}; "
                           f"busy: {busy} (over {h.get('busy-threshold', 'the threshold')})")
    for target, keys in rec.get("fingerprint-changed", {}).items():
        for key, values in keys.items():
            out.append(f"- ⚠ `{target}`: `{key}` changed during the run: " + " → ".join(f"`{v}`" for v in values))
    if rec.get("partial"):
        out.append("- ⚠ **partial run**: some targets did not finish every round; their rows rest on fewer samples")
    for target, why in rec.get("failed", {}).items():
        out.append(f"- ⚠ `{target}` failed in round {why.get('round')} on `{why.get('host')}`: {why.get('msg', '')}")
    for target, ks in rec.get("missing-rounds", {}).items():
        out.append(f"- ⚠ `{target}`: rounds {', '.join(map(str, ks))} did not finish")
    return "\n".join(out) + "\n"
