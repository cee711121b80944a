"""Several judges, one ranking, in a real headless Chromium: the demo's three judges pooled on
the Leaderboard page, and each judge's weight beside its certification on the Judge page."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

TIMEOUT = 120_000


def test_pooled_ranking_and_judge_weights_are_drawn(page, st_app) -> None:
    st_app.open(page, "/leaderboard?dataset=demo-all-pairs")
    st_app.assert_no_exception(page)
    page.get_by_role("tab", name="Several judges").click()  # the page draws its open tab only
    st_app.wait_idle(page)
    heading = page.get_by_role("heading", name="Several judges, one ranking")
    expect(heading).to_be_visible(timeout=TIMEOUT)
    heading.scroll_into_view_if_needed()
    expect(page.get_by_text("Agreement of plain pooling").first).to_be_visible(timeout=TIMEOUT)
    st_app.screenshot(page, "leaderboard_several_judges")

    st_app.navigate(page, "Judge")
    st_app.assert_no_exception(page)
    page.get_by_role("tab", name="Sheet and weights").click()  # the page draws its open tab only
    st_app.wait_idle(page)
    weights = page.get_by_role("heading", name="Weights in the pooled ranking")
    expect(weights).to_be_visible(timeout=TIMEOUT)
    weights.scroll_into_view_if_needed()
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    st_app.screenshot(page, "judge_weights")
