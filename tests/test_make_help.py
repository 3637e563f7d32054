"""`make help`: every target once, in three groups, the variables a user sets, lines of at most
100 columns, and no colour codes into a pipe (issue 57)."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GROUPS = ["Use:", "Lab:", "Develop:", "Variables"]


def make_help(*args):
    res = subprocess.run(["make", "-s", "--no-print-directory", "help", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout


def documented_targets():
    names = set()
    for f in [ROOT / "Makefile", *sorted((ROOT / "mk").glob("*.mk"))]:
        names |= set(re.findall(r"^([a-zA-Z0-9_.-]+):.*## ", f.read_text(), re.M))
    return names


def test_help_into_a_pipe_is_plain_text_of_at_most_100_columns():
    out = make_help()
    assert "\033" not in out
    assert [line for line in out.splitlines() if len(line) > 100] == []
    assert [line for line in out.splitlines() if line != line.rstrip()] == []


def test_every_target_is_listed_once_in_a_group_in_order():
    lines = make_help().splitlines()
    headings = [i for i, line in enumerate(lines) if any(line.startswith(g) for g in GROUPS)]
    assert [lines[i].split()[0] for i in headings] == GROUPS
    listed = [m[1] for line in lines[:headings[-1]] if (m := re.match(r"  ([a-zA-Z0-9_.-]+)( |$)", line))]
    assert sorted(listed) == sorted(documented_targets())
    use = lines[headings[0]:headings[1]]
    assert any(line.startswith("  lab-up ") for line in use)
    assert any(line.startswith("  check ") for line in lines[headings[2]:headings[3]])


def test_variables_show_their_values_with_the_overrides():
    out = make_help("RESULTS_DIR=/tmp/my-runs", "PROFILE=full")
    variables = out[out.index("Variables"):]
    assert re.search(r"^  RESULTS_DIR .*\(now: /tmp/my-runs\)", variables, re.M | re.S)
    assert re.search(r"^  PROFILE .*\(now: full\)", variables, re.M)
    for name in ["LAB_INVENTORY", "LAB_ARGS", "BASE", "LAB_VERIFY_RUN", "RACK_HOSTS", "CACHE_DIR"]:
        assert re.search(rf"^  {name} ", variables, re.M), name
