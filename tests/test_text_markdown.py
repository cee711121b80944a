"""User text rendered as Markdown (evalcore.text_markdown, evalcore.text.markdown_document and
the Verdicts page's document()) holds no live link, image, HTML, autolink or maths, reads every
line ending as the browser does, and never hangs (issue 30, items 1 and 2).

What the browser would make of the Markdown is judged by a second, independent parse: markdown-it
with everything a renderer may do switched on (raw HTML, links, images, autolinks, reference
definitions, entities, tables, strikethrough), plus a rule that marks every ``$`` the parser
leaves as text (remark-math, which Streamlit runs, opens maths at such a dollar), and a look at
every text for what GitHub-flavoured autolinks and Streamlit's shortcodes look for after escapes
are resolved.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from evalcore.text import code_span, markdown, markdown_document
from evalcore.text_markdown import normalise_lines, render_document, render_preview
from tests.conftest import ROOT


def _dollar(state, silent: bool) -> bool:
    """A ``$`` that reaches inline parsing unescaped: where remark-math would start maths."""
    if state.src[state.pos] != "$":
        return False
    if not silent:
        state.push("math_dollar", "", 0).content = "$"
    state.pos += 1
    return True


#: The browser's view, as permissive as a CommonMark renderer gets.
_BROWSER = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
_BROWSER.inline.ruler.before("text", "math_dollar", _dollar)

#: Token types that would link, load or run.
_LIVE_TOKENS = {"link_open", "image", "html_inline", "html_block", "math_dollar"}
#: In text, what GitHub's autolink literals ("www.", "https://", "mailto:", "me@host") and
#: Streamlit's ":shortcode:" / ":color[…]" directives need: "www." not preceded by a letter or
#: digit (GitHub's rule, widened), or a ":" or "@" followed by a letter, digit, "/", "+" or "-"
#: (the renderer puts an invisible WORD JOINER there).
_LIVE_TEXT = re.compile(r"(?i)(?<![0-9a-z])www\.|[:@](?=[\w/+\-])")


def _walk(tokens):
    for token in tokens:
        yield token
        if token.children:
            yield from _walk(token.children)


def live_parts(source: str) -> list[str]:
    """What in Markdown ``source`` a browser would render as a link, an image, HTML, maths, an
    autolink or a shortcode (an empty list: nothing)."""
    found = []
    for token in _walk(_BROWSER.parse(source)):
        if token.type in _LIVE_TOKENS:
            found.append(f"{token.type}: {token.content or token.attrs}")
        elif token.type == "text" and _LIVE_TEXT.search(token.content):
            found.append(f"text: {token.content!r}")
    html = _BROWSER.render(source)
    found += re.findall(r"<(?:a|img|iframe|script|math)\b[^>]*>", html)
    return found


#: Pieces of adversarial text: line endings of every kind, code delimiters, links, images,
#: reference definitions, autolinks, data: images, HTML, maths with \href, directives, tables.
FRAGMENTS = [
    "`", "``", "```", "~~~", "\r", "\r\r", "\r\n", "\n", "\n\n", "\u2028", "\u2029", "\x0b",
    "\x0c", "\x85", "\t", "    ", "[", "]", "(", ")", "<", ">", "!", "*", "**", "_", "~~",
    "\\", "|", "$", "$$", ":", "@", "&", "- ", "1. ", "> ", "# ", "===", "---",
    "![x](http://evil.example/i.png)", "[x](http://evil.example/l)", "[x]: http://evil.example/r",
    "![x][x]", "[x][]", "<http://evil.example/auto>", "<img src=http://evil.example/i.png>",
    '<a href="http://evil.example/a">a</a>', "![d](data:image/png;base64,iVBORw0KGgo=)",
    "data:image/png;base64,iVBORw0KGgo=", "$\\href{http://evil.example/m}{x}$",
    "\\href{http://evil.example/m}{x}", "https://evil.example/bare", "www.evil.example",
    "WWW.evil.example", "me@evil.example", "mailto:me@evil.example", ":red[x]", ":smile:",
    ":material/home:", "&lt;b&gt;", "&#91;x&#93;", "| a | b |\n|---|---|\n| c | d |\n",
]  # fmt: skip
ADVERSARIAL = st.lists(
    st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet="ab `[]()<>!*_|$:@\\\r\n", max_size=6)),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ADVERSARIAL)
def test_no_live_link_or_image_from_user_text(text):
    source = markdown_document(text)
    assert not live_parts(source), (text, source)


@pytest.mark.parametrize(
    "text",
    [
        "`a\r\r![x](https://evil.example/i.png) b`",  # the issue's \r\r inside a "code span"
        "`a\r\r[x](https://evil.example/l) b`",
        "`a\u2028\u2028<img src=https://evil.example/i.png> b`",
        "x\r\r[r]: https://evil.example/ref\r\r![r] [r]",
        "$$\\href{https://evil.example}{click}$$ and $x$",
        "| a | `b | [x](https://evil.example/t) | c` |\n|---|---|---|",
        "``` a`b\n[x](https://evil.example/fence)",
        "> quote ![q](data:image/svg+xml;base64,PHN2Zz4=)",
        "- item <https://evil.example/auto>\n  - www.evil.example me@evil.example",
        "~~~~a~~~~ ***b*** `` ` `` \\`[x](https://evil.example/esc)\\`",
    ],
)
def test_known_attacks_render_nothing_live(text):
    source = render_document(text)
    assert not live_parts(source), source
    assert not live_parts(markdown_document(text))


def test_the_checker_sees_what_the_old_cleaner_let_through():
    # the independent parse finds a live image where the text's "\r\r" ends a paragraph
    assert live_parts("`a\r\r![x](https://evil.example/i.png) b`")
    assert live_parts("$x$") and live_parts("www.example.org") and live_parts(":smile:")


def test_formatting_the_writer_meant_still_renders():
    source = render_document(
        "# Plan\n\nSome **bold**, _em_ and ~~gone~~:\n\n1. one\n2. two\n\n"
        "| a | b |\n|---|:-:|\n| 1 | 2 |\n\n```python\nx = a[0] < b  # [x](y)\n```\n> quoted `code`"
    )
    assert source.startswith("**Plan**\n\n")
    assert "**bold**" in source and "_em_" in source and "~~gone~~" in source
    assert "1. one\n2. two" in source and "| a | b |\n| --- | :---: |\n| 1 | 2 |" in source
    assert "```python\nx = a[0] < b  # [x](y)\n```" in source  # code verbatim
    assert "> quoted ` code `" in source


def test_every_line_ending_the_browser_knows_is_one():
    assert not re.search("[\r\x0b\x0c\x85\u2028\u2029]", markdown_document("".join(FRAGMENTS)))
    assert normalise_lines("a\r\nb\rc\nd\u2028e\u2029f\x0bg\x0ch\x85i") == "a\nb\nc\nd\ne\nf\ng\nh\ni"
    assert render_document("a\r\r# b") == render_document("a\n\n# b") == "a\n\n**b**"


def test_code_span_and_markdown_keep_a_carriage_return_from_ending_the_line():
    name = "x\r\r![i](https://evil.example/i.png)\r- y"
    assert not live_parts(code_span(name)), code_span(name)
    assert not live_parts(markdown(name)), markdown(name)


def test_a_long_text_is_previewed():
    shown, cut = render_preview("word " * 5000, 1000)
    assert cut and len(shown) <= 1000
    assert render_preview("short") == ("short", False)


#: 1 MB adversarial texts of each kind the issue names (a stray backtick, backticks and \r,
#: brackets), through the Verdicts page's document() and markdown(), in a fresh process. A
#: quadratic step takes minutes on 1 MB; the limit only says "does not hang" (the figures are
#: printed, and measured in benchmarks/bench_text_render.py).
_HANG_SCRIPT = """
import sys, time
from evalcore.text import code_span, markdown
from evalcore.present import verdicts as show
texts = {
    "stray backtick": "`" + "a" * 1_000_000,
    "backticks and \\\\r": "`a\\r\\r![x](http://evil.example/i.png) `` b " * 25_000,
    "brackets": "[" * 500_000 + "]( " * 150_000,
    "blank lines": "\\n" * 1_000_000 + "- x",
}
for name, text in texts.items():
    for function in (show.document, markdown, code_span):
        start = time.perf_counter()
        function(text)
        print(f"{name}, {function.__name__}: {time.perf_counter() - start:.3f} s", flush=True)
"""


def test_a_megabyte_of_adversarial_text_does_not_hang():
    try:
        done = subprocess.run(
            [sys.executable, "-c", _HANG_SCRIPT],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=20,
        )
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"rendering 1 MB of adversarial text did not finish in 20 s: {exc.stdout!r}")
    print(done.stdout)
    assert done.returncode == 0, done.stderr
    assert done.stdout.count(" s\n") == 12
