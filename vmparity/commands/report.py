"""`vmparity report RUN`: report.md (+ plot PNGs) and a self-contained report.html."""

import contextlib
import importlib
import os
import sys
from pathlib import Path

from ..decide import explain
from ..results import inputs
from .. import table
from ..errors import InputError
from ..render.escape import terminal
from ..report import hosts, sections


def _report_extra(module):
    """The plots (matplotlib) and the HTML (markdown-it-py) come with the
    `report` extra; without it, say so instead of a traceback."""
    try:
        return importlib.import_module(f"..report.{module}", __package__)
    except ModuleNotFoundError as e:
        raise InputError("vmparity report", f"needs {e.name}: pip install 'vmparity[report]'") from e


def build(run, alpha=0.05, baseline=None, results_dir=None, err=None, draw_plots=True):
    """Load a run and compute everything the sections need; returns (Context, {png name: bytes})."""
    loaded = inputs.load(run, results_dir, require_fingerprint=True)
    if not loaded.is_run:
        raise InputError(run, "expected a run directory or run-id, not a single file")
    t = table.build([loaded], by="target", alpha=alpha, baseline=baseline)
    rules = explain.load_rules()
    rack = None
    if baseline is None and len(hosts.lab_metals(t.columns)) > 1:
        # a rack: each host against its own metal, the metals against each other
        views = hosts.per_host(loaded, alpha, rules)
        rack = hosts.metals_compared(loaded, alpha, rules)
    else:
        views = [hosts.HostView("", t.columns[0], t, hosts.explain_against_baseline(t, rules))]
    plots = _report_extra("plots") if draw_plots else None
    images = plots.draw_all(t, err or sys.stderr) if draw_plots else {}
    ctx = sections.Context(loaded.path, loaded.label, t, views[0].explained,
                           [(n, title) for n, title, _ in (plots.PLOTS if draw_plots else []) if n in images],
                           hosts=views, rack=rack)
    return ctx, images


def run(run_arg, out, err, out_dir=None, baseline=None, alpha=0.05, results_dir=None):
    html = _report_extra("html")
    ctx, images = build(run_arg, alpha, baseline, results_dir, err)
    md = "\n".join(s for s in (fn(ctx) for fn in sections.SECTIONS) if s)
    dest = Path(out_dir) if out_dir else ctx.run_dir
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(dest, f"cannot create the report directory: {e.strerror or e}") from None
    for name, png in images.items():
        _write(dest / name, png)
    _write(dest / "report.md", md.encode("utf-8"))
    _write(dest / "report.html", html.render(md, f"vmparity report {ctx.run_id}", images).encode("utf-8"))
    out.write(terminal(f"wrote {dest / 'report.md'} and {dest / 'report.html'} ({len(images)} plot(s))") + "\n")
    return 0


def _write(path, data):
    """Write via a temporary file and rename, so a failed report never leaves half a file. A write that fails
    (a full disk, a read-only directory) names the file the report could not write, not the run it read."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise InputError(path, f"cannot write the report: {e.strerror or e}") from None
