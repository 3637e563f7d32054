"""Stage 6, render (golang/perf's texttab): every output format, one module each.

escape.py is the one escape every writer uses (terminal, Markdown, HTML, plot
labels): a value from a file never reaches an output unescaped. Imports the
stages before it; never table internals.
"""


def __getattr__(name):
    # FORMATS imports every renderer (the stats and decide stages behind them): only the commands that print a
    # table pay for it, not every command that imports render.escape or render.fold
    if name == "FORMATS":
        from . import csvfmt, jsonfmt, markdown, text

        formats = {"text": text.render, "markdown": markdown.render, "csv": csvfmt.render, "json": jsonfmt.render}
        globals()["FORMATS"] = formats
        return formats
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
