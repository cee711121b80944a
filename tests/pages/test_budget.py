"""The Anchor planning page's "Spend a budget" section in AppTest: the plan the page shows is the
library's for the same pair, budget and prices, and a new price changes it."""

from __future__ import annotations

import pytest

from evalcore import quantities as q
from evalcore.power.budget import Prices, plan_budget
from tests.conftest import open_page


@pytest.fixture(scope="module")
def planning_page():
    return open_page("pages/anchor_planning.py", timeout=120)


def _metric(at, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def test_budget_section_shows_the_librarys_plan(planning_page, demo_store):
    at = planning_page
    assert not at.exception
    a, b = at.selectbox(key="budget_a").value, at.selectbox(key="budget_b").value
    judge = at.selectbox(key="anchors_judge_select").value
    plan = plan_budget(demo_store, model_a=a, model_b=b, budget=100.0, prices=Prices(0.01, 0.5), judge=judge)
    assert _metric(at, "Judge calls to buy") == f"{plan.calls:,}"
    assert _metric(at, "Human labels to buy") == f"{plan.labels:,}"
    assert _metric(at, "Planned spend").replace("\\", "") == f"{plan.spent:,.2f}"
    at.number_input(key="budget_amount").set_value(400.0).run()
    bigger = plan_budget(
        demo_store, model_a=a, model_b=b, budget=400.0, prices=Prices(0.01, 0.5), judge=judge
    )
    assert _metric(at, "Human labels to buy") == f"{bigger.labels:,}" and bigger.labels > plan.labels
    assert not at.exception


def test_budget_section_plans_the_rating_difference(planning_page, demo_store):
    at = planning_page
    at.selectbox(key="budget_quantity").set_value("rating_difference").run()
    assert not at.exception
    a, b = at.selectbox(key="budget_a").value, at.selectbox(key="budget_b").value
    judge = at.selectbox(key="anchors_judge_select").value
    amount = at.number_input(key="budget_amount").value
    plan = plan_budget(
        demo_store,
        model_a=a,
        model_b=b,
        budget=amount,
        prices=Prices(0.01, 0.5),
        quantity="rating_difference",
        judge=judge,
    )
    assert _metric(at, "Planned interval width, Elo points") == q.format(
        "planned_width_elo", plan.predicted_width_elo
    )
    assert at.query_params["budget_on"] == "rating_difference"


def test_budget_section_names_the_librarys_number_of_anchors(planning_page, demo_store):
    from evalcore.power.anchor_budget import plan_anchor_budget

    at = planning_page
    a, b = at.selectbox(key="budget_a").value, at.selectbox(key="budget_b").value
    judge = at.selectbox(key="anchors_judge_select").value
    quantity = at.selectbox(key="budget_quantity").value
    amount = at.number_input(key="budget_amount").value
    plan = plan_anchor_budget(
        demo_store,
        model_a=a,
        model_b=b,
        budget=amount,
        prices=Prices(0.01, 0.5),
        quantity=quantity,
        judge=judge,
    )
    shown = [s.value.replace("\\", "") for s in at.success]
    assert plan.sentence() in shown
    assert any(m.value == "**How many anchors**" for m in at.markdown)
    assert not at.exception
