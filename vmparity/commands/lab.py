"""`vmparity lab …`: the lab's contracts as commands for the Makefile and the
Ansible roles, so each has one definition in vmparity.lab: the round merge
and the added and confirming rounds (bench role), the BASE checkout of an A/B run (`make lab-ab`), the variant files (`make variants-check`, the guests and
containers roles), the domain XML and the repro plan (`make repro`)."""

import json
import time
from pathlib import Path

from ..errors import InputError
from ..results import inputs
from ..lab import ab, added_rounds, budget, checkout, domain_xml, interventions, repro_plan, rounds, variants, verify
from ..render.escape import terminal


def run(a, out, err):
    if a.lab_command == "merge-rounds":
        merged, missing = rounds.merge(a.staging)
        out.write(f"merged {len(merged)} target(s) from their rounds: {', '.join(merged)}\n")
        for target, ks in sorted(missing.items()):
            err.write(f"vmparity: warning: {target}: rounds {', '.join(map(str, ks))} missing\n")
        return 0
    if a.lab_command == "added-round":
        plan = added_rounds.plan_next(a.staging, a.host, a.goal, a.most, a.seconds, round_seconds=a.round_seconds)
        out.write(json.dumps(plan) + "\n")
        return 0
    if a.lab_command == "confirm-round":
        plan = added_rounds.plan_confirm(a.staging, a.host, a.most, a.seconds, round_seconds=a.round_seconds)
        out.write(json.dumps(plan) + "\n")
        return 0
    if a.lab_command == "budget":
        return budget_cmd(a, out)
    if a.lab_command == "variants" and a.variants_kind == "guests":
        return _guests(out, a.file or checkout.GUEST_VARIANTS, a.accel, a.json, a.host_cpu, a.host, a.only)
    if a.lab_command == "variants" and a.variants_kind == "containers":
        return _containers(out, a.file or checkout.CONTAINER_VARIANTS, a.host_cpus, a.json)
    if a.lab_command == "domain-xml":
        return _domain_xml(out, a)
    if a.lab_command == "ab":
        out.write(ab.shell(ab.prepare(a.base, a.repo, a.dir)))
        return 0
    if a.lab_command == "repro-plan":
        return repro_plan.run(out, a.variants or checkout.GUEST_VARIANTS, a.containers or checkout.CONTAINER_VARIANTS,
                              targets=a.targets, scenarios=a.scenarios, write=a.write, profile=a.profile)
    if a.lab_command == "verify":
        return verify_cmd(a, out, err)
    raise AssertionError(a.lab_command)


def budget_cmd(a, out):
    """The plan of a run in its budget, from the hosts' targets and this host's stored runs."""
    try:
        hosts = json.loads(a.hosts)
    except ValueError as e:
        raise InputError("--hosts", f"not JSON: {e}") from None
    if not isinstance(hosts, dict) or not all(
            isinstance(ts, list) and all(isinstance(t, dict) and isinstance(t.get("target"), str) for t in ts)
            for ts in hosts.values()):
        raise InputError("--hosts", 'expected {"host": [{"target": NAME, "kind": KIND}, ...]}')
    config = budget.load_config(a.config or None)  # --config= (empty): the package's
    kinds = {t["target"]: budget.kind_of(t) for ts in hosts.values() for t in ts}
    stored, run = budget.stored_seconds(inputs.runs_dir(a.results_dir), a.profile, kinds,
                                        config["estimates-from-runs"])
    now = a.now if a.now is not None else time.time()
    json.dump(budget.plan(a.minutes, a.started, now, hosts, a.profile, a.most, config, stored, run,
                          config_name=budget.config_name(a.config or None)), out)
    out.write("\n")
    return 0


def verify_cmd(a, out, err):
    """Without --measured: the plan (stored in the run, derived once) and, with --write, the files and
    site.yml's arguments. With --measured: the verdicts of the verify run, stored with both runs."""
    if a.measured:
        run_dir = interventions.run_dir(a.run, a.results_dir)
        host = interventions.measured_host(run_dir, a.measured, a.results_dir)
        plan = interventions.read_plan(run_dir, host)
        if plan is None:
            raise InputError(run_dir, f"no {interventions.plan_file(host)}: run `vmparity lab verify {a.run}` first")
        verify_dir = interventions.run_dir(a.measured, a.results_dir)
        result = verify.verdicts(verify_dir, plan, a.results_dir)
        verify.store(verify_dir, run_dir, result, plan, a.seconds)
        for v in result["verdicts"]:
            share = f", {v['share']:.0%} of the gap closed" if v.get("share") is not None else ""
            carried = f"; carried by {v['carried-by']}" if v.get("carried-by") else ""
            out.write(terminal(f"{v['target']} {v['rule']}: {v['verdict']}"
                               + (f" by {v['intervention']}" if v.get("intervention") else "")
                               + f"{share}{carried} ({v.get('reason', '')})") + "\n")
        for b in result["bisection"]:
            out.write(terminal(f"{b['target']}: bisection attributes its unexplained rows to "
                               f"{b['attributed-to'] or 'no single field'} ("
                               + ", ".join(f"{f} {s['verdict']}" for f, s in b["steps"].items()) + ")") + "\n")
        out.write(terminal(f"verdicts stored in {verify_dir / verify.VERDICTS_FILE}; "
                           f"{run_dir / verify.LINKS_FILE} links to it") + "\n")
        return 0
    wanted = [t for t in a.targets.replace(",", " ").split() if t]
    host = interventions.verify_host(interventions.run_dir(a.run, a.results_dir), wanted, a.host)
    run_dir, plan = interventions.plan_for(a.run, a.results_dir, rederive=a.rederive, bisect_budget=a.bisect,
                                           host=host)
    chosen = interventions.chosen(plan, wanted)
    for e in plan["explanations"]:
        what = (f"-> {e['intervention']}" + ("" if any(i["target"] == e["intervention"] for i in chosen) else " (not chosen)")
                if e["intervention"] else f"not testable here: {e.get('not-testable')}")
        err.write(terminal(f"verify: {e['target']} {e['rule']} ({len(e['rows'])} rows) {what}") + "\n")
    if not chosen:
        raise InputError(run_dir / interventions.plan_file(host),
                         "no intervention to measure" + (f" among the targets {', '.join(wanted)}" if wanted else ""))
    if a.write:
        out.write(" ".join(verify.files(plan, chosen, a.write, a.rounds, budgeted=a.budget)) + "\n")
    else:
        json.dump({"interventions": chosen}, out, indent=2)
        out.write("\n")
    return 0


def _guests(out, path, accel, as_json, host_cpu_file=None, host=None, only=None):
    guests = variants.load_guests(path)
    wanted = [n for n in (only or "").split(",") if n]
    unknown = [n for n in wanted if n not in guests]
    if unknown:
        raise InputError(path, f"--only names {', '.join(unknown)}, which the file does not define "
                               f"(it has {', '.join(guests)})")
    if wanted:
        guests = {n: v for n, v in guests.items() if n in wanted}
    if host_cpu_file and accel != "kvm":
        raise InputError("--host-cpu", "the host's CPU decides only under KVM: give --accel kvm with it")
    host_cpu = variants.read_host_cpu(host_cpu_file, host) if host_cpu_file else None
    if accel:
        guests = {name: variants.effective(v, accel, name, path, host_cpu) for name, v in guests.items()}
    if as_json:
        out.write(json.dumps(guests, indent=2, sort_keys=True) + "\n")
        return 0
    for name, v in guests.items():
        t = v["topology"]
        notes = "; ".join(v.get("tcg_adjustments", []) + v.get("kvm_adjustments", []))
        out.write(f"{name}: {v['vcpus']} vCPUs ({t['sockets']}s/{t['cores']}c/{t['threads']}t), "
                  f"{v['memory_mib']} MiB, cpu {v['cpu_mode']}" + (f" [{notes}]" if notes else "") + "\n")
    out.write(f"{path}: {len(guests)} guest variants ok\n")
    return 0


def _containers(out, path, host_cpus, as_json):
    containers = variants.containers_for_host(path, host_cpus)
    if as_json:
        out.write(json.dumps(containers, indent=2, sort_keys=True) + "\n")
        return 0
    for name, v in containers.items():
        out.write(f"{name}: --network {v['network']} --cpus {v['cpus'] or 'unlimited'} --memory {v['memory_mib']}m\n")
    out.write(f"{path}: {len(containers)} container variants ok\n")
    return 0


def _domain_xml(out, a):
    path = a.variants or checkout.GUEST_VARIANTS
    guests = variants.load_guests(path)
    if a.variant not in guests:
        raise InputError(path, f"no variant {a.variant!r}: expected one of {', '.join(guests)}")
    out.write(domain_xml.render(a.variant, guests[a.variant], accel=a.accel, ssh_port=a.ssh_port,
                                image_dir=Path(a.image_dir).resolve(), overlay=a.overlay, console_log=a.console_log,
                                seed_disk=a.seed_disk, host_cpus=a.host_cpus))
    return 0
