"""Each role's inputs are written three times for three readers: defaults/main.yml
(Ansible), meta/argument_specs.yml (ansible-core checks them at role start) and the
README's variable table (people). They must name the same variables, with the
same defaults."""

from pathlib import Path

import pytest
import yaml

from vmparity.lab.role_variables import replace_table, table

ROLES = Path(__file__).resolve().parents[1] / "ansible" / "roles"
ROLE_NAMES = sorted(p.name for p in ROLES.iterdir() if (p / "defaults" / "main.yml").is_file())


def load(role):
    defaults = yaml.safe_load((ROLES / role / "defaults" / "main.yml").read_text()) or {}
    spec = yaml.safe_load((ROLES / role / "meta" / "argument_specs.yml").read_text())
    return defaults, spec["argument_specs"]["main"]["options"]


def test_every_role_has_argument_specs():
    assert ROLE_NAMES == ["bench", "containers", "guests", "host_prep", "vmparity"]
    for role in ROLE_NAMES:
        assert (ROLES / role / "meta" / "argument_specs.yml").is_file(), role


@pytest.mark.parametrize("role", ROLE_NAMES)
def test_specs_name_every_default_and_agree_with_it(role):
    defaults, options = load(role)
    assert set(options) == set(defaults)
    for name, opt in options.items():
        templated = isinstance(defaults[name], str) and "{{" in defaults[name]
        if templated:
            assert "default" not in opt, f"{name}: a templated default stays in defaults/main.yml only"
        elif "default" in opt:
            assert opt["default"] == defaults[name], name
        assert opt.get("description"), f"{name} has no description"


@pytest.mark.parametrize("role", ROLE_NAMES)
def test_readme_table_is_the_one_written_from_the_specs(role):
    """Regenerate with `python -m vmparity.lab.role_variables ansible/roles/* --write`."""
    readme = (ROLES / role / "README.md").read_text()
    generated = table(ROLES / role)
    assert generated in readme
    assert replace_table(readme, generated) == readme
    for name in load(role)[1]:
        assert f"| `{name}` |" in generated


def test_a_stale_table_is_replaced_not_appended():
    readme = "# r\n\n## Variables\n\n| variable | default | meaning |\n|---|---|---|\n| `old` | `1` | gone |\n\n## Example\n"
    new = "| variable | default | meaning |\n|---|---|---|\n| `new` | `2` | here |\n"
    out = replace_table(readme, new)
    assert "`old`" not in out and out.count("| variable |") == 1 and out.endswith("\n## Example\n")
