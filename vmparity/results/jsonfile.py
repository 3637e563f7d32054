"""The lab's own JSON records (rounds.json and the staging records, verify plans, verdicts,
verifications.json): the one reader and the one writer.

Reading never trusts the file: a regular file of bounded size (bounded.py), a bounded
nesting depth (ten thousand `[` would end the parser, or the first reader that walks the
value, in a RecursionError), and, where the owner gives one, the shape its JSON Schema
describes. Whatever is wrong is an InputError naming the file, the field and what was
expected, never a traceback.

Writing goes through a temporary file in the record's directory renamed into place: a
symlink or FIFO left where the record goes is replaced, never written through (the
record stays inside its run), and a write that fails leaves the old record whole.
"""

import contextlib
import json
import os
import tempfile
from pathlib import Path

import jsonschema

from ..errors import InputError
from . import bounded

# The records the lab writes nest six levels deep (rounds.json: hosts, a host, a round,
# timings, a target, a time); this leaves room for fields to come and none for a bomb.
MAX_DEPTH = 32
# Python holds each parsed value in 50-100 bytes, so a record of `{},{},…` costs twenty times
# its size (885 MB for 16 MiB). The records the lab writes hold one value per 35 bytes or so
# (4,305 in the largest verify plan, 2,253 in the largest rounds.json); a record may hold at
# most MAX_VALUES, counted before parsing as the `{`, `[` and `,` in its text (an over-count:
# those in strings count too).
MAX_VALUES = 200_000
MAX_SHOWN = 80  # characters of a wrong value quoted in a message


def read(path, expected, schema=None, limit=bounded.MAX_RECORD_BYTES, run=None):
    """The parsed JSON of path; InputError naming it when it cannot be read, parsed, nests
    deeper than MAX_DEPTH or (with a JSON Schema) has another shape, or (with run, the run
    directory it belongs to) is a symbolic link out of the run (bounded.inside).
    expected: the message, with {error} where the reason goes."""
    text = bounded.read_text(path, limit, "a JSON record", run)
    values = text.count(",") + text.count("{") + text.count("[")
    if values > MAX_VALUES:
        raise InputError(path, expected.format(error=f"about {values} values, expected at most {MAX_VALUES}"))
    try:
        data = json.loads(text)
    except ValueError as e:  # JSONDecodeError
        raise InputError(path, expected.format(error=e)) from None
    except RecursionError:
        raise InputError(path, expected.format(error=f"nested deeper than {MAX_DEPTH} levels")) from None
    if _depth_over(data, MAX_DEPTH):
        raise InputError(path, expected.format(error=f"nested deeper than {MAX_DEPTH} levels"))
    if schema is not None:
        check_shape(path, data, schema)
    return data


def _depth_over(data, limit):
    """Whether data nests deeper than limit (without recursion, so a deep value cannot end it)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
    return False


def check_shape(path, data, schema):
    """InputError naming path, the field and what the schema expected there, at the first
    place (in document order) where data does not fit it."""
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(data),
                    key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        return
    error = jsonschema.exceptions.best_match(errors)
    field = "/".join(str(p) for p in error.absolute_path)
    described = error.schema.get("description") if isinstance(error.schema, dict) else None
    got = repr(error.instance)
    got = got if len(got) <= MAX_SHOWN else got[:MAX_SHOWN] + "…"
    if error.validator == "required":
        missing = next(k for k in error.validator_value if k not in error.instance)
        raise InputError(path, f"{f'field {field}: ' if field else ''}missing field {missing!r}: expected every one "
                               f"of {', '.join(error.validator_value)}")
    what = described or _rule(error)
    raise InputError(path, f"{f'field {field}: ' if field else ''}expected {what}, got {got}")


def _rule(error):
    kind, value = error.validator, error.validator_value
    words = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
             "number": "a number", "boolean": "true or false", "null": "null"}
    if kind == "type":
        return " or ".join(words.get(t, t) for t in ([value] if isinstance(value, str) else value))
    if kind == "enum":
        return "one of " + ", ".join(repr(v) for v in value)
    if kind == "const":
        return repr(value)
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        sign = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[kind]
        return f"a number {sign} {value}"
    if kind in ("maxItems", "maxProperties", "maxLength"):
        return f"at most {value} {'characters' if kind == 'maxLength' else 'entries'}"
    if kind == "pattern":
        return f"a string matching {value}"
    return f"{kind} {value!r}"


def write(path, data, indent=1, ensure_ascii=True, run=None):
    """Store data as the JSON record path: a temporary file beside it, renamed into place.
    InputError naming path when it cannot be written."""
    write_text(path, json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + "\n", run)


def write_text(path, text, run=None):
    """Store text as the file path through a temporary file beside it, renamed into place (the
    rename replaces a symlink there instead of following it). InputError when it cannot, or
    (with run, the run directory it belongs to) when a directory on the way is a symbolic
    link out of the run: the rename would put the file there."""
    path = Path(path)
    if run is not None:
        bounded.inside(path.parent, run, f"the directory of {path.name}")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            os.fchmod(f.fileno(), 0o644)  # as a plain write leaves it, not mkstemp's 0600
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise InputError(path, f"cannot write it: {e.strerror or e}") from None
