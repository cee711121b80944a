"""The Power page's "Stop judging now" section in a real browser: the answer, the tiles, the
curve with its stopping point, and the switch to "is the leader really first"."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

TIMEOUT = 90_000


def test_power_page_shows_the_confidence_sequence(page, st_app) -> None:
    st_app.open(page, "/power")
    st_app.assert_no_exception(page)
    section = page.get_by_test_id("stHeading").filter(has_text="Stop judging now")
    section.scroll_into_view_if_needed()
    expect(section.first).to_be_visible(timeout=TIMEOUT)
    tile = page.get_by_test_id("stMetric").filter(has_text="Verdicts to a decision")
    expect(tile.first).to_be_visible(timeout=TIMEOUT)
    expect(
        page.get_by_test_id("stMetric").filter(has_text="Rating difference, anytime-valid range").first
    ).to_be_visible()
    chart = page.get_by_test_id("stPlotlyChart").filter(has_text="as verdicts arrive")
    chart.first.scroll_into_view_if_needed()
    expect(chart.first.locator(".main-svg").first).to_be_visible(timeout=TIMEOUT)
    st_app.screenshot(page, "power_monitor_pair")
    page.get_by_text("Is the leader really first", exact=True).click()
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    expect(page.get_by_test_id("stPlotlyChart").filter(has_text="smallest").first).to_be_visible(
        timeout=TIMEOUT
    )
    st_app.screenshot(page, "power_monitor_leader")
