"""Fuzzing the lab's records (issue 59): a committed record with one of its values replaced by an
arbitrary JSON value, anywhere in it (or the whole record replaced). Every reader either takes
the record or refuses it with an InputError naming the file, never another exception; and where
the reader takes it, the commands that read it go on to the end: exit 0 or exit 2, never a
traceback."""

import io
import json
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vmparity.cli import main
from vmparity.errors import InputError
from vmparity.lab import interventions, verify
from vmparity.results import round_record

RUNS = Path(__file__).resolve().parent.parent / "results" / "runs"
LAB_RUN = RUNS / "2026-11-28T08-43-58Z-lab-quick"
VERIFY_RUN = RUNS / "2026-11-27T20-55-29Z-verify-quick"

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                    max_leaves=8)
READERS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
COMMANDS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _mutated(draw, record):
    """A copy of record with the value at the end of a random walk from its top replaced by arbitrary JSON."""
    root = json.loads(json.dumps(record))
    parent, key, node = None, None, root
    while isinstance(node, (dict, list)) and node and (parent is None or draw(st.integers(0, 3))):
        parent, key = node, draw(st.sampled_from(list(node) if isinstance(node, dict) else range(len(node))))
        node = parent[key]
    if parent is None:
        return draw(JSON)
    parent[key] = draw(JSON)
    return root


def _run_with(tmp_path, run, name, value):
    d = tmp_path / "runs" / run.name
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(run, d, ignore=shutil.ignore_patterns("*.png", "report.md"))
    (d / name).write_text(json.dumps(value))
    return d


def _takes_or_refuses(read, path):
    """Whether read() took the record; an InputError must name it, any other exception fails the test."""
    try:
        read()
    except InputError as e:
        assert str(path) in str(e)
        return False
    return True


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main([str(a) for a in argv], out, err)  # an exception here is the finding: it fails the test
    assert code in (0, 2), (code, err.getvalue())
    return code


@READERS
@given(data=st.data())
def test_rounds_json_is_taken_or_refused_by_name(tmp_path, data):
    value = _mutated(data.draw, json.loads((LAB_RUN / "rounds.json").read_text()))
    run = _run_with(tmp_path, LAB_RUN, "rounds.json", value)
    if _takes_or_refuses(lambda: round_record.load(run), run / "rounds.json"):
        round_record.mde_goals(round_record.load(run))


@READERS
@given(data=st.data())
def test_a_verify_plan_is_taken_or_refused_by_name(tmp_path, data):
    value = _mutated(data.draw, json.loads((VERIFY_RUN / "verify-plan.json").read_text()))
    run = _run_with(tmp_path, VERIFY_RUN, "verify-plan.json", value)
    _takes_or_refuses(lambda: interventions.read_plan(run), run / "verify-plan.json")


@READERS
@given(data=st.data())
def test_verdicts_are_taken_or_refused_by_name(tmp_path, data):
    value = _mutated(data.draw, json.loads((VERIFY_RUN / "verdicts.json").read_text()))
    run = _run_with(tmp_path, VERIFY_RUN, "verdicts.json", value)
    _takes_or_refuses(lambda: verify.read_verdicts(run), run / "verdicts.json")


@COMMANDS
@given(data=st.data())
def test_commands_on_a_fuzzed_rounds_json_end_in_exit_0_or_2(tmp_path, data):
    value = _mutated(data.draw, json.loads((LAB_RUN / "rounds.json").read_text()))
    run = _run_with(tmp_path, LAB_RUN, "rounds.json", value)
    _cli("noise", run)
    _cli("compare", run, "--by", "target")


@COMMANDS
@given(data=st.data())
def test_report_on_fuzzed_verdicts_ends_in_exit_0_or_2(tmp_path, data):
    value = _mutated(data.draw, json.loads((VERIFY_RUN / "verdicts.json").read_text()))
    run = _run_with(tmp_path, VERIFY_RUN, "verdicts.json", value)
    _cli("report", run, "--out", tmp_path / "out")


def _staging(tmp_path, host_record):
    """A staging run of one host, three rounds of metal and its A/A pass; round 2's record is host_record."""
    run = tmp_path / "stage"
    if run.exists():
        shutil.rmtree(run)
    for k in (1, 2, 3):
        d = run / "rounds" / str(k)
        d.mkdir(parents=True)
        rec = {"host": "localhost", "round": k, "seed": 5, "order": ["metal", "metal-aa"], "hygiene": {},
               "timings": {"metal": {"start": "2026-11-28 08:00:00", "end": "2026-11-28 08:00:09.5"}}}
        (d / "host-localhost.json").write_text(json.dumps(host_record if k == 2 else rec))
        for t in ("metal", "metal-aa"):
            shutil.copy(LAB_RUN / f"{t}.txt", d / f"{t}.txt")
    return run


STAGED_ROUND = {"host": "localhost", "round": 2, "seed": 5, "order": ["metal", "metal-aa"], "hygiene": {},
                "timings": {"metal": {"start": "2026-11-28 08:00:00", "end": "2026-11-28 08:00:09.5"}},
                "added": {"reason": "wide", "goal-pct": 3.0, "jobs": ["clock"], "benchmarks": []}}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_lab_steps_on_a_fuzzed_staging_round_record_end_in_exit_0_or_2(tmp_path, data):
    run = _staging(tmp_path, _mutated(data.draw, STAGED_ROUND))
    _cli("lab", "added-round", "--host", "localhost", run)
    _cli("lab", "merge-rounds", run)


@READERS  # refused or derived in a fraction of a second: as many examples as a reader gets
@given(data=st.data())
def test_lab_verify_on_a_fuzzed_verify_plan_ends_in_exit_0_or_2(tmp_path, data):
    value = _mutated(data.draw, json.loads((VERIFY_RUN / "verify-plan.json").read_text()))
    run = _run_with(tmp_path, VERIFY_RUN, "verify-plan.json", value)
    _cli("--results-dir", tmp_path, "lab", "verify", run, "--write", tmp_path / "derived")
