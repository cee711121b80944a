"""Calibration: the printed win rate vs the corrected one, the floor, interval coverage and gates."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore import calibration as lib
from evalcore.calibration import presentation as show
from evalcore.errors import UsageError
from evalcore.plots.calibration import calibration_figure, coverage_figure, floor_figure
from evalcore.verdicts import VerdictFilter

with _ui.page("Calibration"):
    SLOT_A = "Slot A (every call)"
    UNITS = {"The table's own unit": None, "Both-orders verdict": True, "Each judge call": False}
    ALL_OPPONENTS, SAME, ALL_CATEGORIES = (
        "All opponents",
        "Same slice as the corrected rows",
        "All categories",
    )

    def say(messages) -> None:
        for m in messages:
            getattr(st, m.kind)(m.text)  # safe Markdown: the presentation escaped the user text

    st.title("Calibration")
    _ui.demo_banner()
    store = _ui.require_data()
    st.caption(show.INTRO)

    models = store.models()
    c1, c2, c3 = st.columns(3)
    with c1:
        judge = _ui.judge_picker(store, key="cal_judge")
    # The gates need a candidate: start with the judge's top-rated model, not slot A.
    top = _ui.memo(("cal_top", judge), lambda: show.default_candidate(_ui.counts(store, judge)))
    options = (SLOT_A,) + models
    cand_choice = c2.selectbox(
        "Candidate",
        options,
        index=options.index(top) if top in options else 0,
        key="cal_candidate",
        help=show.HELP["candidate"],
    )
    candidate = None if cand_choice == SLOT_A else cand_choice
    base_choice = c3.selectbox(
        "Against",
        (ALL_OPPONENTS,) + tuple(m for m in models if m != candidate),
        key="cal_baseline",
        disabled=candidate is None,
    )
    baseline = None if (candidate is None or base_choice == ALL_OPPONENTS) else base_choice

    c4, c5, c6 = st.columns(3)
    with c4:
        category = _ui.category_picker(store, key="cal_category")
    lab_choice = (
        c5.selectbox(
            "Labelled rows from",
            (SAME, ALL_CATEGORIES) + store.categories(),
            key="cal_labelled",
            help=show.HELP["labelled"],
        )
        if store.categories()
        else SAME
    )
    labelled = (
        lib.SAME_SLICE if lab_choice == SAME else (None if lab_choice == ALL_CATEGORIES else lab_choice)
    )
    max_floor_points = c6.slider(
        "Refuse when the floor is wider than ± (percentage points)",
        5,
        50,
        int(100 * lib.DEFAULT_MAX_FLOOR),
        key="cal_max_floor",
        help=show.HELP["floor"],
    )

    both_orders = UNITS[
        st.radio("Unit", tuple(UNITS), horizontal=True, key="cal_unit", help=show.HELP["unit"])
    ]
    if both_orders and candidate is None:
        st.caption(show.NEEDS_CANDIDATE)
        both_orders = False

    lab_key = "same" if lab_choice == SAME else lab_choice
    try:
        cal = _ui.memo(
            ("calibration", judge, candidate, baseline, category, lab_key, max_floor_points, both_orders),
            lambda: lib.calibrate(
                store,
                judge=judge,
                candidate=candidate,
                baseline=baseline,
                category=category,
                labelled_category=labelled,
                both_orders=both_orders,
                max_floor=max_floor_points / 100.0,
            ),
        )
    except ValueError as exc:
        _ui.error(
            exc, lead="**Cannot calibrate this selection.** Pick another candidate, opponent or category:"
        )
        st.stop()

    tab_fix, tab_floor, tab_cover, tab_gate = st.tabs(
        ["Correction", "Floor and sample size", "Coverage simulation", "Gates"]
    )

    with tab_fix:
        st.subheader(show.headline(cal))
        st.caption(show.correction_caption(cal))
        st.caption(show.TIES)
        for col, (label, value, why) in zip(st.columns(6), show.metrics(cal), strict=True):
            col.metric(label, value, help=why)  # values are percentages or "refused"; help is escaped
        _ui.verdicts_link(
            "Read the cases where the judge and the human disagree",
            VerdictFilter(
                judge=judge, category=category, model_a=candidate, model_b=baseline, disagrees_with_human=True
            ),
        )
        say(show.correction_message(cal))
        if cal.transfer_warning:
            _ui.warning(cal.transfer_warning)
        for note in cal.design_warnings:
            _ui.info(note)
        st.plotly_chart(calibration_figure(cal), width="stretch")
        st.dataframe(show.summary_display(cal), hide_index=True, width="stretch")
        _ui.download_csv(cal.summary_frame(), "calibration.csv", key="dl_calibration")
        st.caption(show.METHOD)

    with tab_floor:
        st.subheader("The floor: what a labelled set of a given size can buy")
        st.caption(show.FLOOR)
        f1, f2, f3 = st.columns(3)
        sizes = f1.multiselect(
            "Labelled pairs",
            list(lib.FLOOR_SIZES) + [50, 200, 800, 3200],
            default=list(lib.FLOOR_SIZES),
            key="cal_floor_sizes",
        )
        custom = f2.number_input(
            "Custom size (0 = none)",
            min_value=0,
            max_value=1_000_000,
            value=0,
            step=50,
            key="cal_floor_custom",
        )
        typed = f3.text_input("Youden's J values (comma-separated)", "0.57, 0.34, 0.21", key="cal_floor_js")
        try:
            typed_js = show.parse_js(typed)
        except UsageError as exc:
            _ui.error(exc, lead="Youden's J values: type numbers between -1 and 1, separated by commas.")
            typed_js = []
        js = show.youden_values(cal, typed_js)
        all_sizes = sorted({int(s) for s in sizes} | ({int(custom)} if custom else set()))
        if not all_sizes or not js:
            st.info("Pick at least one labelled-set size and one Youden's J.")
        else:
            floors = lib.floor_table(all_sizes, js)
            st.dataframe(show.floor_display(floors, cal), hide_index=True, width="stretch")
            _ui.download_csv(floors, "floor_table.csv", key="dl_floor")
            st.plotly_chart(floor_figure(floors), width="stretch")

        st.subheader("Size picker")
        s1, s2, s3 = st.columns(3)
        target = s1.slider("Target half-width (± percentage points)", 1, 30, 10, key="cal_target")
        max_labelled = s2.number_input(
            "At most this many labelled pairs",
            min_value=10,
            max_value=1_000_000,
            value=1600,
            step=100,
            key="cal_max_labelled",
        )
        qualities = show.quality_options(cal, typed_js)
        source = s3.selectbox("Judge quality", list(qualities), key="cal_plan_source")
        plan = lib.size_plan(target / 100.0, max_labelled=int(max_labelled), **qualities[source])
        (st.success if plan.reachable else st.warning)(plan.explanation)
        st.dataframe(show.ladder_display(plan), hide_index=True, width="stretch")
        st.caption(show.LADDER)
        _ui.download_csv(plan.ladder, "size_plan.csv", key="dl_plan")

    with tab_cover:
        st.subheader("Do the intervals cover the truth? (simulation with this judge's Se and Sp)")
        if not (cal.se > 0 and cal.sp > 0):  # NaN fails both
            st.info(show.NO_PROFILE)
        else:
            v1, v2, v3 = st.columns(3)
            n_judged = v1.number_input("Judged pairs per study", 20, 100_000, 300, step=50, key="cal_sim_n")
            n_lab = v2.number_input("Labelled pairs per study", 4, 100_000, 25, step=25, key="cal_sim_lab")
            sims = v3.number_input(
                "Simulated studies per true rate", 100, 20_000, 2000, step=500, key="cal_sim_runs"
            )
            bar = st.progress(0.0, text="simulating…")
            result = _ui.memo(
                (
                    "coverage",
                    judge,
                    candidate,
                    baseline,
                    category,
                    lab_key,
                    both_orders,
                    int(n_judged),
                    int(n_lab),
                    int(sims),
                ),
                lambda: lib.coverage_simulation(
                    cal.se,
                    cal.sp,
                    tie_given_win=cal.counts.tie_given_win,
                    tie_given_not_win=cal.counts.tie_given_not_win,
                    n_judged=int(n_judged),
                    n_labelled=int(n_lab),
                    simulations=int(sims),
                    progress=lambda f, t: bar.progress(f, text=t),
                ),
            )
            bar.progress(1.0, text=f"done: {result.simulations:,} simulated studies per true rate")
            st.plotly_chart(coverage_figure(result), width="stretch")
            st.markdown(show.coverage_sentence(result, cal, n_judged=int(n_judged), n_labelled=int(n_lab)))
            st.caption(show.COVERAGE)
            st.dataframe(show.coverage_table(result), hide_index=True, width="stretch")
            _ui.download_csv(result.table, "coverage.csv", key="dl_coverage")

    with tab_gate:
        st.subheader("Release gates")
        if candidate is None:
            st.info(
                "Pick a candidate model (and ideally the model it replaces under 'Against') to gate on it."
            )
        else:
            g1, g2, g3 = st.columns(3)
            kind = g1.radio(
                "Gate", ["superiority", "non-inferiority"], key="cal_gate_kind", help=show.HELP["gate"]
            )
            margin = g2.slider(
                "Non-inferiority margin (percentage points)",
                1,
                20,
                5,
                key="cal_gate_margin",
                disabled=kind == "superiority",
            )
            on = g3.radio("Gate on", ["printed", "corrected"], key="cal_gate_on", help=show.HELP["gate_on"])
            gate = (
                lib.superiority_gate(cal, corrected=on == "corrected")
                if kind == "superiority"
                else lib.noninferiority_gate(cal, margin=margin / 100.0, corrected=on == "corrected")
            )
            say([show.gate_message(gate)])
            _ui.caption(f"Estimand: {gate.estimand}. Interval: {gate.interval}. Unit: {gate.unit}.")
            if gate.warning:
                _ui.warning(gate.warning)
            _ui.download_csv(pd.DataFrame([gate.as_dict()]), "gate.csv", key="dl_gate")
            st.caption(show.CLI)
