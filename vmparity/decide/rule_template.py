"""A rules file's template (a rule's cause and fix, an intervention's name and env): checked when
the rules are loaded, so a bad rules file fails at once, but compiled only when first rendered.
Compiling costs three times parsing (the package's 32 cause and fix templates: 93 ms against
30), and a run's explanations render a few of the forty-odd rules that every `explain`, report
and PR comment loads."""

import jinja2
from jinja2 import nodes


class Template:
    def __init__(self, env, source):
        tree = env.parse(source)  # jinja2.TemplateSyntaxError here, while the rules are loaded
        # and what compiling would refuse beyond the syntax: a filter or test the sandbox lacks
        for node in tree.find_all((nodes.Filter, nodes.Test)):
            kind, known = ("filter", env.filters) if isinstance(node, nodes.Filter) else ("test", env.tests)
            if node.name not in known:
                raise jinja2.TemplateAssertionError(f"No {kind} named {node.name!r}.", node.lineno)
        self._env, self._source, self._compiled = env, source, None

    def render(self, ctx):
        if self._compiled is None:
            self._compiled = self._env.from_string(self._source)
        return self._compiled.render(ctx)
