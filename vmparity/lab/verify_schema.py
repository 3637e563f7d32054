"""The shapes of `vmparity lab verify`'s records: verify-plan.json (interventions.py writes it in
the run it verifies, and in the verify run) and verdicts.json (verify.py). Checked by their
readers before they look inside, so that a plan or verdicts of another shape is refused naming
the field, not a traceback where a reader first indexes it. Only the types of the fields read
are fixed, and the names that become file names or targets (results/targets.py).
"""

from ..results.targets import PLAIN_NAME_SCHEMA, TARGET_NAME_SCHEMA

PLAN_FORMAT = "vmparity-verify-plan/1"
VERDICTS_FORMAT = "vmparity-verify-verdicts/1"

_TEXT = {"type": "string"}
_TEXTS = {"type": "array", "items": _TEXT}
_OPTIONAL_TEXT = {"type": ["string", "null"]}
_OPTIONAL_NUMBER = {"type": ["number", "null"]}
_CHANGE = {"type": "object", "required": ["field", "from", "to"], "properties": {"field": _TEXT},
           "description": "a change as {field, from, to}"}
_ROW = {"type": "array", "items": _TEXT, "minItems": 2, "maxItems": 2,
        "description": "a row as [benchmark, unit]"}

# what a plan and the verdicts both say of their runs: the run, the run it verifies, its reference target
_RUN_LINKS = {"run": PLAIN_NAME_SCHEMA, "verifies": PLAIN_NAME_SCHEMA, "reference": TARGET_NAME_SCHEMA}

PLAN = {
    "type": "object",
    "required": ["format", "run", "reference", "explanations", "interventions", "original-variants",
                 "variant-defaults", "jobs"],
    "properties": {
        "format": {"const": PLAN_FORMAT},
        **_RUN_LINKS,
        "explanations": {"type": "array", "items": {
            "type": "object", "required": ["target", "rule"],
            "properties": {"target": TARGET_NAME_SCHEMA, "rule": _TEXT, "title": _TEXT, "fix": _TEXT, "kind": _TEXT,
                           "intervention": _OPTIONAL_TEXT, "not-testable": _TEXT,
                           "rows": {"type": "array", "items": _ROW}}}},
        "interventions": {"type": "array", "items": {
            "type": "object", "required": ["target", "of", "kind", "intervention"],
            "properties": {"target": TARGET_NAME_SCHEMA, "of": TARGET_NAME_SCHEMA, "kind": _TEXT,
                           "intervention": _TEXT, "target-kind": _TEXT, "rules": _TEXTS,
                           "env": {"type": "object", "additionalProperties": _TEXT},
                           "changes": {"type": "array", "items": _CHANGE},
                           "variant": _TEXT, "variant-fields": {"type": "object"}},
            # a guest's or container's fix is a derived variant, an env fix its variables
            "allOf": [{"if": {"properties": {"kind": {"enum": ["guest", "container"]}}},
                       "then": {"required": ["variant", "variant-fields"]}},
                      {"if": {"properties": {"kind": {"const": "env"}}}, "then": {"required": ["env"]}}]}},
        "original-variants": {"type": "object", "required": ["guests", "containers"], "additionalProperties": {
            "type": "object", "additionalProperties": {"type": ["object", "null"]}}},
        "variant-defaults": {"type": "object", "required": ["guests", "containers"],
                             "additionalProperties": {"type": "object"}},
        "jobs": {"type": "object", "additionalProperties": _TEXTS},
        "bisect": {"type": "object"},
    },
}

VERDICTS = {
    "type": "object",
    "required": ["format", "verdicts"],
    "properties": {
        "format": {"const": VERDICTS_FORMAT},
        **_RUN_LINKS,
        "verdicts": {"type": "array", "items": {
            "type": "object", "required": ["target", "rule", "verdict"],
            "properties": {"target": TARGET_NAME_SCHEMA, "rule": _TEXT, "title": _TEXT, "intervention": _OPTIONAL_TEXT,
                           "verdict": _TEXT, "share": _OPTIONAL_NUMBER, "rows": {"type": "integer"},
                           "moved": {"type": "integer"}, "closed": {"type": "integer"}, "reason": _TEXT,
                           "changes": {"type": "array", "items": _CHANGE}, "numbers": {"type": "array", "items": {
                               "type": "object", "required": ["name", "unit", "before-pct", "after-pct"],
                               "properties": {"name": _TEXT, "unit": _TEXT, "before-pct": _OPTIONAL_NUMBER,
                                              "after-pct": _OPTIONAL_NUMBER}}},
                           "carried-by": _TEXT, "carried-share": _OPTIONAL_NUMBER}}},
        "bisection": {"type": "array", "items": {
            "type": "object", "required": ["target", "steps"],
            "properties": {"target": TARGET_NAME_SCHEMA, "attributed-to": _OPTIONAL_TEXT,
                           "steps": {"type": "object", "additionalProperties": {
                               "type": "object", "required": ["verdict"],
                               "properties": {"verdict": _TEXT, "share": _OPTIONAL_NUMBER}}}}}},
        "seconds": {"type": "number"},
    },
}

# verifications.json in a verified run: its verify runs, each a sibling run directory by name (never a path).
LINKS = {
    "type": "object",
    "required": ["verified-by"],
    "properties": {"verified-by": {"type": "array", "items": {
        "type": "object", "required": ["run"],
        "properties": {"run": PLAIN_NAME_SCHEMA, "verdicts": {"type": "object"}}}}},
}
