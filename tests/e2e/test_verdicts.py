"""The Verdicts page in a real Chromium (issue 13): a win-rate cell opens that pair's verdicts, a
deep link works as the first request to a fresh server, and hostile text stays text.

Screenshots (1280 px wide) go to $VERDICTLAB_SCREENSHOTS (default: the temp folder).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pandas as pd
import pytest

from evalcore.present.verdicts import CASES_PER_PAGE
from tests.e2e.conftest import SCREENSHOTS
from tests.e2e.test_deep_links import _browser, _open, _outside, fresh_server  # noqa: F401 - fixture
from tests.e2e.test_hostile_names import _FROM_DATA

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e
TIMEOUT = 120_000
WIDTH = {"width": 1280, "height": 900}


#: The page position (and models) of cell k of the win-rate matrix's click layer (trace 1).
CELL = """k => {
  const g = [...document.querySelectorAll('.js-plotly-plot')]
    .find(g => g.data.length === 2 && g.data[0].type === 'heatmap');
  const L = g._fullLayout, box = g.getBoundingClientRect(), d = g.data[1];
  return {x: box.left + L.xaxis._offset + L.xaxis.d2p(d.x[k]),
          y: box.top + L.yaxis._offset + L.yaxis.d2p(d.y[k]), row: d.y[k], col: d.x[k]};
}"""


def _query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_a_win_rate_cell_opens_that_pairs_verdicts(browser, st_app, base_url: str) -> None:
    context = browser.new_context(base_url=base_url, viewport=WIDTH)
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    st_app.open(page, "/leaderboard?dataset=demo-all-pairs&judge=sim-judge-first-slot&rounds=0&tab=Win+rates")
    st_app.assert_no_exception(page)
    chart = page.get_by_test_id("stPlotlyChart").filter(has_text="Click a cell").first
    chart.scroll_into_view_if_needed()  # Streamlit draws a chart when it comes into view
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=TIMEOUT)
    page.wait_for_timeout(500)
    cell = page.evaluate(CELL, 3)  # the fourth cell of the top row
    page.mouse.move(cell["x"], cell["y"])
    expect(chart.locator(".hoverlayer .hovertext").first).to_contain_text("click to see these verdicts")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "verdicts_hover.png"))  # the viewport: the hover stays
    page.mouse.click(cell["x"], cell["y"])
    page.wait_for_url(re.compile(r"/verdicts\?"), timeout=TIMEOUT)
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    expect(page.locator("h1").first).to_contain_text("Verdicts")
    query = _query(page)
    row, col = cell["row"], cell["col"]
    assert (query.get("a"), query.get("b"), query.get("judge")) == (row, col, "sim-judge-first-slot")
    expect(page.get_by_role("combobox", name="Model")).to_have_value(row)
    expect(page.get_by_role("combobox", name="Against")).to_have_value(col)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(re.compile(rf"Cases 1–{CASES_PER_PAGE} of \d+")).first).to_be_visible()
    body = main.inner_text()
    assert body.count("Judge's reasoning, order") >= CASES_PER_PAGE  # the judge's text of each order
    assert "My final verdict is" in body and "Prompt" in body
    assert row in body and col in body
    st_app.screenshot(page, "verdicts_from_cell")
    assert not _outside(requests), _outside(requests)
    context.close()


def test_a_deep_link_is_the_first_request_to_a_fresh_server(fresh_server, playwright) -> None:  # noqa: F811
    browser = _browser(playwright)
    page = browser.new_page(viewport=WIDTH)
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    _open(page, fresh_server + "/verdicts?judge=sim-judge-steady&a=sim-maple&b=sim-oak&flipped=1")
    assert page.get_by_test_id("stException").count() == 0
    body = page.locator("body").inner_text()
    assert "Page not found" not in body
    assert page.locator("h1").first.inner_text().strip().endswith("Verdicts")
    assert page.get_by_role("combobox", name="Judge").input_value() == "sim-judge-steady"
    assert page.get_by_role("combobox", name="Model").input_value() == "sim-maple"
    assert page.get_by_role("combobox", name="Against").input_value() == "sim-oak"
    assert page.locator("label", has_text="The two orders disagree").locator("input").is_checked()
    assert "the two orders disagree" in body and "My final verdict is" in body
    assert page.get_by_test_id("stSidebar").get_by_role("link", name="Verdicts").count() == 1
    query = _query(page)
    assert query.get("flipped") == "1" and query.get("a") == "sim-maple"
    assert not _outside(requests), _outside(requests)
    browser.close()


HOST = "evil.example"
HOSTILE = (
    "<img src=x onerror=\"window.__pwned=1;alert('img')\">",
    "<script>window.__pwned=2;alert('script')</script>",
    f"[click me](https://{HOST}/link) ![pixel](https://{HOST}/pixel.png)",
    f"<https://{HOST}/auto> https://{HOST}/bare www.{HOST} me@{HOST}",
    f'<a href="https://{HOST}/a">a</a> <iframe src="https://{HOST}/frame"></iframe>',
)


@pytest.fixture(scope="module")
def hostile_text_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rows = [
        {
            "instruction_id": f"h{k}",
            "model_a": "model-a",
            "model_b": "model-b",
            "verdict": (k % 5) - 2,
            "prompt": text,
            "response_a": "## Answer\n\n**bold** and a list:\n\n- " + text,
            "response_b": text + "\n\n```html\n" + text + "\n```",
            "judge_output": "Reasoning: " + text + "\n\nMy final verdict is: [[A>B]]",
        }
        for k, text in enumerate(HOSTILE)
    ]
    path = tmp_path_factory.mktemp("hostile_text") / "hostile_text.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_hostile_text_is_shown_as_text_and_never_runs(
    browser, st_app, base_url: str, hostile_text_csv
) -> None:
    context = browser.new_context(base_url=base_url, viewport=WIDTH)
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    st_app.open(page, "/")
    st_app.upload(page, hostile_text_csv)
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    st_app.navigate(page, "Verdicts")
    st_app.assert_no_exception(page)
    main = page.get_by_test_id("stMain")
    expect(main.get_by_text(re.compile(r"Cases 1–5 of 5")).first).to_be_visible(timeout=TIMEOUT)
    body = main.inner_text().replace("\u2060", "")  # the invisible word joiners that stop autolinks
    for text in ("<script>window.__pwned=2;alert('script')</script>", "[click me](https://"):
        assert text in body, text  # shown as typed
    assert "bold" in body and "**bold**" not in body  # the answers' own Markdown is rendered
    page.wait_for_timeout(1000)  # time for an image error handler or a script to fire
    assert dialogs == []
    assert page.evaluate("() => window.__pwned") is None
    assert page.evaluate(_FROM_DATA) == []  # no <a> or <img> whose address comes from the data
    assert main.locator("script, iframe").count() == 0
    st_app.screenshot(page, "verdicts_hostile")
    assert not [u for u in requests if HOST in u], [u for u in requests if HOST in u]
    assert not _outside(requests), _outside(requests)
    context.close()
