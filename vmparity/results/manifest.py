"""A run's binaries: MANIFEST.sha256 (`sha256sum` lines) beside its results, and in an
A/B run MANIFEST~base.sha256, BASE's build. Ingest checks them (commands/ingest.py);
an A/B run reads which programs BASE and HEAD ran byte for byte alike (lab/ab_compare.py)."""

import re
from pathlib import Path

NAME = "MANIFEST.sha256"
BASE_NAME = "MANIFEST~base.sha256"  # an A/B run's second build, beside the working tree's
LINE = re.compile(r"[0-9a-f]{64} [ *]\S.*\Z")
RUNNER = "benchrun"  # runs and times every program: a change of it may move any row


def digests(text):
    """{file: sha256} of a manifest's text (lines LINE; ingest refuses any other)."""
    out = {}
    for line in text.splitlines():
        if LINE.match(line):
            digest, name = line[:64], line[66:]
            out[name] = digest
    return out


def same_programs(run_dir):
    """The programs an A/B run's BASE and HEAD ran byte-identical, from its two manifests:
    none when either is missing or unreadable, or when the runner itself differs."""
    try:
        head, base = (digests((Path(run_dir) / n).read_text(encoding="utf-8")) for n in (NAME, BASE_NAME))
    except (OSError, UnicodeDecodeError):
        return frozenset()
    same = frozenset(n for n, d in head.items() if base.get(n) == d)
    return same if RUNNER in same else frozenset()
