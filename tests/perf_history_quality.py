"""`make bench-history`, its second half: how well change points are found, vmparity beside Apache Otava.

On seeded synthetic histories (changegen: rows of 80 runs, 6 samples a run,
noise 0.5–5 %, outlier runs), the same run medians go to vmparity's change
points and to Otava's (the E-divisive means of Matteson & James with the
windowed split and merge of Fleming et al.; `pip install .[bench]`). Printed
per method: recall by change size (found within one run, with the right
sign), placement error, false change points (none injected within 3 runs)
and precision; then the regression-then-fix rows of issue 23 (+15 % for
5, 6, 10, 15, 25 runs, then back) and rows without change.

Otava is run three times: with its defaults (window 50, p ≤ 0.001 per
series); at vmparity's family-wise level (p ≤ α / rows, at least
--min-change), so that both are compared at a like false-positive budget;
and so, on the run levels vmparity reads (each run's fast-side quartile, not
its median), so that what is the segmentation's and what the levels' shows.
Exits 1 when vmparity misses a goal of issue 23.
"""

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import changegen as cg  # noqa: E402

from vmparity.history import changepoints, levels  # noqa: E402

SIZES = (3, 5, 10, 20)  # recall is printed for changes of at least these sizes (percent)
LIFETIMES = (5, 6, 10, 15, 25)
ALPHA = 0.05
MIN_CHANGE = 5.0


def vmparity_found(h):
    cps, _ = changepoints.detect(h.tracks, changepoints.Method(alpha=ALPHA, min_change=MIN_CHANGE))
    by_track = {id(t): [] for t in h.tracks}
    for cp in cps:
        by_track[id(cp.track)].append((cp.at, 1 if (cp.pct or 0) > 0 else -1))
    return [by_track[id(t)] for t in h.tracks]


def level_series(t):
    return [float(v) for v in levels.run_levels(t)]


def otava_method(window_len, max_pvalue, min_magnitude, series=cg.median_series):
    from otava.analysis import compute_change_points

    def found(h):
        out = []
        for t in h.tracks:
            cps, _ = compute_change_points(series(t), window_len=window_len, max_pvalue=max_pvalue,
                                           min_magnitude=min_magnitude)
            out.append([(cp.index, 1 if cp.stats.mean_2 > cp.stats.mean_1 else -1) for cp in cps])
        return out
    return found


def methods(rows, with_otava):
    out = [("vmparity", vmparity_found)]
    if with_otava:
        out += [("otava defaults", otava_method(50, 0.001, 0.0)),
                (f"otava p≤α/{rows}", otava_method(50, ALPHA / rows, MIN_CHANGE / 100)),
                # the run levels vmparity reads (fast-side quartiles) instead of the medians: what of the
                # difference is the segmentation's, not the levels'
                ("otava on levels", otava_method(50, ALPHA / rows, MIN_CHANGE / 100, level_series))]
    return out


def pct(hit, total):
    return f"{100 * hit / total:5.1f} % ({hit}/{total})" if total else "    – "


def report(name, score, seconds):
    recall = "  ".join(f"≥{s:>2} %: {pct(*score.recall(s))}" for s in SIZES)
    p = score.placement()
    print(f"  {name:<16} recall {recall}")
    print(f"  {'':<16} placed exact {p[0]}, ±1 {p[1]}, further {p[2]}; {score.found} found, {score.false} false, "
          f"precision {100 * score.precision:.1f} %; {seconds:.1f} s")


def score_of(found, histories):
    s, t0 = cg.Score(), time.perf_counter()
    for h in histories:
        s.add(h.rows, found(h))
    return s, time.perf_counter() - t0


def multi_change(seeds, rows, runs, with_otava):
    histories = [cg.history(seed, rows=rows, runs=runs) for seed in seeds]
    print(f"multi-change rows (2–3 changes of 3–25 %, ≥ 8 runs apart, noise 0.5–5 %, outlier runs): "
          f"seeds {', '.join(map(str, seeds))}, {rows} rows × {runs} runs each")
    scores = {}
    for name, found in methods(rows, with_otava):
        scores[name], seconds = score_of(found, histories)
        report(name, scores[name], seconds)
    return scores["vmparity"]


def single_change(seeds, rows, runs, with_otava):
    histories = [cg.history(seed, rows=rows, runs=runs, kinds=("single", "none")) for seed in seeds]
    print(f"single-change and unchanged rows: seeds {', '.join(map(str, seeds))}, {rows} rows × {runs} runs each")
    scores = {}
    for name, found in methods(rows, with_otava):
        scores[name], seconds = score_of(found, histories)
        report(name, scores[name], seconds)
    return scores["vmparity"]


def lifetimes(rows, with_otava):
    print(f"regression then fix (+15 % at run 40, back L runs later; 80 runs, 6 samples, 1 % noise; {rows} rows each): "
          "rows reported as exactly the two changes, each within one run")
    ok = True
    for name, found in methods(rows, with_otava):
        cells = []
        for life in LIFETIMES:
            h = cg.lifetime_history(life, rows=rows, seed=100 + life)
            got = found(h)
            both = sum(len(g) == 2 and abs(g[0][0] - 40) <= 1 and g[0][1] == 1
                       and abs(g[1][0] - 40 - life) <= 1 and g[1][1] == -1 for g in map(sorted, got))
            cells.append(f"L={life}: {both}/{rows}")
            ok &= name != "vmparity" or both == rows
        print(f"  {name:<16} " + "  ".join(cells))
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1,2,3,4", help="comma-separated seeds of the multi-change histories")
    ap.add_argument("--rows", type=int, default=40)
    ap.add_argument("--runs", type=int, default=80)
    ap.add_argument("--no-otava", action="store_true", help="vmparity alone (Otava not installed)")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    with_otava = not a.no_otava
    if with_otava:
        try:
            import otava.analysis  # noqa: F401
        except ImportError:
            print("bench-history: Apache Otava is not installed (pip install '.[bench]'); vmparity alone")
            with_otava = False
    multi = multi_change(seeds, a.rows, a.runs, with_otava)
    single = single_change(seeds, a.rows, a.runs, with_otava)
    both = lifetimes(10, with_otava)
    r10, r5 = multi.recall(10), multi.recall(5)
    goals = [("multi-change recall ≥ 10 %: ≥ 95 %", r10[0] >= 0.95 * r10[1]),
             ("multi-change recall ≥ 5 %: ≥ 85 %", r5[0] >= 0.85 * r5[1]),
             ("multi-change precision ≥ 95 %", multi.precision >= 0.95),
             ("single-change precision ≥ 95 %", single.precision >= 0.95),
             ("regression then fix: two changes at every lifetime", both)]
    for what, ok in goals:
        print(f"  {'met   ' if ok else 'MISSED'} {what}")
    return 0 if all(ok for _, ok in goals) else 1


if __name__ == "__main__":
    sys.exit(main())
