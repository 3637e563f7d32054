"""Synthetic lab runs for the tests of a row judged on its twin (its core clocks,
test_inrun_clock.py; a reference copy, test_inrun_bandwidth.py): their rounds.json,
their table, the rows beyond noise, and where a twin's rows say so."""

import io
import json
import random

from vmparity import table
from vmparity.decide import explain
from vmparity.render import explanation, jsonfmt, markdown
from vmparity.results import inputs


def write_rounds(run, seed, targets, count):
    """rounds.json of `count` interleaved rounds of `targets`, each in an order of its own."""
    (run / "rounds.json").write_text(json.dumps({
        "schema": "vmparity-rounds/1", "partial": False, "missing-rounds": {},
        "hosts": {"localhost": [{"round": k, "seed": seed, "order": random.Random(k).sample(targets, len(targets))}
                                for k in range(1, count + 1)]}}), encoding="utf-8")
    return run


def table_of(run):
    return table.build([inputs.load(run)], by="target")


def beyond(t, target, unit):
    """{benchmark: delta} of target's rows in unit that are beyond noise."""
    return {r.name: r.deltas[target] for r in t.rows if r.unit == unit and target in r.deltas
            and r.deltas[target].comparison.significant and not r.deltas[target].within_noise}


def assert_marked(t, mark, words, key, twin_unit):
    """A table t with some changes judged on a twin: Markdown shows `mark` and `words`,
    the JSON flags some deltas with `key` and not all, an explanation's evidence says
    "ns/op <words>" and its JSON flags those rows, never the twin's own (twin_unit)."""
    out = io.StringIO()
    markdown.render(t, out)
    assert f"%{mark}" in out.getvalue() and words in out.getvalue()
    deltas = [d for row in jsonfmt.to_dict(t)["rows"] for d in row["deltas"].values()]
    assert any(d.get(key) for d in deltas) and not all(d.get(key) for d in deltas)
    res = explain.explain(t, t.configs, explain.load_rules())
    out = io.StringIO()
    explanation.markdown(res, out)
    assert f"ns/op {words}: +" in out.getvalue()
    rows = explanation.to_dict(res)["unexplained"]
    assert any(row["unit"] == "ns/op" and row.get(key) for row in rows)
    assert not any(row.get(key) for row in rows if row["unit"] == twin_unit)
