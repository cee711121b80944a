"""The "Spend a budget" section (Anchor planning and Calibration pages): prices in, the plan of
judge calls and human labels with the narrowest interval out (evalcore.power.budget)."""

from __future__ import annotations

import streamlit as st

import ui as _ui
from evalcore import quantities as q
from evalcore.errors import EvalcoreError
from evalcore.power.budget import Prices, plan_budget

QUANTITIES = {
    "corrected_win_rate": "Win rate corrected by human labels",
    "win_rate": "The judge's own win rate",
}

INTRO = (
    "Enter what a judge call and a human label cost. For the two models chosen, the plan splits the "
    "budget between judge calls and human labels so that the 95% interval is as narrow as possible: "
    "judge calls in proportion to how much the judge's scores vary, labels in proportion to how much "
    "the judge's errors vary, each divided by the square root of its price. The spreads are measured "
    "on this table's calls. The correction is prediction-powered (Angelopoulos, Bates, Fannjiang, "
    "Jordan and Zrnic, 2023)."
)


def budget_section(store, judge: str | None, models: list[str], *, key: str = "budget") -> None:
    """Budget and prices → the plan, its width, and which slot order to label first."""
    st.subheader("Spend a budget")
    with st.expander("How the plan is made"):
        st.markdown(INTRO)
    c1, c2, c3 = st.columns(3)
    a = c1.selectbox("First model", models, index=0, key=f"{key}_a")
    b = c2.selectbox("Second model", [m for m in models if m != a], index=0, key=f"{key}_b")
    quantity = c3.selectbox(
        "Interval on", list(QUANTITIES), format_func=QUANTITIES.get, key=f"{key}_quantity"
    )
    m1, m2, m3 = st.columns(3)
    budget = m1.number_input("Budget", min_value=0.01, value=100.0, step=10.0, key=f"{key}_amount")
    per_call = m2.number_input(
        "Price per judge call", min_value=0.0001, value=0.01, format="%.4f", key=f"{key}_call"
    )
    per_label = m3.number_input("Price per human label", min_value=0.0, value=0.5, key=f"{key}_label")
    try:
        plan = _ui.memo(
            (f"{key}_plan", judge, a, b, quantity, budget, per_call, per_label),
            lambda: plan_budget(
                store,
                model_a=a,
                model_b=b,
                budget=budget,
                prices=Prices(per_call, per_label),
                quantity=quantity,
                judge=judge,
            ),
        )
    except EvalcoreError as exc:
        _ui.info(exc)
        return
    st.success(_ui.md(plan.sentence()))
    _ui.tiles(
        [
            (
                q.name("budget_calls"),
                q.format("budget_calls", plan.calls),
                q.quantity("budget_calls").definition,
            ),
            (
                q.name("budget_labels"),
                q.format("budget_labels", plan.labels),
                q.quantity("budget_labels").definition,
            ),
            (
                q.name("planned_width"),
                q.format("planned_width", plan.predicted_width),
                q.quantity("planned_width").definition,
            ),
            (
                q.name("planned_spend"),
                q.format("planned_spend", plan.spent),
                q.quantity("planned_spend").definition,
            ),
        ]
    )
    if len(plan.label_orders):
        view = plan.label_orders.rename(columns={"order": "Slot order", "labelled": "Labelled so far"})
        view[q.name("label_share")] = [q.format("label_share", v) for v in plan.label_orders["label_share"]]
        _ui.table(
            view.drop(columns=["gap_sd", "label_share"]), plan.label_orders, "label_plan.csv", key=f"dl_{key}"
        )
        _ui.caption("Label first the slot order whose share is largest: its judge errors vary most.")
    for note in plan.notes:
        _ui.caption(note)
