"""Checks that an output is data, never markup: written independently of the
renderers (their own regular expressions and parsers), so a renderer bug
cannot hide behind the code it would share with its test.

Each check returns a list of problems (empty when the output is clean).
"""

import re
from html.parser import HTMLParser

from markdown_it import MarkdownIt

# The only elements report.html may contain: what markdown-it makes of the
# Markdown syntax vmparity writes, plus the folds and the page around them.
HTML_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p", "table", "thead",
             "tbody", "tr", "th", "td", "code", "details", "summary", "b", "strong", "em", "ul", "li", "a", "img",
             "blockquote", "br", "hr"}  # em: the report's own *Section name* pointers
DATA_PNG = re.compile(r"data:image/png;base64,[A-Za-z0-9+/=]+\Z")
HTML_ATTRS = {
    ("html", "lang"): re.compile(r"en\Z"),
    ("meta", "charset"): re.compile(r"utf-8\Z"),
    ("th", "style"): re.compile(r"text-align:(left|right|center)\Z"),
    ("td", "style"): re.compile(r"text-align:(left|right|center)\Z"),
    ("a", "href"): DATA_PNG,
    ("img", "src"): DATA_PNG,
    ("img", "alt"): re.compile(r"[\w /.,-]*\Z"),  # the plots' own titles
}
MAX_IMAGES = 3  # one per plot: a value must not add one

# What a terminal would act on: C0 (but newline), DEL, C1, and the
# line separators and bidi controls that reorder what is shown.
TERMINAL_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

# The only raw HTML vmparity's Markdown may hold (GitHub renders raw HTML):
# its folds and pr-comment's marker, which the workflow finds its comment by.
TRUSTED_LINES = [re.compile(r"<details><summary>(<b>[^<>]*</b>)?[^<>]*</summary>\Z"), re.compile(r"</details>\Z"),
                 re.compile(r"<!-- vmparity-pr-comment -->\Z")]
DELIMITER_ROW = re.compile(r"\|(\s*:?-+:?\s*\|)+\Z")


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems, self.text, self.images, self.open_details = [], [], 0, 0

    def handle_starttag(self, tag, attrs):
        if tag not in HTML_TAGS:
            self.problems.append(f"live tag <{tag}> {attrs}")
            return
        self.images += tag == "img"
        self.open_details += tag == "details"
        for name, value in attrs:
            rule = HTML_ATTRS.get((tag, name))
            if rule is None or value is None or not rule.match(value):
                self.problems.append(f"attribute {name}={str(value)[:60]!r} on <{tag}>")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag not in HTML_TAGS:
            self.problems.append(f"live end tag </{tag}>")
        self.open_details -= tag == "details"

    def handle_comment(self, data):
        self.problems.append(f"HTML comment {data[:60]!r}")

    def handle_pi(self, data):
        self.problems.append(f"processing instruction {data[:60]!r}")

    def handle_data(self, data):
        self.text.append(data)


def html_problems(page):
    """Every tag and attribute outside the allow-list, extra images, unbalanced folds."""
    p = _Elements()
    p.feed(page)
    p.close()
    problems = list(p.problems)
    if p.images > MAX_IMAGES:
        problems.append(f"{p.images} images, expected at most {MAX_IMAGES}")
    if p.open_details != 0:
        problems.append(f"<details> opened and closed differ by {p.open_details}")
    return problems


def html_text(page):
    """The text a reader sees (entities decoded), whitespace collapsed."""
    p = _Elements()
    p.feed(page)
    p.close()
    return " ".join("".join(p.text).split())


def _gfm_cells(line):
    """Cells of one GFM table row: `\\` escapes the next character, an unescaped
    `|` separates cells (inside code spans too), the outer pipes are dropped."""
    cells, cur, i = [], "", 0
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur += line[i:i + 2]
            i += 2
            continue
        if c == "|":
            cells.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    cells.append(cur)
    return cells[1:-1]


def _ends_with_unescaped_pipe(line):
    backslashes = len(line[:-1]) - len(line[:-1].rstrip("\\"))
    return line.endswith("|") and backslashes % 2 == 0


def markdown_table_problems(text):
    """Every table whose rows do not all have the header's number of cells."""
    problems = []
    table = []
    for lineno, raw in enumerate(text.split("\n") + [""], 1):
        line = raw.strip()
        if line.startswith("|"):
            table.append((lineno, line))
            continue
        if table:
            problems += _check_table(table)
            table = []
    return problems


def _check_table(rows):
    problems = []
    (first, header), rest = rows[0], rows[1:]
    width = len(_gfm_cells(header))
    if not rest or not DELIMITER_ROW.match(rest[0][1]) or len(_gfm_cells(rest[0][1])) != width:
        return [f"line {first}: table header without a matching delimiter row: {header[:100]!r}"]
    for lineno, line in rest[1:]:
        if not _ends_with_unescaped_pipe(line):
            problems.append(f"line {lineno}: row does not end with a cell separator: {line[-60:]!r}")
        n = len(_gfm_cells(line))
        if n != width:
            problems.append(f"line {lineno}: {n} cells, header has {width}: {line[:100]!r}")
    return problems


def markdown_raw_html_problems(text):
    """Raw HTML that GitHub would render, other than vmparity's own fold lines."""
    problems = []
    md = MarkdownIt("commonmark", {"html": True}).enable("table")

    def walk(tokens):
        for t in tokens:
            if t.type == "html_block":
                for line in t.content.strip().split("\n"):
                    if line.strip() and not any(r.match(line.strip()) for r in TRUSTED_LINES):
                        problems.append(f"raw HTML block {line.strip()[:100]!r}")
            elif t.type == "html_inline":
                problems.append(f"raw inline HTML {t.content[:100]!r}")
            if t.children:
                walk(t.children)

    walk(md.parse(text))
    return problems


def markdown_problems(text):
    return markdown_table_problems(text) + markdown_raw_html_problems(text)


def terminal_problems(text):
    return [f"control character {m.group()!r} at offset {m.start()}" for m in TERMINAL_CONTROL.finditer(text)]
