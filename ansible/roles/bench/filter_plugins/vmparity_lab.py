"""Filters that hand the lab's contracts to Ansible from their one owner, the
vmparity package (installed in the venv ansible-playbook runs from)."""

import hashlib
from pathlib import Path

from vmparity.lab import ab, budget, rounds
from vmparity.results.targets import aa_control_of, base_side, head_of, is_intervention


def vmparity_schedule(targets, count, seed, rounds_by_kind=None):
    """[{round: k, order: [target, …]}]: every target once per round, shuffled per round.
    targets: [{target, kind}]; rounds_by_kind {kind: n} caps the rounds of that kind's targets."""
    names = [t["target"] for t in targets]
    caps = {t["target"]: min(int(count), int((rounds_by_kind or {})[t["kind"]]))
            for t in targets if t.get("kind") in (rounds_by_kind or {})}
    plan = rounds.schedule(names, int(count), int(seed), caps)
    return [{"round": k, "order": order} for k, order in enumerate(plan, 1)]


def vmparity_ab_sides(targets, count, rounds_by_kind=None, remote_dir=""):
    """An A/B run's targets with their BASE sides, and those it leaves out: {targets, not-measured}
    (vmparity.lab.ab.sides: a kind whose rounds are cut below what an A/B test needs to reach α)."""
    return ab.sides(targets, int(count), rounds_by_kind, remote_dir)


def vmparity_without_interventions(targets):
    """The names of targets that are not a target with a fix applied (`<target>+<fix>`)."""
    return [t for t in targets if not is_intervention(t)]


def vmparity_bench_archive(local_dir, staging_dir):
    """The controller's archive of the build in `local_dir`, named by its MANIFEST.sha256, so a
    changed build gets a new archive and an unchanged one is packed once."""
    manifest = Path(local_dir, "MANIFEST.sha256").read_bytes()
    return f"{staging_dir}/bench-{hashlib.sha256(manifest).hexdigest()}.tar.gz"


class FilterModule:
    def filters(self):
        return {
            "vmparity_schedule": vmparity_schedule,
            "vmparity_seed": rounds.seed_for,
            "vmparity_rounds": rounds.rounds_for,
            "vmparity_aa_control": aa_control_of,
            "vmparity_base_side": base_side,
            "vmparity_head_of": head_of,
            "vmparity_without_interventions": vmparity_without_interventions,
            "vmparity_ab_sides": vmparity_ab_sides,
            "vmparity_relabel": rounds.relabel,
            "vmparity_host_failed": rounds.host_failed,
            "vmparity_duration": budget.duration,
            "vmparity_bench_archive": vmparity_bench_archive,
        }
