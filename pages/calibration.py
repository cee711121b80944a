"""Calibration: printed vs corrected win rate, prediction-powered ratings, the floor, coverage, gates."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import calibration as lib
from evalcore.judge.certification import certify
from evalcore.plots.calibration import calibration_figure, coverage_figure, floor_figure
from evalcore.present import calibration as show
from ui.pickers import calibration_pair, calibration_unit, disagreements_link

W = show.WIDGETS

with _ui.page("Calibration"):
    st.title("Calibration")
    store = _ui.require_data()
    _ui.demo_banner()
    st.caption(show.INTRO)

    models = store.models()
    c1, c2, c3 = st.columns(3)
    with c1:
        judge = _ui.judge_picker(store, key="cal_judge")
    # Start with the Overview's pair (the judge's leader against its runner-up), not slot A.
    top, second = _ui.memo(("cal_pair", judge), lambda: show.default_pair(_ui.counts(store, judge)))
    cand, base_choice = calibration_pair((c2, c3), models, top, second)
    c4, c5, c6 = st.columns(3)
    with c4:
        category = _ui.category_picker(store, key="cal_category")
    slices = (show.SAME, show.ALL_CATEGORIES) + store.categories()
    lab_choice = (
        c5.selectbox("Labelled rows from", slices, key="cal_labelled", help=show.HELP["labelled"])
        if store.categories()
        else show.SAME
    )
    max_floor_points = c6.slider(**W["max_floor"], key="cal_max_floor")
    unit = calibration_unit()
    sel = show.selection(judge, cand, base_choice, category, lab_choice, unit)
    if sel.note:
        st.caption(sel.note)
    try:
        cal = _ui.memo(
            ("calibration", *sel.key, max_floor_points),
            lambda: lib.calibrate(store, **sel.kwargs, max_floor=max_floor_points / 100.0),
        )
    except ValueError as exc:
        _ui.error(exc, lead=show.CANNOT)
        st.stop()
    ppi, ppi_problem = _ui.memo(
        ("ppi", judge, category), lambda: show.ppi_or_problem(store, judge=judge, category=category)
    )

    tab_fix, tab_ppi, tab_floor, tab_cover, tab_gate = st.tabs(show.TABS)

    with tab_fix:
        st.subheader(show.headline(cal))
        st.caption(show.correction_caption(cal))
        st.caption(show.TIES)
        _ui.number_tiles(show.metrics(cal))  # percentages or "refused"; help already escaped
        disagreements_link(cal, sel)
        _ui.alerts(show.correction_message(cal))
        threshold = st.columns(3)[0].slider(**W["certify"], key="cal_certify")
        cert = certify(cal.counts, threshold=threshold / 100, candidate=cand)
        _ui.alerts([show.certification_message(cert), *show.correction_notes(cal)])
        st.plotly_chart(calibration_figure(cal), width="stretch")
        _ui.table(show.summary_display(cal), cal.summary_frame(), "calibration.csv", key="dl_calibration")
        st.caption(show.METHOD)

    with tab_ppi:
        st.subheader("Prediction-powered ratings: the judge on every pair, corrected by the human labels")
        if ppi is None:
            st.error(ppi_problem)  # escaped by the presentation
        else:
            _ui.alerts(show.ppi_messages(ppi))
            _ui.table(show.ppi_table(ppi), ppi.table(), "ppi_ratings.csv", key="dl_ppi")
        st.caption(show.PPI)

    with tab_floor:
        st.subheader("The floor: what a labelled set of a given size can buy")
        st.caption(show.FLOOR)
        f1, f2, f3 = st.columns(3)
        sizes = f1.multiselect(**W["floor_sizes"], key="cal_floor_sizes")
        custom = f2.number_input(**W["floor_custom"], key="cal_floor_custom")
        typed = f3.text_input(**W["floor_js"], key="cal_floor_js")
        typed_js, problems = show.typed_js(typed)
        _ui.alerts(problems)
        js = show.youden_values(cal, typed_js)
        all_sizes = show.floor_sizes(sizes, custom)
        if not all_sizes or not js:
            st.info(show.PICK_SIZES)
        else:
            floors = show.floor_rows(cal, all_sizes, typed_js)  # this judge as the size picker reads it
            _ui.table(show.floor_display(floors, cal), floors, "floor_table.csv", key="dl_floor")
            st.plotly_chart(floor_figure(floors), width="stretch")

        st.subheader("Size picker")
        s1, s2, s3 = st.columns(3)
        target = s1.slider(**W["target"], key="cal_target")
        max_labelled = s2.number_input(**W["max_labelled"], key="cal_max_labelled")
        qualities = show.quality_options(cal, typed_js)
        source = s3.selectbox("Judge quality", list(qualities), key="cal_plan_source")
        plan = lib.size_plan(target / 100.0, max_labelled=int(max_labelled), **qualities[source])
        (st.success if plan.reachable else st.warning)(plan.explanation)
        _ui.table(show.ladder_display(plan), plan.ladder, "size_plan.csv", key="dl_plan")
        st.caption(show.LADDER)

    with tab_cover:
        st.subheader(
            "Do the intervals cover the truth? (simulation with this judge's sensitivity and specificity)"
        )
        if not (cal.se > 0 and cal.sp > 0):  # NaN fails both
            st.info(show.NO_PROFILE)
        else:
            v1, v2, v3 = st.columns(3)
            n_judged = int(v1.number_input(**W["sim_n"], key="cal_sim_n"))
            n_lab = int(v2.number_input(**W["sim_lab"], key="cal_sim_lab"))
            sims = int(v3.number_input(**W["sim_runs"], key="cal_sim_runs"))
            bar = st.progress(0.0, text="simulating…")
            opts = show.judge_profile(cal, n_judged=n_judged, n_labelled=n_lab, simulations=sims)
            result = _ui.memo(
                ("coverage", *sel.key, n_judged, n_lab, sims),
                lambda: lib.coverage_simulation(**opts, progress=lambda f, t: bar.progress(f, text=t)),
            )
            bar.progress(1.0, text=f"done: {result.simulations:,} simulated studies per true rate")
            st.plotly_chart(coverage_figure(result), width="stretch")
            st.markdown(show.coverage_sentence(result, cal, n_judged=n_judged, n_labelled=n_lab))
            st.caption(show.COVERAGE)
            _ui.table(show.coverage_table(result), result.table, "coverage.csv", key="dl_coverage")

    with tab_gate:
        st.subheader("Release gates")
        if cand is None:
            st.info(show.PICK_CANDIDATE)
        else:
            g1, g2, g3 = st.columns(3)
            kind = g1.radio(**W["gate_kind"], key="cal_gate_kind")
            margin = g2.slider(**W["margin"], key="cal_gate_margin", disabled=kind == "superiority")
            on = g3.radio(**W["gate_on"], key="cal_gate_on")
            gate = show.gate_for(cal, kind=kind, margin_points=margin, on=on, ppi=ppi)
            _ui.alerts(show.gate_messages(gate))
            if (frame := show.gate_frame(gate)) is not None:
                _ui.download_csv(frame, "gate.csv", key="dl_gate")
            st.caption(show.CLI)
