"""The shared Prices input: a price in the link shows the cost beside the Power page's size to
collect (its instructions in judge calls and money), and no price shows none."""

from __future__ import annotations

import re

from tests.conftest import new_app, open_page, open_tab


def _texts(at) -> list[str]:
    return [str(e.value) for e in (*at.info, *at.success)]


def test_a_price_in_the_link_shows_the_cost_on_the_power_page(demo_store):
    at = new_app(timeout=120)
    at.query_params["price_call"] = "0.01"
    at.run()
    at.switch_page("pages/power.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="prices_price_call").value == 0.01
    answer = next(t for t in _texts(at) if t.startswith("**About "))
    instructions = int(re.search(r"About ([\d,]+) instructions", answer).group(1).replace(",", ""))
    per = len(demo_store.models()) - 1  # each other model against the anchor, one slot order
    calls = instructions * per
    expected = f"{instructions:,} instructions, that is {calls:,} judge calls, costing {calls * 0.01:,.2f}"
    assert any(expected in t for t in _texts(at)), _texts(at)
    assert any("Cost" in df.value.columns for df in at.dataframe)
    assert at.query_params["price_call"] == "0.01"


def test_no_price_shows_no_cost():
    at = open_page("pages/power.py", timeout=120)
    assert not any("In money" in t for t in _texts(at))
    assert not any("Cost" in df.value.columns for df in at.dataframe)
    assert "price_call" not in at.query_params


def test_the_prices_follow_to_the_planner_and_the_size_picker():
    at = new_app(timeout=180)
    at.query_params["price_call"] = "0.01"
    at.query_params["price_label"] = "0.5"
    at.run()
    at.switch_page("pages/anchor_planning.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("in money:" in t for t in _texts(at)), _texts(at)
    # the budget section starts on the shared prices
    assert at.number_input(key="budget_call").value == 0.01
    at.switch_page("pages/calibration.py").run()
    assert not at.exception, [e.value for e in at.exception]
    open_tab(at, "cal_tab", "Floor and sample size")  # the size picker's tab
    assert any(t.startswith("In money:") and "human labels, costing" in t for t in _texts(at)), _texts(at)
    at.switch_page("pages/overview.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="prices_price_label").value == 0.5
    assert any(
        str(c.value).startswith("In money:") and "judge calls, costing" in str(c.value) for c in at.caption
    )
