"""The `cpu-throttled-jobs` header key: which benchmark jobs the kernel's CFS
quota stopped while they ran (benchrun reads the cgroup's cpu.stat around each
job; docs/formats.md). The value is the jobs with a throttled period,

    <job> <throttled> of <periods> (<ms> ms of <wall> ms); <job> …

in the order they first ran, or `none`; `unknown (…)` where cpu.stat could not
be read. `<wall>` is how long the job ran (benchrun before 2026-11-26 wrote
`(<ms> ms)` alone; such an entry reads with the wall time unknown). The lab's
merge sums a target's rounds per job, and the cpu-throttling rule claims only
rows of the jobs the quota stopped for a material share of their time."""

import re

KEY = "cpu-throttled-jobs"
_ENTRY = re.compile(r"^(?P<job>\S+) (?P<throttled>\d+) of (?P<periods>\d+) \((?P<ms>\d+) ms(?: of (?P<wall>\d+) ms)?\)$")


def parse(value):
    """{job: (throttled periods, periods, ms stopped, ms run or None)} of a value; {} for
    `none`; None when the value is absent, unknown or not in this form (then nothing can
    be said per job)."""
    if value is None:
        return None
    text = str(value).strip()
    if text == "none":
        return {}
    out = {}
    for part in text.split("; "):
        m = _ENTRY.match(part)
        if not m:
            return None
        wall = int(m["wall"]) if m["wall"] is not None else None
        _add(out, m["job"], (int(m["throttled"]), int(m["periods"]), int(m["ms"]), wall))
    return out


def _add(jobs, job, counts):
    """Add (throttled, periods, ms, wall) to job's counts in jobs (a new job goes last); the
    wall time stays known only while every part knows it."""
    old = jobs.get(job, (0, 0, 0, 0))
    jobs[job] = tuple(None if a is None or b is None else a + b for a, b in zip(old, counts))


def format_value(jobs):
    """The header value of {job: (throttled, periods, ms, wall)}: the throttled jobs in the mapping's order."""
    parts = [f"{job} {t} of {p} ({ms} ms{'' if wall is None else f' of {wall} ms'})"
             for job, (t, p, ms, wall) in jobs.items() if t > 0]
    return "; ".join(parts) if parts else "none"


def summed(values):
    """The value of several repetitions' values summed per job (a job's first appearance
    keeps its place), or None when one of them cannot be read."""
    total = {}
    for v in values:
        jobs = parse(v)
        if jobs is None:
            return None
        for job, n in jobs.items():
            _add(total, job, n)
    return format_value(total)


def stopped_pct(value, job):
    """How much of job's run time the quota stopped it, in %: 0.0 for a job the value does
    not list (not throttled), None when the value says nothing per job (absent: a benchrun
    before this key; unknown) or not how long the job ran (an entry without its wall time)."""
    jobs = parse(value)
    if jobs is None:
        return None
    throttled, _periods, ms, wall = jobs.get(job, (0, 0, 0, 0))
    if throttled == 0:
        return 0.0
    return 100.0 * ms / wall if wall else None
