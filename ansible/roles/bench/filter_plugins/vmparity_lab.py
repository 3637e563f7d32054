"""Filters that hand the lab's contracts to Ansible from their one owner, the
vmparity package (installed in the venv ansible-playbook runs from)."""

from vmparity.lab import rounds
from vmparity.names import aa_control_of


def vmparity_schedule(targets, count, seed):
    """[{round: k, order: [target, …]}]: every target once per round, shuffled per round."""
    return [{"round": k, "order": order} for k, order in enumerate(rounds.schedule(targets, int(count), int(seed)), 1)]


class FilterModule:
    def filters(self):
        return {
            "vmparity_schedule": vmparity_schedule,
            "vmparity_seed": rounds.seed_for,
            "vmparity_rounds": rounds.rounds_for,
            "vmparity_aa_control": aa_control_of,
        }
