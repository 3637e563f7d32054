"""One PNG trend plot per track: median and confidence interval per run, each run's commit on the axis."""

import hashlib
import io
import re

import matplotlib

matplotlib.use("Agg")  # no display on a lab host or in CI
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from ..results import provenance  # noqa: E402
from . import excursions  # noqa: E402

MAX_TICKS = 40  # more commit labels than this overlap; every k-th run is labelled instead


def file_name(track):
    """A readable, unique and safe file name for a track."""
    readable = re.sub(r"[^A-Za-z0-9._=-]+", "_", f"{track.target}_{track.name}_{track.unit}")[:120]
    digest = hashlib.sha256("\0".join(track.key).encode()).hexdigest()[:10]
    return f"{readable}-{digest}.png"


def png(track, cps, prov):
    x = np.arange(len(track.run_ids))
    fig, ax = plt.subplots(figsize=(min(24, 6 + 0.12 * len(x)), 4.5))
    for k, s in enumerate(track.series):
        sl = slice(s.start, s.stop)
        med, lo, hi = track.median[sl], track.lo[sl], track.hi[sl]
        yerr = np.vstack([np.where(np.isnan(lo), 0, med - lo), np.where(np.isnan(hi), 0, hi - med)])
        label = f"series {k + 1}" + (f": {', '.join(s.changed)} changed" if s.changed else "")
        ax.errorbar(x[sl], med, yerr=yerr, fmt="o-", ms=3, lw=1, capsize=2, color=f"C{k % 10}", label=label)
    for ex in excursions.find(cps):  # the runs the track was away from its level
        ax.axvspan(ex.away.at - 0.5, ex.back.at - 0.5, color="red", alpha=0.08, lw=0)
    for cp in cps:
        ax.axvline(cp.at - 0.5, color="red", ls="--", lw=1)
        ax.annotate(f"{cp.pct:+.0f} %" if cp.pct is not None else "moved", (cp.at - 0.5, 1), xycoords=("data", "axes fraction"),
                    color="red", fontsize=8, ha="left", va="top")
    step = max(1, -(-len(x) // MAX_TICKS))
    ticks = x[::step]
    ax.set_xticks(ticks)
    ax.set_xticklabels([provenance.label(prov(track.run_ids[i], track.target)) for i in ticks],
                       rotation=60, ha="right", fontsize=7)
    ax.set_xlabel("commit (runs in time order)")
    ax.set_ylabel(track.unit)
    ax.set_title(f"{track.name} on {track.target} ({track.host})", fontsize=9)
    if len(track.series) > 1 or cps:
        ax.legend(fontsize=7, loc="best")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=96, metadata={"Software": None})
    plt.close(fig)
    return buf.getvalue()
