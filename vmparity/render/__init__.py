"""Renderers for a comparison Table: one module per output format."""

from . import csvfmt, jsonfmt, markdown, text

FORMATS = {"table": text.render, "markdown": markdown.render, "csv": csvfmt.render, "json": jsonfmt.render}
