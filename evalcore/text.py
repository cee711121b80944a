"""User text shown as text, and numbers shown one way, on every face (pages, charts, report, CLI).

Model, judge, category, dataset and file names are user text: a name such as
``[top](https://evil.example/top)`` must show as those characters, never as a link, an image or
formatting. Each face has its own markup, so each has one escaping function here:

* :func:`markdown` for Streamlit's Markdown (``st.markdown``, captions, alerts, headers, metric
  values and deltas, radio options, progress texts): backslash escapes for Markdown's syntax
  characters, and an invisible WORD JOINER (U+2060) that breaks the autolinks that backslashes do
  not stop (Streamlit's GitHub-flavoured Markdown links bare ``https://…``, ``www.…`` and
  e-mail addresses after escapes are resolved) and the ``:emoji:`` / ``:material/…:`` shortcodes.
  Verified in Chromium against Streamlit 1.67: no ``<a>`` or ``<img>`` comes out, and the text
  reads as typed. :func:`code_span` shows a name verbatim as inline code (never linked).
* :func:`markdown_document` for a long text whose Markdown should be *rendered* (a prompt, an
  answer, a judge's reasoning): emphasis, lists, tables, block quotes and code stay formatting,
  while links, images, autolinks, HTML, maths and Streamlit's directives are shown as typed, so
  nothing in the text can link elsewhere, load anything or run. Headings become bold lines.
* :func:`html` for the HTML report (``html.escape`` with quotes).
* :func:`plotly` for a value that becomes a Plotly label (category ticks, trace names, hover
  values): Plotly renders a subset of HTML (``<a href>``, ``<b>``, ``<br>``, ``<span style>``) and
  decodes entities, so ``&``, ``<`` and ``>`` are escaped. :func:`plotly_sanitize` is the
  idempotent last line of defence that :func:`evalcore.plots.common.style` runs over every text
  of a figure: it keeps entities and the bare tags figures use on purpose (``<br>``, ``<b>``,
  ``<i>``, ``<sup>``, ``<sub>``, ``<extra>``) and escapes every other tag, so no link, style or
  image can come from data even where a figure's code forgot :func:`plotly`.

Numbers: :func:`fmt_int`, :func:`fmt_count` (a count and its noun, singular for one), :func:`fmt_num`, :func:`fmt_pct`, :func:`fmt_signed`,
:func:`fmt_rating`, :func:`fmt_p` and :func:`fmt_bytes` are the one way each kind of number is
written; a missing or non-finite value is written ``—``.
"""

from __future__ import annotations

import html as _html
import math
import re
from typing import Any

from evalcore.text_markdown import WORD_JOINER, normalise_lines, render_document

__all__ = [
    "MISSING",
    "code_span",
    "fmt_bytes",
    "fmt_count",
    "fmt_int",
    "fmt_list",
    "fmt_num",
    "fmt_p",
    "fmt_pct",
    "fmt_rating",
    "fmt_signed",
    "html",
    "markdown",
    "markdown_document",
    "plain",
    "plotly",
    "plotly_sanitize",
]

#: How a missing, NaN or infinite number is written.
MISSING = "—"

# Markdown characters that can start emphasis, code, links, images, HTML, tables, strikethrough,
# maths, entities or Streamlit's coloured text anywhere in a line; headings, block quotes, list
# bullets and setext underlines only at the start of one. Other punctuation (., -, :, =, >, ')
# stays unescaped mid-line, so messages read the same in the source ("A=>B", "UTF-8").
# Every pattern here is linear by construction: one character (class) with fixed-width
# lookarounds, or a line start followed by spaces and tabs only (``[ \t]*`` cannot run past the
# end of its line, so each character is scanned from at most one line start; ``\s*`` could, and
# on a text of many blank lines the time grew with the square of the text's length).
_MD_SYNTAX = str.maketrans({c: "\\" + c for c in "\\`*_[]<|~$&"})  # (a table: 10x a regex)
_MD_DASHES = re.compile(r"-(?=-)")  # "--" is not typography, and "---" is not a rule
_MD_BULLET = re.compile(r"(?m)^([ \t]*)([-+#>=])")
_MD_ORDERED = re.compile(r"(?m)^([ \t]*\d+)([.)])")
_MD_SHORTCODE = re.compile(r":(?=[\w/+\-])")  # :smile:, :material/x:, https://, mailto:
_MD_WWW = re.compile(r"(?i)(?<!\w)(www)(?=\.)")


def markdown(text: Any) -> str:
    """``text`` for Streamlit Markdown: shown as typed, never as formatting, a link or an image.

    Parameters
    ----------
    text : Any
        User text (``str(text)`` is used).

    Returns
    -------
    str
        Markdown source that renders as ``text`` (plus invisible word joiners inside URLs,
        e-mail addresses and ``:shortcodes:``).

    Examples
    --------
    >>> markdown("[top](https://evil.example/top)")
    '\\\\[top\\\\](https:\\u2060//evil.example/top)'
    >>> markdown("error: rows 1, 2")
    'error: rows 1, 2'
    """
    # every line ending the browser knows as "\n", the one the line-start patterns see
    out = normalise_lines(str(text)).translate(_MD_SYNTAX)
    out = _MD_DASHES.sub(r"\\-", out)
    out = _MD_BULLET.sub(r"\1\\\2", out)
    out = _MD_ORDERED.sub(r"\1\\\2", out)
    out = _MD_SHORTCODE.sub(":" + WORD_JOINER, out)
    out = _MD_WWW.sub(r"\1" + WORD_JOINER, out)
    return out.replace("@", "@" + WORD_JOINER)


def markdown_document(text: Any) -> str:
    """A long user text (a prompt, an answer, a judge's reasoning) as Markdown that renders its
    formatting but nothing that links, loads or runs.

    The text is parsed by a CommonMark parser (markdown-it-py) and written back
    (:func:`evalcore.text_markdown.render_document`): emphasis, lists, tables, block quotes and
    code (fenced blocks and inline spans, kept verbatim) render as Markdown; links, images,
    reference definitions, autolinks (``<…>``, bare ``https://…``, ``www.…``, e-mail
    addresses), raw HTML, entities, ``$…$`` maths and Streamlit's ``:color[…]`` /
    ``:material/…:`` directives are shown as typed. Headings become bold lines (an answer's
    ``# Title`` would otherwise outweigh the page's own headings). Every line ending a browser
    knows (``\\r\\n``, ``\\r``, ``\\n``, U+2028, U+2029, …) is read as one. The cost is linear in
    the length, a few microseconds per character; a page shows a preview of a long text
    (:func:`evalcore.text_markdown.render_preview`).

    Parameters
    ----------
    text : Any
        User text (``str(text)`` is used).

    Returns
    -------
    str
        Markdown source for ``st.markdown`` (HTML not allowed).

    Examples
    --------
    >>> markdown_document("See [docs](https://evil.example) and **this**")
    'See \\\\[docs\\\\]\\\\(https\\\\:\\u2060\\\\/\\\\/evil\\\\.example\\\\) and **this**'
    >>> markdown_document("# Plan\\r- <b>step</b> `a[0] <b>`")
    '**Plan**\\n\\n- \\\\<b\\\\>step\\\\<\\\\/b\\\\> ` a[0] <b> `'
    """
    return render_document(str(text))


def code_span(text: Any) -> str:
    """User text shown verbatim in Markdown as inline code (no formatting, links or typography).

    Examples
    --------
    >>> code_span("a`b")
    '`` a`b ``'
    """
    # on one line: a line ending (any the browser knows, "\r" too) inside could end the span's
    # paragraph, leaving its backticks unmatched and its content live
    text = normalise_lines(str(text)).replace("\n", " ")
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    return f"{ticks} {text} {ticks}"


def plain(text: Any) -> str:
    """Text with the word joiners of :func:`markdown` removed (what a reader sees)."""
    return str(text).replace(WORD_JOINER, "")


def html(text: Any) -> str:
    """``text`` for HTML (the report): ``&``, ``<``, ``>`` and both quotes escaped.

    Examples
    --------
    >>> html('<img src="x">')
    '&lt;img src=&quot;x&quot;&gt;'
    """
    return _html.escape(str(text), quote=True)


def plotly(text: Any) -> str:
    """``text`` as a Plotly label (tick, trace name, hover value): ``&``, ``<``, ``>`` escaped.

    Examples
    --------
    >>> plotly('<a href="https://evil.example">x</a>')
    '&lt;a href="https://evil.example"&gt;x&lt;/a&gt;'
    """
    return _html.escape(str(text), quote=False)


#: The tags figures write on purpose; Plotly renders them, and they carry no URL or style.
_PLOTLY_TAGS = r"</?(?:br|b|i|em|sup|sub|extra)\s*/?>"
_PLOTLY_TOKEN = re.compile(
    rf"({_PLOTLY_TAGS})|(&(?:#\d+|#x[0-9a-fA-F]+|[A-Za-z]\w*);)|([&<>])", re.IGNORECASE
)
_PLOTLY_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def plotly_sanitize(text: str) -> str:
    """Escape every tag of a Plotly text except the bare formatting tags; keep entities.

    Idempotent, so it can run over labels :func:`plotly` already escaped. A link
    (``<a href=…>``), a style (``<span style=…>``) or any tag with attributes is shown as text.

    Examples
    --------
    >>> plotly_sanitize('<b>%{y}</b><br><a href="https://evil.example">x</a> &amp; &')
    '<b>%{y}</b><br>&lt;a href="https://evil.example"&gt;x&lt;/a&gt; &amp; &amp;'
    """

    def replace(match: re.Match) -> str:
        if match.group(1) or match.group(2):
            return match.group(0)
        return _PLOTLY_ESCAPES[match.group(3)]

    return _PLOTLY_TOKEN.sub(replace, text)


# -- numbers ---------------------------------------------------------------------------------


def finite_number(value: Any) -> float | None:
    """``value`` as a float, or None when it is not a finite number (None, NaN, text)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def fmt_int(value: Any) -> str:
    """A count with a thousands separator: ``fmt_int(4683)`` → ``'4,683'``; ``—`` if missing."""
    number = finite_number(value)
    return MISSING if number is None else f"{round(number):,}"


def fmt_count(value: Any, noun: str, plural: str | None = None) -> str:
    """A count and its noun, singular for one: ``fmt_count(1, "instruction")`` →
    ``'1 instruction'``, ``fmt_count(2000, "model")`` → ``'2,000 models'``; ``plural`` for a noun
    that does not take an ``s`` (``fmt_count(3, "category", "categories")``). A missing count is
    ``—`` with the plural.

    Examples
    --------
    >>> fmt_count(1, "instruction"), fmt_count(0, "judge"), fmt_count(1234, "call")
    ('1 instruction', '0 judges', '1,234 calls')
    >>> fmt_count(1, "category", "categories"), fmt_count(2, "category", "categories")
    ('1 category', '2 categories')
    """
    number = finite_number(value)
    many = plural if plural is not None else noun + "s"
    return f"{fmt_int(value)} {noun if number is not None and round(number) == 1 else many}"


def fmt_list(items: Any, limit: int = 5) -> str:
    """The first ``limit`` texts joined by commas, then how many more there are, so that a
    message naming what it found stays short on a table of thousands.

    Examples
    --------
    >>> fmt_list(["a", "b"]), fmt_list(["a", "b", "c", "d"], 2), fmt_list([])
    ('a, b', 'a, b and 2 more', '')
    """
    items = list(items)
    more = len(items) - limit
    return ", ".join(str(i) for i in items[:limit]) + (f" and {more:,} more" if more > 0 else "")


def fmt_num(value: Any, digits: int = 2) -> str:
    """A number with ``digits`` decimals and a thousands separator: ``fmt_num(1234.5, 1)`` →
    ``'1,234.5'``; ``—`` if missing."""
    number = finite_number(value)
    return MISSING if number is None else f"{number:,.{digits}f}"


def fmt_signed(value: Any, digits: int = 1) -> str:
    """A difference with its sign: ``fmt_signed(2.345)`` → ``'+2.3'``; ``—`` if missing."""
    number = finite_number(value)
    return MISSING if number is None else f"{number:+,.{digits}f}"


def fmt_pct(value: Any, digits: int = 0) -> str:
    """A share as a percentage: ``fmt_pct(0.2925, 1)`` → ``'29.3%'``; ``—`` if missing."""
    number = finite_number(value)
    return MISSING if number is None else f"{100 * number:.{digits}f}%"


def fmt_rating(value: Any) -> str:
    """A rating on the Elo scale: a whole number with a thousands separator."""
    return fmt_num(value, 0)


def fmt_p(value: Any) -> str:
    """A p-value as people read it: ``p < 0.0001``, ``p = 0.0004``, ``p = 0.031``."""
    number = finite_number(value)
    if number is None:
        return f"p = {MISSING}"
    if number < 0.0001:
        return "p < 0.0001"
    return f"p = {number:.4f}" if number < 0.001 else f"p = {number:.3f}"


def fmt_compact(value: Any) -> str:
    """A round axis number as people read it: ``1``, ``20``, ``500``, ``1k``, ``2.5k``, ``10M``.

    Examples
    --------
    >>> [fmt_compact(v) for v in (1, 20, 500, 1000, 2500, 10_000, 2_000_000)]
    ['1', '20', '500', '1k', '2.5k', '10k', '2M']
    """
    number = finite_number(value)
    if number is None:
        return MISSING
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(number) >= size:
            return f"{number / size:.3g}{suffix}"
    return f"{number:.3g}"


def fmt_bytes(value: Any) -> str:
    """A size in bytes as people read it: ``fmt_bytes(3.5e9)`` → ``'3.3 GiB'``."""
    number = finite_number(value)
    if number is None:
        return MISSING
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if abs(number) < 1024 or unit == "TiB":
            return f"{number:,.0f} {unit}" if unit == "bytes" else f"{number:,.1f} {unit}"
        number /= 1024
    return MISSING  # pragma: no cover - the loop always returns


#: Unix times (seconds) read as dates: 1973-03-03 to 2286-11-20, so a small number (a row count,
#: a version) is never mistaken for one; milliseconds are the same range times 1,000.
_UNIX_SECONDS = (1e8, 1e10)


def timestamp_text(value: str | None) -> str | None:
    """``judged_at`` as people read it: a Unix timestamp (seconds, or milliseconds; MT-Bench's
    ``tstamp`` is one) becomes its UTC date and time; any other text is kept as written.

    Examples
    --------
    >>> timestamp_text("1687221890.5")
    '2023-06-20 00:44:50 UTC'
    >>> timestamp_text("1687221890500")
    '2023-06-20 00:44:50 UTC'
    >>> timestamp_text("2024-05-01T10:00:00Z"), timestamp_text("42"), timestamp_text(None)
    ('2024-05-01T10:00:00Z', '42', None)
    """
    if value is None:
        return None
    try:
        number = float(str(value).strip())
    except ValueError:
        return value
    if not math.isfinite(number):
        return value
    low, high = _UNIX_SECONDS
    if low * 1000 <= abs(number) < high * 1000:
        number /= 1000.0
    if not low <= number < high:
        return value
    from datetime import UTC, datetime

    return datetime.fromtimestamp(number, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
