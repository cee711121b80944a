"""The Anchor planning page's "How many anchors" part in a real browser: the chosen number of
anchors in a sentence, the table of alternatives, and a copied link that shows the same plan."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

TIMEOUT = 90_000
PATH = (
    "/anchor_planning?dataset=demo-all-pairs&budget_amount=300&budget_label=0.2&budget_on=rating_difference"
)


def _sentence(page) -> str:
    alert = page.get_by_test_id("stAlert").filter(has_text="Judging all").first
    alert.scroll_into_view_if_needed()
    expect(alert).to_be_visible(timeout=TIMEOUT)
    return alert.inner_text()


def test_the_planner_shows_the_number_of_anchors_and_the_link_keeps_it(browser, st_app, base_url) -> None:
    first = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    page = first.new_page()
    st_app.open(page, PATH)
    page.get_by_role("tab", name="Planner").click()
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    expect(page.get_by_text("How many anchors", exact=True).first).to_be_visible(timeout=TIMEOUT)
    said = _sentence(page)
    assert re.search(r"\b\d+ anchors? \(.+\) gives? the narrowest interval", said), said
    assert "Elo points wide" in said
    # the alternatives compared: a table with a download of its numbers
    table = page.get_by_test_id("stDataFrame").filter(has=page.locator("canvas")).last
    expect(table).to_be_visible(timeout=TIMEOUT)
    st_app.screenshot(page, "anchor_planning_anchors")
    url = page.url
    assert "budget_amount=300" in url and "budget_label=0.2" in url, url
    first.close()
    second = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    again = second.new_page()
    st_app.open(again, url)
    again.get_by_role("tab", name="Planner").click()
    st_app.wait_idle(again)
    assert _sentence(again) == said
    second.close()
