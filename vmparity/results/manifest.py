"""A run's binaries: MANIFEST.sha256 (`sha256sum` lines) beside its results, and in an
A/B run MANIFEST~base.sha256, BASE's build. Ingest checks them (commands/ingest.py);
an A/B run reads which programs BASE and HEAD ran byte for byte alike (lab/ab_compare.py).
Both read a manifest here, bounded (bounded.py): a FIFO in its place would hang the reader and
/dev/zero fill its memory."""

import hashlib
import os
import re
from pathlib import Path

from ..errors import InputError
from . import bounded

NAME = "MANIFEST.sha256"
BASE_NAME = "MANIFEST~base.sha256"  # an A/B run's second build, beside the working tree's
LINE = re.compile(r"[0-9a-f]{64} [ *]\S.*\Z")
LINE_WORDS = "`sha256sum` lines `<64 hex>  <file>`"
RUNNER = "benchrun"  # runs and times every program: a change of it may move any row
# A manifest lists the suite's few dozen programs in about 100 bytes each.
MAX_BYTES = 1024 * 1024


def read(path, run=None):
    """The text of the manifest at path; InputError naming it (and the line) when it is not a
    regular file of at most MAX_BYTES of UTF-8 `sha256sum` lines, or (with run, the run
    directory it belongs to) is a symbolic link out of the run."""
    text = bounded.read_text(path, MAX_BYTES, f"a manifest of {LINE_WORDS}", run)
    lines = text.splitlines()
    if not lines:
        raise InputError(path, f"empty manifest: expected {LINE_WORDS}")
    for i, line in enumerate(lines, 1):
        if not LINE.match(line):
            raise InputError(path, f"expected a `sha256sum` line `<64 hex>  <file>`, got {line[:60]!r}", i)
    return text


def digests(text):
    """{file: sha256} of a manifest's text (lines LINE; read() refuses any other)."""
    out = {}
    for line in text.splitlines():
        if LINE.match(line):
            digest, name = line[:64], line[66:]
            out[name] = digest
    return out


def disagreeing(run_dir, head_files, base_files):
    """[(manifest name, its sha256, the other binary-sha256 its side's files record)] for each of an
    A/B run's manifests that is not the build its side ran: benchrun records as `binary-sha256` the
    sha256 of the manifest it ran from (commands/ingest.py checks it), so a manifest whose sha256 is
    not that lists other binaries, and no row can be taken for the same binary's by it."""
    out = []
    for name, files in ((NAME, head_files), (BASE_NAME, base_files)):
        path = Path(run_dir) / name
        if not os.path.lexists(path):  # a link out of the run there is refused by read(), not passed over
            continue
        digest = hashlib.sha256(read(path, run_dir).encode("utf-8")).hexdigest()
        recorded = sorted({rf.config.get("binary-sha256") for rf in files} - {None, digest})
        if recorded:
            out.append((name, digest, recorded))
    return out


def same_programs(run_dir):
    """The programs an A/B run's BASE and HEAD ran byte-identical, from its two manifests:
    none when either is missing, or when the runner itself differs; InputError when one is
    there but is no manifest."""
    paths = [Path(run_dir) / n for n in (NAME, BASE_NAME)]
    if not all(os.path.lexists(p) for p in paths):  # a FIFO or device there is refused by read(), not passed over
        return frozenset()
    head, base = (digests(read(p, run_dir)) for p in paths)
    same = frozenset(n for n, d in head.items() if base.get(n) == d)
    return same if RUNNER in same else frozenset()
