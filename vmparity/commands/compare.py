"""`vmparity compare A [B…]`: the statistical comparison table."""

from ..decide import crossrun
from ..results import inputs
from .. import table
from ..errors import InputError
from ..render import FORMATS, crossrun_md
from ..render.gate import gate


def run(operands, out, err, col=None, row=None, filter=None, fmt="table", alpha=0.05, confidence=0.95,
        results_dir=None, fail_on_regression=None, baseline=None):
    if fmt not in FORMATS:
        raise InputError("--format", f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    loaded = inputs.load_all(operands, results_dir)
    t = table.build(loaded, col=col, row=row, filter=filter, alpha=alpha, confidence=confidence, baseline=baseline,
                    history_dir=inputs.runs_dir(results_dir))
    del loaded  # the table holds every number it shows: the files' values can go before it is rendered
    FORMATS[fmt](t, out)
    note_unknown_directions(t, err)
    note_crossrun(t, err)
    return gate(t, fail_on_regression, err)


def note_crossrun(t, err):
    """Two runs: say which comparison the verdicts came from (the table's `(noise)` marks)."""
    cr = t.crossrun
    if cr is None:
        return
    drift = cr.host_drift()
    moved = f" (host drift {drift[0]:+.1f} %)" if drift else ""
    err.write(f"vmparity: note: two runs, each target against itself with the host's drift taken out: "
              f"{len(cr.of(crossrun.CHANGED))} row(s) changed beyond run-to-run noise, "
              f"{len(cr.of(crossrun.NOISE))} within it{moved}, {len(cr.of(crossrun.NOT_TESTED))} not tested "
              f"({crossrun_md.untested_why(cr)}); docs/noise.md\n")


def note_unknown_directions(t, err):
    """Units whose direction nobody declared are compared, not judged: say how to declare them."""
    units = list(dict.fromkeys(r.unit for r in t.rows if r.higher_better is None))
    if units:
        err.write(f"vmparity: note: {', '.join(units)}: direction unknown, so changes are not called better or worse; "
                  f"declare it in the file with a line such as `Unit {units[0]} better=higher` (or better=lower)\n")
