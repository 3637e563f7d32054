"""The variable table of a role's README, written from the role's
meta/argument_specs.yml (the meaning) and defaults/main.yml (the default), so
that the table people read is the contract ansible-core checks.

    python -m vmparity.lab.role_variables ansible/roles/ROLE [--write]

prints the table, or with --write replaces the table under the README's
"## Variables" heading. Exit 2 with file and reason on bad input.
"""

import json
import sys
from pathlib import Path

import yaml

from ..errors import InputError

HEADING = "## Variables (`defaults/main.yml`, `meta/argument_specs.yml`)"


def _load(path):
    try:
        return yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as e:
        raise InputError(path, f"cannot read YAML: {e}") from e


def _shown(value):
    """A default as the reader would type it; long structures are left to defaults/main.yml."""
    text = value if isinstance(value, str) else json.dumps(value)
    if text == "":
        text = '""'
    if len(text) > 48:
        return "see `defaults/main.yml`"
    # GitHub tables split cells at "|" even inside code spans.
    return "`" + text.replace("|", r"\|") + "`"


def table(role_dir):
    role_dir = Path(role_dir)
    defaults = _load(role_dir / "defaults" / "main.yml") or {}
    specs_path = role_dir / "meta" / "argument_specs.yml"
    try:
        options = _load(specs_path)["argument_specs"]["main"]["options"]
    except (KeyError, TypeError) as e:
        raise InputError(specs_path, "expected argument_specs.main.options") from e
    lines = ["| variable | default | meaning |", "|---|---|---|"]
    for name, opt in options.items():
        meaning = str(opt.get("description", "")).strip()
        if opt.get("choices"):
            meaning += " One of " + ", ".join(f"`{c}`" for c in opt["choices"]) + "."
        if opt.get("options"):
            meaning += " Each: " + ", ".join(f"`{k}`" for k in opt["options"]) + "."
        default = _shown(defaults[name]) if name in defaults else "required"
        cell = meaning.replace("|", r"\|")
        lines.append(f"| `{name}` | {default} | {cell} |")
    return "\n".join(lines) + "\n"


def replace_table(readme_text, new_table):
    """The README with the table under the Variables heading replaced (heading added at the end when absent)."""
    lines = readme_text.splitlines(keepends=True)
    start = next((i for i, l in enumerate(lines) if l.startswith("## Variables")), None)
    if start is None:
        return readme_text.rstrip("\n") + f"\n\n{HEADING}\n\n{new_table}"
    i = start + 1
    while i < len(lines) and not lines[i].startswith("|"):
        i += 1
    end = i
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    return "".join(lines[:start]) + f"{HEADING}\n\n{new_table}" + "".join(lines[end:])


def main(argv=None, out=sys.stdout, err=sys.stderr):
    args = sys.argv[1:] if argv is None else argv
    write = "--write" in args
    dirs = [a for a in args if a != "--write"]
    if not dirs:
        err.write("usage: python -m vmparity.lab.role_variables ROLE_DIR... [--write]\n")
        return 2
    try:
        for d in dirs:
            text = table(d)
            if write:
                readme = Path(d) / "README.md"
                readme.write_text(replace_table(readme.read_text(), text))
            else:
                out.write(text)
    except InputError as e:
        err.write(f"role_variables: {e}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
