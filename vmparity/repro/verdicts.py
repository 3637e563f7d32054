"""Per seed and per target: did the seed's effect reproduce here?

Pure functions. `judge_run(run)` takes a run — {target name: parsed result
file} (vmparity.results.file.ResultFile or anything with `.config` and
`.benchmarks` of objects with `.units` and `.values`) — and returns one
Verdict per scenario per target the scenario covers: `reproduced`,
`not reproduced` (with the numbers measured here), `inconclusive` or
`cannot tell here` (with the reason). A target the scenario wants but the run
lacks gets a `cannot tell here` too: nothing is left out. The judges, one per
seed, are in judges/.
"""

from ..results.targets import METAL_KIND, is_aa_control, is_lab_metal, metal_of
from .judges import JUDGES
from .judges.verdict import CANNOT_TELL, Verdict
from .measure import Target
from .scenarios import covered_targets, load_scenarios


def judge_run(run, scenarios=None):
    """Every scenario's verdict on every target it covers, scenario order then run order."""
    scenarios = load_scenarios() if scenarios is None else scenarios
    # the A/A control is a second pass of metal, there to measure noise: no verdicts of its own
    targets = {name: Target(name, rf) for name, rf in run.items() if not is_aa_control(name)}
    out = []
    for sc in scenarios:
        for name, present in covered_targets(sc, list(targets)):
            if not present:
                out.append(Verdict(sc["seed"], name, CANNOT_TELL, "", "target not in this run"))
                continue
            out.append(JUDGES[sc["seed"]](sc, targets[name], reference_metal(targets, name)))
    return out


def reference_metal(targets, name=""):
    """The metal target `name` is measured against: the lab's metal of the same
    host (on a rack guests and containers carry their host's `-<host>` suffix;
    the longest suffix that fits is theirs), else the first lab metal, else the
    first target whose fingerprint says metal."""
    metals = [n for n in targets if is_lab_metal(n)]
    mine = metal_of(name, metals)
    if mine is not None:
        return targets[mine]
    if metals:
        return targets[metals[0]]
    return next((t for t in targets.values() if t.kind == METAL_KIND), None)
