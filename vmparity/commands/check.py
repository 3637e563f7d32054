"""`vmparity check FILE…`: the strict check of lab result files (results/check.py).

Every file is checked and every problem printed (`file:line: message`), so
one run of the command lists all that is wrong; exit 2 if any file fails.
With `--program-output` a file is one benchmark program's own output, before
benchrun adds the fingerprint: every rule applies but the fingerprint keys.
The C and Go tests check what the programs and benchrun write with it.
"""

from ..errors import InputError
from ..results.check import check
from ..results.file import parse_file


def run(files, out, err, program_output=False):
    bad = 0
    for f in files:
        try:
            check(parse_file(f), keys=() if program_output else None)
        except InputError as e:
            err.write(f"vmparity: error: {e}\n")
            bad += 1
            continue
        out.write(f"{f}: ok\n")
    return 2 if bad else 0
