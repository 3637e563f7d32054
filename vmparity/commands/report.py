"""`vmparity report RUN`: report.md (+ plot PNGs) and a self-contained report.html."""

import contextlib
import os
from pathlib import Path

from ..errors import InputError
from ..render.escape import terminal
from ..report import context, sections


def run(run_arg, out, err, out_dir=None, baseline=None, alpha=0.05, results_dir=None):
    html = context.extra("html")
    ctx, images = context.build(run_arg, alpha, baseline, results_dir, err)
    md = "\n".join(s for s in (fn(ctx) for fn in sections.SECTIONS) if s)
    dest = Path(out_dir) if out_dir else ctx.run_dir
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError(dest, f"cannot create the report directory: {e.strerror or e}") from None
    for name, png in images.items():
        _write(dest / name, png)
    _write(dest / "report.md", md.encode("utf-8"))
    _write(dest / "report.html", html.render(md, f"vmparity report {ctx.run_id}", images).encode("utf-8"))
    out.write(terminal(f"wrote {dest / 'report.md'} and {dest / 'report.html'} ({len(images)} plot(s))") + "\n")
    return 0


def _write(path, data):
    """Write via a temporary file and rename, so a failed report never leaves half a file. A write that fails
    (a full disk, a read-only directory) names the file the report could not write, not the run it read."""
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as e:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        raise InputError(path, f"cannot write the report: {e.strerror or e}") from None
