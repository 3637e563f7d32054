"""The verify plan: from a stored run's explanations, one intervention target
per (target, fix), written into the run as `verify-plan.json`.

Each explanation of a target against the lab's metal (decide.explain over the
run) names a rule; the rule's `intervention` (decide.intervention) is applied
to a copy of the target: its environment (env: the same guest or container,
measured with GLIBC_TUNABLES or GOMAXPROCS set), or its variant (guest,
container: a derived variant in the same variant files' format, provisioned
by the same roles). The derived target is named so a reader sees both:
`guest-hpet-clock+clocksource-tsc`, `container-quota+no-quota`. The plan says
what changed, from what and to what, and carries the derived variants
themselves, so `vmparity lab verify` measures the same interventions again
from the stored run even after the variant files moved on.
"""

import dataclasses
import json
import os
import re
import shlex
from pathlib import Path

from .. import table
from ..decide import explain, intervention
from ..errors import InputError
from ..query.names import job_of
from ..results import inputs, jsonfile
from ..results.targets import (CONTAINER, KVM_GUEST, TCG_GUEST, container_variant, guest_variant, host_suffix,
                               intervention_target, is_aa_control, is_lab_metal, matches, metal_of)
from . import bisect, checkout, schema_file, variants, verify_schema

PLAN_FILE = "verify-plan.json"
FORMAT = verify_schema.PLAN_FORMAT


def hosts_of(metals):
    """{rack host: its lab metal} of a run's metals (the local lab's `metal` has no host: {})."""
    return {host_suffix(m)[1:]: m for m in metals if host_suffix(m)}


def target_names(run_dir):
    """The targets of a stored run, by its files' names (nothing parsed)."""
    return sorted(p.stem for p in Path(run_dir).glob("*.txt"))


def run_metals(run_dir):
    """The lab metals of a stored run, by its files' names."""
    return [t for t in target_names(run_dir) if is_lab_metal(t)]


def verify_host(run_dir, targets=(), host=None):
    """The rack host whose targets a verify of this run measures, None for a run of one host (the local
    lab, or one rack host: one plan, verify-plan.json, as ever). A rack run of several hosts is verified
    one host at a time, each against its own metal: `host` names it, or the targets (globs) do when
    they all run on one host; InputError otherwise."""
    names = target_names(run_dir)
    metals = [t for t in names if is_lab_metal(t)]
    if len(metals) <= 1:
        return None
    hosts = hosts_of(metals)
    if host:
        if host not in hosts:
            raise InputError(run_dir, f"--host {host}: this run has no metal-{host}; expected one of its hosts "
                                      f"{', '.join(sorted(hosts))}")
        return host
    of = {metal_of(t, metals) for t in names for g in targets if matches(t, g)} - {None}
    if len(of) == 1:
        return host_suffix(of.pop())[1:]
    why = (f"the targets {', '.join(targets)} run on {len(of)} of them" if targets
           else "no targets were named")
    raise InputError(run_dir, f"a run of {len(hosts)} rack hosts ({', '.join(sorted(hosts))}) is verified one host "
                              f"at a time, each against its own metal, and {why}: name one host (--host, "
                              f"LAB_VERIFY_HOST) or targets of one host (--targets, LAB_VERIFY_TARGETS)")


def plan_file(host=None):
    """verify-plan.json; a run of several rack hosts keeps one plan per host, verify-plan-<host>.json,
    so that verifying one host never overwrites another's plan."""
    return PLAN_FILE if not host else f"verify-plan-{host}.json"


def run_explanations(run, results_dir=None, rules=None, alpha=0.05, host=None):
    """(run directory, metal, [Explanation]) of every target of a stored run against its lab metal
    (the A/A control aside). A run of one host: the local lab, or one rack host (the nested KVM
    host's `make kvm-lab`, whose targets carry `-kvm01`); of a rack run (a metal per host), the
    targets of `host` against that host's metal."""
    loaded, metal = host_run(run, results_dir, host)
    return Path(loaded.path), metal, explanations_of(loaded, metal, rules, alpha)


def host_run(run, results_dir=None, host=None):
    """(the stored run, loaded; its one lab metal): of a rack run of several hosts, only the files of
    `host`'s targets, read once for the explanations and the bisection alike."""
    loaded = inputs.load(run, results_dir, require_fingerprint=True)
    if not loaded.is_run:
        raise InputError(run, "expected a run directory or run-id, not a single file")
    metals = [rf.target for rf in loaded.files if is_lab_metal(rf.target)]
    if host is not None:
        metal = hosts_of(metals).get(host)
        if metal is None:  # verify_host names the hosts to a user; this guards the other callers
            raise InputError(loaded.path, f"no metal-{host} in this run")
        loaded = dataclasses.replace(loaded, files=[rf for rf in loaded.files if metal_of(rf.target, metals) == metal])
        metals = [metal]
    if len(metals) != 1:
        raise InputError(loaded.path, f"expected one lab metal target (a run of one host: the local lab, or one "
                                      f"rack host), found {len(metals)}: {', '.join(metals) or 'none'}; a run of "
                                      "several rack hosts is verified one host at a time (--host)")
    return loaded, metals[0]


def explanations_of(loaded, metal, rules=None, alpha=0.05):
    """[Explanation] of every target of a loaded run against `metal`, the A/A control aside."""
    t = table.build([loaded], by="target", alpha=alpha, baseline=metal)
    found = explain.explain(t, t.configs, rules if rules is not None else explain.load_rules())
    return [e for e in found.explanations if not is_aa_control(e.b) and e.b != metal]


def measured_host(directory, measured, results_dir=None):
    """The host whose plan the verify run `measured` measured: None for a run of one host; of a rack run of
    several, the host of the verify run's one metal (a verify measures one host at a time)."""
    if len(run_metals(directory)) <= 1:
        return None
    measured = hosts_of(run_metals(run_dir(measured, results_dir)))
    return verify_host(directory, host=next(iter(measured)) if len(measured) == 1 else None)


def _cmdline_set(extra, changes):
    """kernel_cmdline_extra with each KEY=VALUE of `changes` set (an old KEY=… replaced)."""
    words = [w for w in shlex.split(extra or "") if w.split("=", 1)[0] not in changes]
    return " ".join(words + [f"{k}={v}" for k, v in changes.items()])


def _variant_change(kind, own, merged, iv):
    """(derived variant's own fields, [change]) for a guest or container intervention."""
    derived = json.loads(json.dumps(own))
    changes = []
    for field, value in iv.get("set", {}).items():
        if field not in merged:
            raise InputError("vmparity/decide/rules.yaml", f"intervention {iv['name']}: the {kind} variants have "
                                                           f"no field {field!r}; expected one of {', '.join(sorted(merged))}")
        if merged[field] != value:
            changes.append({"field": field, "from": merged[field], "to": value})
            derived[field] = value
    if iv.get("cmdline"):
        before = merged.get("kernel_cmdline_extra", "")
        after = _cmdline_set(before, iv["cmdline"])
        if after != before:
            changes.append({"field": "kernel_cmdline_extra", "from": before, "to": after})
            derived["kernel_cmdline_extra"] = after
    touched = set(iv.get("cmdline", {})) | set(iv.get("set", {}))
    expect = {k: v for k, v in merged.get("expect", {}).items() if k not in touched}
    if kind == "guest" and expect != merged.get("expect", {}):
        # the old expectation no longer holds, and the new value may not take (TCG may refuse a clocksource):
        # the guest's fingerprint records what it got, and the verdict reads it
        changes.append({"field": "expect", "from": merged.get("expect", {}), "to": expect})
        derived["expect"] = expect
    return derived, changes


def _env_change(header, iv):
    changes = []
    for var, value in iv["env"].items():
        before = _env_before(header, var)
        if before != value:
            changes.append({"field": f"env {var}", "from": before, "to": value})
    return changes


def _env_before(header, var):
    if var == "GLIBC_TUNABLES":
        return header.get("glibc-tunables", "(unset)")
    if var == "GOMAXPROCS":
        return f"(unset: Go uses the {header.get('cpus-visible', '?')} visible CPUs)"
    return "(unset)"


class Builder:
    """The plan under construction: entries (an explanation, or a bisection step, with its rows) and
    the intervention targets they name, one per (target, change)."""

    def __init__(self, run_dir, metal, guests_file=None, containers_file=None):
        self.guests_file = guests_file or checkout.GUEST_VARIANTS
        self.containers_file = containers_file or checkout.CONTAINER_VARIANTS
        self.guests, self.containers = variants.load_guests(self.guests_file), variants.load_containers(self.containers_file)
        self.own = {"guest": _own(self.guests_file), "container": _own(self.containers_file)}
        self.run_dir, self.metal = Path(run_dir), metal
        # a rack host's targets carry its suffix (guest-hpet-clock-kvm01): the variant is what precedes it
        self.suffix = host_suffix(metal) or ""
        self.derived, self.entries = {}, []
        self.originals = {"guests": {}, "containers": {}}

    def add(self, target, rule_id, title, fix, header, rows, iv, **extra):
        """One entry: `iv` (decide.intervention.render's dict) applied to `target` (whose header is `header`)
        tested on `rows` (Findings); an intervention target shared by entries is made once."""
        entry = {"target": target, "rule": rule_id, "title": title, "fix": fix,
                 "rows": [list(r) for r in sorted({(f.name, f.unit) for f in rows})],
                 "kind": header.get("target-kind", ""), **extra}
        reason = iv.get("not-testable") or _why_not(iv, target, header, self.guests, self.containers, self.suffix)
        if reason and iv.get("otherwise") and not iv.get("not-testable"):
            reason = f"{reason}; {iv['otherwise']}"  # the rule's own word on this kind of target
        name = intervention_target(target, iv["name"], self.suffix) if not reason else None
        if not reason:
            item = self.derived.get(name) or {"target": name, "of": target, "kind": iv["kind"], "intervention": iv["name"],
                                              "target-kind": header.get("target-kind", ""), "rules": []}
            if iv["kind"] == "env":
                item["env"], changes = iv["env"], _env_change(header, iv)
                # the original is provisioned again from the plan's variants (verify.files): its own fields,
                # not the defaults, or the guest it measures beside the fix would be another guest
                for kind, variant in (("guest", guest_variant(target, self.suffix)),
                                      ("container", container_variant(target, self.suffix))):
                    if variant in self.own[kind]:
                        self.originals[kind + "s"][variant] = self.own[kind][variant]
            else:
                pool = self.guests if iv["kind"] == "guest" else self.containers
                variant = (guest_variant if iv["kind"] == "guest" else container_variant)(target, self.suffix)
                own = self.own[iv["kind"]].get(variant) or {}
                fields, changes = _variant_change(iv["kind"], own, pool[variant], iv)
                item["variant"] = f"{variant}+{iv['name']}"
                item["variant-fields"] = fields
                self.originals[iv["kind"] + "s"][variant] = own
            if not changes:
                reason = f"{target} already has what the fix asks for ({_describe(iv)})"
            else:
                item["changes"] = changes
                item["rules"].append(rule_id)
                self.derived[name] = item
        entry["intervention"] = name if not reason else None
        if reason:
            entry["not-testable"] = reason
        self.entries.append(entry)
        return entry

    def plan(self):
        return {"format": FORMAT, "run": self.run_dir.name, "reference": self.metal,
                "explanations": self.entries, "interventions": list(self.derived.values()),
                "original-variants": self.originals,
                "variant-defaults": {"guests": _defaults(self.guests_file), "containers": _defaults(self.containers_file)},
                "jobs": _jobs(self.entries)}


def derive(run_dir, metal, explanations, guests_file=None, containers_file=None, builder=None):
    """The plan (a dict, docs/formats.md `verify-plan.json`) for these explanations."""
    b = builder or Builder(run_dir, metal, guests_file, containers_file)
    for e in explanations:
        A, B = e.headers
        b.add(e.b, e.rule["id"], e.rule["title"], e.fix, B, e.rows, intervention.render(e.rule, A, B, e.a, e.b, e.rows))
    return b.plan()


def _why_not(iv, target, header, guests, containers, suffix=""):
    kind = header.get("target-kind", "")
    if iv["kind"] == "guest":
        v = guest_variant(target, suffix)
        if kind not in (TCG_GUEST, KVM_GUEST) or v not in guests:
            return (f"the fix is a change of a guest's variant, and {target} is "
                    + (f"a {kind}" if kind not in (TCG_GUEST, KVM_GUEST) else "no variant of the guest variants file"))
    if iv["kind"] == "container":
        v = container_variant(target, suffix)
        if kind != CONTAINER or v not in containers:
            return (f"the fix is a change of a container's variant, and {target} is "
                    + (f"a {kind}" if kind != CONTAINER else "no variant of the container variants file"))
    if iv["kind"] == "env" and kind not in (TCG_GUEST, KVM_GUEST, CONTAINER):
        return f"the fix changes the environment of a lab target, and {target} is a {kind or 'file of unknown kind'}"
    return None


def _describe(iv):
    parts = [f"{k}={v}" for k, v in iv.get("env", {}).items()]
    parts += [f"{k}: {v}" for k, v in iv.get("set", {}).items()]
    parts += [f"{k}={v} on the kernel command line" for k, v in iv.get("cmdline", {}).items()]
    return ", ".join(parts)


def _own(path):
    return {name: fields or {} for name, fields in schema_file.read(path).data["variants"].items()}


def _defaults(path):
    return schema_file.read(path).data["defaults"]


def _jobs(entries):
    """{target: [benchrun job]}: the jobs of each target's explained rows that an intervention tests;
    the target and its intervention targets run those, metal the union of the measured targets' jobs."""
    jobs = {}
    for en in entries:
        if en["intervention"]:
            jobs.setdefault(en["target"], set()).update(job_of(name) for name, _ in en["rows"])
    return {t: sorted(js) for t, js in sorted(jobs.items())}


def intervention_jobs(plan, item):
    """The benchrun jobs an intervention target runs: those of the rows of its own explanations and
    of every explanation of the same original whose rows overlap them (there the verdict says which
    intervention carries the rows, so each must be measured on them). The rows of its original's
    other explanations are not its to move: measuring them would only cost time (a TCG guest's
    round is its slowest part)."""
    mine = [e for e in plan["explanations"] if e["target"] == item["of"] and e["intervention"]]
    own = {tuple(r) for e in mine if e["intervention"] == item["target"] for r in e["rows"]}
    rows = set(own)
    for e in mine:
        theirs = {tuple(r) for r in e["rows"]}
        if theirs & own:
            rows |= theirs
    return sorted({job_of(name) for name, _ in rows})


def only_regex(jobs):
    """benchrun --only for exactly these jobs."""
    return "^(" + "|".join(re.escape(j) for j in sorted(jobs)) + ")$"


def write_plan(plan, run_dir, host=None):
    path = Path(run_dir) / plan_file(host)
    jsonfile.write(path, plan, indent=2, run=run_dir)
    return path


def read_plan(run_dir, host=None):
    """The plan stored in a run (for `host` of a run of several rack hosts), None when it has none;
    InputError when it is not one."""
    path = Path(run_dir) / plan_file(host)
    if not os.path.lexists(path):  # a FIFO, a device or a link out of the run there is refused by the reader
        return None
    plan = jsonfile.read(path, f"cannot read the verify plan: {{error}}; expected JSON ({FORMAT})", run=run_dir)
    if not isinstance(plan, dict) or plan.get("format") != FORMAT:
        raise InputError(path, f"expected a verify plan with format {FORMAT}")
    jsonfile.check_shape(path, plan, verify_schema.PLAN)
    for i, item in enumerate(plan["interventions"]):  # what the schema cannot say: the jobs of every target fixed
        if item["of"] not in plan["jobs"]:
            raise InputError(path, f"field interventions/{i}/of: {item['of']!r} has no entry in `jobs`: expected "
                                   "the benchrun jobs of every target an intervention fixes")
    return plan


def chosen(plan, targets=None):
    """The plan's interventions, restricted to those of `targets` (globs over the original or the
    derived target names; None or empty = all)."""
    if not targets:
        return list(plan["interventions"])
    return [i for i in plan["interventions"] if any(matches(i["of"], g) or matches(i["target"], g) for g in targets)]


def run_dir(run, results_dir=None):
    """The directory of a stored run (a path or a run id)."""
    path = inputs.resolve(run, results_dir)
    if not Path(path).is_dir():
        raise InputError(run, "expected a stored run: a run directory or a run id under the results directory")
    return Path(path)


def plan_for(run, results_dir=None, rederive=False, bisect_budget=0, rules=None, host=None):
    """(run directory, plan): the plan stored in the run, else derived from its explanations (and, with a
    bisection budget, bisection steps for the rows no rule explains) and stored there, so that verifying
    the run again measures the same interventions. `host`: of a run of several rack hosts, the one
    verified (verify_host), with a plan of its own."""
    directory = run_dir(run, results_dir)
    plan = None if rederive else read_plan(directory, host)
    if plan is not None and bisect_budget and plan.get("bisect", {}).get("budget", 0) < bisect_budget:
        plan = None  # a larger bisection than the stored plan's was asked for
    if plan is None:
        rules = rules if rules is not None else explain.load_rules()
        loaded, metal = host_run(directory, results_dir, host)
        directory = Path(loaded.path)
        builder = Builder(directory, metal)
        derive(directory, metal, explanations_of(loaded, metal, rules), builder=builder)
        left_out = []
        if bisect_budget:
            left_out = bisect.add(builder, bisect.unexplained(loaded, metal, rules), bisect_budget)
        plan = builder.plan()
        plan["bisect"] = {"budget": bisect_budget,
                          "left-out": [{"target": t, "field": f, "reason": r} for t, f, r in left_out]}
        write_plan(plan, directory, host)
    return directory, plan
