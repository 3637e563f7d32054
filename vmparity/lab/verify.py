"""`vmparity lab verify`: the verify run's files, and its verdicts from the measured run.

Before the run (`files`): the plan's derived variants written as variant
files in the lab's own format (the defaults of the files the plan was made
from, the original variants it changes, the derived ones), and the Ansible
extra-vars that make the SAME roles provision them and the bench role measure
metal, metal-aa, each original target and its intervention targets in
interleaved rounds (`bench_targets_only`, `bench_only_by_target`,
`bench_env_targets` for the environment interventions).

After the run (`verdicts`): per explanation, decide.verification's verdict
on its rows, from the verify run alone (its own A/A control), and which
intervention carries the rows when several of the same target moved them.
Stored as `verdicts.json` in the verify run; the original run lists its
verify runs in `verifications.json`.
"""

import math
import os
import re
from pathlib import Path

import yaml

from .. import stats, table
from ..decide import judgement, verification
from ..render import verification as verdict_words
from ..errors import InputError
from ..results import inputs, jsonfile
from ..results.targets import TCG_GUEST, container_variant, guest_variant, host_suffix
from ..stats import utest
from . import added_rounds, interventions, verify_schema

VERDICTS_FILE = "verdicts.json"
LINKS_FILE = "verifications.json"
VERDICTS_FORMAT = verify_schema.VERDICTS_FORMAT


def files(plan, chosen, directory, rounds=5, budgeted=False):
    """Write guests.yml, containers.yml, provision-vars.json and bench-vars.json for the chosen
    interventions into `directory`; returns the ansible-playbook arguments for site.yml. `budgeted`:
    the run has a time budget, `rounds` is the most it may plan and every target takes each round it
    runs (a TCG guest's verdicts are timed like any other's, and their intervals narrow with rounds)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    originals = plan["original-variants"]
    suffix = host_suffix(plan["reference"]) or ""  # a rack host's run: guest-hpet-clock-kvm01 is hpet-clock
    docs = {"guests": {}, "containers": {}}
    for item in chosen:
        if item["kind"] in ("guest", "container"):
            kind = "guests" if item["kind"] == "guest" else "containers"
            base = (guest_variant if kind == "guests" else container_variant)(item["of"], suffix)
            docs[kind][base] = originals[kind].get(base) or {}
            docs[kind][item["variant"]] = item["variant-fields"]
    of = sorted({item["of"] for item in chosen})
    for item in of:
        for kind, variant in (("guests", guest_variant(item, suffix)), ("containers", container_variant(item, suffix))):
            if variant and variant not in docs[kind]:
                docs[kind][variant] = originals[kind].get(variant) or {}
    prov, skip = {}, []
    for kind, role_var in (("guests", "guests"), ("containers", "containers")):
        if not docs[kind]:
            skip.append(role_var)
            continue
        path = directory / f"{kind}.yml"
        doc = {"defaults": plan["variant-defaults"][kind], "variants": docs[kind]}
        jsonfile.write_text(path, f"# derived by `vmparity lab verify` from run {plan['run']} (verify-plan.json)\n"
                            + yaml.safe_dump(doc, sort_keys=False))
        prov[f"{role_var}_variants_file"] = str(path.resolve())
        prov[f"{role_var}_variants_only"] = list(docs[kind])
    metal = plan["reference"]
    targets = [metal] + of + [i["target"] for i in chosen]
    jobs = {t: plan["jobs"][t] for t in of}
    only = {t: interventions.only_regex(js) for t, js in jobs.items()}
    only.update({i["target"]: interventions.only_regex(interventions.intervention_jobs(plan, i))
                 for i in chosen})
    only[metal] = interventions.only_regex(set().union(*jobs.values()))
    bench = {"bench_targets_only": [t for t in targets if not any(i["target"] == t and i["kind"] == "env"
                                                                  for i in chosen)],
             "bench_only_by_target": {t: only[t] for t in targets if t in only},
             "bench_env_targets": [{"target": i["target"], "of": i["of"], "env": i["env"]}
                                   for i in chosen if i["kind"] == "env"],
             "bench_count": rounds, "bench_rounds_by_kind": {} if budgeted else rounds_by_kind(rounds),
             "bench_memcpy_min_size_planned": judged_copy_size(plan, chosen)}
    for name, data in (("provision-vars.json", prov), ("bench-vars.json", bench)):
        jsonfile.write(directory / name, data, indent=2)
    args = ["-e", f"@{(directory / 'provision-vars.json').resolve()}", "-e", f"@{(directory / 'bench-vars.json').resolve()}"]
    return args + (["--skip-tags", ",".join(skip)] if skip else []) + limit_to_host(suffix[1:])


def judged_copy_size(plan, chosen):
    """The smallest memcpy copy among the rows the verdicts judge (the explanations of the chosen
    interventions), for benchrun --memcpy-min-size: no verdict reads a smaller copy (0: every size)."""
    measured = {i["target"] for i in chosen}
    return added_rounds.memcpy_min_size([name for e in plan["explanations"] if e["intervention"] in measured
                                         for name, _ in e["rows"]])


def limit_to_host(host):
    """site.yml's --limit for the rack host a plan's targets run on (none for the local lab): the other
    hosts of the inventory must not provision the derived variants, nor measure. Its inventory name is
    the host's short name, or that name and a domain (the suffix is inventory_hostname_short)."""
    return ["--limit", f"~^{re.escape(host)}(\\.|$)"] if host else []


def rounds_by_kind(rounds, alpha=0.05):
    """The bench role's bench_rounds_by_kind for a verify run of `rounds` rounds: a TCG guest (and its
    intervention targets, of the same kind) takes part in one round more than the U test between a
    target and its fix needs to reach alpha at all (4 a side at 0.05), the slowest targets by far: at
    exactly 4 a side one lost round, or one value of the fix among the target's, leaves the test
    blind, and every row of the fix then "changed nothing". Metal, its A/A pass, KVM guests and
    containers take every round."""
    tcg = stats.samples_for_utest(alpha)[1] + 1
    return {TCG_GUEST: tcg} if rounds > tcg else {}


def _row_index(t):
    return {(r.name, r.unit): r for r in t.rows}


def _effects(rows, t, by_original, original, derived, model, alpha=0.05):
    out = []
    for name, unit in rows:
        r, r2 = t.get((name, unit)), by_original.get((name, unit))
        if r is None or original not in r.deltas or derived not in r.deltas or r2 is None or derived not in r2.deltas:
            continue
        d0, d1, dm = r.deltas[original], r.deltas[derived], r2.deltas[derived]
        s1, s2 = r.spreads.get(original, math.nan), r.spreads.get(derived, math.nan)
        band = model.band_between(name, unit, s1, r.cells[original].n, s2, r.cells[derived].n)
        need = math.log1p(band / 100)
        moved = dm.comparison.significant and dm.pct is not None and abs(math.log1p(dm.pct / 100)) > need
        out.append(verification.RowEffect(
            name, unit, d0.pct, d1.pct,
            before_beyond=judgement.beyond(d0),
            after_beyond=judgement.beyond(d1), moved=bool(moved),
            # a fix that closed this gap whole would have moved the row by the gap itself, and
            # the U test between the target and its fix could call that at all (a TCG guest's
            # round lost leaves 3 values against 4, whose best p-value is 0.057)
            visible=(d0.pct is None or abs(math.log1p(d0.pct / 100)) > need)
            and utest.can_reach(r.cells[original].n, r.cells[derived].n, alpha), band=band))
    return out


def verdicts(verify_run, plan, results_dir=None, alpha=0.05):
    """{format, run, verifies, verdicts: [...]}: a verdict per explanation of the plan (those whose
    intervention this run measured, and the not-testable ones with their reason)."""
    loaded = inputs.load(verify_run, results_dir, require_fingerprint=True)
    present = {rf.target for rf in loaded.files}
    metal = plan["reference"]
    if metal not in present:
        raise InputError(loaded.path, f"the verify run has no {metal}: nothing to hold the interventions against")
    t = table.build([loaded], by="target", alpha=alpha, baseline=metal)
    if not t.noise:
        raise InputError(loaded.path, "the verify run has no A/A control (metal-aa): 'beyond noise' is undefined")
    model, rows = t.noise[0], _row_index(t)
    by_original = {}
    measured = [i for i in plan["interventions"] if i["target"] in present and i["of"] in present]
    for of in sorted({i["of"] for i in measured}):
        by_original[of] = _row_index(table.build([loaded], by="target", alpha=alpha, baseline=of))
    out = []
    for e in plan["explanations"]:
        entry = {"target": e["target"], "rule": e["rule"], "title": e["title"], "intervention": e["intervention"],
                 **({"bisect": e["bisect"]} if e.get("bisect") else {})}
        if not e["intervention"]:
            out.append(dict(entry, verdict="not testable here", reason=e.get("not-testable", "")))
            continue
        mine = next((i for i in measured if i["target"] == e["intervention"]), None)
        if mine is None:
            out.append(dict(entry, verdict="not measured",
                            reason="this verify run did not measure the intervention (not chosen, or it failed)"))
            continue
        siblings = [i for i in measured if i["of"] == e["target"]]
        judged = {i["target"]: verification.judge(_effects(e["rows"], rows, by_original[e["target"]], e["target"],
                                                           i["target"], model, alpha)) for i in siblings}
        v = judged[mine["target"]]
        carried = verification.carrier(judged) if len(judged) > 1 else None
        entry.update(verdict=v.verdict, share=v.share, rows=v.rows, moved=v.moved, closed=v.closed,
                     reason=verdict_words.reason(v), changes=mine["changes"],
                     numbers=[{"name": x.name, "unit": x.unit, "before-pct": x.before, "after-pct": x.after,
                               "before-beyond-noise": x.before_beyond, "after-beyond-noise": x.after_beyond,
                               "moved-beyond-noise": x.moved, "band-between-pct": x.band,
                               "whole-closure-visible": x.visible} for x in v.effects])
        if carried and carried != mine["target"]:
            entry["carried-by"] = carried
            entry["carried-share"] = judged[carried].share
        alike = verification.closed_alike(v, mine, siblings, judged)
        if alike:
            entry.update(verdict="inconclusive", reason=verdict_words.closed_alike_reason(v, alike, judged[alike["target"]]))
        out.append(entry)
    return {"format": VERDICTS_FORMAT, "run": Path(loaded.path).name, "verifies": plan["run"],
            "reference": metal, "verdicts": out, "bisection": _attribution(out)}


def _attribution(out):
    """Per target with bisection steps: the field whose change closes its unexplained rows (the verified,
    else partly, step with the largest share), or none, with every step's verdict."""
    by_target = {}
    for v in out:
        if v.get("bisect") and v.get("verdict") in verification.VERDICTS:
            by_target.setdefault(v["target"], {})[v["bisect"]] = v
    result = []
    for target, fields in sorted(by_target.items()):
        judged = {f: verification.Verdict(v["verdict"], v.get("share")) for f, v in fields.items()}
        result.append({"target": target, "attributed-to": verification.carrier(judged),
                       "steps": {f: {"verdict": v["verdict"], "share": v.get("share")} for f, v in fields.items()}})
    return result


def store(verify_dir, original_dir, result, plan, seconds=None):
    """verdicts.json and the plan in the verify run; the link back in the original run."""
    verify_dir, original_dir = Path(verify_dir), Path(original_dir)
    if seconds is not None:
        result["seconds"] = round(seconds)
    # every record read before any is written: a links file that is refused leaves both runs as they were
    links_path = original_dir / LINKS_FILE
    links = _links(links_path, original_dir) if os.path.lexists(links_path) else {"verified-by": []}
    jsonfile.write(verify_dir / VERDICTS_FILE, result, indent=2, run=verify_dir)
    interventions.write_plan(dict(plan, verifies=plan["run"]), verify_dir)
    summary = {"run": verify_dir.name,
               "verdicts": {f"{v['target']} {v['rule']}": v["verdict"] for v in result["verdicts"]}}
    links["verified-by"] = [x for x in links["verified-by"] if x.get("run") != verify_dir.name] + [summary]
    jsonfile.write(links_path, links, indent=2, run=original_dir)


def read_verdicts(run_dir):
    """A run's verdicts: its own verdicts.json, else the newest verify run's named in verifications.json;
    (verdicts dict, the run that holds them) or (None, None)."""
    run_dir = Path(run_dir)
    own = run_dir / VERDICTS_FILE
    if os.path.lexists(own):  # a link out of the run there is refused, not taken for no verdicts
        return _verdicts(own, run_dir), run_dir.name
    links = run_dir / LINKS_FILE
    if os.path.lexists(links):
        for link in reversed(_links(links, run_dir)["verified-by"]):
            other = run_dir.parent / link["run"] / VERDICTS_FILE  # a sibling run, by name (verify_schema.LINKS)
            if os.path.lexists(other):
                return _verdicts(other, other.parent), link["run"]
    return None, None


def _verdicts(path, run):
    return jsonfile.read(path, "cannot read: {error}; expected JSON", verify_schema.VERDICTS, run=run)


def _links(path, run):
    return jsonfile.read(path, "cannot read: {error}; expected JSON", verify_schema.LINKS, run=run)
