"""The Anchor planning page's "Spend a budget" section in AppTest: the plan the page shows is the
library's for the same pair, budget and prices, and a new price changes it."""

from __future__ import annotations

import pytest

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
