"""`python -m vmparity.repro RUN_DIR`: the Reproductions section for one run, in Markdown."""

import sys

from ..errors import InputError
from .render import render_markdown
from ..results.inputs import load_run
from .scenarios import load_scenarios
from .verdicts import judge_run


def main(argv, out=sys.stdout, err=sys.stderr):
    if len(argv) != 1:
        err.write("usage: python -m vmparity.repro RUN_DIR\n")
        return 2
    try:
        scenarios = load_scenarios()
        out.write(render_markdown(judge_run(load_run(argv[0]), scenarios), scenarios))
    except InputError as e:
        err.write(f"vmparity.repro: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
