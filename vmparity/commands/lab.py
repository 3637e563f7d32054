"""`vmparity lab …`: steps of the lab that the Ansible bench role calls, so the
round format and the merge rule have one definition (vmparity.lab)."""

from ..lab import rounds


def run(a, out, err):
    if a.lab_command == "merge-rounds":
        merged, missing = rounds.merge(a.staging)
        out.write(f"merged {len(merged)} target(s) from their rounds: {', '.join(merged)}\n")
        for target, ks in sorted(missing.items()):
            err.write(f"vmparity: warning: {target}: rounds {', '.join(map(str, ks))} missing\n")
        return 0
    raise AssertionError(a.lab_command)
