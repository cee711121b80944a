"""The browser's chart code (Streamlit's Plotly script, 4.7 MB) is loaded once the first page has
been drawn, in idle time, so a chart page opened next does not load it within its own run
(:mod:`ui.opening`)."""

from __future__ import annotations

import pytest

from ui import opening

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


# A first run so fast that the opening script never looked while it ran (a text page on a warm
# server: Streamlit's state went from running to done between two of its looks). The browser
# serves the page itself, already drawn and done when the script first looks, so that the run's
# speed is not left to chance.
ORIGIN = "http://verdict-lab.test"
DONE = (
    '<div data-testid="stApp" data-test-script-state="notRunning">'
    '<div data-testid="stMain"><h1>Methods</h1></div></div>'
)


def test_a_run_that_ended_before_the_first_look_still_loads_the_chart_code(context) -> None:
    assert opening.CHART_CODE is not None
    html = opening.with_opening(f"<html><body>{DONE}{opening.ROOT.decode()}</body></html>".encode())
    fetched: list[str] = []

    def chart(route) -> None:
        fetched.append(route.request.url)
        route.fulfill(status=200, content_type="text/javascript", body="export {};")

    page = context.new_page()
    page.route(f"{ORIGIN}/", lambda r: r.fulfill(status=200, content_type="text/html", body=html))
    page.route(f"{ORIGIN}/static/js/**", chart)
    page.goto(f"{ORIGIN}/")
    # the words go at the first look (the page has drawn its own); the chart code follows, idle
    page.wait_for_function("() => !document.getElementById('vl-opening')", timeout=10_000)
    page.wait_for_function(
        "() => performance.getEntriesByType('resource').some((e) => e.name.includes('PlotlyChart'))",
        timeout=15_000,
    )
    assert fetched == [f"{ORIGIN}/{opening.CHART_CODE.removeprefix('./')}"]
