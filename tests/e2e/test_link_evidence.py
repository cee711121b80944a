"""Links in a real Chromium (issue 23, items 5 and 6): a link that asks for something the app
cannot show says so, and the evidence a number links to holds that number.

- **Unknown**: an unknown parameter name, an unknown value, an unknown page path and a link made
  with an unsaved upload each show a warning that names them.
- **Evidence**: the link of each aggregate (the Leaderboard's win-rate cell, the Calibration's
  disagreements, the Judge's flips, the Anchors' "beats every model") opens as many cases, in
  the unit clicked, as the aggregate says.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

from tests.e2e.test_links import DEMO, _open  # noqa: E402

pytestmark = pytest.mark.e2e

WARNINGS = [
    ("/leaderboard?colour=red&rounds=0", ["colour"]),  # an unknown parameter name
    ("/leaderboard?interval=boot&rounds=0", ["interval=boot"]),  # an unknown value
    ("/leaderboard?rounds=lots", ["rounds=lots"]),
    ("/anchors?anchor=sim-larhc", ["anchor=sim-larhc"]),  # an anchor typo, replaced in silence before
    ("/power?two_sided=maybe", ["two_sided=maybe"]),
    ("/leaderbord", ["/leaderbord"]),  # an unknown page path
    ("/overview?upload=our_run.csv", ["our_run.csv", "unsaved upload"]),  # made with an upload
    ("/verdicts?verdict=maybe", ["verdict=maybe"]),
    ("/power?alpha=lots", ["alpha=lots"]),  # a number that is not one
    ("/power?power=2", ["power=2"]),  # out of range
    ("/power?edges=0.05,0.07", ["edges=0.05,0.07", "0.07"]),  # one edge not offered
    ("/power?simulations=7", ["simulations=7"]),
    ("/anchor_planning?plan_models=1", ["plan_models=1"]),
    ("/power?rounds=200", ["rounds"]),  # a setting of another page
]


@pytest.mark.parametrize("path,named", WARNINGS, ids=[w[0] for w in WARNINGS])
def test_a_link_names_what_it_could_not_use(context, st_app, path, named) -> None:
    # a link made with an upload names no dataset (an upload has no name in a link)
    page = _open(context, st_app, path if "upload=" in path else path + ("&" if "?" in path else "?") + DEMO)
    alerts = page.get_by_test_id("stAlert")
    for word in named:
        # asked again until it holds (a page still drawing replaces its boxes: reading each box
        # of a list taken a moment before timed out on a box that had gone, on a loaded machine)
        expect(alerts.filter(has_text=word).first, f"{path}: no warning names {word!r}").to_be_attached()


def _count(text: str) -> int:
    return int(text.replace(",", ""))


def _cases_total(page) -> int:
    line = page.get_by_test_id("stMain").get_by_text(re.compile(r"^Cases? [\d,–]+ of [\d,]+")).first
    return _count(re.search(r"of ([\d,]+)", line.inner_text()).group(1))


def _evidence(page) -> str:
    return page.locator(".st-key-vd_evidence").inner_text()


def _follow(page, st_app, link_text: re.Pattern):
    link = page.get_by_test_id("stPageLink").filter(has_text=link_text).first
    text = link.inner_text()
    link.click()
    page.wait_for_url(re.compile(r"/verdicts\?"), timeout=120_000)
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    return text


def test_the_disagreements_link_opens_that_many_cases(context, st_app) -> None:
    page = _open(context, st_app, f"/calibration?{DEMO}&judge=sim-judge-first-slot")
    text = _follow(page, st_app, re.compile(r"disagree on whether"))
    n = _count(re.search(r"Read the ([\d,]+) both-orders verdicts?", text).group(1))
    assert n > 0
    assert _cases_total(page) == n, (text, _evidence(page))
    assert f"{n:,} labelled both-orders verdict" in _evidence(page)


def test_the_flips_link_opens_that_many_pairings(context, st_app) -> None:
    page = _open(context, st_app, f"/judge?{DEMO}&rounds=0")
    text = _follow(page, st_app, re.compile(r"flipped with the order"))
    n = _count(re.search(r"Read the ([\d,]+) pairings?", text).group(1))
    assert _cases_total(page) == n, (text, _evidence(page))
    assert f"{n:,} cases whose two orders disagree" in _evidence(page)


def test_the_beats_every_model_link_says_instructions_and_cases(context, st_app) -> None:
    page = _open(context, st_app, f"/anchors?{DEMO}")
    page.get_by_role("tab", name="Win-rate distributions").click()
    st_app.wait_idle(page)
    text = _follow(page, st_app, re.compile(r"beats every model"))
    found = re.search(r"Read the ([\d,]+) instructions? .* \(([\d,]+) cases?", text)
    instructions, cases = _count(found.group(1)), _count(found.group(2))
    assert cases > instructions > 0
    assert _cases_total(page) == cases
    assert f"{instructions:,} instruction" in _evidence(page)


#: The page position and the [row, column, rate, battles] of cell k of the win-rate matrix.
CELL = """k => {
  const g = [...document.querySelectorAll('.js-plotly-plot')]
    .find(g => g.data.length === 2 && g.data[0].type === 'heatmap');
  const L = g._fullLayout, box = g.getBoundingClientRect(), d = g.data[1];
  return {x: box.left + L.xaxis._offset + L.xaxis.d2p(d.x[k]),
          y: box.top + L.yaxis._offset + L.yaxis.d2p(d.y[k]), data: d.customdata[k]};
}"""


@pytest.mark.parametrize("orders", ["", "&orders=both"], ids=["single order", "both orders"])
def test_a_win_rate_cell_opens_its_battles_and_win_rate(context, st_app, orders) -> None:
    page = _open(context, st_app, f"/leaderboard?{DEMO}&rounds=0{orders}&tab=Win+rates")  # its tab
    chart = page.get_by_test_id("stPlotlyChart").filter(has_text="Click a cell").first
    chart.scroll_into_view_if_needed()
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=120_000)
    page.wait_for_timeout(500)
    cell = page.evaluate(CELL, 2)
    _, _, rate, battles = cell["data"]
    page.mouse.click(cell["x"], cell["y"])
    page.wait_for_url(re.compile(r"/verdicts\?"), timeout=120_000)
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    said = _evidence(page)
    assert f"{int(battles):,} {'both-orders verdicts' if orders else 'battles'}" in said, said
    assert f"{100 * rate:.1f}%" in said, said
    assert f"{_cases_total(page):,} cases" in said
