"""Calibration: the printed win rate vs the corrected one, the floor, interval coverage and gates.

The page only draws evalcore.calibration results.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from evalcore.calibration import (
    DEFAULT_MAX_FLOOR,
    ESTIMANDS,
    FLOOR_SIZES,
    SAME_SLICE,
    calibrate,
    coverage_simulation,
    floor_table,
    noninferiority_gate,
    size_plan,
    superiority_gate,
)
from evalcore.plots.calibration import calibration_figure, coverage_figure, floor_figure
from views._ui import (
    category_picker,
    demo_banner,
    download_csv,
    judge_picker,
    memo,
    require_data,
)

SLOT_A = "Slot A (every call)"
UNITS = {"The table's own unit": None, "Both-orders verdict": True, "Each judge call": False}
ALL_OPPONENTS = "All opponents"
SAME = "Same slice as the corrected rows"
ALL_CATEGORIES = "All categories"


def pct(x: float) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def parse_js(text: str) -> list[float]:
    """Typed Youden's J values, e.g. "0.57, 0.34"; raises ValueError with the bad token."""
    values = []
    for token in text.replace(";", ",").split(","):
        token = token.strip()
        if not token:
            continue
        try:
            value = float(token)
        except ValueError as exc:
            raise ValueError(f"{token!r} is not a number") from exc
        if not -1.0 <= value <= 1.0:
            raise ValueError(f"{token} is outside -1..1 (J = Se + Sp - 1)")
        values.append(value)
    return values


st.title("Calibration")
demo_banner()
store = require_data()
st.caption(
    "A judge's win rate is compressed toward 50/50; only a labelled comparison recovers the human "
    "number, at a price set by the judge's Youden's J. Labelled rows are the rows with a `human` "
    "label. **Printed** win rate = (wins + ties/2) / units, as every comparison tool prints it. "
    "**Corrected** rate = the estimated share of units a human would call a candidate win (a tie is "
    "*not* a win). **Corrected win rate (both arms)** = P(human win) + P(human tie)/2, wins and "
    "losses each corrected: the human number the printed rate stands for, and what a corrected gate "
    "tests."
)

models = store.models()
c1, c2, c3 = st.columns(3)
with c1:
    judge = judge_picker(store, key="cal_judge")
with c2:
    cand_choice = st.selectbox("Candidate", (SLOT_A,) + models, key="cal_candidate",
                               help="The model whose win rate is corrected; slot A reads every call "
                                    "from the first slot's point of view.")
candidate = None if cand_choice == SLOT_A else cand_choice
with c3:
    opponents = (ALL_OPPONENTS,) + tuple(m for m in models if m != candidate)
    base_choice = st.selectbox("Against", opponents, key="cal_baseline", disabled=candidate is None)
baseline = None if (candidate is None or base_choice == ALL_OPPONENTS) else base_choice

c4, c5, c6 = st.columns(3)
with c4:
    category = category_picker(store, key="cal_category")
with c5:
    categories = store.categories()
    if categories:
        lab_choice = st.selectbox("Labelled rows from", (SAME, ALL_CATEGORIES) + categories,
                                  key="cal_labelled",
                                  help="Where the judge's Se/Sp are measured. An error profile "
                                       "belongs to its population.")
    else:
        lab_choice = SAME
labelled = SAME_SLICE if lab_choice == SAME else (None if lab_choice == ALL_CATEGORIES else lab_choice)
with c6:
    max_floor_points = st.slider("Refuse when the floor is wider than ± (points)", 5, 50,
                                 int(100 * DEFAULT_MAX_FLOOR), key="cal_max_floor",
                                 help="The floor is the narrowest corrected interval the labelled set "
                                      "allows, however many pairs are judged.")

unit_choice = st.radio("Unit", tuple(UNITS), horizontal=True, key="cal_unit",
                       help="The table's own unit: the both-orders verdict (the verdict both orders "
                            "agree on, else a tie) when the table is judged in both orders and a "
                            "candidate is picked, so each human label counts once; else one unit per "
                            "judge call.")
both_orders = UNITS[unit_choice]
if both_orders and candidate is None:
    st.caption("The both-orders verdict needs a candidate model (slot A changes sides between the two "
               "orders): counting every call until one is picked.")
    both_orders = False

lab_key = "same" if lab_choice == SAME else lab_choice
try:
    cal = memo(("calibration", judge, candidate, baseline, category, lab_key, max_floor_points, both_orders),
               lambda: calibrate(store, judge=judge, candidate=candidate, baseline=baseline,
                                 category=category, labelled_category=labelled, both_orders=both_orders,
                                 max_floor=max_floor_points / 100.0))
except ValueError as exc:
    st.error(f"Cannot calibrate this selection: {exc}. Pick another candidate, opponent or category.")
    st.stop()

tab_fix, tab_floor, tab_cover, tab_gate = st.tabs(
    ["Correction", "Floor and sample size", "Coverage simulation", "Gates"])

# -- correction -------------------------------------------------------------------------------------
with tab_fix:
    counts = cal.counts
    label = cal.candidate_label
    st.subheader(f"{label[:1].upper() + label[1:]}: printed vs corrected win rate")
    unit = ("both-orders verdicts (the verdict both orders agree on, else a tie; one per human label; "
            f"{counts.unpaired_calls:,} calls without their other order left out)"
            if counts.both_orders else "judge calls (each order counts once)")
    st.caption(f"Judge **{judge}** · {counts.n_judged:,} judged units · {counts.n_labelled:,} labelled "
               f"({counts.n_se:,} human-called wins, {counts.n_sp:,} non-wins) · 95% intervals, "
               f"clustered by instruction · unit: {unit}.")
    st.caption("**Printed** counts a tie as half a win; **Corrected** counts a tie as not a win; "
               "**Corrected win rate** counts a human tie as half a win, like the printed rate.")
    m1, m2, m6, m3, m4, m5 = st.columns(6)
    m1.metric("Printed", pct(cal.printed),
              help=f"Wilson 95% interval {pct(cal.printed_low)} – {pct(cal.printed_high)}")
    m2.metric("Corrected", "refused" if cal.refused else pct(cal.corrected),
              help=("Rogan–Gladen; Lang–Reiczigel 95% interval "
                    f"{pct(cal.lr_low)} – {pct(cal.lr_high)}") if not cal.refused else cal.refusal_reason)
    m6.metric("Corrected win rate", "refused" if cal.win_rate_refusal else pct(cal.win_rate.value),
              help=(cal.win_rate_refusal or f"P(human win) + P(human tie)/2, both arms corrected; "
                    f"95% interval {pct(cal.win_rate.low)} – {pct(cal.win_rate.high)} (bootstrap over "
                    "instructions)"))
    m3.metric("Se", pct(cal.se), help=f"Sensitivity: P(judge says win | human says win); Wilson "
              f"{pct(cal.se_low)} – {pct(cal.se_high)}")
    m4.metric("Sp", pct(cal.sp), help=f"Specificity: P(judge says not-win | human says not-win); Wilson "
              f"{pct(cal.sp_low)} – {pct(cal.sp_high)}")
    m5.metric("Youden's J", "—" if math.isnan(cal.youden_j) else f"{cal.youden_j:.2f}",
              help="J = Se + Sp − 1: the price of the correction (the interval divides by it).")
    if cal.refused:
        st.warning(f"**Correction refused.** {cal.refusal_reason[:1].upper() + cal.refusal_reason[1:]}. "
                   "Printing a corrected number here would hide its error bars.")
    else:
        st.success(
            f"Corrected rate **{pct(cal.corrected)}** (Lang–Reiczigel 95% interval {pct(cal.lr_low)} – "
            f"{pct(cal.lr_high)}), against a printed **{pct(cal.printed)}** "
            f"({pct(cal.printed_low)} – {pct(cal.printed_high)}). With these "
            f"{counts.n_labelled:,} labelled pairs the corrected rate cannot be tighter than "
            f"±{100 * cal.floor:.1f} points, however many pairs are judged. The naive interval "
            f"({pct(cal.naive_low)} – {pct(cal.naive_high)}) treats Se and Sp as exact and is too "
            "narrow (it covers 31–53% at 25 labelled pairs while claiming 95%).")
        if not cal.win_rate_refusal:
            st.info(f"Corrected win rate on both arms, **{pct(cal.win_rate.value)}** (95% "
                    f"{pct(cal.win_rate.low)} – {pct(cal.win_rate.high)}): {ESTIMANDS['corrected_win_rate']}. "
                    "This is the number a corrected gate tests.")
        else:
            st.info(f"No corrected win rate on both arms: {cal.win_rate_refusal}.")
    if cal.transfer_warning:
        st.warning(cal.transfer_warning)
    for note in cal.design_warnings:
        st.info(note)
    st.plotly_chart(calibration_figure(cal), width="stretch")
    table = cal.summary_frame()
    shown = table.copy()
    for col in ("estimate", "low", "high"):
        shown[col] = [f"{v:.2f}" if q == "Youden's J" and not math.isnan(v)
                      else (f"±{100 * v:.1f} points" if q.startswith("floor") else pct(v))
                      for q, v in zip(table["quantity"], table[col], strict=True)]
    shown.loc[shown["quantity"].isin(["Youden's J"]) | shown["quantity"].str.startswith("floor"),
              ["low", "high"]] = "—"
    st.dataframe(shown, hide_index=True, width="stretch")
    download_csv(table, "calibration.csv", key="dl_calibration")
    st.caption("The judge-says-win share is what Rogan–Gladen corrects: P = (AP + Sp − 1)/(Se + Sp − 1), "
               "clipped to [0, 1]. The Lang–Reiczigel interval (2014) carries the uncertainty of Se and Sp "
               "into the interval. The confusion matrix behind Se and Sp is on the Judge page.")

# -- floor and sample size -----------------------------------------------------------------------------
with tab_floor:
    st.subheader("The floor: what a labelled set of a given size can buy")
    st.caption("Half-width of the Lang–Reiczigel interval with unlimited judged pairs, read with "
               "Se = Sp = (1 + J)/2, the labelled pairs split evenly between human wins and non-wins, "
               "Lang–Reiczigel's pseudo-counts and a true share of 37.5%. The published table at "
               "J ≈ 0.57: ±33–35 at 25 labelled pairs, ±15–16 at 100, ±7–8 at 400, ±4 at 1,600.")
    f1, f2, f3 = st.columns(3)
    with f1:
        sizes = st.multiselect("Labelled pairs", list(FLOOR_SIZES) + [50, 200, 800, 3200],
                               default=list(FLOOR_SIZES), key="cal_floor_sizes")
    with f2:
        custom = st.number_input("Custom size (0 = none)", min_value=0, max_value=1_000_000, value=0,
                                 step=50, key="cal_floor_custom")
    with f3:
        typed = st.text_input("Youden's J values (comma-separated)", "0.57, 0.34, 0.21",
                              key="cal_floor_js")
    try:
        typed_js = parse_js(typed)
    except ValueError as exc:
        st.error(f"Youden's J values: {exc}. Type numbers between -1 and 1, separated by commas.")
        typed_js = []
    js = list(typed_js)
    if not math.isnan(cal.youden_j):
        js = [round(cal.youden_j, 3)] + [j for j in js if j != round(cal.youden_j, 3)]
    all_sizes = sorted(set(int(s) for s in sizes) | ({int(custom)} if custom else set()))
    if not all_sizes or not js:
        st.info("Pick at least one labelled-set size and one Youden's J.")
    else:
        floors = floor_table(all_sizes, js)
        wide = floors.pivot(index="n_labelled", columns="youden_j", values="floor_points")
        wide.columns = [("this judge " if not math.isnan(cal.youden_j) and j == round(cal.youden_j, 3)
                         else "") + f"J = {j:.2f}" for j in wide.columns]
        st.dataframe(wide.reset_index().rename(columns={"n_labelled": "labelled pairs"}), hide_index=True,
                     width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="±%.1f") for c in wide.columns})
        download_csv(floors, "floor_table.csv", key="dl_floor")
        st.plotly_chart(floor_figure(floors), width="stretch")

    st.subheader("Size picker")
    s1, s2, s3 = st.columns(3)
    with s1:
        target = st.slider("Target half-width (± points)", 1, 30, 10, key="cal_target")
    with s2:
        max_labelled = st.number_input("At most this many labelled pairs", min_value=10,
                                       max_value=1_000_000, value=1600, step=100, key="cal_max_labelled")
    with s3:
        sources = []
        if not (math.isnan(cal.se) or math.isnan(cal.sp)):
            sources.append(f"this judge (Se {pct(cal.se)}, Sp {pct(cal.sp)})")
        sources += [f"typed J = {j:.2f}" for j in typed_js]
        source = st.selectbox("Judge quality", sources or ["J = 0.57 (expert-grade labels)"],
                              key="cal_plan_source")
    if source.startswith("this judge"):
        plan = size_plan(target / 100.0, se=cal.se, sp=cal.sp, max_labelled=int(max_labelled))
    else:
        plan = size_plan(target / 100.0, float(source.split("= ")[1].split(" ")[0]),
                         max_labelled=int(max_labelled))
    (st.success if plan.reachable else st.warning)(plan.explanation)
    ladder = plan.ladder.rename(columns={"n_labelled": "labelled pairs", "floor_points": "floor (± points)",
                                         "n_judged": "judged pairs needed"}).drop(columns=["floor"])
    st.dataframe(ladder, hide_index=True, width="stretch",
                 column_config={"floor (± points)": st.column_config.NumberColumn(format="±%.1f"),
                                "judged pairs needed": st.column_config.NumberColumn(format="%d")})
    st.caption("Judged pairs needed: blank where the floor at that labelled size is already wider "
               "than the target — no number of judged pairs reaches it.")
    download_csv(plan.ladder, "size_plan.csv", key="dl_plan")

# -- coverage simulation ----------------------------------------------------------------------------------
with tab_cover:
    st.subheader("Do the intervals cover the truth? (simulation with this judge's Se and Sp)")
    if math.isnan(cal.se) or math.isnan(cal.sp) or cal.se <= 0 or cal.sp <= 0:
        st.info("This selection has no measured Se and Sp (it needs labelled human wins and non-wins), "
                "so there is no judge profile to simulate. Pick a selection with labelled rows.")
    else:
        v1, v2, v3 = st.columns(3)
        with v1:
            n_judged = st.number_input("Judged pairs per study", 20, 100_000, 300, step=50, key="cal_sim_n")
        with v2:
            n_lab = st.number_input("Labelled pairs per study", 4, 100_000, 25, step=25, key="cal_sim_lab")
        with v3:
            sims = st.number_input("Simulated studies per true rate", 100, 20_000, 2000, step=500,
                                   key="cal_sim_runs")
        bar = st.progress(0.0, text="simulating…")
        result = memo(("coverage", judge, candidate, baseline, category, lab_key, both_orders, int(n_judged),
                       int(n_lab), int(sims)),
                      lambda: coverage_simulation(cal.se, cal.sp, tie_given_win=counts.tie_given_win,
                                                  tie_given_not_win=counts.tie_given_not_win,
                                                  n_judged=int(n_judged), n_labelled=int(n_lab),
                                                  simulations=int(sims),
                                                  progress=lambda f, t: bar.progress(f, text=t)))
        bar.progress(1.0, text=f"done: {result.simulations:,} simulated studies per true rate")
        st.plotly_chart(coverage_figure(result), width="stretch")
        cov = result.table
        lr = cov[cov["interval"] == "Lang–Reiczigel"]["coverage"]
        naive = cov[cov["interval"] == "naive corrected"]["coverage"]
        printed = cov[cov["interval"] == "printed (Wilson)"]["coverage"]
        st.markdown(
            f"With Se {pct(cal.se)}, Sp {pct(cal.sp)}, {int(n_judged):,} judged and {int(n_lab):,} "
            f"labelled pairs: the Wilson interval on the printed rate covers the truth "
            f"{pct(printed.min())}–{pct(printed.max())} of the time, the naive corrected interval "
            f"{pct(naive.min())}–{pct(naive.max())}, the Lang–Reiczigel interval "
            f"{pct(lr.min())}–{pct(lr.max())}. The published study reports 0–99% for the printed interval (it "
            "covers only near 50/50), 31–53% for the naive one at 25 labelled pairs and 92–100% for "
            "Lang–Reiczigel.")
        st.caption("Truth = the share of human-called candidate wins. Each study draws human outcomes, "
                   "the judge's win/tie/loss from this judge's measured rates, and a labelled set split "
                   "evenly between human wins and non-wins. 'refused' = studies whose measured J ≤ 0.")
        st.dataframe(cov, hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="percent")
                                    for c in ("true_rate", "coverage", "refused", "mean_estimate",
                                              "mean_half_width")})
        download_csv(cov, "coverage.csv", key="dl_coverage")

# -- gates -------------------------------------------------------------------------------------------------
with tab_gate:
    st.subheader("Release gates")
    if candidate is None:
        st.info("Pick a candidate model (and ideally the model it replaces under 'Against') to gate on it.")
    else:
        g1, g2, g3 = st.columns(3)
        with g1:
            kind = st.radio("Gate", ["superiority", "non-inferiority"], key="cal_gate_kind",
                            help="Superiority: lower bound above 50%. Non-inferiority: lower bound above "
                                 "50% minus the margin.")
        with g2:
            margin = st.slider("Non-inferiority margin (points)", 1, 20, 5, key="cal_gate_margin",
                               disabled=kind == "superiority")
        with g3:
            on = st.radio("Gate on", ["printed", "corrected"], key="cal_gate_on",
                          help="Printed: lower bound of (wins + ties/2)/n, Wilson interval clustered by "
                               "instruction. Corrected: lower bound of the corrected win rate, human "
                               "wins + ties/2 with both arms corrected (needs labelled pairs).")
        corrected = on == "corrected"
        gate = (superiority_gate(cal, corrected=corrected) if kind == "superiority"
                else noninferiority_gate(cal, margin=margin / 100.0, corrected=corrected))
        (st.success if gate.passed else st.error)(
            f"**{'PASS' if gate.passed else 'FAIL'}** — gated on the **{gate.gated_on}** number. "
            + gate.explanation)
        st.caption(f"Estimand: {gate.estimand}. Interval: {gate.interval}. Unit: {gate.unit}.")
        if gate.warning:
            st.warning(gate.warning)
        frame = pd.DataFrame([gate.as_dict()])
        download_csv(frame, "gate.csv", key="dl_gate")
        st.caption("Same gate from the command line: `python -m evalcore gate FILE --judge J --candidate M "
                   "--baseline B [--margin 0.05] [--corrected]` exits 0 on pass, 1 on fail.")
