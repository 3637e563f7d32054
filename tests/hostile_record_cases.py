"""Issue 59's attack cases on the lab's records, as data: each one a copy of a committed run (or a
staging run made from one) made hostile, the command an attacker would run on it, and what the
lab must do. tests/test_hostile_record_cases.py runs them in-process; tests/perf_hostile_records.py
(make bench-hostile-records) runs them as processes, with a 20 s limit and their peak memory,
against this tree or another (--source: the tree before the issue, for the counts before).

The first 48 (`issue`) are the issue's: its writes outside the run, memory and hangs, tracebacks
(each wrong rounds.json shape under the four commands it broke) and exit 0 on garbage. The rest
(`since`) are found since: records linked out of their run, a scenarios file of another shape.

A case's setup(ctx) prepares it and returns the values its argv names in braces (the run, the output) and
`inside`, the directory the command may write in; everything else under ctx.root must be left as
it was. expect: ("refused", words) is exit 2 with a message holding every word (the file first);
("exit", code, stream, words) is that exit code with the words on stdout or stderr.
"""

import json
import os
import shutil
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

RUNS = Path(__file__).resolve().parent.parent / "results" / "runs"
LAB_RUN = "2026-11-28T08-43-58Z-lab-quick"
VERIFY_RUN = "2026-11-27T20-55-29Z-verify-quick"
VERIFIED_RUN = "2026-11-27T20-39-11Z-lab-quick"
AB_RUN = "2026-11-26T12-41-12Z-ab-quick"
OTHER_LAB_RUN = "2026-11-27T20-39-11Z-lab-quick"
LIMIT_SECONDS = 20  # a command still running then hangs, as the issue counted


def staging_run(run):
    """A staging run of one host at run: three rounds of metal and its A/A pass, from a committed run's values."""
    for k in (1, 2, 3):
        d = run / "rounds" / str(k)
        d.mkdir(parents=True)
        (d / "host-localhost.json").write_text(json.dumps({
            "host": "localhost", "round": k, "seed": 5, "order": ["metal", "metal-aa"], "hygiene": {},
            "timings": {}}))
        for t in ("metal", "metal-aa"):
            shutil.copy(RUNS / LAB_RUN / f"{t}.txt", d / f"{t}.txt")
    return run


def add_round_mixing_utc_offsets(staging):
    """An added round 4 whose timings mix a UTC offset and a local time (lab added-round must name it)."""
    d = staging / "rounds" / "4"
    d.mkdir()
    timings = {"metal": {"start": "2026-11-28T08:00:00+00:00", "end": "2026-11-28T08:00:10+00:00"},
               "metal-aa": {"start": "2026-11-28 08:00:10", "end": "2026-11-28 08:00:20"}}
    (d / "host-localhost.json").write_text(json.dumps({
        "host": "localhost", "round": 4, "seed": 5, "order": ["metal", "metal-aa"], "hygiene": {}, "timings": timings,
        "added": {"reason": "wide", "goal-pct": 3.0, "jobs": ["clock"]}}))
    for t in ("metal", "metal-aa"):
        shutil.copy(staging / "rounds" / "1" / f"{t}.txt", d / f"{t}.txt")


@dataclass
class Ctx:
    root: Path
    cli: object  # cli(argv, env=None) -> exit code: vmparity as the runner runs it (the tree under test)
    scale: float = 1.0  # 1: the sizes (200 MB); the in-process test uses a tenth (over every limit still)

    @property
    def runs(self):
        return self.root / "results" / "runs"

    @property
    def outside(self):
        return self.root / "outside"

    def copy(self, run, as_name=None):
        dst = self.runs / (as_name or run)
        shutil.copytree(RUNS / run, dst)
        return dst

    def staging(self):
        """A staging run of one host (staging_run), deep enough that ../../../../ stays under root."""
        return staging_run(self.root / "a" / "b" / "c" / "stage" / "run")

    def big(self, path, first, filler, closing=b""):
        """A file of about 200 MB (times scale) written in chunks: first, filler repeated, closing."""
        with open(path, "wb") as f:
            f.write(first)
            chunk = filler * max(1, (1 << 20) // len(filler))
            for _ in range(int(200 * self.scale)):
                f.write(chunk)
            f.write(closing)


@dataclass
class Case:
    id: str
    group: str  # writes-outside, memory-hang, traceback, exit-0-on-garbage
    origin: str  # issue | since
    setup: object
    argv: list
    expect: tuple
    tags: set = field(default_factory=set)  # "big": writes ~200 MB (times scale)


CASES = []


def case(id, group, argv, expect, origin="issue", tags=()):
    def register(setup):
        CASES.append(Case(id, group, origin, setup, argv, expect, set(tags)))
        return setup
    return register


def refused(*words):
    return ("refused", words)


# --- helpers -----------------------------------------------------------------------------------

def _run(ctx, run=LAB_RUN):
    r = ctx.copy(run)
    return {"RUN": r, "OUT": ctx.root / "out", "inside": r}


def _rounds(ctx, run, mutate):
    p = _run(ctx, run)
    path = p["RUN"] / "rounds.json"
    rec = json.loads(path.read_text())
    mutate(rec)
    path.write_text(json.dumps(rec))
    return p


def _fifo(path):
    path.unlink(missing_ok=True)
    os.mkfifo(path)


def _remeasured(rec, n=1, **fields):
    entry = dict({"target": "metal", "round": 1, "job": "memcpy", "host": "localhost",
                  "status": "measured again", "shift-pct": 46.7}, **fields)
    rec.setdefault("remeasured", []).extend([entry] * n)


BILLION_LAUGHS = "".join(f"{x}: &{x} [{', '.join([f'*{p}'] * 9 if p else ['lol'] * 9)}]\n"
                         for p, x in zip([None, *"abcdefgh"], "abcdefghi"))

# --- writes outside the run --------------------------------------------------------------------

EVIL = "/tmp/vmparity-corpus-evil"  # where an absolute --host would write; the runners remove it after each case

# The issue ran these with `lab disturbed`, removed with the re-measures (2026-12-06): the same
# --host on the step that took its place after the rounds.
for _host in ("../../../../outside/evil", EVIL):
    @case(f"added-round-host-{'relative' if _host[0] == '.' else 'absolute'}-path", "writes-outside",
          ["lab", "added-round", "--host", _host, "{STAGING}"], refused("--host", "cannot name a file"))
    def _(ctx):
        s = ctx.staging()
        return {"STAGING": s, "inside": s}


@case("verify-plan-dangling-link-out", "writes-outside", ["lab", "verify", "{RUN}"],
      refused("verify-plan.json", "a symbolic link to", "outside the run"))
def _(ctx):
    p = _run(ctx)
    (p["RUN"] / "verify-plan.json").unlink(missing_ok=True)
    (ctx.outside / "evil").mkdir()  # a directory there, as the issue had: a write through the link would land
    os.symlink(ctx.outside / "evil" / "plan.json", p["RUN"] / "verify-plan.json")
    return p

# --- memory and hangs --------------------------------------------------------------------------


for _cmd in (["lab", "variants", "guests", "{BOMB}"], ["lab", "domain-xml", "--variants", "{BOMB}", "nosmt",
                                                       "--accel", "qemu", "--ssh-port", "2222", "--image-dir", "{OUT}",
                                                       "--overlay", "o.qcow2", "--console-log", "c.log"]):
    @case(f"variants-alias-bomb-{_cmd[1]}", "memory-hang", _cmd, refused("bomb.yml", "expand to more than"))
    def _(ctx):
        (ctx.root / "bomb.yml").write_text(BILLION_LAUGHS)
        return {"BOMB": ctx.root / "bomb.yml", "OUT": ctx.root / "out", "inside": ctx.root / "out"}


@case("base-manifest-dev-zero", "memory-hang", ["pr-comment", "--ab", "{RUN}"],
      refused("MANIFEST~base.sha256", "/dev/zero"))
def _(ctx):
    p = _run(ctx, AB_RUN)
    (p["RUN"] / "MANIFEST~base.sha256").unlink()
    os.symlink("/dev/zero", p["RUN"] / "MANIFEST~base.sha256")
    return p


for _cmd in (["pr-comment", "--ab", "{RUN}"], ["power", "{RUN}", "--effects", "20", "--rows", "2", "--trials", "1"]):
    @case(f"base-manifest-fifo-{_cmd[0]}", "memory-hang", _cmd, refused("MANIFEST~base.sha256", "regular file"))
    def _(ctx):
        p = _run(ctx, AB_RUN)
        _fifo(p["RUN"] / "MANIFEST~base.sha256")
        return p


@case("base-manifest-sparse-200-MB", "memory-hang", ["pr-comment", "--ab", "{RUN}"],
      refused("MANIFEST~base.sha256", "bytes: expected a manifest"))
def _(ctx):
    p = _run(ctx, AB_RUN)
    with open(p["RUN"] / "MANIFEST~base.sha256", "wb") as f:
        f.truncate(int(200 * ctx.scale * 1024 * 1024))
    return p


@case("verify-plan-fifo", "memory-hang", ["lab", "verify", "{RUN}"], refused("verify-plan.json", "regular file"))
def _(ctx):
    p = _run(ctx)
    _fifo(p["RUN"] / "verify-plan.json")
    return p


@case("rounds-a-million-remeasured", "memory-hang", ["report", "{RUN}", "--out", "{OUT}"],
      refused("rounds.json", "expected a JSON record of at most"), tags={"big"})
def _(ctx):
    p = _run(ctx)
    rec = json.loads((p["RUN"] / "rounds.json").read_text())
    entry = json.dumps({"target": "metal", "round": 1, "job": "memcpy", "host": "localhost",
                        "status": "measured again", "shift-pct": 46.7}).encode()
    text = json.dumps(rec).encode()
    ctx.big(p["RUN"] / "rounds.json", text[:-1] + b', "remeasured": [' + entry, b"," + entry, b"]}")
    return p


@case("check-one-200-MB-line", "memory-hang", ["check", "{FILE}"], refused("metal.txt", "line longer than"),
      tags={"big"})
def _(ctx):
    ctx.big(ctx.root / "metal.txt", b"Benchmark", b"x")
    return {"FILE": ctx.root / "metal.txt", "inside": ctx.root / "none"}


@case("explain-rules-alias-bomb", "memory-hang", ["explain", "{RUN}/metal.txt", "{RUN}/guest-nosmt.txt",
                                                  "--rules", "{RULES}"], refused("rules.yaml", "expand to more than"))
def _(ctx):
    p = _run(ctx)
    (ctx.root / "rules.yaml").write_text(BILLION_LAUGHS)
    return dict(p, RULES=ctx.root / "rules.yaml")


# --- tracebacks: rounds.json of the wrong shape, under the four commands it broke ----------------

WRONG_ROUNDS = {
    "hosts-a-list": (lambda r: r.update(hosts=[]), "field hosts: expected a mapping"),
    "a-string-among-rounds": (lambda r: r["hosts"][next(iter(r["hosts"]))].append("x"), "field hosts/"),
    "shift-pct-a-string": (lambda r: _remeasured(r, **{"shift-pct": "46.7"}), "shift-pct: expected a number"),
    "ab-a-string": (lambda r: r.update(ab="main"), "field ab: expected a mapping"),
    "order-a-string": (lambda r: r["hosts"][next(iter(r["hosts"]))][0].update(order="metal"), "order: expected a list"),
}
ROUNDS_COMMANDS = {"noise": (LAB_RUN, ["noise", "{RUN}"]), "report": (LAB_RUN, ["report", "{RUN}", "--out", "{OUT}"]),
                   "compare": (LAB_RUN, ["compare", "{RUN}", "--by", "target"]),
                   "pr-comment-ab": (AB_RUN, ["pr-comment", "--ab", "{RUN}"])}

for _shape, (_mutate, _words) in WRONG_ROUNDS.items():
    for _cmd, (_base, _argv) in ROUNDS_COMMANDS.items():
        @case(f"rounds-{_shape}-{_cmd}", "traceback", _argv, refused("rounds.json", _words))
        def _(ctx, _mutate=_mutate, _base=_base):
            return _rounds(ctx, _base, _mutate)


@case("malformed-earlier-run-of-the-machine", "traceback", ["noise", "{RUN}"], ("exit", 0, "out", ["noise"]))
def _(ctx):
    p = _run(ctx)
    earlier = ctx.copy(LAB_RUN, LAB_RUN.replace("T08-43-58Z", "T07-00-00Z"))  # same machine, sorts before
    rec = json.loads((earlier / "rounds.json").read_text())
    rec.update(hosts=[])
    (earlier / "rounds.json").write_text(json.dumps(rec))
    return p


@case("rounds-10000-brackets", "traceback", ["noise", "{RUN}"], refused("rounds.json", "nested deeper than"))
def _(ctx):
    p = _run(ctx)
    (p["RUN"] / "rounds.json").write_text("[" * 10_000 + "]" * 10_000)
    return p


@case("verify-plan-10000-objects", "traceback", ["lab", "verify", "{RUN}"],
      refused("verify-plan.json", "nested deeper than"))
def _(ctx):
    p = _run(ctx)
    (p["RUN"] / "verify-plan.json").write_text('{"a":' * 10_000 + "1" + "}" * 10_000)
    return p


@case("variants-10000-levels", "traceback", ["lab", "variants", "guests", "{DEEP}"],
      refused("deep.yml", "nested deeper than"))
def _(ctx):
    (ctx.root / "deep.yml").write_text("a: " + "[" * 10_000 + "]" * 10_000 + "\n")
    return {"DEEP": ctx.root / "deep.yml", "inside": ctx.root / "none"}


INDEX_CORRUPTIONS = {"median-not-floats": "UPDATE tracks SET median = x'000102'",
                     "head-not-json": "UPDATE files SET head = 'not json'"}


def _corrupt(path, statement):
    db = sqlite3.connect(path)
    db.execute(statement)
    db.commit()
    db.close()


def _corrupt_index(ctx, statement):
    """Two stored runs, their index built by the tree under test, then corrupted as a well-formed database."""
    base, head = ctx.copy(OTHER_LAB_RUN), ctx.copy(LAB_RUN)
    assert ctx.cli(["--results-dir", ctx.root / "results", "history"]) == 0
    _corrupt(ctx.root / "results" / ".index.sqlite", statement)
    return {"BASE": base, "RUN": head, "RESULTS": ctx.root / "results", "inside": ctx.root / "results" / ".index.sqlite"}


for _name, _statement in INDEX_CORRUPTIONS.items():
    @case(f"index-{_name}-history", "traceback", ["--results-dir", "{RESULTS}", "history"],
          ("exit", 0, "err", ["does not decode", "built it again"]))
    def _(ctx, _statement=_statement):
        return _corrupt_index(ctx, _statement)

    @case(f"index-{_name}-pr-comment", "traceback", ["--results-dir", "{RESULTS}", "pr-comment", "{BASE}", "{RUN}"],
          ("exit", 0, "out", ["|"]))
    def _(ctx, _statement=_statement):
        return _corrupt_index(ctx, _statement)


@case("index-in-the-cache-directory-median-not-floats", "traceback", ["--results-dir", "{RESULTS}", "history"],
      ("exit", 0, "err", ["does not decode"]))
def _(ctx):
    ctx.copy(OTHER_LAB_RUN)
    # where the index goes beside runs/, something sqlite cannot open as one: history keeps it in the
    # user's cache directory instead (history/index.py refreshed)
    (ctx.root / "results" / ".index.sqlite").mkdir()
    env = {"XDG_CACHE_HOME": ctx.root / "cache"}
    assert ctx.cli(["--results-dir", ctx.root / "results", "history"], env) == 0
    (cached,) = (ctx.root / "cache" / "vmparity").glob("*.sqlite")
    _corrupt(cached, INDEX_CORRUPTIONS["median-not-floats"])
    return {"RESULTS": ctx.root / "results", "inside": ctx.root / "cache", "env": env}


@case("staging-round-record-a-list", "traceback", ["lab", "added-round", "--host", "localhost", "{STAGING}"],
      refused("rounds/2/host-localhost.json", "expected a mapping"))
def _(ctx):
    s = ctx.staging()
    (s / "rounds" / "2" / "host-localhost.json").write_text("[]")
    return {"STAGING": s, "inside": s}


@case("added-round-mixing-utc-offsets", "traceback", ["lab", "added-round", "--host", "localhost", "{STAGING}"],
      refused("rounds/4/host-localhost.json", "no UTC offset"))
def _(ctx):
    s = ctx.staging()
    add_round_mixing_utc_offsets(s)
    return {"STAGING": s, "inside": s}


# --- exit 0 on garbage ---------------------------------------------------------------------------

@case("ab-sides-hold-different-benchmarks", "exit-0-on-garbage", ["pr-comment", "--ab", "{RUN}"],
      ("exit", 0, "out", ["**The two sides hold different benchmarks**", "only on BASE"]))
def _(ctx):
    p = _run(ctx, AB_RUN)
    f = p["RUN"] / "container-quota~base.txt"
    f.write_text("\n".join("BenchmarkOld" + line[len("Benchmark"):] if line.startswith("BenchmarkMemcpy") else line
                           for line in f.read_text().split("\n")))
    return p


@case("base-manifest-disagrees-with-its-side", "exit-0-on-garbage", ["pr-comment", "--ab", "{RUN}"],
      ("exit", 0, "out", ["**Manifests disagree with the results:** `MANIFEST~base.sha256`"]))
def _(ctx):
    p = _run(ctx, AB_RUN)
    m = p["RUN"] / "MANIFEST~base.sha256"
    text = m.read_text()
    m.write_text(("0" if text[0] != "0" else "1") + text[1:])
    return p


@case("rounds-json-a-fifo", "exit-0-on-garbage", ["noise", "{RUN}"], refused("rounds.json", "regular file"))
def _(ctx):
    p = _run(ctx)
    _fifo(p["RUN"] / "rounds.json")
    return p


@case("power-effects-beyond-finite", "exit-0-on-garbage",
      ["power", "{RUN}", "--effects", "1e308,-99.9999999", "--rows", "2", "--trials", "1"],
      refused("--effects", "beyond a finite number"))
def _(ctx):
    return _run(ctx)


# --- found since ---------------------------------------------------------------------------------

def _link_out(ctx, path):
    ctx.outside.mkdir(exist_ok=True)
    shutil.move(path, ctx.outside / path.name)
    os.symlink(ctx.outside / path.name, path)


for _run_name, _record, _argv in [
        (LAB_RUN, "rounds.json", ["noise", "{RUN}"]),
        (LAB_RUN, "metal.txt", ["report", "{RUN}", "--out", "{OUT}"]),
        (AB_RUN, "MANIFEST.sha256", ["pr-comment", "--ab", "{RUN}"]),
        (VERIFY_RUN, "verdicts.json", ["report", "{RUN}", "--out", "{OUT}"])]:
    @case(f"{_record}-linked-out-of-the-run", "reads-outside", _argv,
          refused(_record, "a symbolic link to", "outside the run"), origin="since")
    def _(ctx, _run_name=_run_name, _record=_record):
        p = _run(ctx, _run_name)
        _link_out(ctx, p["RUN"] / _record)
        return p


@case("merge-output-linked-out", "writes-outside", ["lab", "merge-rounds", "{STAGING}"],
      refused("metal.txt", "outside the run"), origin="since")
def _(ctx):
    s = ctx.staging()
    ctx.outside.mkdir(exist_ok=True)
    (ctx.outside / "metal.txt").write_text("kept\n")
    os.symlink(ctx.outside / "metal.txt", s / "metal.txt")
    return {"STAGING": s, "inside": s}


@case("verifications-link-to-a-path", "writes-outside", ["report", "{RUN}", "--out", "{OUT}"],
      refused("verifications.json", "verified-by/0/run"), origin="since")
def _(ctx):
    p = _run(ctx)
    (p["RUN"] / "verifications.json").write_text(json.dumps({"verified-by": [{"run": "../../../outside",
                                                                              "verdicts": {}}]}))
    return p


@case("scenarios-targets-a-number", "traceback", ["lab", "repro-plan", "--scenarios", "{FILE}"],
      refused("scenarios.yml", "field scenarios/0/targets"), origin="since")
def _(ctx):
    (ctx.root / "scenarios.yml").write_text(
        "scenarios:\n - {seed: 1, file: x, title: t, point: p, programs: [clock], only: clock, targets: 7, "
        "seed-figures: {}, expect: {}}\n")
    return {"FILE": ctx.root / "scenarios.yml", "inside": ctx.root / "none"}


@case("scenarios-a-fifo", "memory-hang", ["lab", "repro-plan", "--scenarios", "{FILE}"],
      refused("scenarios.yml", "regular file"), origin="since")
def _(ctx):
    os.mkfifo(ctx.root / "scenarios.yml")
    return {"FILE": ctx.root / "scenarios.yml", "inside": ctx.root / "none"}


def prepare(c, ctx):
    """(argv, the directory the command may write in, extra environment) of case c set up under ctx."""
    ctx.root.mkdir(parents=True, exist_ok=True)
    (ctx.outside / "sentinel").parent.mkdir(parents=True, exist_ok=True)
    (ctx.outside / "sentinel").write_text("kept\n")
    p = c.setup(ctx)
    env = p.pop("env", {})
    inside = p.pop("inside")
    argv = [a.format(**{k: str(v) for k, v in p.items()}) for a in c.argv]
    return argv, Path(inside), {k: str(v) for k, v in env.items()}


def snapshot(root, inside):
    """{path: (size, mtime_ns, link target)} of everything under root but inside (where the command may
    write), the output directory and the history index (a cache of every command that reads history,
    beside runs/ or in the cache directory): what a write outside the run would change."""
    out = {}
    index = root / "results" / ".index.sqlite"
    allowed = [str(inside), str(root / "out"), str(root / "cache")] + [f"{index}{s}" for s in ("", "-wal", "-shm",
                                                                                                "-journal")]
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            if any(path == a or path.startswith(a + os.sep) for a in allowed):
                continue
            st = os.lstat(path)
            if os.path.isdir(path) and not os.path.islink(path):  # its mtime moves with what is allowed below it
                out[path] = "directory"
                continue
            out[path] = (st.st_size, st.st_mtime_ns, os.readlink(path) if os.path.islink(path) else None)
    out[EVIL] = os.path.lexists(EVIL)
    return out


def judge(c, code, out, err, before, after, seconds, limit=LIMIT_SECONDS):
    """The findings of one case: a subset of {traceback, hang, write-outside, exit-0-on-garbage,
    wrong-exit, message}, empty when the lab did what it must."""
    found = set()
    if seconds is not None and seconds >= limit:
        return {"hang"}
    if "Traceback (most recent call last)" in err or code is None:
        found.add("traceback")
    if before != after:
        found.add("write-outside")
    if c.expect[0] == "refused":
        if code == 0:
            found.add("exit-0-on-garbage")
        elif code != 2:
            found.add("wrong-exit")
        elif not (err.startswith("vmparity") and all(w in err for w in c.expect[1])):
            found.add("message")
    else:
        _, want, stream, words = c.expect
        if code != want:
            found.add("wrong-exit")
        elif not all(w in (out if stream == "out" else err) for w in words):
            found.add("exit-0-on-garbage" if code == 0 else "message")
    return found
