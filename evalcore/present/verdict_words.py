"""Words for cases in plain text: verdicts in plain language, short excerpts, a page's headline.

Shared by the Verdicts page, ``python -m evalcore verdicts`` and reports, so that every face says
the same thing. Everything here is plain text: callers pass it through :mod:`evalcore.text`
(Markdown, HTML) before showing it. The Verdicts page's own Markdown lines are in
:mod:`evalcore.present.verdicts`.
"""

from __future__ import annotations

import re

from evalcore.errors import UsageError
from evalcore.text import MISSING, fmt_int
from evalcore.verdicts.cases import VerdictCall, VerdictCase, VerdictFilter, VerdictPage

__all__ = [
    "case_flags",
    "case_lines",
    "excerpt",
    "filter_words",
    "human_words",
    "level_words",
    "page_count",
    "page_headline",
    "range_line",
    "verdict_words",
]

#: How each verdict level reads, with the two sides named (slot A's side): the one wording of the
#: verdict scale, rendered by each face with its own names (models, "first slot", escaped Markdown).
_LEVEL_WORDS = {
    2: "{a} much better",
    1: "{a} better",
    0: "tie",
    -1: "{b} better",
    -2: "{b} much better",
}


def level_words(
    verdict: int | None, a: str = "first slot", b: str = "second slot", *, tie: str = "tie"
) -> str:
    """A verdict level (slot A's view, −2..2) in words, the sides named ``a`` and ``b``; "no
    verdict" for None. A face passes its own names (escaped for its markup).

    Examples
    --------
    >>> level_words(-2), level_words(1, "x", "y"), level_words(0, tie="a tie"), level_words(None)
    ('second slot much better', 'x better', 'a tie', 'no verdict')
    """
    if verdict is None:
        return "no verdict"
    if verdict not in _LEVEL_WORDS:
        raise UsageError(f"verdict must be a level from -2 to 2 or None; got {verdict!r}.")
    return tie if verdict == 0 else _LEVEL_WORDS[verdict].format(a=a, b=b)


def verdict_words(call: VerdictCall) -> str:
    """A call's verdict with the models named, e.g. ``"model-x better"``; "no verdict" if none.

    Examples
    --------
    >>> verdict_words(VerdictCall(row=1, model_a="x", model_b="y", verdict=-2))
    'y much better'
    """
    return level_words(call.verdict, call.model_a, call.model_b)


def human_words(case: VerdictCase) -> str:
    """The human label of a case in words (read from ``models[0]``'s side), or "no human label"."""
    if case.human is None:
        return "no human label"
    a, b = case.models
    return "human: " + level_words(case.human, a, b)


#: Control characters (C0, DEL, C1) that would drive a terminal (colours, cursor moves) if printed.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def excerpt(text: str | None, *, width: int = 160) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis; a dash when missing.
    Control characters become ``�`` so that a judge's output cannot drive the terminal.

    Examples
    --------
    >>> excerpt("line one\\n  line two", width=12)
    'line one li…'
    >>> excerpt(None)
    '—'
    >>> excerpt("red \\x1b[31m")
    'red �[31m'
    """
    if text is None or text == "":
        return MISSING
    flat = _CONTROL.sub("\ufffd", " ".join(text.split()))
    return flat if len(flat) <= width else flat[: max(width - 1, 1)] + "…"


def case_flags(case: VerdictCase) -> list[str]:
    """Short notes on a case: the two orders disagree, the judge disagrees with the human."""
    flags = []
    if case.flipped:
        flags.append("the two orders disagree")
    if case.agrees_with_human is False:
        flags.append("judge and human disagree")
    elif case.agrees_with_human is True:
        flags.append("judge agrees with the human")
    return flags


def filter_words(flt: VerdictFilter) -> str:
    """The filter in words, e.g. ``"judge gpt-4, model-x vs model-y, the two orders disagree"``."""
    parts = []
    if flt.judge:
        parts.append(f"judge {flt.judge}")
    if flt.model_a and flt.model_b:
        parts.append(f"{flt.model_a} vs {flt.model_b}")
    elif flt.model_a or flt.model_b:
        parts.append(f"involving {flt.model_a or flt.model_b}")
    if flt.instruction:
        parts.append(f"instruction {flt.instruction}")
    if flt.category:
        parts.append(f"category {flt.category}")
    if flt.verdict:
        parts.append(
            {
                "first": "some call preferred the first slot",
                "second": "some call preferred the second slot",
                "tie": "some call was a tie",
                "none": "some call returned no verdict",
            }[flt.verdict]
        )
    if flt.flipped:
        parts.append("the two orders disagree")
    if flt.disagrees_with_human:
        parts.append("judge and human disagree")
    if flt.search:
        parts.append(f"text contains {flt.search!r}")
    if flt.beats_all:
        parts.append(f"instructions where {flt.beats_all} beats every model it met")
    return ", ".join(parts) if parts else "all cases"


def page_count(total: int, limit: int) -> int:
    """Pages of ``limit`` cases needed for ``total`` (at least one).

    Examples
    --------
    >>> page_count(1234, 20), page_count(0, 20), page_count(40, 20)
    (62, 1, 2)
    """
    if limit < 1:
        raise UsageError(f"limit must be at least 1; got {limit!r}.")
    return max(1, -(-int(total) // int(limit)))


def range_line(page: VerdictPage) -> str:
    """Where this page is: ``'Cases 21–40 of 1,234'``; a sentence when nothing matches."""
    if page.total == 0:
        return "No case matches these filters."
    first = page.offset + 1
    last = page.offset + len(page.cases)
    if not page.cases:
        return f"No case on this page: {fmt_int(page.total)} cases match, the last is on page {page_count(page.total, page.limit)}."
    noun = "Case" if first == last else "Cases"
    span = fmt_int(first) if first == last else f"{fmt_int(first)}–{fmt_int(last)}"
    return f"{noun} {span} of {fmt_int(page.total)}"


def page_headline(page: VerdictPage) -> str:
    """:func:`range_line` with the filter in words, e.g. ``"Cases 1–20 of 1,234 (judge gpt-4, …)."``:
    the command line's headline (the page shows the filter in its widgets)."""
    return f"{range_line(page).rstrip('.')} ({filter_words(page.filter)})."


def case_lines(case: VerdictCase, *, width: int = 160) -> list[str]:
    """A case as a few plain lines (the command line's listing): header, prompt, answers, calls."""
    a, b = case.models
    head = f"{case.judge} · instruction {case.instruction} · {a} vs {b}"
    if case.category:
        head += f" · {case.category}"
    lines = [head]
    flags = case_flags(case)
    lines.append("  " + human_words(case) + (" · " + "; ".join(flags) if flags else ""))
    lines.append("  prompt: " + excerpt(case.prompt, width=width))
    for model in case.models:
        lines.append(f"  answer of {model}: " + excerpt(case.answers.get(model), width=width))
    for call in case.calls:
        lines.append(f"  row {call.row}: {call.model_a} first, {call.model_b} second → {verdict_words(call)}")
        if call.judge_output is not None:
            lines.append("    judge: " + excerpt(call.judge_output, width=width))
    return lines


# -- the Verdicts page's lines (Markdown, user text escaped) ----------------------------
