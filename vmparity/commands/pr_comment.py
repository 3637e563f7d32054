"""`vmparity pr-comment BASE HEAD`: the Markdown body of the pull-request comment.

The first line is a hidden marker, so the workflow
(.github/workflows/vmparity-compare.yml) finds and updates its own comment
instead of adding a new one on every push.
"""

import io

from ..render import explanation, fold, markdown
from ..render.escape import md_code
from . import compare
from .explain import analyse

MARKER = "<!-- vmparity-pr-comment -->"


def render(t, result, base, head):
    sig = t.significant()
    worse = [x for x in sig if x[2].verdict == "worse"]
    better = [x for x in sig if x[2].verdict == "better"]
    out = io.StringIO()
    out.write(f"{MARKER}\n## vmparity: {md_code(head)} against {md_code(base)}\n\n")
    groups = {g for g, _ in t.configs}
    for g in sorted(groups - {""}):
        sides = [c for c in (base, head) if (g, c) not in t.configs]
        if sides:
            out.write(f"- target {md_code(g)} has no results in {md_code(sides[0])}: not compared\n")
    if groups - {""}:
        out.write("\n")
    compared = sum(len(r.deltas) for r in t.rows)
    if not sig:
        out.write(f"No significant change (Mann–Whitney U, α = {t.alpha:g}) in {compared} compared rows.\n")
    else:
        out.write(f"**{len(worse)} worse**, **{len(better)} better**, {compared - len(sig)} unchanged "
                  f"of {compared} compared rows (Mann–Whitney U, α = {t.alpha:g}).\n")
        out.write("\n### Significant changes\n")
        markdown.render(t, out, only_significant=True)
        out.write("\n### Why\n\n")
        explanation.markdown(result, out)
    out.write(fold.open_("All rows"))
    markdown.render(t, out)
    out.write(fold.close())
    return out.getvalue()


def run(base, head, out, err, alpha=0.05, results_dir=None, fail_on_regression=None):
    t, result = analyse(base, head, alpha, results_dir)
    out.write(render(t, result, t.columns[0], t.columns[-1]))
    return compare.gate(t, fail_on_regression, err)

