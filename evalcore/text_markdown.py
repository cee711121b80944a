"""A long user text (a prompt, an answer, a judge's reasoning) rendered as Markdown that can never
link, load or run: parsed by a CommonMark parser (markdown-it-py), then written back as Markdown
in which only the formatting the parser found is live and every character of the text is escaped.

Why parse and re-emit instead of escaping the text in place: the browser renders what the app
sends with its own CommonMark parser (Streamlit's, with tables, strikethrough, bare-URL
autolinks, maths, ``:color[…]`` directives and ``:emoji:`` shortcodes), and any escaper that
guesses where code spans, fences or line endings are will disagree with it somewhere (an earlier
escaper split lines at ``\\n`` only, while CommonMark also ends a line at a lone ``\\r``, so a
"code span" holding ``\\r\\r`` was left as is and rendered live). Here the parser decides what is
formatting; the link, image, autolink, raw-HTML, entity and reference-definition rules are
switched off, so such syntax is only ever text; and text is written with every ASCII punctuation
character backslash-escaped (nothing in it can start syntax in any CommonMark parser) and an
invisible WORD JOINER after ``:`` and ``@`` and inside ``www.`` (what GitHub-flavoured autolinks
and shortcodes look for after escapes are resolved). Code (inline spans, fenced and indented
blocks) is written verbatim between fences longer than any run inside it: nothing in code is live.

Every line ending a browser's renderer knows (``\\r\\n``, ``\\r``, ``\\n``, and the separators
U+2028, U+2029, U+0085, vertical tab and form feed) becomes one ``\\n`` before anything else, so
the parser here and the browser's see the same lines.

Cost: markdown-it-py is linear on every input tried (1 MB of adversarial backticks, brackets,
emphasis and ``\\r`` included) but pure Python, about 2-15 µs per character, so a page renders a
preview of each long text (:data:`PREVIEW_CHARS`) and shows the rest only on request, as plain
text. Being pure Python also keeps the server answering while it works: the interpreter switches
threads every few milliseconds, which a single long regular-expression match never does.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the parser is imported on first use: a fifth of a second at every start-up
    from markdown_it import MarkdownIt
    from markdown_it.tree import SyntaxTreeNode

__all__ = ["PREVIEW_CHARS", "WORD_JOINER", "normalise_lines", "render_document", "render_preview"]

#: Invisible, zero-width and not a line break: splits a token without changing what is read.
WORD_JOINER = "\u2060"

#: How much of a long text the Verdicts page renders as Markdown before "show all".
PREVIEW_CHARS = 10_000

#: Every line separator a browser, CommonMark or Unicode knows, as one "\n" (after "\r\n").
_LINE_ENDS = str.maketrans(dict.fromkeys("\r\x0b\x0c\x85\u2028\u2029", "\n") | {"\x00": "\ufffd"})


def normalise_lines(text: str) -> str:
    """``text`` with every line ending (``\\r\\n``, ``\\r``, U+2028, U+2029, U+0085, vertical tab,
    form feed) written ``\\n`` and NUL as U+FFFD, as CommonMark reads it.

    Examples
    --------
    >>> normalise_lines("a\\r\\nb\\rc\\u2028d")
    'a\\nb\\nc\\nd'
    """
    return text.replace("\r\n", "\n").translate(_LINE_ENDS)


# The parser: CommonMark with GitHub's tables and strikethrough (what the browser renders too),
# with every rule that could make a link, an image, HTML or an entity switched off, so that such
# syntax comes out of the parse as text (to be escaped below). Headings, lists, quotes, emphasis
# and code stay.
@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return (
        MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
        .enable(["table", "strikethrough"])
        .disable(["link", "image", "autolink", "html_inline", "html_block", "entity", "reference"])
    )


#: Text as literal characters: every ASCII punctuation character backslash-escaped (CommonMark
#: lets any of them be escaped, and an escaped one never starts syntax); a backtick as an entity
#: (an escaped backtick next to a code span's own backticks reads differently in some parsers);
#: ``:`` and ``@`` followed by a WORD JOINER, so that no ``https://``, ``mailto:``, e-mail
#: address, ``:shortcode:`` or ``:color[…]`` directive is found in the text the browser sees.
_TEXT = str.maketrans(
    {c: "\\" + c for c in "!\"#$%&'()*+,-./;<=>?[\\]^_{|}~"}
    | {"`": "&#96;", ":": "\\:" + WORD_JOINER, "@": "\\@" + WORD_JOINER}
)
#: "www." starts an autolink: a WORD JOINER goes between "www" and the dot. Linear by
#: construction: a literal of three letters with one-character lookarounds, no repetition.
_WWW = re.compile(r"(?i)(?<![0-9a-z])(www)(?=\.)")
#: A fence's info word kept for highlighting (a language name); anything else is dropped.
_LANGUAGE = re.compile(r"[A-Za-z0-9_+#.\-]{1,32}")
#: Runs of backticks (linear: one character class, no nesting).
_TICKS = re.compile(r"`+")


def _escape(text: str) -> str:
    return _WWW.sub(r"\1" + WORD_JOINER, text).translate(_TEXT)


def _longest_ticks(text: str) -> int:
    return max((len(run) for run in _TICKS.findall(text)), default=0)


def _code_span(content: str) -> str:
    """Inline code, verbatim: fenced by more backticks than any run inside, padded by a space
    (which CommonMark strips) so that a backtick at either end is content."""
    if not content.strip(" "):
        return _escape(content)  # a span of spaces only: nothing to show as code
    ticks = "`" * (_longest_ticks(content) + 1)
    return f"{ticks} {content} {ticks}"


def _inline(node: SyntaxTreeNode, *, in_table: bool = False) -> str:
    out: list[str] = []
    for child in node.children:
        kind = child.type
        if kind in ("text", "text_special"):
            out.append(_escape(child.content))
        elif kind == "softbreak":
            out.append(" " if in_table else "\n")
        elif kind == "hardbreak":
            out.append(" " if in_table else "\\\n")
        elif kind == "code_inline":
            # in a table a "|" splits the cell even inside code, which would leave its
            # backticks unmatched and its content live: such a span is shown as text
            out.append(
                _escape(child.content) if in_table and "|" in child.content else _code_span(child.content)
            )
        elif kind in ("em", "strong", "s"):
            mark = {"em": "*", "strong": "**", "s": "~~"}[kind]
            if child.markup in ("_", "__"):  # keep the writer's marker: its rules differ
                mark = child.markup
            out.append(mark + _inline(child, in_table=in_table) + mark)
        else:  # nothing else is enabled; whatever it is, it is shown as text
            out.append(_escape(child.content) if not child.children else _inline(child, in_table=in_table))
    return "".join(out)


def _indent(lines: list[str], first: str, rest: str) -> list[str]:
    if not lines:
        return [first.rstrip()]
    return [first + lines[0]] + [rest + line if line else "" for line in lines[1:]]


def _fence(node: SyntaxTreeNode) -> list[str]:
    content = node.content if node.content.endswith("\n") or not node.content else node.content + "\n"
    ticks = "`" * max(3, _longest_ticks(content) + 1)
    info = node.info.strip().split(" ")[0] if node.type == "fence" else ""
    language = info if _LANGUAGE.fullmatch(info) else ""
    return [ticks + language, *content.split("\n")[:-1], ticks]


def _table(node: SyntaxTreeNode) -> list[str]:
    rows: list[list[str]] = []
    aligns: list[str] = []
    for section in node.children:  # thead, tbody
        for row in section.children:
            cells = []
            for cell in row.children:
                cells.append(_inline(cell.children[0], in_table=True) if cell.children else "")
                if section.type == "thead":
                    style = str(cell.attrs.get("style", ""))
                    aligns.append(
                        ":---:"
                        if "center" in style
                        else ":---"
                        if "left" in style
                        else "---:"
                        if "right" in style
                        else "---"
                    )
            rows.append(cells)
    if not rows:
        return []
    width = len(rows[0])
    lines = ["| " + " | ".join(rows[0]) + " |", "| " + " | ".join(aligns[:width] or ["---"] * width) + " |"]
    for cells in rows[1:]:
        cells = (cells + [""] * width)[:width]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _list(node: SyntaxTreeNode) -> list[str]:
    tight = all(p.hidden for item in node.children for p in item.children if p.type == "paragraph")
    start = int(node.attrs.get("start", 1) or 1) if node.type == "ordered_list" else 0
    out: list[str] = []
    for k, item in enumerate(node.children):
        marker = f"{min(start + k, 999_999_999)}. " if node.type == "ordered_list" else "- "
        body = _blocks(item.children, tight=tight)
        if out and not tight:
            out.append("")
        out.extend(_indent(body, marker, " " * len(marker)))
    return out


def _block(node: SyntaxTreeNode) -> list[str]:
    kind = node.type
    if kind == "paragraph":
        return _inline(node.children[0]).split("\n") if node.children else []
    if kind == "heading":  # an answer's "# Title" would outweigh the page's own headings
        text = _inline(node.children[0]) if node.children else ""
        return [f"**{line}**" for line in text.split("\n") if line.strip()]
    if kind in ("fence", "code_block"):
        return _fence(node)
    if kind == "hr":
        return ["***"]
    if kind == "blockquote":
        return [("> " + line) if line else ">" for line in _blocks(node.children)]
    if kind in ("bullet_list", "ordered_list"):
        return _list(node)
    if kind == "table":
        return _table(node)
    # nothing else is enabled; whatever it is, its text is shown escaped
    return [_escape(line) for line in node.content.split("\n")] if node.content else _blocks(node.children)


def _blocks(nodes: list[SyntaxTreeNode], *, tight: bool = False) -> list[str]:
    out: list[str] = []
    for node in nodes:
        lines = _block(node)
        if not lines:
            continue
        if out and not tight:
            out.append("")
        out.extend(lines)
    return out


def render_document(text: str) -> str:
    """``text`` as Markdown whose formatting renders but that holds no live link, image, HTML,
    autolink, maths, directive or shortcode (see the module's notes).

    Parameters
    ----------
    text : str
        User text, any length (the cost is linear; see :data:`PREVIEW_CHARS`).

    Returns
    -------
    str
        Markdown for ``st.markdown`` (lines end in ``\\n``; HTML not allowed).

    Examples
    --------
    >>> render_document("**bold** [x](https://e.example)")
    '**bold** \\\\[x\\\\]\\\\(https\\\\:\\u2060\\\\/\\\\/e\\\\.example\\\\)'
    >>> render_document("# Plan\\r- a `b[0]`")
    '**Plan**\\n\\n- a ` b[0] `'
    """
    from markdown_it.tree import SyntaxTreeNode

    tree = SyntaxTreeNode(_parser().parse(normalise_lines(text)))
    return "\n".join(_blocks(tree.children))


def render_preview(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    """The first ``limit`` characters of ``text`` (line endings normalised first) rendered by
    :func:`render_document`, and whether the text is longer.

    Examples
    --------
    >>> render_preview("*a* b c", 4)
    ('*a*', True)
    """
    # "\r\n" becomes one character, so 2 * limit characters hold at least ``limit`` once read
    head = normalise_lines(text[: 2 * limit + 2])
    return _render_cached(head[:limit]), len(head) > limit


@lru_cache(maxsize=512)
def _render_cached(text: str) -> str:
    """:func:`render_document`, cached: a page renders the same texts again on every
    interaction. Keyed by the preview (at most :data:`PREVIEW_CHARS` characters), never by a
    whole text, so the cache stays within a few tens of megabytes."""
    return render_document(text)
