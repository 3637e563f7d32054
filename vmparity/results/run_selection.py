"""Files of one lab run named one by one: that run, as far as its judgement needs it.

`vmparity explain RUN/metal.txt RUN/container-nolimit.txt` names two files,
but they are two targets of one run, measured in its rounds beside metal's
A/A pass: the evidence the run's report judged them on. Read as plain files
they would be judged on the U test alone and say another thing than the
report (issue 56). So when every operand is one file of the same run
directory, the first operand is a lab metal whose A/A pass is stored beside
it, and every other operand is a target of that metal's host, the operands
are that run: one Input holding their files and the A/A pass, which the
in-run policy needs (decide/policy.py). Its rounds record (rounds.json) is
read where the run's is: the table pairs the rows by round when there is one,
and a run measured before rounds is judged as its report judges it, on the
A/A band without pairing.
"""

from dataclasses import replace
from pathlib import Path

from .file import parse_file
from .targets import aa_control_of, is_base_side, is_lab_metal, metal_of


def one_run(loaded):
    """(the run Input, the operands' targets in order) when the loaded operands are files of
    one lab run as above; None otherwise (the plain-files policy, or two runs)."""
    if len(loaded) < 2 or any(inp.is_run or len(inp.files) != 1 for inp in loaded):
        return None
    files = [inp.files[0] for inp in loaded]
    dirs = {Path(rf.path).resolve().parent for rf in files}
    base = files[0].target
    if len(dirs) != 1 or not is_lab_metal(base):
        return None
    run_dir = dirs.pop()
    aa_path = run_dir / f"{aa_control_of(base)}.txt"
    targets = [rf.target for rf in files]
    # an A/B run's BASE side is judged against its HEAD (ab-in-run), and a target of
    # another host against its own metal: neither is this metal's in-run comparison
    if (len(set(targets)) != len(targets) or any(is_base_side(t) for t in targets)
            or any(metal_of(t, [base]) != base for t in targets[1:]) or not aa_path.is_file()):
        return None
    aa = parse_file(aa_path, run=run_dir)  # found beside the operands, not named: never a link out
    if aa.target in targets:
        return None  # the A/A pass itself named as an operand: the plain pair, as benchstat sees it
    run = replace(loaded[0], label=run_dir.name, path=run_dir, files=[files[0], aa, *files[1:]], is_run=True)
    return run, targets
