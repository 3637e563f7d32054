"""A run directory (results/runs/<run-id>/) as the verdicts take it."""

from pathlib import Path

from ..errors import InputError
from ..resultfile import parse_file


def load_run(directory):
    """{target: ResultFile} from every <target>.txt in the directory, by the file's `target:` key."""
    directory = Path(directory)
    if not directory.is_dir():
        raise InputError(directory, "no such run directory (expected results/runs/<run-id>/)")
    files = sorted(directory.glob("*.txt"))
    if not files:
        raise InputError(directory, "no <target>.txt result files in this run directory")
    run = {}
    for path in files:
        rf = parse_file(path)
        if rf.target in run:
            raise InputError(path, f"target {rf.target!r} already read from another file of this run")
        run[rf.target] = rf
    return run
