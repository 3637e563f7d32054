"""A run loaded and compared target by target, with everything the report's sections need."""

import importlib
import sys

from .. import table
from ..decide import explain
from ..history import host_noise, machine_range
from ..errors import InputError
from ..lab import ab_compare
from ..lab import verify
from ..results import inputs, round_record
from . import hosts, sections


def extra(module):
    """The plots (matplotlib) and the HTML (markdown-it-py) come with the
    `report` extra; without it, say so instead of a traceback."""
    try:
        return importlib.import_module(f".{module}", __package__)
    except ModuleNotFoundError as e:
        # vmparity is installed from a checkout (no index has it): the extra by path
        raise InputError("vmparity report", f"needs {e.name}, of the report extra: pip install '.[report]' "
                                            "in a checkout of vmparity (or make laptop-venv there)") from e


def build(run, alpha=0.05, baseline=None, results_dir=None, err=None, draw_plots=True):
    """Load a run and compute everything the sections need; returns (Context, {png name: bytes})."""
    loaded = inputs.load(run, results_dir, require_fingerprint=True)
    if not loaded.is_run:
        raise InputError(run, "expected a run directory or run-id, not a single file")
    ab = ab_compare.analyse(loaded, alpha) if baseline is None else None
    noise_of_host = None
    if ab_compare.is_ab(loaded):  # an A/B run: the targets against metal are HEAD's; BASE is in ab
        loaded, _ = ab_compare.split(loaded)
    t = table.build([loaded], by="target", alpha=alpha, baseline=baseline)
    rules = explain.load_rules()
    rack = None
    if baseline is None and len(hosts.lab_metals(t.columns)) > 1:
        # a rack: each host against its own metal, the metals against each other
        views = hosts.per_host(loaded, alpha, rules)
        rack = hosts.metals_compared(loaded, alpha, rules)
    else:
        views = [hosts.HostView("", t.columns[0], t, hosts.explain_against_baseline(t, rules))]
        if baseline is None:  # a run against its own metal: its unexplained rows and its noise beside their history here
            machine_range.attach(loaded.path, loaded.files, views[0].explained)
            noise_of_host = host_noise.assess(loaded.path, loaded.files)
    plots = extra("plots") if draw_plots else None
    images = plots.draw_all(t, err or sys.stderr) if draw_plots else {}
    ctx = sections.Context(loaded.path, loaded.label, t, views[0].explained,
                           [(n, title) for n, title, _ in (plots.PLOTS if draw_plots else []) if n in images],
                           hosts=views, rack=rack, ab=ab, host_noise=noise_of_host,
                           mde_goals=round_record.mde_goals(round_record.load(loaded.path)))
    ctx.verdicts, ctx.verdicts_run = verify.read_verdicts(loaded.path)
    return ctx, images
