"""`--filter EXPR`: benchstat's filter expressions (golang.org/x/perf/benchproc/syntax).

    expr    = andExpr {"OR" andExpr}
    andExpr = match {"AND"? match}
    match   = "(" expr ")" | "-" match | "*" | key ":" value | key ":" "(" value {"OR" value} ")"
    value   = word | "/" regexp "/"

Keys are those of projection.py plus `.unit`, which selects measurements:
a filter is evaluated per benchmark and unit, and a unit is kept when it
matches (`.unit:ns/op` also matches the tidied `sec/op`, as benchstat's does).
"""

import re

from ..errors import InputError
from .projection import Extractor, tokens

OPTION = "--filter"


def tidy_unit(unit):
    """benchunit.Tidy's renaming: ns -> sec, MB -> B (values are not rescaled here)."""
    if unit == "ns/op":
        return "sec/op"
    if unit == "MB/s":
        return "B/s"
    return unit


class Filter:
    def __init__(self, text):
        self.text = text
        self._toks = _regex_aware_tokens(text)
        self._i = 0
        self.tree = self._expr() if self._toks else ("all",)
        if self._i != len(self._toks):
            raise InputError(OPTION, f"unexpected {self._toks[self._i][1]!r} at offset {self._toks[self._i][2]} of {text!r}")
        self.extract = Extractor(set())

    # Recursive descent over the tokens.
    def _peek(self):
        return self._toks[self._i] if self._i < len(self._toks) else (None, None, len(self.text))

    def _take(self, kind):
        tok = self._peek()
        if tok[0] != kind:
            raise InputError(OPTION, f"expected {kind!r} at offset {tok[2]} of {self.text!r}")
        self._i += 1
        return tok

    def _expr(self):
        alts = [self._and()]
        while self._peek()[:2] == ("word", "OR"):
            self._i += 1
            alts.append(self._and())
        return alts[0] if len(alts) == 1 else ("or", alts)

    def _and(self):
        parts = [self._match()]
        while True:
            kind, val, _ = self._peek()
            if kind is None or kind == ")" or (kind, val) == ("word", "OR"):
                break
            if (kind, val) == ("word", "AND"):
                self._i += 1
            parts.append(self._match())
        return parts[0] if len(parts) == 1 else ("and", parts)

    def _match(self):
        kind, val, pos = self._peek()
        if kind == "(":
            self._i += 1
            inner = self._expr()
            self._take(")")
            return inner
        if kind == "-":
            self._i += 1
            return ("not", self._match())
        if kind == "*":
            self._i += 1
            return ("all",)
        if kind != "word":
            raise InputError(OPTION, f"expected a `key:value` term at offset {pos} of {self.text!r}")
        self._i += 1
        self._take(":")
        if self._peek()[0] == "(":
            self._i += 1
            values = [self._value()]
            while self._peek()[:2] == ("word", "OR"):
                self._i += 1
                values.append(self._value())
            self._take(")")
        else:
            values = [self._value()]
        return ("term", val, values)

    def _value(self):
        kind, val, pos = self._peek()
        if kind == "regex":
            self._i += 1
            try:
                return re.compile(val)
            except re.error as e:
                raise InputError(OPTION, f"regular expression /{val}/ at offset {pos}: {e}") from None
        if kind != "word":
            raise InputError(OPTION, f"expected a value at offset {pos} of {self.text!r}")
        self._i += 1
        return val

    def keys(self):
        out, stack = set(), [self.tree]
        while stack:
            node = stack.pop()
            if node[0] == "term":
                out.add(node[1])
            elif node[0] in ("and", "or"):
                stack += node[1]
            elif node[0] == "not":
                stack.append(node[1])
        return out

    def match(self, label, config, name, unit):
        return self._eval(self.tree, label, config, name, unit)

    def _eval(self, node, label, config, name, unit):
        op = node[0]
        if op == "all":
            return True
        if op == "not":
            return not self._eval(node[1], label, config, name, unit)
        if op == "and":
            return all(self._eval(n, label, config, name, unit) for n in node[1])
        if op == "or":
            return any(self._eval(n, label, config, name, unit) for n in node[1])
        key, values = node[1], node[2]
        have = [unit, tidy_unit(unit)] if key == ".unit" else [self.extract.value(key, label, config, name)]
        return any(v.search(h) is not None if isinstance(v, re.Pattern) else v == h for v in values for h in have)


def _regex_aware_tokens(text):
    """projection.tokens, plus `/regexp/` values right after `:` or `(`/`OR` in a value list."""
    out, pos = [], 0
    while pos < len(text):
        if text[pos].isspace():
            pos += 1
            continue
        prev = out[-1][0] if out else None
        in_values = prev == ":" or (prev == "(" and len(out) > 1 and out[-2][0] == ":") or (
            prev == "word" and out[-1][1] == "OR" and _inside_value_list(out))
        if text[pos] == "/" and in_values:
            end = pos + 1
            while end < len(text) and text[end] != "/":
                end += 2 if text[end] == "\\" else 1
            if end >= len(text):
                raise InputError(OPTION, f"unterminated /regexp/ at offset {pos} of {text!r}")
            out.append(("regex", text[pos + 1:end], pos))
            pos = end + 1
            continue
        nxt = _next_token_end(text, pos)
        for kind, val, off in tokens(text[pos:nxt], OPTION):
            out.append((kind, val, pos + off))
        pos = nxt
    return out


def _next_token_end(text, pos):
    """One token's extent: a quoted string, a punctuation mark or a bare word."""
    if text[pos] == '"':
        end = pos + 1
        while end < len(text) and text[end] != '"':
            end += 2 if text[end] == "\\" else 1
        return min(end + 1, len(text))
    if text[pos] in "-*(),@:":
        return pos + 1
    end = pos
    while end < len(text) and not text[end].isspace() and text[end] not in "(),@:":
        end += 1
    return end


def _inside_value_list(out):
    depth = 0
    for i in range(len(out) - 1, -1, -1):
        kind = out[i][0]
        if kind == ")":
            depth += 1
        elif kind == "(":
            if depth == 0:
                return i > 0 and out[i - 1][0] == ":"
            depth -= 1
    return False
