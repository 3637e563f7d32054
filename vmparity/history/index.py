"""An SQLite index of results/runs/, so that reading a thousand runs takes a query, not a parse.

The files stay the source of truth: the index holds per result file its
header (and apart, quicker to read, the provenance and series-key values
every history reads of every file), and per track (one benchmark row and
unit of one target on one host) every run of it packed into arrays in run-id
order (packed.py): the sample counts, medians, confidence intervals and
samples. Reading the history is a row per track, not a row per track and
run. Every use starts with refresh(), which compares each run directory's
signature (name, size and mtime of its `<target>.txt` files) with the one
stored, re-reads only the runs that were added or changed, forgets runs that
are gone, and rewrites the tracks those runs are in. Deleting the index file
is always safe: the next command rebuilds it.

Reading never needs to write: where results/.index.sqlite cannot be
written (a read-only results directory, a mounted archive, a full disk),
refreshed() keeps the index in the user's cache directory instead, and where
that fails too, in memory, and says so once.
"""

import contextlib
import hashlib
import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..results import inputs, machine, provenance
from .. import stats
from ..errors import InputError
from ..results.spec import series_keys
from ..results.targets import is_lab_metal, metal_of
from ..results.file import parse_file
from . import packed

INDEX_NAME = ".index.sqlite"
SCHEMA_VERSION = "4"  # 4: a track's host names its machine identity where the files record one
PACKED_COLUMNS = "run_ids, higher, n, median, lo, hi, samples"
SET_PACKED = ", ".join(f"{c} = ?" for c in PACKED_COLUMNS.split(", "))
PENDING_ROWS = 200_000  # rows of newly read runs held in memory before they are merged into their tracks

SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE runs(run_id TEXT PRIMARY KEY, signature TEXT NOT NULL);
-- host: the physical host (lab_host), not the target's own host name
-- head: the values of head_keys() as a JSON list, config: the whole header as a JSON object
CREATE TABLE files(run_id TEXT NOT NULL, target TEXT NOT NULL, host TEXT NOT NULL, head TEXT NOT NULL,
                   config TEXT NOT NULL, PRIMARY KEY (run_id, target));
-- one row per track: its runs as packed arrays in run-id order (packed.Runs.to_row)
CREATE TABLE tracks(host TEXT NOT NULL, target TEXT NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL,
                    run_ids BLOB NOT NULL, higher BLOB NOT NULL, n BLOB NOT NULL, median BLOB NOT NULL,
                    lo BLOB NOT NULL, hi BLOB NOT NULL, samples BLOB NOT NULL,
                    PRIMARY KEY (host, target, name, unit));
"""


@dataclass
class FileInfo:
    run_id: str
    target: str
    host: str
    head: dict  # head_keys() -> value ("" where the header has none)
    config: dict  # the whole header


def head_keys():
    """The header keys a history reads of every file: provenance and the series keys. The index keeps their
    values beside the whole header, which is ten times longer to parse."""
    return list(provenance.KEYS) + [k for k in series_keys() if k not in provenance.KEYS]


def default_path(runs_dir):
    """The index lives beside runs/: results/.index.sqlite (ignored by git)."""
    return Path(runs_dir).parent / INDEX_NAME


MEMORY = ":memory:"  # sqlite's name for a database that lives and dies with the connection


class Unwritable(Exception):
    """The index cannot be created or brought up to date where it was asked for."""


def cache_path(runs_dir):
    """Where an index goes when it cannot go beside runs/: the user's cache directory, one file per runs
    directory ($XDG_CACHE_HOME/vmparity/, ~/.cache/vmparity/ by default)."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "vmparity"
    digest = hashlib.sha256(str(Path(runs_dir).resolve()).encode()).hexdigest()[:16]
    return base / f"index-{digest}.sqlite"


def refreshed(runs_dir, path=None, warn=None):
    """An Index of runs_dir brought up to date: at path (default results/.index.sqlite) where it can be
    written, else in the user's cache directory, else in memory; warn(message), once, when it is not where
    it was asked for."""
    asked = Path(path) if path else default_path(runs_dir)
    failed = None
    for place in (asked, cache_path(runs_dir), MEMORY):
        if place is not MEMORY and place.is_symlink():  # sqlite would write through it, wherever it leads
            failed = failed or f"{place} is a symbolic link, and the index is never written through one"
            continue
        ix, existed = None, place is MEMORY or place.exists()
        try:
            if place is not MEMORY:
                place.parent.mkdir(parents=True, exist_ok=True)
            ix = _refresh_or_rebuild(runs_dir, place, warn)
        except (Unwritable, sqlite3.OperationalError, OSError) as e:
            if ix is not None:
                ix.close()
            if place is MEMORY:
                raise
            if not existed:  # not even an empty file left behind where nothing could be written
                with contextlib.suppress(OSError):
                    remove_files(place)
            failed = failed or f"{e}"
            continue
        if failed is not None and warn is not None:
            where = "memory" if place is MEMORY else str(place)
            warn(f"cannot write the history index {asked} ({failed}); kept it in {where} instead "
                 "(nothing under the results directory was written)")
        return ix



def _refresh_or_rebuild(runs_dir, place, warn):
    """An Index at place, refreshed; built again from the runs when the refresh meets a row that breaks
    it (a run's row renamed under its files', a page malformed): the index is only a cache. sqlite's
    ways of saying it cannot write there are raised, for refreshed() to try the next place."""
    ix = Index(runs_dir, place)
    try:
        ix.refresh(warn)
        return ix
    except (sqlite3.DatabaseError, ValueError) as e:  # ValueError: a stored text that is not UTF-8
        ix.close()
        if isinstance(e, sqlite3.OperationalError) and _is_write_error(e):
            raise
        why = str(e)
    if warn is not None:
        warn(f"the history index {place} is corrupt ({why}); built it again from the runs")
    if place is not MEMORY:
        remove_files(place)
    ix = Index(runs_dir, place)
    ix.refresh(warn)
    return ix


def run_signature(run_dir):
    """What changes when a run's result files are added, replaced or edited: the name, size and mtime of
    each; None without any."""
    parts = []
    with os.scandir(run_dir) as it:
        for e in it:
            if _is_result_file(e.name) and e.is_file():
                st = e.stat()
                parts.append(f"{e.name}\0{st.st_size}\0{st.st_mtime_ns}")
    return "\n".join(sorted(parts)) if parts else None


def remove_files(path):
    """An index file and the ones sqlite keeps beside it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(f"{path}{suffix}")
        except FileNotFoundError:
            pass


def _is_write_error(e):
    """sqlite's ways of saying it cannot write here (as against a file that is not a database)."""
    text = str(e).lower()
    return any(w in text for w in ("readonly", "read-only", "disk is full", "unable to open", "disk i/o", "locked"))


def _is_result_file(name):
    # benchrun's temporary files are tmp-<out name>-*; hidden files are editors' and ingest's
    return name.endswith(".txt") and not name.startswith(("tmp-", "."))


class Index:
    def __init__(self, runs_dir, path=None):
        self.runs_dir = Path(runs_dir)
        if not self.runs_dir.is_dir():
            raise InputError(self.runs_dir, "no such runs directory (expected <results>/runs/<run-id>/<target>.txt)")
        self.path = path if path == MEMORY else Path(path) if path else default_path(self.runs_dir)
        self.db = self._open()

    def _open(self):
        try:
            db = sqlite3.connect(self.path, timeout=60)
            db.execute("PRAGMA journal_mode=WAL")
            meta = {}
            if db.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone():
                meta = dict(db.execute("SELECT key, value FROM meta"))
            if meta != self._meta():  # another layout, or other head keys (format.yaml's series keys changed)
                db.close()
                self._remove_files()
                db = sqlite3.connect(self.path, timeout=60)
                db.execute("PRAGMA journal_mode=WAL")
                self._create(db)
            return db
        except (sqlite3.DatabaseError, ValueError) as e:  # ValueError: a text of its schema is not UTF-8
            if isinstance(e, sqlite3.OperationalError) and (str(self.path) == MEMORY or not self.path.exists()):
                raise Unwritable(f"cannot create it: {e}") from None
            if isinstance(e, sqlite3.OperationalError) and _is_write_error(e):
                raise Unwritable(str(e)) from None
            # a corrupt index is only a cache: start again from the files
            self._remove_files()
            db = sqlite3.connect(self.path, timeout=60)
            self._create(db)
            return db

    def _meta(self):
        return {"schema": SCHEMA_VERSION, "head-keys": json.dumps(head_keys())}

    def _create(self, db):
        db.executescript(SCHEMA)
        db.executemany("INSERT INTO meta VALUES (?, ?)", self._meta().items())
        db.commit()

    def _remove_files(self):
        if str(self.path) != MEMORY:
            remove_files(self.path)

    def close(self):
        self.db.close()

    def refresh(self, warn=None):
        """Bring the index in line with the run directories; returns (added, changed, removed) run counts."""
        listing = self._listing()
        if dict(self.db.execute("SELECT run_id, signature FROM runs")) == listing:
            return 0, 0, 0  # the common case, decided without the write lock
        added = changed = 0
        with self.db:  # one transaction: a crash leaves the index as it was
            # the write lock first, then what is stored: a refresh running beside this one may have stored
            # some of these runs meanwhile, and a track must not get a run twice
            self.db.execute("BEGIN IMMEDIATE")
            stored = dict(self.db.execute("SELECT run_id, signature FROM runs"))
            stale = [r for r, sig in stored.items() if listing.get(r) != sig]  # changed or gone
            self._forget(stale)
            pending, rows = {}, 0
            for run_id, sig in listing.items():
                if stored.get(run_id) == sig:
                    continue
                try:
                    file_rows, result_rows = self._read_run(run_id)
                except InputError as e:
                    if warn is None:
                        raise
                    warn(f"skipped run {run_id}: {e}")
                    continue
                self.db.execute("INSERT INTO runs VALUES (?, ?)", (run_id, sig))
                self.db.executemany("INSERT INTO files VALUES (?, ?, ?, ?, ?)", file_rows)
                for key, *result in result_rows:
                    pending.setdefault(key, packed.Builder()).add(run_id, *result)
                rows += len(result_rows)
                if rows >= PENDING_ROWS:
                    self._merge(pending)
                    pending, rows = {}, 0
                if run_id in stored:
                    changed += 1
                else:
                    added += 1
            self._merge(pending)
        return added, changed, len(stale) - changed

    def _listing(self):
        """{run_id: signature} of every run directory that holds a result file, in run-id order."""
        with os.scandir(self.runs_dir) as it:
            dirs = sorted(e.name for e in it if not e.name.startswith(".") and e.is_dir())
        listing = {}
        for run_id in dirs:
            sig = run_signature(os.path.join(self.runs_dir, run_id))
            if sig is not None:
                listing[run_id] = sig
        return listing

    def _read_run(self, run_id):
        """Rows of the files table, and per result row ((host, target, name, unit), higher, median, lo, hi, samples)."""
        run_dir = self.runs_dir / run_id
        files = [parse_file(run_dir / n, run=run_dir) for n in sorted(os.listdir(run_dir)) if _is_result_file(n)]
        inputs.check_unique_targets(files)
        file_rows, result_rows = [], []
        head = head_keys()
        metals = {rf.target: series_host(rf.config) for rf in files if is_lab_metal(rf.target)}
        for rf in files:
            cfg, target = rf.config, rf.target
            host = lab_host(target, metals) or series_host(cfg) or "unknown"
            file_rows.append((run_id, target, host, json.dumps([cfg.get(k, "") for k in head], ensure_ascii=False),
                              json.dumps(cfg, ensure_ascii=False)))
            keys, samples = [], []
            for b in rf.benchmarks.values():
                for unit, values in zip(b.units, b.values):
                    keys.append((b.name, unit))
                    samples.append(np.asarray(values, dtype=float))
            for (name, unit), vals, s in zip(keys, samples, stats.summarize_many(samples)):
                result_rows.append(((host, target, name, unit), rf.higher_is_better(unit), s.center, s.lo, s.hi, vals))
        return file_rows, result_rows

    def _forget(self, run_ids):
        """Remove these runs: their rows, and their place in every track."""
        if not run_ids:
            return
        gone = set(run_ids)
        for table in ("runs", "files"):
            self.db.executemany(f"DELETE FROM {table} WHERE run_id = ?", [(r,) for r in gone])
        hit = [rowid for rowid, ids in self.db.execute("SELECT rowid, run_ids FROM tracks")
               if not gone.isdisjoint(ids.decode().split(packed.RUN_ID_SEP))]
        for rowid in hit:
            row = self.db.execute(f"SELECT {PACKED_COLUMNS} FROM tracks WHERE rowid = ?", (rowid,)).fetchone()
            runs = packed.Runs.from_row(*row).without(gone)
            if runs.run_ids:
                self.db.execute(f"UPDATE tracks SET {SET_PACKED} WHERE rowid = ?", (*runs.to_row(), rowid))
            else:
                self.db.execute("DELETE FROM tracks WHERE rowid = ?", (rowid,))

    def _merge(self, pending):
        """Add the runs collected in pending ({track key: packed.Builder}) to their tracks."""
        for key, builder in pending.items():
            row = self.db.execute(f"SELECT {PACKED_COLUMNS} FROM tracks WHERE host = ? AND target = ? AND name = ? "
                                  "AND unit = ?", key).fetchone()
            runs = packed.merge([packed.Runs.from_row(*row) if row else None, builder.runs()])
            self.db.execute("INSERT OR REPLACE INTO tracks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (*key, *runs.to_row()))

    def files(self):
        """{(run_id, target): FileInfo} of every indexed result file; packed.Corrupt when a stored
        header does not decode (the whole header is decoded here, not when a reader first asks for
        it: a cache that fails must fail while history.load can still build it again)."""
        keys = head_keys()
        out = {}
        for r, t, h, head, config in self.db.execute("SELECT run_id, target, host, head, config FROM files"):
            try:
                head, config = json.loads(head), json.loads(config)
            except (TypeError, ValueError, RecursionError) as e:
                raise packed.Corrupt(f"the header of {r}/{t} does not decode: {e}") from None
            if not isinstance(head, list) or len(head) != len(keys) or not isinstance(config, dict):
                raise packed.Corrupt(f"the header of {r}/{t} is not the one stored")
            out[(r, t)] = FileInfo(r, t, h, dict(zip(keys, head)), config)
        return out

    def rebuilt(self, warn=None):
        """This index built again from the files, after a row of it did not decode; an index in
        memory when its file cannot be replaced."""
        self.close()
        if str(self.path) != MEMORY:
            try:
                remove_files(self.path)
                ix = Index(self.runs_dir, self.path)
                ix.refresh(warn)
                return ix
            except (Unwritable, sqlite3.Error, OSError):
                pass
        ix = Index(self.runs_dir, MEMORY)
        ix.refresh(warn)
        return ix

    def tracks(self):
        """((host, target, name, unit), packed.Runs) of every track, in key order."""
        split = {}
        for host, target, name, unit, *row in self.db.execute(
                f"SELECT host, target, name, unit, {PACKED_COLUMNS} FROM tracks ORDER BY host, target, name, unit"):
            yield (host, target, name, unit), packed.Runs.from_row(*row, split=split)


def series_host(config):
    """What a track's host is: the host name, with the physical machine's identity (the
    `machine` key, vmparity.machine) where the file records one, so that two machines
    that share a name are two series and a machine that is renamed is told apart too."""
    host = config.get("host")
    ident = machine.of_config(config)
    return f"{host or 'unknown'} [machine {ident}]" if ident else host


def lab_host(target, metals):
    """The physical host a target ran on: its run's lab metal's `host` (a container's or guest's own
    host name says nothing about the machine, and a container's changes every run). On a rack, the
    metal whose `-<host>` suffix the target shares."""
    if len(metals) == 1:
        return next(iter(metals.values()))
    metal = metal_of(target, metals)
    return None if metal is None else metals[metal]


def fingerprint(config, keys=None):
    """The values of the series keys (keys: series_keys(), given when asked for many files): what must stay
    equal for runs to be like-for-like."""
    keys = keys or series_keys()
    return tuple(map(config.get, keys, [""] * len(keys)))
