"""A rule's fix as a change the lab can make: its `intervention` block (or why not).

Each rule in rules.yaml whose fix the lab can apply carries, beside its text,
an `intervention`: the same target with only that change, measured again
(`vmparity lab verify`). A rule whose fix the lab cannot make says
`not-testable: <reason>`; beside an `intervention`, `not-testable` is the
reason for the targets the intervention does not fit (a container change
on a guest). Kinds:

    kind: env        env: {VAR: TEMPLATE}   the target's environment (GLIBC_TUNABLES, GOMAXPROCS)
    kind: guest      set: {FIELD: VALUE}    guest variant fields (vm-templates/variants.yml)
                     cmdline: {KEY: VALUE}  KEY=VALUE in the variant's kernel_cmdline_extra
    kind: container  set: {FIELD: VALUE}    container variant fields (docker/variants.yml)

`name` (a template too) is what the derived target appends after `+`:
`guest-hpet-clock+clocksource-tsc`. Templates see what cause and fix see
(A, B, a, b, rows, num); the change applies to side b, the target compared
with the reference a. This module owns the block's shape and its rendering;
which variant fields exist is the lab's to check (vmparity.lab.interventions).
"""

import re

import jinja2

from ..errors import InputError
from . import rule_template

KINDS = ("env", "guest", "container")
NAME_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,40}$")
ENV_PATTERN = re.compile(r"^[A-Z_][A-Z0-9_]*$")
CMDLINE_KEY = re.compile(r"^[a-z0-9_.-]+$")
# which of the block's keys each kind takes
_KEYS = {"env": {"kind", "name", "env"}, "guest": {"kind", "name", "set", "cmdline"}, "container": {"kind", "name", "set"}}


def check(rule, name, where, env):
    """Check a rule's `intervention` / `not-testable` and compile its templates
    (into rule['_intervention']); InputError naming the file and the rule."""
    block, reason = rule.get("intervention"), rule.get("not-testable")
    if reason is not None and not (isinstance(reason, str) and reason.strip()):
        raise InputError(where, f"{name}: `not-testable` must be the reason, as text")
    if block is None:
        return
    if not isinstance(block, dict):
        raise InputError(where, f"{name}: `intervention` must be a mapping with kind, name and the change")
    kind = block.get("kind")
    if kind not in KINDS:
        raise InputError(where, f"{name}: intervention kind {kind!r}: expected one of {', '.join(KINDS)}")
    unknown = set(block) - _KEYS[kind]
    if unknown:
        raise InputError(where, f"{name}: intervention of kind {kind}: unknown key(s) "
                                f"{', '.join(sorted(map(str, unknown)))}; expected {', '.join(sorted(_KEYS[kind]))}")
    if not isinstance(block.get("name"), str) or not block["name"].strip():
        raise InputError(where, f"{name}: intervention `name` must be text (what the derived target appends after '+')")
    change = {k: block.get(k) for k in ("env", "set", "cmdline") if k in block}
    if not change or not all(isinstance(v, dict) and v for v in change.values()):
        raise InputError(where, f"{name}: intervention of kind {kind} needs a non-empty mapping "
                                f"{' or '.join(sorted(_KEYS[kind] - {'kind', 'name'}))}")
    for var, value in block.get("env", {}).items():
        if not (isinstance(var, str) and ENV_PATTERN.match(var)) or not isinstance(value, str):
            raise InputError(where, f"{name}: intervention env {var!r}: expected VARIABLE: text")
    for key in block.get("set", {}):
        if not isinstance(key, str):
            raise InputError(where, f"{name}: intervention set {key!r}: expected a variant field name")
    for key, value in block.get("cmdline", {}).items():
        if not (isinstance(key, str) and CMDLINE_KEY.match(key)) or not isinstance(value, (str, int)):
            raise InputError(where, f"{name}: intervention cmdline {key!r}: expected a kernel parameter and its value")
    try:
        rule["_intervention"] = {
            "name": rule_template.Template(env, block["name"]),
            "env": {k: rule_template.Template(env, v) for k, v in block.get("env", {}).items()},
        }
    except jinja2.TemplateSyntaxError as e:
        raise InputError(where, f"{name}: intervention template error: {e.message}", e.lineno) from None


def render(rule, A, B, a, b, rows):
    """The intervention for one explanation: {kind, name, env, set, cmdline}; or
    {not-testable: reason} (the rule's own, or none declared); InputError when a
    template fails on these headers. A `not-testable` beside the intervention
    comes along as `otherwise`: the reason for a target of another kind."""
    block = rule.get("intervention")
    if block is None:
        return {"not-testable": rule.get("not-testable") or "the rule declares no intervention"}
    ctx = {"A": A, "B": B, "a": a, "b": b, "rows": rows}
    compiled = rule["_intervention"]
    where = rule.get("_where", "rules.yaml")
    try:
        name = " ".join(compiled["name"].render(ctx).split())
        env = {k: " ".join(t.render(ctx).split()) for k, t in compiled["env"].items()}
    except jinja2.UndefinedError as e:
        return {"not-testable": f"the intervention needs a fingerprint key a side lacks ({e.message})"}
    except (jinja2.TemplateError, TypeError, ValueError, ArithmeticError, LookupError) as e:
        raise InputError(where, f"rule {rule['id']}: intervention template failed on these headers: "
                                f"{type(e).__name__}: {e}") from None
    if not NAME_PATTERN.match(name):
        raise InputError(where, f"rule {rule['id']}: intervention name {name!r}: expected lower-case letters, "
                                f"digits and '-', at most 41")
    out = {"kind": block["kind"], "name": name}
    if env:
        out["env"] = env
    if "set" in block:
        out["set"] = dict(block["set"])
    if "cmdline" in block:
        out["cmdline"] = {k: str(v) for k, v in block["cmdline"].items()}
    if rule.get("not-testable"):
        out["otherwise"] = " ".join(rule["not-testable"].split())
    return out
