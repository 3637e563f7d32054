"""The named policies under which decide judges a row (docs/noise.md, "One judgement").

A policy is which evidence a comparison has and so which tests may decide a
row; it is chosen from the inputs, never by the command: the same files give
the same policy, and so the same verdict, in compare, explain, noise and the
report. What each policy means in words is render/policy.py's.

- in-run: targets of one lab run against both passes of its metal (the A/A
  control), round by round and at the fast level where the rounds pair, the
  unpaired U test and band where they do not;
- ab-in-run: an A/B run's HEAD against its BASE side, round by round;
- across-runs: each target of two runs against itself, beyond run-to-run noise;
- verify: a target with a fix applied against the original, in one verify run;
- plain-files: files with no rounds and no A/A control (benchstat's case): the
  U test alone.
"""

from dataclasses import dataclass


# The tests a row's verdict names (Delta.test): which one decided it.
SIGNED_RANK = "signed-rank by round"
FAST_LEVEL = "fast level"
U_BAND = "U test + A/A band"
U_BETWEEN = "U test + band between"
CROSS_RUN = "cross-run"
U_TEST = "U test"


@dataclass(frozen=True)
class Policy:
    key: str
    tests: tuple  # the tests that may decide a row under this policy
    control: str  # what its band is calibrated on ("" for none: significance alone)


IN_RUN = Policy("in-run", (SIGNED_RANK, FAST_LEVEL, U_BAND), "metal-aa")
AB_IN_RUN = Policy("ab-in-run", (SIGNED_RANK, U_BAND), "metal-aa")
ACROSS_RUNS = Policy("across-runs", (CROSS_RUN,), "run-to-run")
VERIFY = Policy("verify", (U_BETWEEN,), "metal-aa")
PLAIN_FILES = Policy("plain-files", (U_TEST,), "")

POLICIES = {p.key: p for p in (IN_RUN, AB_IN_RUN, ACROSS_RUNS, VERIFY, PLAIN_FILES)}
