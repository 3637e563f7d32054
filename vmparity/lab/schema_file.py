"""A YAML data file read against its JSON Schema, with `file:line` errors.

The schema is the file's contract, kept beside it so that editors check the
file too (its `# yaml-language-server: $schema=` line). The line numbers come
from the YAML nodes, so a message points at the key or item that is wrong,
and the message says in words what was expected there.
"""

import json
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import jsonschema
import referencing
import referencing.exceptions
import referencing.jsonschema
import yaml

from ..errors import InputError
from ..results import yamlfile

STRING_TAG = "tag:yaml.org,2002:str"
TYPE_WORDS = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "an integer",
              "number": "a number", "boolean": "true or false", "null": "null"}


class Document:
    """The data of one YAML file and the line of every key and item in it."""

    def __init__(self, path, data, lines):
        self.path, self.data, self._lines = Path(path), data, lines

    def line(self, where):
        """The line of the innermost key or item on the path `where` that the file has."""
        where = tuple(where)
        while where and where not in self._lines:
            where = where[:-1]
        return self._lines.get(where, 1)

    def error(self, where, message):
        return InputError(self.path, message, self.line(where))


def _read_bounded(path):
    return yamlfile.read_text(path, "a data file of the lab")


def _node_lines(node, where, lines, odd_keys):
    """Fill lines with the line of every key (for a mapping entry) and item, and
    odd_keys with the keys YAML reads as something else than a string."""
    lines.setdefault(where, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode) or key.tag != STRING_TAG:
                odd_keys.append((key.start_mark.line + 1, key.value if isinstance(key, yaml.ScalarNode) else key.id))
                continue
            lines[where + (key.value,)] = key.start_mark.line + 1
            _node_lines(value, where + (key.value,), lines, odd_keys)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _node_lines(item, where + (i,), lines, odd_keys)


def read(path):
    """The file as a Document; InputError on an unreadable file, bad YAML, or YAML beyond the
    bounds of a data file (results/yamlfile.py)."""
    path = Path(path)
    text = _read_bounded(path)
    try:
        node, data = yamlfile.compose_and_load(text, path)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        raise InputError(path, f"not valid YAML: {getattr(e, 'problem', None) or e}",
                         mark.line + 1 if mark else None) from None
    lines, odd_keys = {}, []
    if node is not None:
        _node_lines(node, (), lines, odd_keys)
    if odd_keys:
        # JSON, which the schema describes, has only string keys; YAML reads `1:` or `yes:` as others
        line, key = odd_keys[0]
        raise InputError(path, f"key {key!r} is not read as a string: expected a name (quote it)", line)
    return Document(path, data, lines)


def _retrieve(uri):
    """A schema that another refers to by a relative path, read from disk."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        raise referencing.exceptions.NoSuchResource(ref=uri)
    path = Path(url2pathname(parsed.path))
    try:
        contents = json.loads(_read_bounded(path))
    except json.JSONDecodeError as e:
        raise InputError(path, f"not valid JSON: {e.msg}", e.lineno) from None
    return referencing.Resource.from_contents(contents, default_specification=referencing.jsonschema.DRAFT202012)


@lru_cache(maxsize=None)
def _validator(schema_path):
    """A validator for the schema file; its relative `$ref`s resolve against its own place."""
    uri = Path(schema_path).resolve().as_uri()
    resource = _retrieve(uri)
    try:
        jsonschema.Draft202012Validator.check_schema(resource.contents)
    except jsonschema.SchemaError as e:
        raise InputError(schema_path, f"not a valid JSON Schema: {e.message}") from None
    registry = referencing.Registry(retrieve=_retrieve).with_resource(uri, resource)
    return jsonschema.Draft202012Validator({"$ref": uri}, registry=registry)


def _expected(error):
    """The path of the offending key or item and what the schema wanted there, in words."""
    schema, kind, value = error.schema, error.validator, error.validator_value
    where = tuple(error.absolute_path)
    described = schema.get("description") if isinstance(schema, dict) else None
    # a pattern in words, where the schema says it: a regular expression is the last resort
    rule = described if kind == "pattern" and described else _rule(kind, value, schema)
    if "propertyNames" in error.absolute_schema_path:
        # the instance is the key itself: point at it
        return where + (error.instance,), f"not a valid name: expected {rule}"
    if kind == "additionalProperties":
        known = schema.get("properties", {})
        extra = next(k for k in error.instance if k not in known)
        return where + (extra,), f"unknown field: expected one of {', '.join(known)}"
    if kind == "required":
        missing = next(k for k in value if k not in error.instance)
        return where, f"missing field {missing!r}: expected every one of {', '.join(value)}"
    if kind == "minProperties":
        return where, f"expected at least {value} entr{'y' if value == 1 else 'ies'}"
    return where, f"expected {rule}, got {error.instance!r}"


def _rule(kind, value, schema):
    if kind == "type":
        types = [value] if isinstance(value, str) else value
        return " or ".join(TYPE_WORDS.get(t, t) for t in types)
    if kind == "enum":
        return "one of " + ", ".join(str(v) for v in value)
    if kind == "const":
        return repr(value)
    bounds = {"minimum": ">=", "exclusiveMinimum": ">", "maximum": "<=", "exclusiveMaximum": "<"}
    if kind in bounds:
        number = "an integer" if schema.get("type") == "integer" else "a number"
        return f"{number} {bounds[kind]} {value}"
    if kind == "pattern":
        return f"a string matching {value}"
    return f"{kind} {value!r}"


def validate(doc, schema_path, context):
    """Raise InputError at the first problem in file order; `context(path)` names
    the place for the message (e.g. "variant 'nosmt', field 'vcpus'")."""
    problems = []
    for error in _validator(str(schema_path)).iter_errors(doc.data):
        where, message = _expected(error)
        problems.append((doc.line(where), where, message))
    if problems:
        line, where, message = min(problems, key=lambda p: p[0])
        raise InputError(doc.path, f"{context(where)}: {message}", line)
