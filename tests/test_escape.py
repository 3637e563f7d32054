"""vmparity.render.escape: each value shows as itself in Markdown (CommonMark/GFM) and on a terminal."""

import pytest
from markdown_it import MarkdownIt

from vmparity.render.escape import md_code, md_text, terminal

MD = MarkdownIt("commonmark", {"html": False}).enable("table")


def inline_text(md):
    tokens = MD.parseInline(md)[0].children
    return "".join(t.content for t in tokens if t.type in ("text", "code_inline", "softbreak"))


VALUES = ["plain", "a|b", "`", "``x``", "x`y", "*b*", "_u_", "x86_non_temporal", "[l](javascript:x)", "<img src=x>",
          "&lt;", "\\", "a\\|b", "~~s~~", "$x$", " lead", "trail "]


@pytest.mark.parametrize("value", VALUES)
def test_md_text_and_code_show_the_value(value):
    assert inline_text(md_text(value)) == value
    assert inline_text(md_code(value)) == value


@pytest.mark.parametrize("value", VALUES)
def test_a_table_cell_keeps_one_cell(value):
    for cell in (md_code(value, in_table=True), md_text(value)):
        html = MD.render(f"| h | n |\n|---|---|\n| {cell} | 1 |\n")
        assert html.count("<td>") == 2, (value, cell, html)
        assert "<td>1</td>" in html


def test_underscores_inside_words_stay_readable():
    assert md_text("x86_non_temporal_threshold") == "x86_non_temporal_threshold"
    assert md_text("_x_") == "\\_x\\_"


def test_control_characters_become_visible_escapes():
    assert terminal("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert terminal("t\x07\x9b\u202e") == "t\\x07\\x9b\\u202e"
    assert terminal("ok ✅") == "ok ✅"
    assert "\x1b" not in md_text("\x1b") and "\x1b" not in md_code("\x1b")
