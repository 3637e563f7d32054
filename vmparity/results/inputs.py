"""Turn command-line operands (files, run directories, run-ids) into parsed files."""

import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from .file import parse_file

DEFAULT_RESULTS_DIR = os.environ.get("VMPARITY_RESULTS_DIR", "results")


@dataclass
class Input:
    label: str  # how the operand is shown: the run-id or the file name
    path: Path
    files: list  # parsed ResultFile objects
    is_run: bool


def runs_dir(results_dir=None):
    return Path(results_dir or DEFAULT_RESULTS_DIR) / "runs"


def resolve(operand, results_dir=None):
    """A file, a run directory or a run-id under <results>/runs/, as a Path."""
    p = Path(operand)
    if p.exists():
        return p
    candidate = runs_dir(results_dir) / operand
    if candidate.is_dir():
        return candidate
    raise InputError(
        operand,
        f"no such result file, run directory or run-id (looked for {candidate})",
    )


def stored_file(run_dir, target):
    """A target's file of a stored run, parsed, or None when it is absent or cannot be read:
    another run read as history is evidence, not input, so it never stops a command."""
    path = Path(run_dir) / f"{target}.txt"
    if not path.is_file():
        return None
    try:
        return parse_file(path, run=run_dir)
    except (InputError, OSError):
        return None


def load(operand, results_dir=None, require_fingerprint=False):
    path = resolve(operand, results_dir)
    if path.is_dir():
        txts = sorted(path.glob("*.txt"))
        if not txts:
            raise InputError(path, "run directory holds no <target>.txt result files")
        files = [parse_file(t, run=path) for t in txts]  # a link out of the run is refused
        label, is_run = path.name, True
    else:
        files = [parse_file(path)]
        label, is_run = str(operand), False
    if require_fingerprint:
        for rf in files:
            rf.require_fingerprint()
    check_unique_targets(files)
    return Input(label, path, files, is_run)


def load_run(operand, results_dir=None):
    """{target: ResultFile} of a run directory or run-id: the view of a run
    the reproductions' verdicts take."""
    loaded = load(operand, results_dir)
    if not loaded.is_run:
        raise InputError(operand, "expected a run directory or run-id, not a single file")
    return {rf.target: rf for rf in loaded.files}


def load_all(operands, results_dir=None, require_fingerprint=False):
    inputs = [load(o, results_dir, require_fingerprint) for o in operands]
    counts = {}
    for inp in inputs:
        counts[inp.label] = counts.get(inp.label, 0) + 1
    for inp in inputs:
        if counts[inp.label] > 1:
            inp.label = str(inp.path)  # two operands with one name: show full paths
    seen = {}
    for i, inp in enumerate(inputs, 1):
        if inp.label in seen:  # the same path twice: number them so neither column hides the other
            inp.label = f"{inp.label} #{i}"
        seen[inp.label] = inp
    return inputs


def check_unique_targets(files):
    """Two files in one run must not claim the same target."""
    owner = {}
    for rf in files:
        t = rf.target
        if t in owner:
            line = rf.config_lines.get("target")
            raise InputError(
                rf.path,
                f"claims target {t!r}, which {owner[t]} already claims; expected one file per target",
                line,
            )
        owner[t] = rf.path
