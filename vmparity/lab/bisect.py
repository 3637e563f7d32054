"""Environment bisection for what no rule explains (`vmparity lab verify --bisect N`).

For a target with rows beyond noise that no rule explains, the lab varies one
environment field at a time from the target's setting to metal's, each as an
intervention target of its own (`guest-nosmt+bisect-clocksource`), measured in
the verify run's rounds like the explanations' fixes. The fields, where the
target's fingerprint differs from metal's and the lab can set them:

| field | change (toward metal) | kind |
|---|---|---|
| nt-threshold | GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=<metal's> | env |
| gomaxprocs | GOMAXPROCS=<the quota> where the quota is below the visible CPUs | env |
| clocksource | clocksource=<metal's> (tsc: tsc=reliable), no HPET | guest |
| topology | <metal's threads per core> threads, topoext required | guest |
| seccomp | unconfined, where metal runs without a filter | container |
| quota | no --cpus quota | container |
| cpuset | every CPU | container |

Each step's rows are the target's unexplained rows, and the difference is
attributed to the step that closes it (decide.verification.carrier: the
verified, else partly, step with the largest share). The budget is a number
of steps: the slow ones (a guest boot each) are left out first, and every
step left out is listed with the reason.
"""

import math

from .. import table
from ..decide import explain
from ..results import inputs
from ..results.targets import CONTAINER, KVM_GUEST, TCG_GUEST, aa_control_of, is_aa_control
from ..query.names import param_number

RULE_PREFIX = "bisect-"


def unexplained(loaded, metal, rules, alpha=0.05):
    """{target: (metal's header, the target's header, [Finding])}: each target's rows beyond noise
    that no rule explains, against metal with the A/A control (one table per target)."""
    out = {}
    keep = {metal, aa_control_of(metal)}
    for rf in loaded.files:
        if rf.target in keep or is_aa_control(rf.target):
            continue
        files = [f for f in loaded.files if f.target in keep | {rf.target}]
        t = table.build([inputs.Input(loaded.label, loaded.path, files, True)], by="target", alpha=alpha,
                        baseline=metal)
        result = explain.explain(t, t.configs, rules)
        if result.unexplained:
            group = result.unexplained[0].group
            out[rf.target] = (t.configs[(group, metal)], t.configs[(group, rf.target)], result.unexplained)
    return out


def _quota(header):
    q, visible = param_number(header.get("cpu-quota")), param_number(header.get("cpus-visible"))
    return q if q is not None and visible is not None and q < visible else None


def steps(A, B):
    """[(field, intervention dict)]: one field of target header B set as on metal header A, where they differ;
    the fast steps (env) first."""
    kind = B.get("target-kind", "")
    out = []
    if A.get("nt-threshold") and A.get("nt-threshold") != B.get("nt-threshold"):
        out.append(("nt-threshold", {"kind": "env", "env": {
            "GLIBC_TUNABLES": f"glibc.cpu.x86_non_temporal_threshold={A['nt-threshold']}"}}))
    quota = _quota(B)
    if quota is not None:
        out.append(("gomaxprocs", {"kind": "env", "env": {"GOMAXPROCS": str(max(1, math.ceil(quota)))}}))
    if kind == CONTAINER:
        if str(B.get("seccomp", "")).startswith("filter") and not str(A.get("seccomp", "")).startswith("filter"):
            out.append(("seccomp", {"kind": "container", "set": {"seccomp": "unconfined"}}))
        if quota is not None:
            out.append(("quota", {"kind": "container", "set": {"cpus": None, "cpus_fraction_of_host": None}}))
        if B.get("cpuset") != A.get("cpuset"):
            out.append(("cpuset", {"kind": "container", "set": {"cpuset": None}}))
    if kind in (TCG_GUEST, KVM_GUEST):
        source = A.get("clocksource")
        if source and source != B.get("clocksource"):
            cmdline = {"clocksource": source, **({"tsc": "reliable"} if source == "tsc" else {})}
            out.append(("clocksource", {"kind": "guest", "set": {"hpet": False}, "cmdline": cmdline}))
        threads = int(param_number(A.get("threads-per-core")) or 1)
        if threads != param_number(B.get("threads-per-core")) or A.get("topoext") != B.get("topoext"):
            cpus = int(param_number(B.get("cpus-online")) or threads)
            features = [{"name": "topoext", "policy": "require" if A.get("topoext") == "yes" else "disable"}]
            topology = {"sockets": 1, "cores": max(1, cpus // threads), "threads": threads}
            out.append(("topology", {"kind": "guest", "set": {"vcpus": topology["cores"] * threads,
                                                              "topology": topology, "features": features}}))
    return [(field, dict(iv, name=RULE_PREFIX + field)) for field, iv in out]


def add(builder, found, budget):
    """Add each target's bisection steps to the plan builder, at most `budget` steps in all (env steps first,
    then the others in field order); returns the steps left out, as (target, field, reason)."""
    left_out = []
    planned = 0
    for target, (A, B, rows) in sorted(found.items()):
        for field, iv in steps(A, B):
            if planned >= budget:
                left_out.append((target, field, f"over the bisection budget of {budget} step(s)"))
                continue
            entry = builder.add(target, iv["name"], f"bisection: {field} as on {builder.metal}",
                                f"set {field} on {target} as on {builder.metal}", B, rows, iv, bisect=field)
            planned += entry["intervention"] is not None
    return left_out
