"""Stage 6, render (golang/perf's texttab): every output format, one module each.

escape.py is the one escape every writer uses (terminal, Markdown, HTML, plot
labels): a value from a file never reaches an output unescaped. Imports the
stages before it; never table internals.
"""

import importlib
from collections.abc import Mapping


class _Renderers(Mapping):
    """{format: render function}, each renderer imported when its format is asked for: `compare` of two
    files prints one format, and the start-up of a short command is mostly imports (the csv and markdown
    writers and the figures behind them are not paid for by a text table)."""

    _modules = {"text": "text", "markdown": "markdown", "csv": "csvfmt", "json": "jsonfmt"}

    def __getitem__(self, name):
        return importlib.import_module(f".{self._modules[name]}", __name__).render

    def __iter__(self):
        return iter(self._modules)

    def __len__(self):
        return len(self._modules)


FORMATS = _Renderers()
