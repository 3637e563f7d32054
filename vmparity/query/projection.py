"""Keys of a benchmark result and projections of them, with benchstat's meaning.

golang.org/x/perf/benchproc/syntax defines the keys: `.name` (base name
without `Benchmark`), `.fullname` (the whole name without `Benchmark`),
`/key` (a sub-benchmark key; `/gomaxprocs` also reads the `-N` suffix),
`.file` (the operand's label), `.config` (every file configuration key not
named elsewhere), `.unit` (filters only) and any other word, a file
configuration key. A projection is a comma- or space-separated list of keys,
each optionally `key@alpha`, `key@num` or `key@(v1 v2 …)` (a fixed order that
also drops every other value).
"""

import re
from dataclasses import dataclass, field

from ..errors import InputError
from ..query.names import split_name

WORD = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s,()@:"*-][^\s,()@:]*|[-*(),@:]')
NUM_SUFFIX = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def tokens(text, what):
    """Words (bare or double-quoted) and the punctuation of both syntaxes."""
    out, pos = [], 0
    text = text.strip()
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        m = WORD.match(text, pos)
        if m is None:
            raise InputError(what, f"cannot read {text[pos:pos + 20]!r} at offset {pos}")
        tok = m.group()
        if tok.startswith('"'):
            tok = ("word", bytes(tok[1:-1], "utf-8").decode("unicode_escape"))
        elif tok in "-*(),@:" and len(tok) == 1:
            tok = (tok, tok)
        else:
            tok = ("word", tok)
        out.append((tok[0], tok[1], pos))
        pos = m.end()
    return out


@dataclass
class Field:
    key: str
    order: str = "first"  # first | alpha | num | fixed
    fixed: list = field(default_factory=list)


def parse(text, what):
    """A projection: the list of Fields. `what` names the option in errors."""
    toks = tokens(text, what)
    fields, i = [], 0
    while i < len(toks):
        kind, val, pos = toks[i]
        if kind == ",":
            i += 1
            continue
        if kind != "word":
            raise InputError(what, f"expected a key at offset {pos} of {text!r}, got {val!r}")
        f = Field(val)
        i += 1
        if i < len(toks) and toks[i][0] == "@":
            i += 1
            if i < len(toks) and toks[i][0] == "word" and toks[i][1] in ("alpha", "num", "first"):
                f.order = toks[i][1]
                i += 1
            elif i < len(toks) and toks[i][0] == "(":
                i += 1
                while i < len(toks) and toks[i][0] == "word":
                    f.fixed.append(toks[i][1])
                    i += 1
                if i >= len(toks) or toks[i][0] != ")" or not f.fixed:
                    raise InputError(what, f"expected `{val}@(value value …)` in {text!r}")
                f.order = "fixed"
                i += 1
            else:
                raise InputError(what, f"expected alpha, num or (values…) after `{val}@` in {text!r}")
        if f.key in (".unit",):
            raise InputError(what, ".unit can only be used in --filter (each unit is its own table)")
        if f.key.startswith("/") and len(f.key) < 2:
            raise InputError(what, "expected a sub-benchmark key after `/`, e.g. /size")
        fields.append(f)
    if not fields:
        raise InputError(what, "expected at least one key (e.g. .file, .name, /size, goos)")
    return fields


class Extractor:
    """Reads key values from one benchmark result. `mentioned` are the keys named
    in any projection: .config and .fullname leave them out, as benchstat does."""

    def __init__(self, mentioned):
        self.config_excluded = {k for k in mentioned if not k.startswith((".", "/"))}
        self.name_excluded = {k[1:] for k in mentioned if k.startswith("/")}

    def value(self, key, label, config, name):
        if key == ".file":
            return label
        if key == ".name":
            return split_name(name)[0][len("Benchmark"):]
        if key == ".fullname":
            return self.fullname(name)
        if key == ".config":
            return " ".join(f"{k}:{v}" for k, v in config.items() if v and k not in self.config_excluded)
        if key.startswith("/"):
            _, params, procs = split_name(name)
            sub = key[1:]
            if sub == "gomaxprocs" and sub not in params:
                return str(procs) if procs is not None else ""  # as benchproc: no suffix, no value
            return params.get(sub, "")
        return config.get(key, "")

    def fullname(self, name):
        full = name[len("Benchmark"):]
        if not self.name_excluded:
            return full
        parts = full.split("/")
        head, dash, tail = parts[-1].rpartition("-")
        suffix = ""
        if dash and tail.isascii() and tail.isdigit() and head and len(parts) > 0:
            parts[-1], suffix = head, f"-{tail}"
            if "gomaxprocs" in self.name_excluded:
                suffix = ""
        kept = [parts[0]] + [p for p in parts[1:] if p.partition("=")[0] not in self.name_excluded]
        return "/".join(kept) + suffix


def label(fields, values):
    """A column or row label: one value as it is, several joined."""
    if len(values) == 1:
        return values[0]
    return " ".join(v for v in values if v)


def row_label(fields, values):
    """Rows stay benchmark-like names (`BenchmarkMemcpy/size=1024`) so the
    explain rules, which match names, keep working on projected rows."""
    parts = []
    for f, v in zip(fields, values):
        if f.key in (".name", ".fullname"):
            parts.append("Benchmark" + v)
        elif f.key.startswith("/"):
            parts.append(f"{f.key[1:]}={v}")
        else:
            parts.append(f"{f.key}={v}" if f.key != ".config" else v)
    return "/".join(p for p in parts if p)


def keep(fields, values):
    """False when a fixed order `key@(…)` excludes one of the values."""
    return all(f.order != "fixed" or v in f.fixed for f, v in zip(fields, values))


def sort_key(fields, first_seen):
    """A sort key for tuples of values under the fields' orders."""
    def key(values):
        out = []
        for i, (f, v) in enumerate(zip(fields, values)):
            if f.order == "fixed":
                out.append((f.fixed.index(v) if v in f.fixed else len(f.fixed), 0, ""))
            elif f.order == "alpha":
                out.append((0, 0, v))
            elif f.order == "num":
                n = number(v)
                out.append((0 if n is not None else 1, n if n is not None else 0, v))
            else:
                out.append((first_seen[i].setdefault(v, len(first_seen[i])), 0, ""))
        return tuple(out)
    return key


def number(text):
    """benchproc's @num: a number with an optional metric or IEC prefix ("2k", "1Mi")."""
    m = re.fullmatch(r"([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?", text.strip())
    if m is None:
        return None
    return float(m.group(1)) * NUM_SUFFIX.get(m.group(2) or "", 1)
