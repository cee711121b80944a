"""The "Spend a budget" section (Anchor planning and Calibration pages): prices in, the plan of
judge calls and human labels with the narrowest interval out (evalcore.power.budget)."""

from __future__ import annotations

from functools import partial

import streamlit as st

import ui as _ui
from evalcore import quantities as q
from evalcore.errors import EvalcoreError
from evalcore.power.anchor_budget import plan_anchor_budget
from evalcore.power.budget import EXAMPLE_BUDGET, Prices, plan_budget
from evalcore.present import power as show
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


def link_params(key: str) -> tuple[str, ...]:
    """The link parameters of the budget section with this ``key`` (its controls, each kept in the
    link), for a page that hides the section in a closed tab."""
    return tuple(f"{key}_{name}" for name in ("a", "b", "on", "amount", "call", "label"))


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
    rest = [m for m in models if m != a]
    b = _ui.linked_choice(c2.selectbox, "Second model", rest, param=f"{key}_b", key=f"{key}_b")
    pick = {"param": f"{key}_on", "key": f"{key}_quantity", "format_func": QUANTITIES.get}
    quantity = _ui.linked_choice(c3.selectbox, "Interval on", list(QUANTITIES), **pick)
    m1, m2, m3 = st.columns(3)
    start = Prices.example(shared.per_call, shared.per_label)
    amount = {"param": f"{key}_amount", "key": f"{key}_amount", "step": 10.0}
    budget = _ui.linked_number(m1, "Budget", 0.01, 1e15, EXAMPLE_BUDGET, **amount)
    call = {"param": f"{key}_call", "key": f"{key}_call", "format": "%.4f"}
    per_call = _ui.linked_number(m2, "Price per judge call", 0.0001, 1e9, start.per_call, **call)
    label = {"param": f"{key}_label", "key": f"{key}_label"}
    per_label = _ui.linked_number(m3, "Price per human label", 0.0, 1e9, start.per_label, **label)
    ask = {"model_a": a, "model_b": b, "budget": budget, "quantity": quantity, "judge": judge}
    ask["prices"] = Prices(per_call, per_label)
    plan = _ui.memo_or_info(
        (f"{key}_plan", *ask.values()), lambda: plan_budget(store, **ask), errors=EvalcoreError
    )
    if plan is not None:
        if anchors:
            st.markdown("**The two models head to head**")
        _head_to_head(plan, quantity, key)
    if anchors:
        anchors_part(store, ask, key=key)


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
        view = show.label_orders_display(plan)  # the command prints the same table
        _ui.table(view, plan.label_orders, "label_plan.csv", key=f"dl_{key}")
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


def anchors_part(store, ask: dict, *, key: str) -> None:
    """How many anchors: the chosen number and the alternatives compared (a table); ``ask``: the
    head-to-head plan's keyword arguments."""
    st.markdown("**How many anchors**")
    st.caption(ANCHORS_INTRO)
    compute = partial(plan_anchor_budget, store, **ask)
    plan = _ui.memo_or_info((f"{key}_anchors", *ask.values()), compute, errors=EvalcoreError)
    if plan is None:
        return
    st.success(_ui.md(plan.sentence()))
    o = plan.options
    raw = o.assign(anchor_models=[", ".join(m) for m in o["anchor_models"]])
    _ui.table(show.anchor_budget_display(plan), raw, "anchor_budget.csv", key=f"dl_{key}_anchors")
    _ui.caption(
        "Each row adds the next most informative anchor to the ones above it and spends up to the "
        "budget (each row's spend is in the CSV). The widths are measured "
        f"on {q.format('pilot_instructions', int(o['pilot_instructions'].min()))} or more of this table's "
        "instructions."
    )
    _ui.caption(*plan.notes)
