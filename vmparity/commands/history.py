"""`vmparity history`: every benchmark row of every target over the stored runs, with change points."""

import os
from pathlib import Path

from .. import history
from ..results import inputs
from ..errors import InputError
from ..history import changepoints, render


def run(out, err, results_dir=None, filter=None, fmt="text", plot_dir=None, method=None, top=None, tracks=False):
    """top: list the top largest change points and excursions (None: all); tracks: every run of every track."""
    method = (method or changepoints.Method()).check()
    runs = inputs.runs_dir(results_dir)
    if not runs.is_dir():
        raise InputError(runs, "no such runs directory; expected <results-dir>/runs/<run-id>/<target>.txt "
                               "(set --results-dir or $VMPARITY_RESULTS_DIR)")
    h = history.load(runs, filter, warn=lambda m: err.write(f"vmparity: warning: {m}\n"))
    if not h.tracks:
        raise InputError("--filter" if filter else runs, "no stored results" + (f" match {filter!r}" if filter else ""))
    cps, tests = changepoints.detect(h.tracks, method)
    render.FORMATS[fmt](h, cps, method, tests, out, top=top, tracks=tracks)
    if plot_dir:
        _plots(h, cps, Path(plot_dir), out if fmt == "text" else err)
    return 0


def _plots(h, cps, dest, note):
    from ..history import plot  # matplotlib takes seconds to import: only when plots are asked for

    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(dest, f"cannot create the plot directory: {e.strerror}") from None
    by_track = {}
    for cp in cps:
        by_track.setdefault(id(cp.track), []).append(cp)
    for t in h.tracks:
        path = dest / plot.file_name(t)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        tmp.write_bytes(plot.png(t, by_track.get(id(t), []), h.provenance))
        os.replace(tmp, path)
    note.write(f"wrote {len(h.tracks)} trend plot(s) to {dest}\n")
