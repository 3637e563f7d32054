"""`python -m vmparity.repro.stability RUN_A RUN_B`: do two runs give the same
verdicts? Every seed/target pair whose verdict is decided in both runs
(reproduced or not reproduced) must agree; a pair that flips is printed,
and the exit status is 1 when any does. "cannot tell here" and
"inconclusive" pairs are listed, not counted as flips."""

import sys

from ..errors import InputError
from ..results.inputs import load_run
from .scenarios import load_scenarios
from .judges.verdict import NOT_REPRODUCED, REPRODUCED
from .verdicts import judge_run

DECIDED = (REPRODUCED, NOT_REPRODUCED)


def compare(run_a, run_b, scenarios=None):
    """(agree, flips, undecided): lists of (seed, target, status A, status B)."""
    scenarios = scenarios or load_scenarios()
    a = {(v.seed, v.target): v.status for v in judge_run(load_run(run_a), scenarios)}
    b = {(v.seed, v.target): v.status for v in judge_run(load_run(run_b), scenarios)}
    agree, flips, undecided = [], [], []
    for key in sorted(set(a) | set(b)):
        sa, sb = a.get(key, "absent"), b.get(key, "absent")
        row = (*key, sa, sb)
        if sa in DECIDED and sb in DECIDED:
            (agree if sa == sb else flips).append(row)
        else:
            undecided.append(row)
    return agree, flips, undecided


def main(argv, out=sys.stdout, err=sys.stderr):
    if len(argv) != 2:
        err.write("usage: python -m vmparity.repro.stability RUN_DIR_A RUN_DIR_B\n")
        return 2
    try:
        agree, flips, undecided = compare(*argv)
    except InputError as e:
        err.write(f"vmparity.repro.stability: {e}\n")
        return 2
    out.write(f"verdict stability: {len(agree)} decided pair(s) agree, {len(flips)} flip(s), "
              f"{len(undecided)} undecided (cannot tell here / inconclusive)\n")
    for seed, target, sa, sb in flips:
        out.write(f"  FLIP seed {seed} on {target}: {sa} -> {sb}\n")
    for seed, target, sa, sb in undecided:
        if sa != sb:
            out.write(f"  seed {seed} on {target}: {sa} -> {sb}\n")
    return 1 if flips else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
