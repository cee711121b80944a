"""Verdicts: the cases behind every number — prompt, both answers, the judge's reasoning, the
verdicts in words and the human label — filtered, searched and paged, with the filters in the URL.

Text stays in DuckDB: one page of cases is read per run (VerdictStore.verdicts); the words come
from evalcore.present.verdicts, with every user text escaped there.
"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

import ui as _ui
from evalcore.present import verdict_words
from evalcore.present import verdicts as show
from evalcore.verdicts import VerdictFilter
from ui.cases import draw_case, draw_evidence, stop_without_single_calls


def _choice(where, label: str, options, current, key: str, *, any_label: str):
    """A selectbox whose first option (None) means "no filter"."""
    values, words = (None, *options), (lambda v: any_label if v is None else str(v))
    start = values.index(current) if current in values else 0
    return where.selectbox(label, values, index=start, format_func=words, key=key)


def _go(number: int) -> None:
    st.query_params["page"] = str(number)


with _ui.page("Verdicts"):
    st.title("Verdicts")
    store = _ui.require_data()
    stop_without_single_calls(store)  # a counts table holds no single calls to list
    _ui.demo_banner()
    st.caption(show.INTRO)

    link = show.filter_from_link(
        st.query_params.to_dict(),
        judges=store.judges(),
        models=store.models(),
        categories=store.categories(),
    )
    for warning in link.warnings:
        st.warning(warning)  # Markdown built by the presentation, user text escaped there
    old = link.filter
    if "judge" not in st.query_params and "vd_judge" not in st.session_state:  # arriving: the
        # judge chosen on the other pages (one judge's cases also read faster); "All judges" stays
        chosen = st.session_state.get("vl_judge")
        old = replace(old, judge=chosen if chosen in store.judges() else None)

    models = store.models()
    c1, c2, c3, c4 = st.columns(4)
    judge = _choice(c1, "Judge", store.judges(), old.judge, "vd_judge", any_label="All judges")
    model_a = _choice(c2, "Model", models, old.model_a, "vd_a", any_label="Any model")
    model_b = _choice(c3, "Against", models, old.model_b, "vd_b", any_label="Any model")
    category = _choice(
        c4, "Category", store.categories(), old.category, "vd_category", any_label="All categories"
    )
    c5, c6, c7 = st.columns([1, 1, 2])
    instruction = c5.text_input("Instruction id", old.instruction or "", key="vd_instruction")
    at = tuple(show.VERDICT_CHOICES).index(old.verdict)
    verdict = c6.selectbox(**show.VERDICT_WIDGET, index=at, key="vd_verdict")
    search = c7.text_input("Search the text", old.search or "", key="vd_search", help=show.HELP["search"])
    t1, t2 = st.columns(2)
    flipped = t1.toggle("The two orders disagree", old.flipped, key="vd_flipped", help=show.HELP["flipped"])
    disagrees = t2.toggle(
        "The judge disagrees with the human label",
        old.disagrees_with_human,
        key="vd_human",
        help=show.HELP["human"],
    )
    beats = old.beats_all  # from an anchor's "beats every model" count: kept while switched on
    if beats and not st.toggle(show.beats_label(beats), True, key="vd_beats"):
        beats = None
    win = old.win_disagrees  # from the Calibration page's disagreements: kept while switched on
    if win and not st.toggle(show.win_disagrees_label(win, old.unit), True, key="vd_win"):
        win = None
    flt = VerdictFilter(
        win_disagrees=win,
        unit=old.unit if win else None,
        beats_all=beats,
        judge=judge,
        model_a=model_a,
        model_b=model_b,
        instruction=instruction.strip() or None,
        category=category,
        verdict=verdict,
        flipped=flipped,
        disagrees_with_human=disagrees,
        search=search.strip() or None,
    )
    params = flt.as_params()
    for name in show.PARAMS:  # the link reproduces this view
        _ui.set_url_param(name, params.get(name))
    number = 1 if flt != old else _ui.url_number("page", 1, low=1, high=10**9)

    # One page of cases straight from DuckDB each run (never the table's text in the session)
    with _ui.busy(show.SEARCHING if flt.search else "Reading the cases…"):  # a search reads the text
        result = store.verdicts(flt, offset=(number - 1) * show.CASES_PER_PAGE, limit=show.CASES_PER_PAGE)
    pages = verdict_words.page_count(result.total, show.CASES_PER_PAGE)
    if number > pages:  # a link past the end (the data changed): its last page instead
        number = pages
        result = store.verdicts(flt, offset=(number - 1) * show.CASES_PER_PAGE, limit=show.CASES_PER_PAGE)
    _ui.set_url_param("page", None if number == 1 else number)

    draw_evidence(store, flt)  # how these cases make up the number the link came from

    if show.no_text_sentence(result) and result.total:
        st.info(show.no_text_sentence(result))
    nav = st.columns([4, 1, 1])
    nav[0].markdown(
        f"**{verdict_words.range_line(result)}**" + (f" · page {number:,} of {pages:,}" if pages > 1 else "")
    )
    nav[1].button(
        "Previous", disabled=number <= 1, on_click=_go, args=(number - 1,), key="vd_prev", width="stretch"
    )
    nav[2].button(
        "Next", disabled=number >= pages, on_click=_go, args=(number + 1,), key="vd_next", width="stretch"
    )
    if not result.cases:
        st.info(show.empty_sentence(flt))

    for case in result.cases:
        draw_case(case, has_text=result.has_text)

    if pages > 1:
        st.button(
            "Next page", disabled=number >= pages, on_click=_go, args=(number + 1,), key="vd_next_bottom"
        )
