"""A run of several metal hosts (a rack): each host's targets are compared
with that host's metal, and the hosts' metals with each other.

The lab names a rack host's targets with the host's suffix (`metal-rack01`,
`guest-nosmt-rack01`, `metal-aa-rack01`), so the lab metals among a run's
targets say which hosts it has, and a target belongs to the metal whose
suffix it carries (the longest, should one host's name end another's).
"""

from dataclasses import dataclass

from ..decide import explain
from ..results import inputs
from .. import table
from ..lab.rounds import PER_REPETITION, PERIODS_KEY, SUMMED_KEYS
from ..results.targets import aa_control_of, host_suffix, is_aa_control, is_lab_metal, metal_of


@dataclass
class HostView:
    host: str  # the rack host's name ("" on a single host)
    metal: str  # its lab metal, the baseline of its table
    table: object  # table.Table of its targets, the metal first
    explained: dict  # target -> explain.Result against the metal


def lab_metals(targets):
    return [t for t in targets if is_lab_metal(t)]


def explain_against_baseline(t, rules):
    """Every target of a table (its A/A control aside) explained against the baseline."""
    return {col: explain.explain(table.pair_table(t, col), t.configs, rules)
            for col in t.columns[1:] if not is_aa_control(col)}


def _subset(loaded, targets):
    files = [rf for rf in loaded.files if rf.target in targets]
    return inputs.Input(loaded.label, loaded.path, files, loaded.is_run)


def per_host(loaded, alpha, rules):
    """One HostView per rack host: the host's targets against its own metal
    (its A/A control gives the noise of exactly those comparisons)."""
    targets = [rf.target for rf in loaded.files]
    metals = lab_metals(targets)
    views = []
    for metal in metals:
        members = [t for t in targets if metal_of(t, metals) == metal]
        t = table.build([_subset(loaded, members)], by="target", alpha=alpha, baseline=metal)
        views.append(HostView(host_suffix(metal).lstrip("-"), metal, t, explain_against_baseline(t, rules)))
    return views


def metals_compared(loaded, alpha, rules):
    """The hosts' metals side by side, the first host's metal as the baseline
    (its A/A control judges what is beyond noise); None on a single host."""
    targets = [rf.target for rf in loaded.files]
    metals = lab_metals(targets)
    if len(metals) < 2:
        return None
    aa = aa_control_of(metals[0])
    members = metals + ([aa] if aa in targets else [])
    t = table.build([_subset(loaded, members)], by="target", alpha=alpha, baseline=metals[0])
    return HostView("", metals[0], t, explain_against_baseline(t, rules))


def differing_keys(t, columns):
    """Fingerprint keys whose values differ between these columns: run
    bookkeeping and the measurements benchrun records per repetition aside."""
    cfgs = {c: t.configs.get(("", c), {}) for c in columns}
    keys = dict.fromkeys(k for c in cfgs.values() for k in c)
    skip = {"target", "run-id", "count", *SUMMED_KEYS, PERIODS_KEY}
    return {k: {c: cfgs[c].get(k, "") for c in columns} for k in keys
            if k not in skip and not k.startswith(PER_REPETITION) and len({cfgs[c].get(k) for c in columns}) > 1}
