"""The Verdicts page's lines: Markdown for ``st.markdown`` with every user text (names, prompts,
answers, the judge's reasoning) already escaped by :mod:`evalcore.text`.

The plain-text words every face shares (:func:`~evalcore.present.verdict_words.verdict_words` …
:func:`~evalcore.present.verdict_words.case_lines`) are in :mod:`evalcore.present.verdict_words`;
a face imports them from there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evalcore.errors import UsageError
from evalcore.present.verdict_words import case_flags, level_words
from evalcore.text import code_span, fmt_int, markdown
from evalcore.text_markdown import PREVIEW_CHARS, normalise_lines, render_preview
from evalcore.verdicts.cases import VerdictCall, VerdictCase, VerdictFilter, VerdictPage

#: The URL parameters of a filter (``VerdictFilter.as_params``), in the order the page shows them.
PARAMS: tuple[str, ...] = (
    "judge",
    "a",
    "b",
    "instruction",
    "category",
    "verdict",
    "flipped",
    "human",
    "q",
    "beats",
    "win",
    "unit",
)

#: What the page says while a search reads the text (seconds per gigabyte without other filters).
SEARCHING = (
    "Searching the text… On a large table, a search narrowed by judge, model or category "
    "reads only those rows' text and answers faster."
)

#: The contract's optional text columns, as the page names them when a table lacks them.
TEXT_COLUMNS: tuple[str, ...] = ("prompt", "response_a", "response_b", "judge_output")

INTRO = (
    "The cases behind every number: for each instruction and pair of models, the prompt, both "
    "answers, the judge's reasoning for each order it saw, its verdicts in words and the human "
    "label. Filter, search and page through them; the link in the address bar keeps the filters, "
    "so a case list can be shared."
)

HELP: dict[str, str] = {
    "verdict": "Cases with at least one judge call of this verdict; the slot is where the model sat "
    "in that call (first = slot A).",
    "search": "Words in the prompt, either answer or the judge's reasoning. Letters match "
    "whatever their case, as Unicode's case folding has it: “strasse” finds “Straße” and “i” "
    "also finds “İ”, but “İ” finds only “İ”.",
    "flipped": "Pairs judged in both orders whose verdicts do not agree once the order is undone: "
    "the judge's position bias at work.",
    "human": "Cases with a human label that the judge's verdict contradicts.",
}

#: The verdict filter's choices: value (None: any) → what the page calls it.
VERDICT_CHOICES: dict[str | None, str] = {
    None: "Any verdict",
    "first": "First slot preferred",
    "second": "Second slot preferred",
    "tie": "Tie",
    "none": "No verdict returned",
}

#: The Verdicts page's verdict picker (``st.selectbox`` options; the page adds index and key).
VERDICT_WIDGET: dict = {
    "label": "Verdict",
    "options": tuple(VERDICT_CHOICES),
    "format_func": VERDICT_CHOICES.get,
    "help": HELP["verdict"],
}


def beats_label(model: str) -> str:
    """The Verdicts page's switch for a link's ``beats`` filter (Markdown, the name escaped)."""
    return f"Only instructions where {markdown(model)} beats every model it met"


def win_disagrees_label(model: str, unit: str | None) -> str:
    """The Verdicts page's switch for a link's ``win`` filter (Markdown, the name escaped)."""
    units = "both-orders verdicts" if unit == "both" else "calls"
    return (
        f"Only the labelled {units} where the judge and the human disagree on whether {markdown(model)} won"
    )


def _for_model(verdict: int | None, first: str, second: str) -> str:
    """Who the level favours, by name (Markdown): "`A` much better", "a tie", "no verdict"."""
    return level_words(verdict, markdown(first), markdown(second), tie="a tie")


def call_line(call: VerdictCall, number: int) -> str:
    """One judge call: which model sat in which slot, the verdict in words and by name."""
    who = (
        "the call returned none"
        if call.verdict is None
        else _for_model(call.verdict, call.model_a, call.model_b)
    )
    return (
        f"**Order {number}:** {markdown(call.model_a)} first, {markdown(call.model_b)} second → "
        f"**{level_words(call.verdict)}** ({who})"
    )


def human_line(case: VerdictCase) -> str:
    """The human label of the case, by name (it is given from ``case.models[0]``'s side)."""
    if case.human is None:
        return "**Human label:** none for this case."
    words = _for_model(case.human, *case.models)
    agree = {True: " The judge agrees.", False: " **The judge disagrees.**", None: ""}
    return f"**Human label:** {words}.{agree[case.agrees_with_human]}"


def case_title(case: VerdictCase) -> str:
    """``A`` vs ``B`` — instruction, category and judge of the case."""
    parts = [f"instruction {code_span(case.instruction)}"]
    if case.category:
        parts.append(f"category {code_span(case.category)}")
    parts.append(f"judge {code_span(case.judge)}")
    return f"{code_span(case.models[0])} vs {code_span(case.models[1])} · " + " · ".join(parts)


def flag_badges(case: VerdictCase) -> str:
    """:func:`case_flags`, and a call without a verdict, as Streamlit badges ("" when none), to
    follow the case's title (the flags are the app's own words)."""
    flags = case_flags(case) + (
        ["a call returned no verdict"] if any(c.verdict is None for c in case.calls) else []
    )
    return "".join(f" :{'green' if 'agrees' in flag else 'orange'}-badge[{flag}]" for flag in flags)


def reasoning_label(call: VerdictCall, number: int) -> str:
    """The heading over the judge's reasoning for one call."""
    return f"**Judge's reasoning, order {number}** ({markdown(call.model_a)} first)"


#: What stands in for a call's reasoning when the file has none for it.
NO_REASONING = "The file has no reasoning for this call."
#: Cases on one page of the Verdicts page. Each case draws its prompt, both answers and the
#: judge's reasoning of each order (about twenty elements); the browser's drawing of twenty
#: cases, not the server's reading, was most of the page's time (1.5 s of a first visit on the
#: demo against 0.3 s of the server's), so a page holds ten.
CASES_PER_PAGE = 10

#: A text longer than this many characters or lines gets a scrolling box of ``BOX_HEIGHT`` px.
LONG_CHARS, LONG_LINES, BOX_HEIGHT = 700, 14, 340


def box_height(*texts: str | None) -> int | str:
    """The height of the boxes for ``texts`` shown side by side: their natural height
    (``"content"``) when all are short, else a fixed height that scrolls, the same for each so
    answers of different lengths line up.

    Examples
    --------
    >>> box_height("short", None), box_height("x" * 5000)
    ('content', 340)
    """
    for value in texts:
        if value and (len(value) > LONG_CHARS or value.count("\n") > LONG_LINES):
            return BOX_HEIGHT
    return "content"


def answer_heading(case: VerdictCase, model: str) -> str:
    """The heading over one model's answer: its name, and the slot it had in each call."""
    slots = ["first" if call.model_a == model else "second" for call in case.calls]
    where = " and ".join(dict.fromkeys(slots)) if slots else ""
    return f"**{markdown(model)}**" + (f" · {where} slot" if where else "")


def document(value: str | None, *, missing: str = "Not in the file.", limit: int = PREVIEW_CHARS) -> str:
    """A prompt, an answer or a judge's reasoning as safe rendered Markdown; ``missing`` in
    italics when the file has none for this case.

    A text longer than ``limit`` characters is rendered up to there, with a line saying how much
    is shown (:func:`show_all_label` names the control that shows the rest): rendering is
    linear but costs microseconds per character on the server and more in the browser, where a
    1 MB text froze the tab for half a minute or more.

    Examples
    --------
    >>> document("**a** b", limit=5)
    '**a**\\n\\n*The first 5 of 7 characters are shown.*'
    """
    if value is None or not str(value).strip():
        return f"*{missing}*"
    shown, cut = render_preview(str(value), limit)
    if not cut:
        return shown
    total = len(normalise_lines(str(value)))
    return f"{shown}\n\n*The first {fmt_int(limit)} of {fmt_int(total)} characters are shown.*"


def show_all_label(value: str | None, *, limit: int = PREVIEW_CHARS) -> str | None:
    """The label of the control that shows all of a long text (None when it is shown whole).

    Examples
    --------
    >>> show_all_label("x" * 12, limit=10), show_all_label("short", limit=10)
    ('Show all (12 characters, as plain text)', None)
    """
    if value is None:
        return None
    total = len(normalise_lines(str(value)))
    return f"Show all ({fmt_int(total)} characters, as plain text)" if total > limit else None


def full_text(value: str | None) -> str:
    """The whole text for plain display (``st.text``: nothing in it is formatting), with every
    line ending written ``\\n``."""
    return normalise_lines(str(value or ""))


def no_text_sentence(page: VerdictPage) -> str | None:
    """The one sentence a table without text needs (None when it carries text)."""
    if page.has_text:
        return None
    columns = ", ".join(f"`{c}`" for c in TEXT_COLUMNS)
    return (
        "This file carries no prompts, answers or judge's reasoning, so only the verdicts are "
        f"shown; the optional columns {columns} would add them (they are listed under the upload box on the **Data** page)."
    )


def empty_sentence(flt: VerdictFilter) -> str:
    """What to do when a filter matches nothing."""
    if flt == VerdictFilter():
        return "This selection has no verdicts."
    return "No case matches these filters: widen them (set a filter back to “Any”)."


@dataclass(frozen=True)
class LinkFilter:
    """A filter read from a link, and the warnings about the parts of it that were dropped."""

    filter: VerdictFilter
    warnings: tuple[str, ...]


#: What each named filter holds: its link parameters and what the dataset lists for it.
_NAMED = {
    "judge": "judge",
    "a": "model",
    "b": "model",
    "category": "category",
    "beats": "model",
    "win": "model",
}


def filter_from_link(
    params: Mapping[str, str],
    *,
    judges: Sequence[str],
    models: Sequence[str],
    categories: Sequence[str],
) -> LinkFilter:
    """The filter a link names, keeping every part that this dataset can answer.

    A malformed value (``verdict=maybe``) and a name the dataset does not have
    (``judge=gpt-5`` on a table without it) are dropped with a warning each, in words (Markdown,
    user text escaped): the page then shows a wider selection and says why.

    Parameters
    ----------
    params : Mapping[str, str]
        The link's query parameters (other parameters are ignored).
    judges, models, categories : Sequence[str]
        What the loaded table holds.

    Returns
    -------
    LinkFilter

    Examples
    --------
    >>> got = filter_from_link({"judge": "j", "verdict": "maybe"}, judges=["j"], models=[], categories=[])
    >>> got.filter.judge, len(got.warnings)
    ('j', 1)
    """
    lists = {"judge": tuple(judges), "model": tuple(models), "category": tuple(categories)}
    known = {name: lists[kind] for name, kind in _NAMED.items()}
    kept: dict[str, str] = {}
    warnings: list[str] = []
    for name in PARAMS:
        value = params.get(name)
        if value is None or value == "":
            continue
        value = str(value)
        try:
            VerdictFilter.from_params({name: value})
        except UsageError as exc:
            warnings.append(f"The link's {code_span(name + '=' + value)} was ignored: {markdown(exc)}")
            continue
        if name in known and value not in known[name]:
            warnings.append(
                f"The {_NAMED[name]} {code_span(value)} (named by the link) is not in this dataset; "
                f"the filter on it was dropped."
            )
            continue
        kept[name] = value
    return LinkFilter(filter=VerdictFilter.from_params(kept), warnings=tuple(warnings))


def cell_verdicts(
    points: Sequence[Mapping], models: Sequence[str], judge: str | None = None, category: str | None = None
) -> VerdictFilter | None:
    """The filter of the win-rate cell a click selected (None when no cell is selected).

    The win-rate figure's cell layer carries ``[row, column, …]`` indices into ``models`` as each
    point's ``customdata`` (:func:`evalcore.plots.leaderboard.win_rate_heatmap`); the indices, not
    the drawn labels, name the pair, so an escaped or shortened label never matters. The filter
    keeps the page's judge and category.

    Examples
    --------
    >>> cell_verdicts([{"customdata": [1, 0, 0.5, 12]}], ["x", "y"], "j").as_params()
    {'judge': 'j', 'a': 'y', 'b': 'x'}
    >>> cell_verdicts([], ["x", "y"]) is None
    True
    """
    for point in points:
        data = point.get("customdata")
        if not isinstance(data, Sequence) or isinstance(data, str) or len(data) < 2:
            continue
        try:
            row, col = int(data[0]), int(data[1])
        except (TypeError, ValueError):
            continue
        if 0 <= row < len(models) and 0 <= col < len(models) and row != col:
            return VerdictFilter(judge=judge, category=category, model_a=models[row], model_b=models[col])
    return None
