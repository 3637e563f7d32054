"""A table built from files keeps its numbers packed (table/_rowstore.py); its rows must
read exactly as plain rows holding the same objects would."""

import random

from vmparity.results import inputs
from vmparity import stats, table
from vmparity.table import Row


def _file(path, seed, shift):
    """Benchmarks that make every kind of cell: repetitions with ties, one
    sample, all-equal values, a zero baseline, an assume=exact unit whose values
    vary, a unit that only some lines report, and one-sided rows."""
    rng = random.Random(seed)
    lines = ["Unit hits/op better=higher", "Unit cnt assume=exact better=lower"]
    for rep in range(7):
        for b in range(30):
            v = (100 + b + rng.gauss(0, 2)) * (shift if b % 3 == 0 else 1)
            extra = f" {rng.choice([3, 3, 4])} cnt" if b % 5 == 0 else ""
            lines.append(f"BenchmarkA/x={b}-4 100 {v:.3g} ns/op {2 * v:.3g} hits/op{extra}")
        lines += ["BenchmarkEqual 1 5 ns/op", f"BenchmarkZero 1 {0 if shift == 1 else rep} ns/op"]
    lines += [f"BenchmarkOnce 1 {3 * shift} ns/op", f"BenchmarkOnly{seed} 1 1 ns/op"]
    path.write_text("\n".join(lines) + "\n")
    return path


def _plain(t):
    rows = [Row(r.group, r.name, r.unit, r.higher_better, r.cells, r.deltas) for r in t.rows]
    return table.Table(t.columns, rows, t.geomeans, t.alpha, t.confidence, t.by)


def _warnings(rows):
    """The warnings read off row objects in row order (each row's cells, then its deltas):
    {warning: (number of cells, the first one's label)}, as RowStore.warnings gives them."""
    out = {}
    for r in rows:
        for col, ws in [(c, s.warnings) for c, s in r.cells.items()] + \
                       [(c, d.comparison.warnings) for c, d in r.deltas.items()]:
            for w in ws:
                have = out.get(w)
                out[w] = (have[0] + 1, have[1]) if have else (1, f"{r.name} {r.unit} [{col}]")
    return out


def _geomeans(rows, columns):
    """The geomean rows computed from row objects, as benchstat's geomean row is defined."""
    out = {}
    for r in rows:
        if all(c in r.cells for c in columns):
            out.setdefault((r.group, r.unit), []).append(r)
    return {k: {c: stats.geomean([r.cells[c].center for r in rs]) for c in columns}
            for k, rs in out.items() if len(rs) >= 2}


def test_stored_rows_read_like_plain_rows(tmp_path):
    files = [_file(tmp_path / "old.txt", 1, 1), _file(tmp_path / "new.txt", 2, 1.2)]
    t = table.build(inputs.load_all([str(f) for f in files]))
    assert t.store is not None
    plain = _plain(t)
    assert t.warnings() == _warnings(plain.rows)
    assert {w for w in t.warnings()} >= {"all samples are equal", "exact distribution expected, but values range from 3 to 4"}
    assert {(g.group, g.unit): g.values for g in t.geomeans} == _geomeans(plain.rows, t.columns)
    assert len(t.rows) == len(plain.rows) and t.rows[-1].name == plain.rows[-1].name
    assert [r.name for r in t.rows[2:5]] == [r.name for r in plain.rows[2:5]]


def test_marking_within_noise_sticks_to_a_stored_row(tmp_path):
    files = [_file(tmp_path / "old.txt", 1, 1), _file(tmp_path / "new.txt", 2, 1.5)]
    t = table.build(inputs.load_all([str(f) for f in files]))
    i, col = next((i, c) for i, r in enumerate(t.rows) for c, d in r.deltas.items() if d.comparison.significant)
    assert not t.rows[i].deltas[col].within_noise
    t.rows[i].mark_within_noise(col)
    assert t.rows[i].deltas[col].within_noise
