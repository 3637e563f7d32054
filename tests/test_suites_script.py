"""mk/suites.sh, which runs `make check` and `make test`: every suite in exactly one lane, the lanes
side by side, a failed suite counted without stopping the others. Each case runs the script on a
small Makefile of its own."""

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "mk" / "suites.sh"

# Each suite notes when it started and ended in a file the lanes share; `slow` sleeps so that a
# suite in another lane ends first.
MAKEFILE = """\
slow:
\t@echo start-slow >> $(LOG); sleep 2; echo end-slow >> $(LOG)
fast:
\t@echo start-fast >> $(LOG); echo end-fast >> $(LOG)
other:
\t@echo start-other >> $(LOG); echo end-other >> $(LOG)
broken:
\t@echo start-broken >> $(LOG); exit 3
"""


def _run(tmp_path, all_suites, *lanes):
    (tmp_path / "Makefile").write_text(MAKEFILE)
    log = tmp_path / "order.log"
    env = dict(os.environ, MAKE="make", LOG=str(log))  # make reads LOG from its environment
    proc = subprocess.run(["bash", str(SCRIPT), "make t", str(tmp_path / "logs"), "", all_suites, *lanes],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    order = log.read_text().split() if log.exists() else []
    return proc, order


def test_the_lanes_run_side_by_side_and_a_lane_in_order(tmp_path):
    proc, order = _run(tmp_path, "slow fast other", "slow", "fast other")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert order.index("end-fast") < order.index("end-slow"), order
    assert order.index("end-fast") < order.index("start-other"), order
    assert "suites: 3 passed, 0 failed" in proc.stdout


def test_a_failed_suite_is_counted_and_the_lane_goes_on(tmp_path):
    proc, order = _run(tmp_path, "broken fast other", "broken other", "fast")
    assert proc.returncode == 1
    assert "start-other" in order and "start-fast" in order, order
    assert "suites: 2 passed, 1 failed" in proc.stdout
    assert "broken failed (all of its output is in" in proc.stdout


def test_a_suite_in_no_lane_is_refused(tmp_path):
    proc, order = _run(tmp_path, "slow fast other", "slow", "fast")
    assert proc.returncode == 2 and order == []
    assert "suite other is in no lane" in proc.stderr
