"""A/B in one run (`make lab-ab BASE=<ref>`, docs/noise.md "A/B in one run"):
where the suite built at BASE comes from.

BASE is checked out as a detached git worktree under the lab's build
directory and built there with its own `make bench`, so the BASE side runs
exactly the binaries (and the runner) that commit builds. The bench role then
deploys both builds and runs them in the same rounds (rounds.schedule pairs
them); this module only resolves the ref and prepares the checkout.
"""

import shlex
import subprocess
from pathlib import Path

from .. import stats
from ..errors import InputError
from ..results.targets import base_side, is_aa_control

SOURCE = "src"  # the BASE checkout inside the A/B directory
BENCH = Path("build") / "bench"  # where `make bench` puts the suite inside a checkout


def _git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=False)


def resolve(ref, repo):
    """The full commit id BASE names; InputError naming the ref when it names none."""
    if not ref or ref.startswith("-") or any(c.isspace() for c in ref):
        raise InputError("BASE", f"{ref!r} is not a git ref: expected a branch, tag or commit, e.g. BASE=main")
    got = _git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    if got.returncode != 0 or not got.stdout.strip():
        raise InputError("BASE", f"{ref!r} does not name a commit in {repo}: expected a branch, tag or commit "
                                 "that `git rev-parse` resolves (fetch it first if it is only on a remote)")
    return got.stdout.strip()


def prepare(ref, repo, ab_dir):
    """Check BASE out (detached) in <ab_dir>/src, reusing that worktree when it is
    there; returns {ref, commit, src, bench}: bench is where its build will be."""
    commit = resolve(ref, repo)
    src = Path(ab_dir).resolve() / SOURCE
    if src.exists():
        top = _git(src, "rev-parse", "--show-toplevel")
        if top.returncode != 0 or Path(top.stdout.strip()).resolve() != src:
            raise InputError(src, "exists but is not the A/B worktree of BASE: expected a checkout made by "
                                  "`vmparity lab ab`; remove the directory and run again")
        # ours alone (nobody edits it): a forced checkout may drop a build's leftovers in tracked files
        step = _git(src, "checkout", "--quiet", "--force", "--detach", commit)
    else:
        src.parent.mkdir(parents=True, exist_ok=True)
        _git(repo, "worktree", "prune")  # a worktree whose directory was removed by hand would block the add
        step = _git(repo, "worktree", "add", "--quiet", "--detach", str(src), commit)
    if step.returncode != 0:
        raise InputError(src, f"cannot check out BASE {ref!r} ({commit[:12]}): {step.stderr.strip()}")
    return {"ref": ref, "commit": commit, "src": str(src), "bench": str(src / BENCH)}


def sides(targets, rounds, rounds_by_kind=None, remote_dir="", alpha=stats.DEFAULT_ALPHA):
    """The bench role's targets of an A/B run, each followed by its BASE side, and the targets it leaves out.

    targets: [{target, kind, …}] of one host (the plain run's); rounds: the run's rounds; rounds_by_kind
    {kind: n}: the cap that gives a kind fewer rounds (an A/B run's TCG guests three). Every target but the A/A pass
    gets a BASE side `<target>~base` (side `base`, its binaries in remote_dir), except one whose kind's cap
    leaves it fewer rounds than the rest of the run and fewer than any test of HEAD against BASE needs to
    reach alpha (the U test's 4 a side at 0.05; the signed-rank test needs 6 pairs): its A/B could only
    ever say "too few samples". Such a target is left out of the A/B run altogether, both sides: what it
    would add is its HEAD against metal, which `make lab-up` measures, at the price of the longest slots of
    the rounds (a TCG guest's). A run whose targets all have the same rounds (smoke's one) leaves nobody
    out: there nothing is cut, and the run checks the path. More rounds for the kind bring it back with
    both sides (the role's bench_ab_rounds_by_kind, e.g. {tcg-guest: 4}).

    Returns {"targets": [...], "not-measured": {target: {kind, rounds, need}}}; rounds.json keeps the
    latter under `ab` and the report names them (docs/noise.md, "A/B in one run")."""
    rounds = int(rounds)
    need = stats.samples_for_utest(alpha)[1]
    caps = {k: int(n) for k, n in (rounds_by_kind or {}).items()}
    out, left_out = [], {}
    for t in targets:
        own = min(rounds, caps.get(t.get("kind"), rounds))
        if not is_aa_control(t["target"]) and own < rounds and own < need:
            left_out[t["target"]] = {"kind": t.get("kind", ""), "rounds": own, "need": need}
            continue
        out.append(t)
        if not is_aa_control(t["target"]):
            out.append(dict(t, target=base_side(t["target"]), side="base", dir=remote_dir))
    return {"targets": out, "not-measured": left_out}


def shell(values):
    """`ab_<key>=<value>` lines a shell can eval (the Makefile's lab-ab does)."""
    return "".join(f"ab_{k}={shlex.quote(str(v))}\n" for k, v in values.items())
