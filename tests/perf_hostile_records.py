"""Issue 59's attack cases (tests/hostile_record_cases.py) run as the issue ran them: each command a
process of its own on its own copy, killed at 20 s, its peak memory taken from the kernel (wait4),
the big files at their full 200 MB. Prints one line per case and the count table the issue gave
(tracebacks, hangs, writes outside the run, exit 0 on garbage); exit 1 when any case has a finding.

--source DIR runs the vmparity package of another tree (a checkout from before the fixes: `git
worktree add /tmp/before <commit>`), for the counts before; the cases are set up the same way.

    make bench-hostile-records [HOSTILE_ARGS='--source /tmp/before --only rounds-']
"""

import argparse
import collections
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import hostile_record_cases as hrc  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
FINDINGS = ("traceback", "hang", "write-outside", "exit-0-on-garbage", "wrong-exit", "message")


def run(source, argv, env, cwd, limit):
    """(exit code or None when killed, stdout, stderr, seconds, peak RSS in MB) of `python -m vmparity argv`."""
    full_env = dict(os.environ, PYTHONPATH=str(source), COLUMNS="100", **env)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.monotonic()
        p = subprocess.Popen([sys.executable, "-m", "vmparity", *map(str, argv)], stdout=out, stderr=err,
                             stdin=subprocess.DEVNULL, env=full_env, cwd=cwd, start_new_session=True)
        code = rusage = None
        while True:
            pid, status, rusage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                code = os.waitstatus_to_exitcode(status)
                break
            if time.monotonic() - start >= limit:
                os.killpg(p.pid, signal.SIGKILL)  # the process group this run started, nothing else
                _, status, rusage = os.wait4(p.pid, 0)
                break
            time.sleep(0.05)
        p.returncode = code if code is not None else -9  # reaped here: Popen must not wait for it again
        seconds = time.monotonic() - start
        out.seek(0)
        err.seek(0)
        return (code, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"), seconds,
                rusage.ru_maxrss / 1024)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--source", type=Path, default=REPO, help="the tree whose vmparity package runs (default: this one)")
    ap.add_argument("--only", default="", help="run the cases whose id contains this")
    ap.add_argument("--limit", type=float, default=hrc.LIMIT_SECONDS, help="seconds before a case counts as a hang")
    ap.add_argument("--dir", type=Path, help="where the copies go (default: a temporary directory)")
    a = ap.parse_args()
    top = Path(a.dir or tempfile.mkdtemp(prefix="vmparity-hostile-"))
    top.mkdir(parents=True, exist_ok=True)
    counts = {o: collections.Counter() for o in ("issue", "since")}
    totals = collections.Counter()
    print(f"{'case':58} {'exit':>4} {'s':>5} {'MB':>6}  findings")
    try:
        for i, c in enumerate(hrc.CASES):
            if a.only not in c.id:
                continue
            root = top / f"{i:02d}"

            def cli(argv, env=None, root=root):
                return run(a.source, argv, {k: str(v) for k, v in (env or {}).items()}, root, a.limit)[0]

            ctx = hrc.Ctx(root, cli=cli)
            argv, inside, env = hrc.prepare(c, ctx)
            env.setdefault("XDG_CACHE_HOME", str(root / "cache"))  # never the user's own cache
            before = hrc.snapshot(root, inside)
            code, out, err, seconds, mb = run(a.source, argv, env, root, a.limit)
            after = hrc.snapshot(root, inside)
            found = hrc.judge(c, code, out, err, before, after, seconds, a.limit)
            changed = sorted(set(before.items()) ^ set(after.items()))
            counts[c.origin].update(found)
            totals[c.origin] += 1
            print(f"{c.id[:58]:58} {'-' if code is None else code:>4} {seconds:5.1f} {mb:6.0f}  "
                  f"{', '.join(sorted(found)) or 'ok'}", flush=True)
            if "write-outside" in found:  # which: one of the run's own files would say a cache, not an attack
                print(f"    {changed[0][0]}")
            shutil.rmtree(root, ignore_errors=True)
            shutil.rmtree(hrc.EVIL, ignore_errors=True)  # the case's own finding, not the next one's
    finally:
        if a.dir is None:
            shutil.rmtree(top, ignore_errors=True)
    for origin in ("issue", "since"):
        if totals[origin]:
            n = counts[origin]
            print(f"{origin} cases: {totals[origin]}: " + ", ".join(f"{n[f]} {f}" for f in FINDINGS))
    return 1 if any(sum(n.values()) for n in counts.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
