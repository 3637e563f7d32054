"""report.html: the Markdown report rendered to one self-contained page, plots inlined.

Raw HTML in the Markdown is off: the only elements on the page are those
markdown-it makes from Markdown syntax, plus the folds vmparity.render.fold
writes, so no value from a result file can become a tag.
"""

import base64
import html

from markdown_it import MarkdownIt

from ..render import fold

STYLE = """body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;font-size:13px;margin:.5em 0;display:block;max-width:100%;overflow-x:auto}td,th{border:1px solid #ccc;padding:2px 6px}
th{background:#f3f3f3}code{font-size:12px;overflow-wrap:anywhere}img{max-width:100%}details{margin:.5em 0}summary{cursor:pointer}"""


def render(markdown_text, title, images):
    """images: {file name: PNG bytes}; their links become data: URIs."""
    body = MarkdownIt("commonmark", {"html": False}).enable("table").use(fold.markdown_it_plugin).render(markdown_text)
    for name, png in images.items():
        uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        body = body.replace(f'src="{name}"', f'src="{uri}"').replace(f'href="{name}"', f'href="{uri}"')
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}</body></html>\n")
