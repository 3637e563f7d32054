"""Every value that reaches a terminal, Markdown, HTML or a plot goes through here.

Target names, benchmark names, header values and rule text come from files
we did not write; they must show as what they are and never act as markup or
as terminal commands. One function per output context:

- `terminal(s)`: control characters (ESC, OSC, BEL, C1, bidi overrides) made
  visible as `\\x1b`-style escapes, so a name cannot recolour, retitle or
  rewrite the user's terminal; `terminal_lines(s)` keeps the line breaks of
  a message of several lines (argparse's usage) and escapes the rest.
- `md_text(s)`: Markdown inline text; metacharacters backslash-escaped.
- `md_code(s, in_table=False)`: a code span; the fence is longer than any
  backtick run inside, and `|` is escaped in table cells (GFM splits cells on
  `|` even inside code spans).
- `html_text(s)`: text inside HTML we generate ourselves (`<summary>`).
- `plot_label(s)`: matplotlib text (the plots turn mathtext off, see plots.py).
"""

import re

# C0 and C1 controls, DEL, the line/paragraph separators and the bidi
# controls that reorder what the reader sees ("Trojan Source").
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

# Characters with a meaning in CommonMark or GitHub's Markdown mid-line:
# emphasis, code, links, raw HTML, entities, table cells, strikethrough, math.
# An underscore run between two letters or digits (`x86_non_temporal`) can
# neither open nor close emphasis, so it stays as it is, readable.
_MD_META = re.compile(r"[\\`*\[\]<>&|~$]|_+")

_BACKTICK_RUN = re.compile(r"`+")


def visible(s):
    """The text with every invisible control character written as an escape."""
    return _INVISIBLE.sub(_escape_char, str(s))


def _escape_char(m):
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def terminal(s):
    return visible(s)


def terminal_lines(s):
    """Text of several lines for a terminal (a usage message): the line breaks
    stay line breaks, every other control character is made visible."""
    return "\n".join(visible(line) for line in str(s).split("\n"))


def md_text(s):
    return _MD_META.sub(_md_escape, visible(s))


def _md_escape(m):
    run = m.group()
    if run[0] == "_" and m.start() > 0 and m.end() < len(m.string) \
            and m.string[m.start() - 1].isalnum() and m.string[m.end()].isalnum():
        return run
    return "".join("\\" + c for c in run)


def md_code(s, in_table=False):
    """A code span showing s literally ("" for an empty value)."""
    text = visible(s)
    if not text:
        return ""
    if in_table and "\\|" in text:
        # GFM reads `\|` as an escaped pipe even inside a code span, so such a
        # value cannot be a code span in a cell; escaped plain text shows it.
        return md_text(s)
    if in_table:
        text = text.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    fence = "`" * (longest + 1)
    # A space keeps a leading or trailing backtick from joining the fence;
    # CommonMark strips one space on each side when both are present.
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def html_text(s):
    import html  # its entity tables are a few ms of every command's start-up: only the HTML report needs them

    return html.escape(visible(s), quote=True)


PLOT_LABEL_MAX = 40


def plot_label(s):
    """For matplotlib text drawn with parse_math off (so `$` is literal); long
    names are cut, since a legend entry cannot wrap and the tables show them whole."""
    text = visible(s)
    if len(text) > PLOT_LABEL_MAX:
        text = text[:PLOT_LABEL_MAX - 1] + "…"
    # matplotlib leaves labels starting with "_" out of the legend.
    return " " + text if text.startswith("_") else text
