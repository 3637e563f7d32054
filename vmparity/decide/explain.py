"""Explain significant differences with the rules in rules.yaml.

The engine only knows the condition primitives listed at the top of
rules.yaml; what a rule means (which benchmarks, which keys, what to say)
lives in the YAML. Every significant row ends up either in an explanation
or in the unexplained list — nothing is dropped.
"""

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import jinja2
import jinja2.sandbox
import yaml

from ..errors import InputError
from ..query.names import family, job_of, param_number, split_name
from ..results import throttled_jobs, yamlfile
from . import intervention, judgement, rule_template

CONDITIONS = {"benchmark", "unit", "differs", "prefix-differs", "value-in", "param-in",
              "param-between", "param-above-key", "one-sided", "number-above", "number-differs", "verdict",
              "pct-below", "job-stopped-pct",
              "reference-value-in", "target-value-in", "equal"}


@dataclass
class Finding:
    """One row of the comparison that needs explaining."""

    group: str
    name: str
    unit: str
    pct: float  # None when one-sided
    p: float
    verdict: str
    side: str = ""  # for one-sided rows: the side that has it
    mde: float = None  # the smallest change in % the run could have called beyond noise in this row (with an A/A control)
    at_equal_clock: bool = False  # a time row's change taken at an equal core clock (decide/clockcheck.py)
    at_equal_bandwidth: bool = False  # a large copy's, at an equal memory bandwidth (decide/bandwidth.py)
    machine_range: object = None  # an unexplained row's range on this machine's other runs (history/machine_range.py)


@dataclass
class Explanation:
    rule: dict
    group: str
    a: str
    b: str
    cause: str
    fix: str
    evidence: list  # (key, value on A, value on B)
    rows: list = field(default_factory=list)
    headers: tuple = None  # (A, B): the two headers the rule read (an intervention renders from them too)


@dataclass
class Result:
    explanations: list
    unexplained: list
    a: str
    b: str
    missing: dict = field(default_factory=dict)  # absent fingerprint key -> what it would let explain check
    within_noise: list = field(default_factory=list)  # significant rows no larger than the A/A control's
    noise: object = None  # the noise.NoiseModel used, None when the run has no A/A control
    # rows on one side only because the other side's run measured a subset (its `only:`) without that benchmark
    not_selected: list = field(default_factory=list)
    subset_runs: dict = field(default_factory=dict)  # the side that measured a subset -> its `only:` regex
    within_label: str = "no larger than the A/A control shows"  # what within_noise means here
    # an A/B run's rows no rule explains whose program both sides ran byte-identical: the run's noise
    same_binary: list = field(default_factory=list)
    policy: object = None  # policy.Policy the rows were judged under (decide/policy.py), None when not said


def load_rules(path=None):
    if path is None:
        text = resources.files("vmparity.decide").joinpath("rules.yaml").read_text(encoding="utf-8")
        where = "vmparity/decide/rules.yaml"
    else:
        text = yamlfile.read_text(path, "a YAML file of rules")  # a FIFO or /dev/zero is refused, not read
        where = str(path)
    try:
        rules = yamlfile.safe_load(text, where)  # and a bomb of aliases before the checks walk it
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise InputError(where, f"not valid YAML: {problem}; expected a YAML list of rules",
                         mark.line + 1 if mark is not None else None) from None
    return _validate(rules, where)


def _validate(rules, where):
    if not isinstance(rules, list):
        raise InputError(where, "expected a YAML list of rules")
    env = _env()
    for i, r in enumerate(rules, 1):
        name = r.get("id", f"rule #{i}") if isinstance(r, dict) else f"rule #{i}"
        if not isinstance(r, dict) or not {"id", "title", "when", "cause", "fix"} <= set(r):
            raise InputError(where, f"{name}: expected keys id, title, when, cause, fix")
        if not isinstance(r["when"], list) or not r["when"]:
            raise InputError(where, f"{name}: `when` must be a non-empty list of alternatives")
        for alt in r["when"]:
            unknown = set(alt) - CONDITIONS if isinstance(alt, dict) else {"(not a mapping)"}
            if unknown:
                raise InputError(where, f"{name}: unknown condition(s) {', '.join(sorted(map(str, unknown)))}; "
                                        f"expected {', '.join(sorted(CONDITIONS))}")
            for cond, arg in alt.items():
                problem = _check_condition(cond, arg)
                if problem:
                    raise InputError(where, f"{name}: condition {cond}: {problem}")
        for key in ("id", "title", "cause", "fix"):
            if not isinstance(r[key], str):
                raise InputError(where, f"{name}: `{key}` must be text, not {type(r[key]).__name__}")
        if "evidence" in r and not _is_text_list(r["evidence"]):
            raise InputError(where, f"{name}: `evidence` must be a list of fingerprint keys (text)")
        try:
            r["_cause"], r["_fix"] = rule_template.Template(env, r["cause"]), rule_template.Template(env, r["fix"])
        except jinja2.TemplateSyntaxError as e:
            raise InputError(where, f"{name}: template error: {e.message}", e.lineno) from None
        intervention.check(r, name, where, env)
        r["_where"] = where
    return rules


def _is_text_list(x):
    return isinstance(x, list) and all(isinstance(v, str) for v in x)


def _check_condition(cond, arg):
    """What is wrong with one condition's argument (None when it is fine), so a
    bad rules file fails when it is loaded, not half-way through matching."""
    if cond in ("benchmark", "unit"):
        if not isinstance(arg, str):
            return "expected a regular expression (text)"
        try:
            re.compile(arg)
        except re.error as e:
            return f"invalid regular expression {arg!r}: {e}"
    elif cond in ("differs", "number-differs", "equal"):
        if not _is_text_list(arg):
            return "expected a list of header keys"
    elif cond == "prefix-differs":
        if not isinstance(arg, str):
            return "expected a header key prefix (text)"
    elif cond in ("value-in", "param-in", "reference-value-in", "target-value-in"):
        if not (isinstance(arg, dict) and all(isinstance(k, str) and _is_text_list(v) for k, v in arg.items())):
            return "expected a mapping of a key to a list of values"
    elif cond in ("param-between", "param-above-key"):
        if not (isinstance(arg, dict) and set(arg) == {"param", "key"} and all(isinstance(v, str) for v in arg.values())):
            return "expected {param: NAME, key: HEADER-KEY}"
    elif cond == "one-sided" and not isinstance(arg, bool):
        return "expected true or false"
    elif cond == "job-stopped-pct" and (isinstance(arg, bool) or not isinstance(arg, (int, float)) or arg < 0):
        return "expected a percentage of 0 or more"
    elif cond == "pct-below" and (isinstance(arg, bool) or not isinstance(arg, (int, float)) or not arg > 0):
        return "expected a percentage above 0"
    return None


@lru_cache(maxsize=1)
def _env():
    # The templates make plain text; each renderer escapes it for its output
    # (Markdown, HTML, terminal), so Jinja's own HTML escaping stays off. A
    # rules file can come from the user (--rules): the sandbox keeps its
    # templates to data, away from Python internals.
    env = jinja2.sandbox.SandboxedEnvironment(undefined=jinja2.StrictUndefined, autoescape=False)
    env.globals["num"] = param_number
    env.globals["throttled_jobs_of"] = _throttled_jobs_of
    return env


def _throttled_jobs_of(value, rows):
    """The entries of a cpu-throttled-jobs value for the jobs that measured rows ("" when the
    value says nothing per job), for a rule's text to name what stopped those rows."""
    jobs = throttled_jobs.parse(value) or {}
    mine = {job_of(f.name) for f in rows}
    return throttled_jobs.format_value({j: n for j, n in jobs.items() if j in mine}) if mine & set(jobs) else ""


def _differs(A, B, key):
    return A.get(key) != B.get(key)


def _number_differs(A, B, key):
    """The key's leading number differs: values like `<bytes> (<how it was sized>)`
    whose note may vary while the number that matters stays the same."""
    a, b = param_number(A.get(key)), param_number(B.get(key))
    return a is not None and b is not None and a != b


def matches(alt, f, A, B):
    """One `when` alternative of a rule holds for finding f between headers A and B."""
    for cond, arg in alt.items():
        if cond == "benchmark" and not re.search(arg, f.name):
            return False
        if cond == "unit" and not re.search(arg, f.unit):
            return False
        if cond == "differs" and not any(_differs(A, B, k) for k in arg):
            return False
        if cond == "equal" and not all(A.get(k) is not None and A.get(k) == B.get(k) for k in arg):
            return False
        if cond == "prefix-differs":
            keys = {k for k in list(A) + list(B) if k.startswith(arg)}
            if not any(_differs(A, B, k) for k in keys):
                return False
        if cond == "value-in":
            for key, values in arg.items():
                if not any(str(side.get(key, "")).startswith(tuple(values)) for side in (A, B)):
                    return False
        if cond in ("reference-value-in", "target-value-in"):
            # one side only: the reference (A: metal, or the first file) or the target compared with it (B)
            side = A if cond == "reference-value-in" else B
            if not all(str(side.get(key, "")).startswith(tuple(values)) for key, values in arg.items()):
                return False
        if cond == "param-in":
            params = split_name(f.name)[1]
            if not all(params.get(k) in v for k, v in arg.items()):
                return False
        if cond == "param-between":
            v = param_number(split_name(f.name)[1].get(arg["param"]))
            ta, tb = param_number(A.get(arg["key"])), param_number(B.get(arg["key"]))
            if v is None or ta is None or tb is None or not (min(ta, tb) < v <= max(ta, tb)):
                return False
        if cond == "param-above-key":
            v = param_number(split_name(f.name)[1].get(arg["param"]))
            limits = [param_number(side.get(arg["key"])) for side in (A, B)]
            if v is None or not any(lim is not None and v > lim for lim in limits):
                return False
        if cond == "one-sided" and bool(arg) != bool(f.side):
            return False
        if cond == "number-above":
            for key, limit in arg.items():
                if not any((v := param_number(side.get(key))) is not None and v > limit for side in (A, B)):
                    return False
        if cond == "number-differs" and not any(_number_differs(A, B, k) for k in arg):
            return False
        if cond == "verdict" and f.verdict not in (arg if isinstance(arg, list) else [arg]):
            return False
        if cond == "pct-below" and (f.pct is None or not abs(f.pct) < arg):
            return False
        if cond == "job-stopped-pct" and not _job_stopped(f, A, B, arg):
            return False
    return True


def _job_stopped(f, A, B, at_least_pct):
    """Whether the CFS quota stopped the job that measured f's row, on either side, at all and
    for at least at_least_pct of its run time (the cpu-throttled-jobs key). A side throttled
    in no period was not; where a throttled side does not say per job or for how long the job
    ran (an older benchrun, cpu.stat unreadable), nothing rules the row out."""
    for side in (A, B):
        if param_number(side.get("cpu-throttled-periods")) == 0:
            continue
        pct = throttled_jobs.stopped_pct(side.get(throttled_jobs.KEY), job_of(f.name))
        if pct is None or (pct > 0 and pct >= at_least_pct):
            return True
    return False


def findings(table, within=None):
    """Significant rows beyond noise and rows present on one side only, per group
    and column; significant rows within noise go to `within` (a list) instead."""
    base = table.columns[0]
    model = table.noise[0] if table.noise else None
    out = {}
    for r in table.rows:
        for col in table.columns[1:]:
            d = r.deltas.get(col)
            # the row's resolution beside its change: how large a change the run could have seen there
            mde = (judgement.mde_of(model, r, col, d, r.spreads)
                   if model and d is not None and d.comparison.significant else None)
            if judgement.within(d):
                if within is not None:
                    within.append(Finding(r.group, r.name, r.unit, d.pct, d.comparison.p, d.verdict, mde=mde,
                                          at_equal_clock=d.at_equal_clock, at_equal_bandwidth=d.at_equal_bandwidth))
            elif judgement.beyond(d):
                out.setdefault((r.group, col), []).append(Finding(r.group, r.name, r.unit, d.pct, d.comparison.p, d.verdict,
                                                                   mde=mde, at_equal_clock=d.at_equal_clock,
                                                                   at_equal_bandwidth=d.at_equal_bandwidth))
            elif d is None and (base in r.cells) != (col in r.cells):
                side = base if base in r.cells else col
                out.setdefault((r.group, col), []).append(Finding(r.group, r.name, r.unit, None, 1.0, "one-sided", side))
    return out


def _families(table):
    """{(group, column): the benchmark families with a row there}."""
    out = {}
    for r in table.rows:
        for col in r.cells:
            out.setdefault((r.group, col), set()).add(family(r.name))
    return out


def explain(table, configs, rules):
    """configs: {(group, column): header dict}. Returns a Result."""
    base = table.columns[0]
    explanations, unexplained, within, not_selected, subset_runs = [], [], [], [], {}
    families = _families(table)
    for (group, col), fs in findings(table, within).items():
        if (group, base) not in configs or (group, col) not in configs:
            continue  # the whole target is absent on one side: nothing to compare or explain
        A, B = configs[(group, base)], configs[(group, col)]
        names = dict(zip((base, col), _side_names(base, col, A, B)))
        kept = []
        for f in fs:
            missing = (col if f.side == base else base) if f.side else None
            only = missing and configs[(group, missing)].get("only")
            # on one side only because the other side's run selected a subset (benchrun --only, recorded as
            # `only:`) and measured nothing of the row's benchmark: not a difference of the environments
            if only and family(f.name) not in families.get((group, missing), set()):
                not_selected.append(f)
                subset_runs[names[missing]] = only
            else:
                kept.append(f)
            f.side = names.get(f.side, f.side)
        fs = kept
        found, explained = apply_rules(rules, group, *_side_names(base, col, A, B), A, B, kept)
        explanations += found
        unexplained += [f for f in fs if id(f) not in explained]
    return Result(explanations, unexplained, base, table.columns[1] if len(table.columns) > 1 else base,
                  within_noise=within, noise=table.noise[0] if table.noise else None, not_selected=not_selected,
                  subset_runs=subset_runs)


def apply_rules(rules, group, a, b, A, B, fs):
    """The rules applied to findings `fs` between sides a and b (headers A and B): narrow rules
    first, then broad ones on what is left; each row is explained by the first rule that matches
    it and can say something. Returns ([Explanation], {id of each explained finding})."""
    explanations, explained = [], set()
    for broad in (False, True):
        for rule in rules:
            if bool(rule.get("broad")) != broad:
                continue
            rows = [f for f in fs if id(f) not in explained and any(matches(alt, f, A, B) for alt in rule["when"])]
            if not rows:
                continue
            e = explanation(rule, group, a, b, A, B, rows)
            if e is None:
                continue  # the rule needs a key one side lacks: it cannot say anything here
            explained |= {id(f) for f in rows}
            explanations.append(e)
    return explanations, explained


def _side_names(base, col, A, B):
    """Name the sides by target when the targets differ (shorter than file paths)."""
    ta, tb = A.get("target"), B.get("target")
    return (ta, tb) if ta and tb and ta != tb else (base, col)


def explanation(rule, group, a, b, A, B, rows):
    """The rule's cause and fix rendered for rows; None when it needs a header key a side lacks."""
    ctx = {"A": A, "B": B, "a": a, "b": b, "rows": rows}
    where = rule.get("_where", "rules.yaml")
    try:
        cause = " ".join(rule["_cause"].render(ctx).split())
        fix = " ".join(rule["_fix"].render(ctx).split())
    except jinja2.UndefinedError:
        return None  # the rule needs a header key one side lacks: it says nothing here
    except jinja2.TemplateError as e:
        raise InputError(where, f"rule {rule['id']}: template error: {e}") from None
    except (TypeError, ValueError, ArithmeticError, LookupError) as e:
        # e.g. num() of a value that is not a number compared with one
        raise InputError(where, f"rule {rule['id']}: the template failed on these headers: "
                                f"{type(e).__name__}: {e}; expected values the rule can compute with") from None
    keys = rule.get("evidence", [])
    evidence = [(k, A.get(k, "(absent)"), B.get(k, "(absent)")) for k in keys if k in A or k in B]
    return Explanation(rule, group, a, b, cause, fix, evidence, rows, (A, B))


def missing_keys(configs, rules, required):
    """{key: [rule titles]}: fingerprint keys absent from a side, and what they would let explain check."""
    absent = [k for k in required if any(k not in cfg for cfg in configs.values())]
    out = {}
    for k in absent:
        uses = []
        for r in rules:
            keys = set(r.get("evidence", []))
            for alt in r["when"]:
                keys |= set(alt.get("differs", []))
            if k in keys or k in r["cause"] or k in r["fix"]:
                uses.append(r["title"])
        out[k] = uses
    return out
