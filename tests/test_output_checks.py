"""The hostile corpus's checks catch what they exist for (so its passing means something)."""

import output_checks as oc
from vmparity.report import html


def test_live_tags_and_attributes_are_found():
    assert oc.html_problems('<p>ok <img src=x onerror="alert(1)"></p>')
    assert oc.html_problems('<p><script>alert(1)</script></p>')
    assert oc.html_problems('<a href="javascript:alert(1)">x</a>')
    assert oc.html_problems('<details><summary>x</summary>')  # unbalanced fold
    assert not oc.html_problems('<p><code>&lt;img src=x&gt;</code></p><details><summary>s</summary></details>')


def test_raw_html_markdown_would_have_made_is_found():
    md = "| kind |\n|---|\n| <img src=x onerror=alert(1)> |\n"
    page = html.render(md, "t", {})
    assert not oc.html_problems(page)  # raw HTML off: shown as text
    assert "<img src=x onerror=alert(1)>" in oc.html_text(page)
    assert oc.markdown_raw_html_problems(md)  # but GitHub would render it


def test_a_pipe_that_shifts_columns_is_found():
    assert oc.markdown_table_problems("| a | b |\n|---|---|\n| `x|y` | 1 |\n")
    assert oc.markdown_table_problems("| a | b |\n|---|---|\n| x\\\\|y | 1 |\n")  # an escaped backslash, then a pipe
    assert not oc.markdown_table_problems("| a | b |\n|---|---|\n| `x\\|y` | 1 |\n")


def test_control_characters_are_found():
    assert oc.terminal_problems("red \x1b[31m")
    assert oc.terminal_problems("title \x1b]0;x\x07")
    assert oc.terminal_problems("bidi \u202e")
    assert not oc.terminal_problems("plain ✅ text\n")


def test_folds_render_with_their_summary_escaped():
    from vmparity.render import fold

    md = fold.open_(" vs metal", bold="<b>x</b>") + "body\n" + fold.close()
    page = html.render(md, "t", {})
    assert "<details><summary><b>&lt;b&gt;x&lt;/b&gt;</b> vs metal</summary>" in page
    assert not oc.html_problems(page) and not oc.markdown_raw_html_problems(md)
    stray = html.render("text\n\n</details>\n", "t", {})  # a closing line with nothing open stays text
    assert "&lt;/details&gt;" in stray and not oc.html_problems(stray)
