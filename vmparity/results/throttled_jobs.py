"""The `cpu-throttled-jobs` header key: which benchmark jobs the kernel's CFS
quota stopped while they ran (benchrun reads the cgroup's cpu.stat around each
job; docs/formats.md). The value is the jobs with a throttled period,

    <job> <throttled> of <periods> (<ms> ms); <job> …

in the order they first ran, or `none`; `unknown (…)` where cpu.stat could not
be read. The lab's merge sums a target's rounds per job, and the
cpu-throttling rule claims only rows of the jobs listed."""

import re

KEY = "cpu-throttled-jobs"
_ENTRY = re.compile(r"^(?P<job>\S+) (?P<throttled>\d+) of (?P<periods>\d+) \((?P<ms>\d+) ms\)$")


def parse(value):
    """{job: (throttled periods, periods, ms)} of a value; {} for `none`; None when the
    value is absent, unknown or not in this form (then nothing can be said per job)."""
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
        _add(out, m["job"], (int(m["throttled"]), int(m["periods"]), int(m["ms"])))
    return out


def _add(jobs, job, counts):
    """Add (throttled, periods, ms) to job's counts in jobs (a new job goes last)."""
    old = jobs.get(job, (0, 0, 0))
    jobs[job] = tuple(a + b for a, b in zip(old, counts))


def format_value(jobs):
    """The header value of {job: (throttled, periods, ms)}: the throttled jobs in the mapping's order."""
    parts = [f"{job} {t} of {p} ({ms} ms)" for job, (t, p, ms) in jobs.items() if t > 0]
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


def throttled(value, job):
    """Whether the value lists job as throttled: True, False, or None when the value says
    nothing per job (absent: a benchrun before this key; unknown)."""
    jobs = parse(value)
    if jobs is None:
        return None
    return jobs.get(job, (0, 0, 0))[0] > 0
