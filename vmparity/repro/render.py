"""The Reproductions section of the report, in Markdown: per seed, what the
seed measured and, per target, the verdict with what was measured here."""

from ..render.escape import md_text
from .judges.verdict import CANNOT_TELL, INCONCLUSIVE, NOT_REPRODUCED, REPRODUCED

MARK = {REPRODUCED: "✅ reproduced", NOT_REPRODUCED: "❌ not reproduced", INCONCLUSIVE: "⚖️ inconclusive", CANNOT_TELL: "❔ cannot tell here"}


def _cell(text):
    return md_text(" ".join(text.split("\n"))) if text else "—"


def render_markdown(verdicts, scenarios, heading="## Reproductions"):
    """Markdown for every scenario, in scenario order; a seed with no verdict is an error."""
    lines = [heading, ""]
    by_seed = {}
    for v in verdicts:
        by_seed.setdefault(v.seed, []).append(v)
    for sc in scenarios:
        rows = by_seed.get(sc["seed"])
        if not rows:
            raise ValueError(f"seed {sc['seed']} has no verdict: every seed must have one per target")
        lines += [
            f"### Seed {sc['seed']}: {sc['title']}",
            "",
            f"{sc['point']}",
            "",
            f"seed: {sc['seed-figures']['summary']}",
            "",
            "| target | verdict | here | why |",
            "|---|---|---|---|",
        ]
        lines += [f"| {_cell(v.target)} | {MARK[v.status]} | {_cell(v.here)} | {_cell(v.reason)} |" for v in rows]
        lines.append("")
    counts = {s: sum(1 for v in verdicts if v.status == s) for s in MARK}
    lines.append("Verdicts: " + ", ".join(f"{n} {s}" for s, n in counts.items()) + ".")
    return "\n".join(lines) + "\n"
