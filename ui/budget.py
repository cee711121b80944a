"""The "Spend a budget" section (Anchor planning and Calibration pages): prices in, the plan of
judge calls and human labels with the narrowest interval out (evalcore.power.budget)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import ui as _ui
from evalcore import quantities as q
from evalcore.errors import EvalcoreError
from evalcore.power.anchor_budget import plan_anchor_budget
from evalcore.power.budget import Prices, plan_budget
from evalcore.present.display import tile

QUANTITIES = {
    "corrected_win_rate": "Win rate corrected by human labels",
    "win_rate": "The judge's own win rate",
    "rating_difference": "Rating difference (Elo points)",
}

INTRO = (
    "Enter what a judge call and a human label cost. For the two models chosen, the plan splits the "
    "budget between judge calls and human labels so that the 95% interval is as narrow as possible: "
    "judge calls in proportion to how much the judge's scores vary, labels in proportion to how much "
    "the judge's errors vary, each divided by the square root of its price. The spreads are measured "
    "on this table's calls. The correction is prediction-powered (Angelopoulos, Bates, Fannjiang, "
    "Jordan and Zrnic, 2023)."
)


def budget_section(
    store,
    judge: str | None,
    models: list[str],
    *,
    key: str = "budget",
    prices: _ui.PriceInput | None = None,
    anchors: bool = False,
) -> None:
    """Budget and prices → the plan, its width, and which slot order to label first; with
    ``anchors``, also how many anchors to judge every model against. The prices start on the
    sidebar's shared ``prices`` when given."""
    shared = prices or _ui.PriceInput()
    st.subheader("Spend a budget")
    st.caption(INTRO)
    # every control changes the plan's numbers, so each is kept in the link (prefixed by the
    # section's key: the Calibration page has its own)
    c1, c2, c3 = st.columns(3)
    a = _ui.linked_choice(c1.selectbox, "First model", models, param=f"{key}_a", key=f"{key}_a")
    b = _ui.linked_choice(
        c2.selectbox, "Second model", [m for m in models if m != a], param=f"{key}_b", key=f"{key}_b"
    )
    quantity = _ui.linked_choice(
        c3.selectbox,
        "Interval on",
        list(QUANTITIES),
        param=f"{key}_on",
        key=f"{key}_quantity",
        format_func=QUANTITIES.get,
    )
    m1, m2, m3 = st.columns(3)
    budget = _ui.linked_number(m1, "Budget", 0.01, 1e15, 100.0, f"{key}_amount", f"{key}_amount", step=10.0)
    call = float(shared.per_call) if shared.per_call else 0.01
    per_call = _ui.linked_number(
        m2, "Price per judge call", 0.0001, 1e9, call, f"{key}_call", f"{key}_call", format="%.4f"
    )
    label = float(shared.per_label) if shared.per_label is not None else 0.5
    per_label = _ui.linked_number(
        m3, "Price per human label", 0.0, 1e9, label, f"{key}_label", f"{key}_label"
    )
    plan = _ui.memo_or_info(
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
        errors=EvalcoreError,
    )
    if plan is not None:
        if anchors:
            st.markdown("**The two models head to head**")
        _head_to_head(plan, quantity, key)
    if anchors:
        anchors_part(store, judge, a, b, quantity, budget, Prices(per_call, per_label), key=key)


def _head_to_head(plan, quantity: str, key: str) -> None:
    """The head-to-head plan: its sentence, tiles, the slot orders to label and its notes."""
    st.success(_ui.md(plan.sentence()))
    elo = quantity == "rating_difference"
    width_id, width_attr = (
        ("planned_width_elo", "predicted_width_elo") if elo else ("planned_width", "predicted_width")
    )
    shown = {"budget_calls": plan.calls, "budget_labels": plan.labels, width_id: getattr(plan, width_attr)}
    shown["planned_spend"] = plan.spent
    _ui.tiles([tile(qid, value, None) for qid, value in shown.items()])  # definitions as help
    if len(plan.label_orders):
        view = plan.label_orders.rename(columns={"order": "Slot order", "labelled": "Labelled so far"})
        view[q.name("label_share")] = [q.format("label_share", v) for v in plan.label_orders["label_share"]]
        _ui.table(
            view.drop(columns=["gap_sd", "label_share"]), plan.label_orders, "label_plan.csv", key=f"dl_{key}"
        )
        _ui.caption("Label first the slot order whose share is largest: its judge errors vary most.")
    _ui.caption(*plan.notes)


ANCHORS_INTRO = (
    "Judging every model of the table against a few anchor models instead of every pair: more "
    "anchors cost more judge calls per instruction, so the budget buys fewer instructions, but each "
    "instruction compares the two models through more anchors. For each number of anchors (the most "
    "informative first), the plan below predicts the width of the 95% interval on the two models' "
    "rating difference, or on the head-to-head win rate it implies, from this table's calls; the "
    "narrowest is chosen (anchors: Don-Yehiya, Yehudai, Choshen and Abend, 2026)."
)


def anchors_part(
    store, judge, a: str, b: str, quantity: str, budget: float, prices: Prices, *, key: str
) -> None:
    """How many anchors: the chosen number and the alternatives compared (a table)."""
    st.markdown("**How many anchors**")
    st.caption(ANCHORS_INTRO)
    plan = _ui.memo_or_info(
        (f"{key}_anchors", judge, a, b, quantity, budget, prices.per_call, prices.per_label),
        lambda: plan_anchor_budget(
            store, model_a=a, model_b=b, budget=budget, prices=prices, quantity=quantity, judge=judge
        ),
        errors=EvalcoreError,
    )
    if plan is None:
        return
    st.success(_ui.md(plan.sentence()))
    width_id = "planned_width_elo" if quantity == "rating_difference" else "planned_width"
    o = plan.options
    view = {
        q.name("anchors_chosen"): [f"{k} (chosen)" if k == plan.chosen else str(k) for k in o["anchors"]],
        "Anchor added": [m[-1] for m in o["anchor_models"]],
        q.name("instructions_affordable"): [
            q.format("instructions_affordable", v) for v in o["instructions"]
        ],
        q.name("size_calls"): [q.format("size_calls", v) for v in o["judge_calls"]],
    }
    if plan.corrected:
        view[q.name("labelled_instructions")] = [
            q.format("labelled_instructions", v) for v in o["labelled_instructions"]
        ]
    view[q.name(width_id)] = [q.format(width_id, v) for v in o[plan.width_column]]
    raw = o.assign(anchor_models=[", ".join(m) for m in o["anchor_models"]])
    _ui.table(pd.DataFrame(view), raw, "anchor_budget.csv", key=f"dl_{key}_anchors")
    _ui.caption(
        "Each row adds the next most informative anchor to the ones above it and spends up to the "
        "budget (each row's spend is in the CSV). The widths are measured "
        f"on {q.format('pilot_instructions', int(o['pilot_instructions'].min()))} or more of this table's "
        "instructions."
    )
    _ui.caption(*plan.notes)
