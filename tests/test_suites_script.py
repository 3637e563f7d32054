"""mk/suites.sh, which runs `make check` and `make test`: every suite in exactly one lane, the lanes
side by side, and a suite that waits for another (SUITE_WAITS) starting only once that one has
ended, in whichever lane it ran. Each case runs the script on a small Makefile of its own."""

import os
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "mk" / "suites.sh"

# Each suite notes when it started and ended (a counter file shared by the lanes: `date +%s.%N`
# would do, but an order is what is checked); `slow` sleeps so that a suite side by side with it
# would start first were it not told to wait.
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


def _run(tmp_path, all_suites, *lanes, waits=""):
    (tmp_path / "Makefile").write_text(MAKEFILE)
    log = tmp_path / "order.log"
    env = dict(os.environ, SUITE_WAITS=waits, MAKE="make", LOG=str(log))  # make reads LOG from its environment
    proc = subprocess.run(["bash", str(SCRIPT), "make t", str(tmp_path / "logs"), "", all_suites, *lanes],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    order = log.read_text().split() if log.exists() else []
    return proc, order


def test_a_suite_waits_for_one_in_another_lane(tmp_path):
    proc, order = _run(tmp_path, "slow fast other", "slow", "fast other", waits="fast:slow")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert order.index("start-fast") > order.index("end-slow"), order
    assert "fast| waiting for slow to end (SUITE_WAITS)" in proc.stdout
    assert "suites: 3 passed, 0 failed" in proc.stdout


def test_without_the_wait_the_lanes_run_side_by_side(tmp_path):
    proc, order = _run(tmp_path, "slow fast", "slow", "fast")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert order.index("end-fast") < order.index("end-slow"), order


def test_a_wait_on_a_failed_suite_still_ends_and_the_failure_is_counted(tmp_path):
    proc, order = _run(tmp_path, "broken fast", "broken", "fast", waits="fast:broken")
    assert proc.returncode == 1
    assert order.index("start-fast") > order.index("start-broken"), order
    assert "suites: 1 passed, 1 failed" in proc.stdout


def test_a_wait_kept_by_the_order_of_one_lane_is_no_wait(tmp_path):
    proc, order = _run(tmp_path, "slow fast", "slow fast", waits="fast:slow")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "waiting" not in proc.stdout and order == ["start-slow", "end-slow", "start-fast", "end-fast"]


def test_a_wait_on_a_later_suite_of_the_same_lane_is_refused(tmp_path):
    proc, order = _run(tmp_path, "slow fast", "fast slow", waits="fast:slow")
    assert proc.returncode == 2 and order == []
    assert "suite fast waits for slow, which comes after it in its lane (SUITE_WAITS)" in proc.stderr


def test_a_suite_in_no_lane_is_refused(tmp_path):
    proc, order = _run(tmp_path, "slow fast other", "slow", "fast")
    assert proc.returncode == 2 and order == []
    assert "suite other is in no lane" in proc.stderr
