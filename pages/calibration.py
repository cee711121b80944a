"""Calibration: printed vs corrected win rate, prediction-powered ratings, the floor, coverage, gates.

Load → pick (judge, pair, slices, unit) → one ``calibrate`` call → one drawing per tab
(:mod:`ui.calibration_tabs`); the policies (the default pair, the unit rule, the gate) are the
analyses' keyword options in :mod:`evalcore.calibration.selection`.
"""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import calibration as lib
from evalcore.present import calibration as show
from evalcore.present import calibration_choices as choices
from evalcore.present import calibration_words as words
from ui import calibration_tabs as tabs
from ui.budget import budget_section, link_params

with _ui.page("Calibration"):
    st.title("Calibration")
    store = _ui.require_data()
    _ui.demo_banner()
    prices = _ui.prices_input()
    st.caption(words.INTRO)

    c1, c2, c3 = st.columns(3)
    with c1:
        judge = _ui.judge_picker(store, key="cal_judge")
    # Start with the Overview's pair (the judge's leader against its runner-up), not slot A.
    top, second = _ui.memo(("cal_pair", judge), lambda: lib.default_pair(_ui.counts(store, judge)))
    cand, base_choice = tabs.calibration_pair((c2, c3), store.models(), top, second)
    c4, c5, c6 = st.columns(3)
    with c4:
        category = _ui.category_picker(store, key="cal_category")
    slices = (words.SAME, words.ALL_CATEGORIES) + store.categories()
    lab_choice = (
        c5.selectbox("Labelled rows from", slices, key="cal_labelled", help=words.HELP["labelled"])
        if store.categories()
        else words.SAME
    )
    widest = tabs.max_floor(c6)
    sel = choices.selection(judge, cand, base_choice, category, lab_choice, tabs.calibration_unit())
    if sel.note:
        st.caption(sel.note)
    try:
        cal = _ui.memo(
            ("calibration", *sel.key, widest), lambda: lib.calibrate(store, **sel.kwargs, max_floor=widest)
        )
    except ValueError as exc:
        _ui.error(exc, lead=words.CANNOT)
        _ui.stop()
    # Only the open tab is drawn; the prediction-powered fit is computed only for the tabs that show it.
    floor = ("sizes", "custom_size", "js", "target", "max_labelled", "quality", *link_params("cal_budget"))
    params = {2: floor}  # the floor tab's settings in a link open that tab
    tab, shown = _ui.open_tabs(list(words.TABS), key="cal_tab", params=params)
    ppi, ppi_problem = None, ""
    if shown[1] or shown[4]:
        ppi, ppi_problem = _ui.memo(
            ("ppi", judge, category), lambda: show.ppi_or_problem(store, judge=judge, category=category)
        )

    def floor_and_budget() -> None:
        tabs.floor_tab(cal, prices)
        others = [m for m in store.models() if m != cand]
        budget_section(store, judge, [cand, *others], key="cal_budget", prices=prices)

    draw = (
        lambda: tabs.correction_tab(cal, sel),
        lambda: tabs.ppi_tab(ppi, ppi_problem),
        floor_and_budget,
        lambda: tabs.coverage_tab(cal, sel),
        lambda: tabs.gate_tab(cal, ppi),
    )
    for container, drawing, open_ in zip(tab, draw, shown, strict=True):
        if open_:
            with container:
                drawing()
