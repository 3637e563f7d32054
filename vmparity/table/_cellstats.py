"""Medians, intervals and U tests for every cell of the table, a bounded block at a time.

stats.summarize_many and compare_many take a list of sample arrays; with the
cells of a big table that list alone costs an object per cell. Here cells
(cellpool.Cells) are grouped by sample size and their values gathered
straight from the packed columns into 2-D blocks of at most BLOCK_VALUES
values (a bigger cell goes alone, as a view of its values), which go through
the same stats.summarize_block and stats.compare_block, so every number is
the one the list functions give.
"""

import numpy as np

from .. import stats

BLOCK_VALUES = 1 << 16  # 512 KiB of doubles per gathered block: a few copies of it at a time
CHUNK_CELLS = 1 << 16  # cells sorted by size at a time, so the bookkeeping is bounded too


def summarize(cells, confidence):
    """(centres, CI lows, CI highs), one per cell."""
    m = len(cells.n)
    center, lo, hi = np.empty(m), np.empty(m), np.empty(m)
    for at in range(0, m, CHUNK_CELLS):
        for n, idx in stats.by_size(cells.n[at:at + CHUNK_CELLS]):
            for part in _blocks(idx + at, n):
                center[part], lo[part], hi[part] = stats.summarize_block(_gather(cells, part, n), confidence)
    return center, lo, hi


def log_spreads(cells):
    """The robust spread of each cell's log values (stats.log_spread_block), one per cell."""
    m = len(cells.n)
    out = np.empty(m)
    for at in range(0, m, CHUNK_CELLS):
        for n, idx in stats.by_size(cells.n[at:at + CHUNK_CELLS]):
            for part in _blocks(idx + at, n):
                out[part] = stats.log_spread_block(_gather(cells, part, n))
    return out


def compare(cells, base, other):
    """(p-values, all-equal flags) of the U test of each cell `other[i]` against
    the baseline cell `base[i]` of its row."""
    m = len(other)
    p, all_equal = np.ones(m), np.zeros(m, dtype=bool)
    for at in range(0, m, CHUNK_CELLS):
        b, o = base[at:at + CHUNK_CELLS], other[at:at + CHUNK_CELLS]
        n1, n2 = cells.n[b], cells.n[o]
        for _, idx in stats.by_size(stats.pair_sizes(n1, n2)):
            x, y = int(n1[idx[0]]), int(n2[idx[0]])
            for part in _blocks(idx, x + y):
                p[part + at], all_equal[part + at] = stats.compare_block(_gather(cells, b[part], x),
                                                                        _gather(cells, o[part], y))
    return p, all_equal


def _blocks(idx, width):
    step = max(1, BLOCK_VALUES // max(width, 1))
    for s in range(0, len(idx), step):
        yield idx[s:s + step]


def _gather(cells, which, n):
    """The values of cells `which` (n each) as a len(which) x n block (read-only)."""
    if len(which) == 1:  # one cell (as a cell too big to share a block always is): a view, no copy
        k = which[0]
        start = cells.start[k]
        return cells.sources[cells.source[k]][start:start + n][None, :]
    block = np.empty((len(which), n))
    src, start = cells.source[which], cells.start[which]
    offsets = np.arange(n)
    by_source = np.argsort(src, kind="stable")
    cuts = np.flatnonzero(src[by_source][1:] != src[by_source][:-1]) + 1
    for rows in np.split(by_source, cuts):
        block[rows] = cells.sources[src[rows[0]]][start[rows, None] + offsets]
    return block
