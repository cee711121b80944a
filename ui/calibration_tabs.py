"""The Calibration page's pickers (the candidate, its opponent and the unit, ``?candidate=``,
``?against=``, ``?unit=``) and its tabs: each tab reads its inputs, makes one evalcore call and
draws the result.

The floor and size inputs are kept in the link (``?max_floor=``, ``?sizes=``, ``?custom_size=``,
``?js=``, ``?target=``, ``?max_labelled=``, ``?quality=``), so a copied link reproduces the
numbers. Here rather than in the page, which stays a storyboard.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from evalcore import calibration as lib
from evalcore.judge.certification import certify
from evalcore.plots.calibration import calibration_figure, coverage_figure, floor_figure
from evalcore.present import calibration as show
from evalcore.present import calibration_choices as choices
from evalcore.present import calibration_words as words
from ui.messages import alerts
from ui.navigation import verdicts_link
from ui.state import memo
from ui.widgets import (
    download_csv,
    linked_choice,
    linked_input,
    linked_multi,
    linked_text,
    number_tiles,
    table,
)

W = words.WIDGETS


def _number(widget: Any, name: str, *, param: str, key: str) -> Any:
    """A number input or slider of :data:`WIDGETS` ``name``, kept in the link as ``param``."""
    return linked_input(widget, param=param, key=key, **W[name])


def max_floor(where: Any) -> float:
    """The widest floor the correction accepts, as a share (``?max_floor=`` in points)."""
    return _number(where.slider, "max_floor", param="max_floor", key="cal_max_floor") / 100.0


def correction_tab(cal: Any, sel: Any) -> None:
    """Printed against corrected win rate, the judge's certification and the summary table."""
    st.subheader(show.headline(cal))
    st.caption(show.correction_caption(cal))
    st.caption(words.TIES)
    number_tiles(show.metrics(cal))  # percentages or "refused"; help already escaped
    disagreements_link(cal, sel)
    alerts(show.correction_message(cal))
    threshold = st.columns(3)[0].slider(**W["certify"], key="cal_certify")
    cert = certify(cal.counts, threshold=threshold / 100, candidate=cal.candidate)
    alerts([show.certification_message(cert), *show.correction_notes(cal)])
    st.plotly_chart(calibration_figure(cal), width="stretch")
    table(show.summary_display(cal), cal.summary_frame(), "calibration.csv", key="dl_calibration")
    st.caption(words.METHOD)


def ppi_tab(ppi: Any, problem: str) -> None:
    """Prediction-powered ratings (computed once per judge and category by the page)."""
    st.subheader("Prediction-powered ratings: the judge on every pair, corrected by the human labels")
    if ppi is None:
        st.error(problem)  # escaped by the presentation
    else:
        alerts(show.ppi_messages(ppi))
        table(show.ppi_table(ppi), ppi.table(), "ppi_ratings.csv", key="dl_ppi")
    st.caption(words.PPI)


def floor_tab(cal: Any, prices: Any = None) -> None:
    """The floor a labelled set of each size buys (one ``floor_table`` call), then the size
    picker (one ``size_plan`` call); both kept in the link."""
    st.subheader("The floor: what a labelled set of a given size can buy")
    st.caption(words.FLOOR)
    f1, f2, f3 = st.columns(3)
    spec, js = W["floor_sizes"], W["floor_js"]
    pick = {"param": "sizes", "key": "cal_floor_sizes", "default": spec["default"]}
    sizes = linked_multi(f1.multiselect, spec["label"], spec["options"], **pick)
    custom = _number(f2.number_input, "floor_custom", param="custom_size", key="cal_floor_custom")
    typed = linked_text(f3.text_input, js["label"], param="js", key="cal_floor_js", default=js["value"])
    typed_js, problems = show.typed_js(typed)
    alerts(problems)
    all_sizes = choices.floor_sizes(sizes, custom)
    if not all_sizes or not show.youden_values(cal, typed_js):
        st.info(words.PICK_SIZES)
    else:
        floors = show.floor_rows(cal, all_sizes, typed_js)  # this judge as the size picker reads it
        table(show.floor_display(floors, cal), floors, "floor_table.csv", key="dl_floor")
        st.plotly_chart(floor_figure(floors), width="stretch")

    st.subheader("Size picker")
    s1, s2, s3 = st.columns(3)
    target = _number(s1.slider, "target", param="target", key="cal_target")
    max_labelled = _number(s2.number_input, "max_labelled", param="max_labelled", key="cal_max_labelled")
    qualities = show.quality_options(cal, typed_js)
    quality = {"param": "quality", "key": "cal_plan_source"}
    source = linked_choice(s3.selectbox, "Judge quality", list(qualities), **quality)
    plan = lib.size_plan(target / 100.0, max_labelled=int(max_labelled), **qualities[source])
    (st.success if plan.reachable else st.warning)(plan.explanation)
    given = {"per_call": prices.per_call, "per_label": prices.per_label} if prices is not None else {}
    if given and (cost := show.size_plan_cost(plan, **given)):
        st.info(cost)
    table(show.ladder_display(plan, **given), plan.ladder, "size_plan.csv", key="dl_plan")
    st.caption(words.LADDER)


def coverage_tab(cal: Any, sel: Any) -> None:
    """The coverage simulation at this judge's sensitivity and specificity (one call)."""
    st.subheader(
        "Do the intervals cover the truth? (simulation with this judge's sensitivity and specificity)"
    )
    if not (cal.se > 0 and cal.sp > 0):  # NaN fails both
        st.info(words.NO_PROFILE)
        return
    v1, v2, v3 = st.columns(3)
    n_judged = int(v1.number_input(**W["sim_n"], key="cal_sim_n"))
    n_lab = int(v2.number_input(**W["sim_lab"], key="cal_sim_lab"))
    sims = int(v3.number_input(**W["sim_runs"], key="cal_sim_runs"))
    bar = st.progress(0.0, text="simulating…")
    opts = choices.judge_profile(cal, n_judged=n_judged, n_labelled=n_lab, simulations=sims)
    result = memo(
        ("coverage", *sel.key, n_judged, n_lab, sims),
        lambda: lib.coverage_simulation(**opts, progress=lambda f, t: bar.progress(f, text=t)),
    )
    bar.progress(1.0, text=f"done: {result.simulations:,} simulated studies per true rate")
    st.plotly_chart(coverage_figure(result), width="stretch")
    st.markdown(show.coverage_sentence(result, cal, n_judged=n_judged, n_labelled=n_lab))
    st.caption(words.COVERAGE)
    table(show.coverage_table(result), result.table, "coverage.csv", key="dl_coverage")


def gate_tab(cal: Any, ppi: Any) -> None:
    """The release gate the pickers name (one ``release_gate`` call), or why it cannot run."""
    st.subheader("Release gates")
    if cal.candidate is None:
        st.info(words.PICK_CANDIDATE)
        return
    g1, g2, g3 = st.columns(3)
    kind = g1.radio(**W["gate_kind"], key="cal_gate_kind")
    margin = g2.slider(**W["margin"], key="cal_gate_margin", disabled=kind == "superiority")
    on = g3.radio(**W["gate_on"], key="cal_gate_on")
    gate = choices.gate_for(cal, kind=kind, margin_points=margin, on=on, ppi=ppi)
    alerts(show.gate_messages(gate))
    if (frame := show.gate_frame(gate)) is not None:
        download_csv(frame, "gate.csv", key="dl_gate")
    st.caption(words.CLI)


def calibration_pair(columns: Any, models: tuple[str, ...], top: str | None, second: str | None):
    """The Calibration page's candidate and opponent (``?candidate=``, ``?against=``), starting
    on the Overview's pair (the judge's leader against its runner-up), not slot A."""
    left, right = columns
    options = (words.SLOT_A,) + tuple(models)
    start = options[options.index(top)] if top in options else options[0]
    pick = {"param": "candidate", "key": "cal_candidate", "default": start, "help": words.HELP["candidate"]}
    cand = choices.candidate_of(linked_choice(left.selectbox, "Candidate", options, **pick))
    against = (words.ALL_OPPONENTS,) + tuple(m for m in models if m != cand)
    default = second if cand == top and second in against else against[0]
    pick = {"param": "against", "key": "cal_baseline", "default": default, "disabled": cand is None}
    return cand, linked_choice(right.selectbox, "Against", against, **pick)


def calibration_unit() -> str:
    """The Calibration page's unit (``?unit=``)."""
    radio = {"param": "unit", "key": "cal_unit", "horizontal": True, "help": words.HELP["unit"]}
    return linked_choice(st.radio, "Unit", tuple(words.UNITS), **radio)


def disagreements_link(cal: Any, sel: Any) -> None:
    """The link from the correction to its disagreements, with their count and unit (the cases
    it opens are those units); without a candidate, the judge's per-call disagreements."""
    if cal.candidate is None:
        verdicts_link("Read the cases where the judge and the human disagree", sel.disagreements)
    else:
        verdicts_link(show.disagreements_label(cal), choices.disagreement_filter(cal))
