"""`vmparity explain A B`: the likely cause and fix of every significant difference.

Any pair of files can be explained: the rules use the fingerprint keys the
files carry, and the output names the keys that are absent and what they
would let vmparity check (a lab file has them all; `go test` output has
goos, goarch, pkg and cpu).
"""

import contextlib

from ..render import explanation, policy, text
from ..render.escape import md_text, terminal
from ..report.pair import analyse


def run(base, head, out, err, alpha=0.05, fmt="text", results_dir=None, rules=None):
    _, result = analyse(base, head, alpha, results_dir, rules)
    # text: each sentence wrapped at the terminal's width ($COLUMNS), as compare's tables fit it
    with text.wrapping(out) if fmt == "text" else contextlib.nullcontext(out) as out:
        # which judgement decided the rows, first: two files of a lab run get the run's (docs/noise.md)
        if fmt == "text":
            out.write(terminal(policy.line(result.policy, alpha)) + "\n")
        elif fmt == "markdown":
            out.write(md_text(policy.line(result.policy, alpha)) + "\n\n")
        explanation.FORMATS[fmt](result, out)
        if result.missing and fmt != "json":
            out.write(missing_text(result.missing))
    return 0


def missing_text(missing):
    lines = ["", f"Absent fingerprint keys ({len(missing)}), so these causes could not be checked:"]
    for k, uses in missing.items():
        lines.append(f"  {k}: " + ("; ".join(uses) if uses else "recorded by the lab, not used by a rule"))
    lines.append("Lab result files carry every key (`vmparity check FILE` lists what one lacks).")
    return "\n".join(lines) + "\n"
