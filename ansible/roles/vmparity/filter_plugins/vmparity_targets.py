"""Target names and kinds for the roles, from their one definition in
vmparity.results.targets (the package is installed in the venv ansible-playbook runs
from). Every role that depends on this one can use them."""

from vmparity.results.targets import container_target, guest_target, is_intervention, metal_target, target_kind


def vmparity_interventions(names):
    """The names (targets or variants) that are one with a fix applied (`<name>+<fix>`, `vmparity lab verify`)."""
    return [n for n in names if n and is_intervention(n)]


class FilterModule:
    def filters(self):
        return {
            # vmparity_target_suffix | vmparity_metal_target -> metal (metal-rack02 on a rack)
            "vmparity_metal_target": metal_target,
            # 'nosmt' | vmparity_guest_target(vmparity_target_suffix) -> guest-nosmt
            "vmparity_guest_target": guest_target,
            # 'quota' | vmparity_container_target(vmparity_target_suffix) -> container-quota
            "vmparity_container_target": container_target,
            # what runs the target -> its kind: 'qemu' (a libvirt domain type) -> tcg-guest, 'docker' -> container
            "vmparity_target_kind": target_kind,
            # ['nosmt', 'nosmt+clocksource-tsc'] | vmparity_interventions -> ['nosmt+clocksource-tsc']
            "vmparity_interventions": vmparity_interventions,
        }
