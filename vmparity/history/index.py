"""An SQLite index of results/runs/, so that reading a thousand runs takes a query, not a parse.

The files stay the source of truth: the index holds per result file its
header, and per benchmark and unit the median, its confidence interval and
the samples (packed doubles), keyed by run. Every use starts with refresh(),
which compares each run directory's signature (name, size and mtime of its
`<target>.txt` files) with the one stored and re-reads only the runs that
were added or changed, and forgets runs that are gone. Deleting the index
file is always safe: the next command rebuilds it.
"""

import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import inputs, stats
from ..errors import InputError
from ..formatspec import series_keys
from ..names import host_suffix, is_lab_metal
from ..resultfile import parse_file

INDEX_NAME = ".index.sqlite"
SCHEMA_VERSION = "2"

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE runs(run_id TEXT PRIMARY KEY, signature TEXT NOT NULL);
-- host: the physical host (lab_host), not the target's own host name
CREATE TABLE files(run_id TEXT NOT NULL, target TEXT NOT NULL, host TEXT NOT NULL, config TEXT NOT NULL,
                   PRIMARY KEY (run_id, target));
-- clustered in the order history reads it: one track after the other, runs in time order
CREATE TABLE results(host TEXT NOT NULL, target TEXT NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL,
                     run_id TEXT NOT NULL, higher INTEGER, n INTEGER NOT NULL, median REAL NOT NULL, lo REAL,
                     hi REAL, samples BLOB NOT NULL, PRIMARY KEY (host, target, name, unit, run_id)) WITHOUT ROWID;
CREATE INDEX results_run ON results(run_id);
"""


@dataclass
class FileInfo:
    run_id: str
    target: str
    host: str
    config: dict


def default_path(runs_dir):
    """The index lives beside runs/: results/.index.sqlite (ignored by git)."""
    return Path(runs_dir).parent / INDEX_NAME


def run_signature(run_dir):
    """What changes when a run's result files are added, replaced or edited; None without any."""
    parts = []
    with os.scandir(run_dir) as it:
        for e in it:
            if _is_result_file(e.name) and e.is_file():
                st = e.stat()
                parts.append(f"{e.name}\0{st.st_size}\0{st.st_mtime_ns}")
    if not parts:
        return None
    return hashlib.sha256("\n".join(sorted(parts)).encode()).hexdigest()


def _is_result_file(name):
    # benchrun's temporary files are tmp-<out name>-*; hidden files are editors' and ingest's
    return name.endswith(".txt") and not name.startswith(("tmp-", "."))


class Index:
    def __init__(self, runs_dir, path=None):
        self.runs_dir = Path(runs_dir)
        if not self.runs_dir.is_dir():
            raise InputError(self.runs_dir, "no such runs directory (expected <results>/runs/<run-id>/<target>.txt)")
        self.path = Path(path) if path else default_path(self.runs_dir)
        self.db = self._open()

    def _open(self):
        try:
            db = sqlite3.connect(self.path, timeout=60)
            db.execute("PRAGMA journal_mode=WAL")
            version = None
            if db.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone():
                row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
                version = row[0] if row else None
            if version != SCHEMA_VERSION:
                db.close()
                self._remove_files()
                db = sqlite3.connect(self.path, timeout=60)
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(SCHEMA)
                db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
                db.commit()
            return db
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError) and not self.path.exists():
                raise InputError(self.path, f"cannot create the history index: {e}") from None
            # a corrupt index is only a cache: start again from the files
            self._remove_files()
            db = sqlite3.connect(self.path, timeout=60)
            db.executescript(SCHEMA)
            db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            db.commit()
            return db

    def _remove_files(self):
        for suffix in ("", "-wal", "-shm", "-journal"):
            try:
                os.unlink(f"{self.path}{suffix}")
            except FileNotFoundError:
                pass

    def close(self):
        self.db.close()

    def refresh(self, warn=None):
        """Bring the index in line with the run directories; returns (added, changed, removed) run counts."""
        stored = dict(self.db.execute("SELECT run_id, signature FROM runs"))
        seen = set()
        added = changed = 0
        with os.scandir(self.runs_dir) as it:
            dirs = sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir())
        with self.db:  # one transaction: a crash leaves the index as it was
            for run_id in dirs:
                sig = run_signature(self.runs_dir / run_id)
                if sig is None:
                    continue
                seen.add(run_id)
                if stored.get(run_id) == sig:
                    continue
                try:
                    rows = self._read_run(run_id)
                except InputError as e:
                    if warn is None:
                        raise
                    warn(f"skipped run {run_id}: {e}")
                    seen.discard(run_id)
                    continue
                self._forget(run_id)
                self._store(run_id, sig, *rows)
                if run_id in stored:
                    changed += 1
                else:
                    added += 1
            gone = [r for r in stored if r not in seen]
            for run_id in gone:
                self._forget(run_id)
        return added, changed, len(gone)

    def _read_run(self, run_id):
        run_dir = self.runs_dir / run_id
        files = [parse_file(run_dir / n) for n in sorted(os.listdir(run_dir)) if _is_result_file(n)]
        inputs.check_unique_targets(files)
        file_rows, result_rows = [], []
        metals = {rf.target: rf.config.get("host") for rf in files if is_lab_metal(rf.target)}
        for rf in files:
            cfg, target = rf.config, rf.target
            host = lab_host(target, metals) or cfg.get("host") or "unknown"
            file_rows.append((run_id, target, host, json.dumps(cfg, ensure_ascii=False)))
            keys, samples = [], []
            for b in rf.benchmarks.values():
                for unit, values in zip(b.units, b.values):
                    keys.append((b.name, unit))
                    samples.append(np.asarray(values, dtype=float))
            for (name, unit), vals, s in zip(keys, samples, stats.summarize_many(samples)):
                higher = rf.higher_is_better(unit)
                result_rows.append((host, target, name, unit, run_id, None if higher is None else int(higher),
                                    len(vals), s.center, _finite(s.lo), _finite(s.hi), vals.tobytes()))
        return file_rows, result_rows

    def _forget(self, run_id):
        for table in ("runs", "files", "results"):
            self.db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))

    def _store(self, run_id, sig, file_rows, result_rows):
        self.db.execute("INSERT INTO runs VALUES (?, ?)", (run_id, sig))
        self.db.executemany("INSERT INTO files VALUES (?, ?, ?, ?)", file_rows)
        self.db.executemany("INSERT INTO results VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", result_rows)

    def files(self):
        """{(run_id, target): FileInfo} of every indexed result file."""
        return {(r, t): FileInfo(r, t, h, json.loads(c))
                for r, t, h, c in self.db.execute("SELECT run_id, target, host, config FROM files")}

    def results(self, until=None):
        """(host, target, name, unit, run_id, higher, n, median, lo, hi, samples) ordered by track, then run;
        until: only runs whose id sorts at or before it."""
        sql = "SELECT host, target, name, unit, run_id, higher, n, median, lo, hi, samples FROM results"
        args = ()
        if until is not None:
            sql, args = sql + " WHERE run_id <= ?", (until,)
        return self.db.execute(sql + " ORDER BY host, target, name, unit, run_id", args).fetchall()


def lab_host(target, metals):
    """The physical host a target ran on: its run's lab metal's `host` (a container's or guest's own
    host name says nothing about the machine, and a container's changes every run). On a rack, the
    metal whose `-<host>` suffix the target shares."""
    if len(metals) == 1:
        return next(iter(metals.values()))
    for metal, host in metals.items():
        suffix = host_suffix(metal)
        if suffix and target.endswith(suffix):
            return host
    return None


def _finite(x):
    return x if np.isfinite(x) else None


def fingerprint(config):
    """The values of the series keys: what must stay equal for runs to be like-for-like."""
    return tuple(config.get(k, "") for k in series_keys())
