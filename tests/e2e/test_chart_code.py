"""The browser's chart code (Streamlit's Plotly script, 4.7 MB) is loaded once the first page has
been drawn, in idle time, so a chart page opened next does not load it within its own run
(:mod:`ui.opening`)."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

#: How many times the page has fetched Streamlit's Plotly script.
LOADS = """() => performance.getEntriesByType('resource')
  .filter((e) => /\\/static\\/js\\/PlotlyChart\\.[^/]*\\.js/.test(e.name)).length"""


def test_a_page_without_charts_loads_the_chart_code_after_its_run(context, st_app) -> None:
    page = context.new_page()
    st_app.open(page, "/methods")  # text only: no chart asks for Plotly
    st_app.assert_no_exception(page)
    page.wait_for_function(f"() => ({LOADS})() === 1", timeout=30_000)
    assert page.locator(".js-plotly-plot").count() == 0  # loaded, nothing drawn with it
    # the next page's charts use the module already loaded: no second fetch
    st_app.navigate(page, "Leaderboard")
    st_app.assert_no_exception(page)
    expect(page.locator(".js-plotly-plot").first).to_be_visible(timeout=30_000)
    assert page.evaluate(LOADS) == 1
