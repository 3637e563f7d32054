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

from ..errors import InputError

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


def shell(values):
    """`ab_<key>=<value>` lines a shell can eval (the Makefile's lab-ab does)."""
    return "".join(f"ab_{k}={shlex.quote(str(v))}\n" for k, v in values.items())
