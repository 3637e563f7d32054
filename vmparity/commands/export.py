"""`vmparity export --format bmf|gab RUN`: a run as Bencher's or github-action-benchmark's JSON."""

import json

from ..render import dashboards
from ..results import inputs
from ..errors import InputError


def run(run_arg, out, err, fmt="bmf", target=None, better="lower", results_dir=None):
    loaded = inputs.load(run_arg, results_dir)
    targets = [rf.target for rf in loaded.files]
    if target is not None and target not in targets:
        raise InputError("--target", f"{target!r} is not a target of {run_arg}; expected one of {', '.join(targets)}")
    rows = dashboards.measurements(loaded, target)
    if fmt == "bmf":
        doc = dashboards.bmf(rows)
    else:
        doc, left = dashboards.gab(rows, better == "higher")
        if left:
            other = "--better higher" if better == "lower" else "--better lower"
            err.write(f"vmparity: note: {left} measurement(s) of other units left out "
                      f"(github-action-benchmark takes one direction per file; {other} exports the others, "
                      "units of unknown direction need a `Unit <unit> better=…` line)\n")
        if not doc:
            raise InputError(run_arg, f"no measurement whose unit is {better} is better; try the other --better")
    json.dump(doc, out, indent=1, ensure_ascii=False, allow_nan=False)
    out.write("\n")
    return 0
