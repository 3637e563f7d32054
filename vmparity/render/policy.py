"""The judgement a comparison was made under, in words (decide/policy.py names it).

Every command that judges rows says which policy decided them, first: two
files of a lab run are judged as the run's report judges them, two files with
no rounds and no A/A control on the U test alone, and a reader must be able
to tell which happened without reading the code.
"""

from ..decide import policy

WHAT = {
    policy.IN_RUN.key: "in a run: each target against both passes of the run's metal (its A/A control), round by "
                       "round and at the fast level where the rounds pair, the U test and the A/A band where they "
                       "do not",
    policy.AB_IN_RUN.key: "A/B in one run: HEAD against its BASE side, round by round, beyond the A/A pair's band",
    policy.ACROSS_RUNS.key: "across runs: each target against itself in the other run, beyond run-to-run noise",
    policy.VERIFY.key: "verify: a target with its fix applied against the original, in the same rounds",
    policy.PLAIN_FILES.key: "plain files: no A/A control of one run to judge them by, so the U test alone "
                            "decides, as benchstat's",
}
assert set(WHAT) == set(policy.POLICIES), "every policy is said in words"


def line(p, alpha):
    """One line naming the policy: `policy: in-run (…; α = 0.05; docs/noise.md)`."""
    return f"policy: {p.key} ({WHAT[p.key]}; α = {alpha:g}; docs/noise.md)"
