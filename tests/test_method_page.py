"""docs/method.md states every constant of the rule with its value: the page's values are
the code's (issue 56, item 4), so that a constant changed in one place fails here until the
page says it, with its measurement."""

import importlib
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "method.md"
# a constants row: | `vmparity.module.NAME` | value | … or | `path/to/defaults.yml:key` | value | …
ROW = re.compile(r"^\|\s*`(?P<where>[^`]+)`\s*\|\s*(?P<value>[^|]+?)\s*\|", re.M)


def _rows():
    return [(m["where"], m["value"]) for m in ROW.finditer(PAGE.read_text(encoding="utf-8"))
            if m["where"].startswith("vmparity.") or ".yml:" in m["where"]]


def _code_value(where):
    if ".yml:" in where:
        path, key = where.split(":")
        return yaml.safe_load((ROOT / path).read_text(encoding="utf-8"))[key]
    module, name = where.rsplit(".", 1)
    return getattr(importlib.import_module(module), name)


def test_the_page_lists_the_constants_of_the_rule():
    where = {w for w, _ in _rows()}
    # the ones the paragraph names: every band's multiplier and floor, α, the MDE's power
    for must in ("vmparity.stats.DEFAULT_ALPHA", "vmparity.decide.noise.FLOOR_PCT", "vmparity.decide.noise.K_SE",
                 "vmparity.decide.fastlevel.K_FAST", "vmparity.decide.crossrun.FLOOR_PCT",
                 "vmparity.decide.crossrun.SPREAD_Z", "vmparity.stats.sensitivity.POWER"):
        assert must in where, must


@pytest.mark.parametrize("where,value", _rows())
def test_a_constant_on_the_page_is_the_codes(where, value):
    got = _code_value(where)
    stated = float(value.replace("%", "").replace("√3/2", str(3 ** 0.5 / 2)).strip())
    assert float(got) == pytest.approx(stated, rel=1e-3), f"docs/method.md says {where} = {value}, the code {got}"
