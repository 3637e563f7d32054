"""Every run against the ones before it: tracks, like-for-like series, change points.

index.py keeps results/.index.sqlite in line with results/runs/ (the files
stay the source of truth), a track's runs packed as arrays (packed.py);
tracks.py lines the runs up per host, target and benchmark row;
changepoints.py finds where a track moved (the method is in its docstring:
levels.py reads each run's level, candidates.py screens, segments.py tests
and places), excursions.py pairs a change with the one that undid it;
render.py (its rows formatted by columns.py), plot.py and explain_change.py
present them.
"""

import sqlite3

from . import changepoints, index, packed, tracks


def load(runs_dir, filter_text=None, until=None, only=None, warn=None, index_path=None):
    """Refresh the index of runs_dir (where it can be written: index.refreshed) and return its tracks
    (tracks.History)."""
    ix = index.refreshed(runs_dir, index_path, warn)
    try:
        try:
            return tracks.load(ix, filter_text, until, only)
        # The index is only a cache: the files are the truth. A row that does not decode, or rows that do
        # not agree (a track of a run whose file row was altered), is built again from them; a failure on
        # the index built again is a defect of the code and raised as one.
        except (packed.Corrupt, sqlite3.DatabaseError, LookupError, ValueError, TypeError, ArithmeticError) as e:
            if warn is not None:
                warn(f"the history index {ix.path} does not decode ({e}); built it again from the runs")
            ix = ix.rebuilt(warn)
            return tracks.load(ix, filter_text, until, only)
    finally:
        ix.close()
