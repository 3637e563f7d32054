"""Folded sections (`<details><summary>…</summary> … </details>`), the one piece of
HTML the Markdown we write contains.

GitHub renders these lines as HTML; report.html renders Markdown with raw
HTML off, and this module's markdown-it plugin turns exactly these two line
shapes back into <details>/<summary> elements. The summary is escaped text
(html_text), optionally with a bold lead, so a value can never add a tag or
an attribute: at worst a hostile line shaped like ours adds one more fold.
"""

import html
import re

from .escape import html_text

_OPEN = re.compile(r"<details><summary>(?:<b>([^<>]*)</b>)?([^<>]*)</summary>[ \t]*\Z")
_CLOSE = re.compile(r"</details>[ \t]*\Z")


def open_(summary, bold=None, indent=""):
    """The opening line (blank lines around it keep it out of paragraphs and tables)."""
    lead = f"<b>{html_text(bold)}</b>" if bold is not None else ""
    return f"\n{indent}<details><summary>{lead}{html_text(summary)}</summary>\n\n"


def close(indent=""):
    return f"\n{indent}</details>\n\n"


def markdown_it_plugin(md):
    """Let a MarkdownIt parser (html off) read the fold lines this module writes."""
    md.block.ruler.before("table", "vmparity_fold", _block_rule,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.add_render_rule("vmparity_fold_open", _render_open)
    md.add_render_rule("vmparity_fold_close", _render_close)


def _block_rule(state, start_line, end_line, silent):
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False  # an indented code block
    line = state.src[state.bMarks[start_line] + state.tShift[start_line]:state.eMarks[start_line]]
    opening = _OPEN.match(line)
    closing = None if opening else _CLOSE.match(line)
    depth = state.env.get("vmparity_fold_depth", 0)
    if not (opening or closing) or (closing and depth == 0):
        return False  # a stray closing line stays text: it must not close the page's own elements
    if silent:
        return True
    state.env["vmparity_fold_depth"] = depth + (1 if opening else -1)
    if opening:
        token = state.push("vmparity_fold_open", "details", 1)
        bold, text = opening.groups()
        token.meta = {"bold": None if bold is None else html.unescape(bold), "summary": html.unescape(text)}
    else:
        token = state.push("vmparity_fold_close", "details", -1)
    token.block = True
    token.map = [start_line, start_line + 1]
    state.line = start_line + 1
    return True


def _render_open(self, tokens, idx, options, env):
    meta = tokens[idx].meta
    lead = f"<b>{html.escape(meta['bold'])}</b>" if meta["bold"] is not None else ""
    return f"<details><summary>{lead}{html.escape(meta['summary'])}</summary>\n"


def _render_close(self, tokens, idx, options, env):
    return "</details>\n"
