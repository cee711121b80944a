"""The chart code is loaded after a first run so fast that the page never looked while it ran
(a text page on a warm server: Streamlit's state went from running to done between two of the
opening script's looks). Served by the browser itself, so that the run's speed is not left to
chance: the page is already drawn and done when the script first looks."""

from __future__ import annotations

import pytest

from ui import opening

pytest.importorskip("playwright.sync_api")

pytestmark = pytest.mark.e2e

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
