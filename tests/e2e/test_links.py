"""Links in a real Chromium (issue 23, item 4): a link reproduces the view.

For each control that changes a number, set it in one browser context, copy the URL, open it in
a new context and compare what the page shows (every metric, every sentence of the main column
and the data of every chart).

The links that name what they could not use and the evidence behind an aggregate are in
``test_link_evidence``; readability at 1400 and 390 px in ``test_readable_widths`` (separate
files, so that the browser tests spread over the test workers).
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

from evalcore.present.calibration_words import ALL_OPPONENTS  # noqa: E402

pytestmark = pytest.mark.e2e
DEMO = "dataset=demo-all-pairs"

#: What a page shows, as text: metric values, the main column's words and every chart's data.
SHOWN = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const metrics = [...main.querySelectorAll('[data-testid="stMetricValue"]')].map(e => e.innerText.trim());
  const words = [...main.querySelectorAll('[data-testid="stMarkdownContainer"], [data-testid="stAlert"], [data-testid="stCaptionContainer"]')]
    .map(e => e.innerText.trim()).filter(t => t);
  const charts = [...main.querySelectorAll('.js-plotly-plot')].filter(g => g.getClientRects().length > 0).map(g => JSON.stringify(
    (g.data || []).map(d => [d.x, d.y, d.z, d.text])));
  const inputs = [...main.querySelectorAll('input')].map(e => (e.type === 'checkbox' || e.type === 'radio') ? String(e.checked) : e.value).filter(v => v !== '');
  return {metrics, words, charts, inputs};
}"""


def _open(context, st_app, path: str):
    page = context.new_page()
    st_app.open(page, path)
    st_app.assert_no_exception(page)
    return page


def _shown(page) -> dict:
    """What the page shows, read once it has settled: two passes in a row that read the same
    (on a busy machine a chart scrolled past may mount a moment later)."""
    last = None
    for _ in range(4):
        now = _read(page)
        if now == last:
            return now
        last = now
        page.wait_for_timeout(700)
    return last


def _read(page) -> dict:
    # Streamlit draws a chart when it comes into view: scroll the page through, then wait for
    # each chart's Plotly drawing
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    for top in range(0, int(height) + 600, 600):
        page.evaluate(f"() => document.querySelector('[data-testid=\"stMain\"]').scrollTo(0, {top})")
        page.wait_for_timeout(150)
    for chart in page.get_by_test_id("stPlotlyChart").all():
        if not chart.is_visible():  # on a tab not shown
            continue
        chart.scroll_into_view_if_needed()
        expect(chart.locator(".main-svg").first).to_be_visible(timeout=60_000)
    page.wait_for_timeout(300)
    return page.evaluate(SHOWN)


def _toggle(label: str):
    def act(page):
        page.get_by_test_id("stMain").get_by_text(label, exact=True).first.click()

    return act


def _radio(label: str):
    def act(page):
        page.get_by_test_id("stMain").get_by_text(label, exact=True).first.click()

    return act


def _select(name: str, option: str):
    def act(page):
        box = page.get_by_test_id("stMain").get_by_role("combobox", name=name).first
        box.click()
        box.fill(option)  # type to filter the options, then take the first (Enter)
        page.keyboard.press("Enter")

    return act


def _number(label: str, value: str):
    def act(page):
        box = page.get_by_test_id("stMain").get_by_role("spinbutton", name=label, exact=True).first
        box.fill(value)
        box.press("Enter")

    return act


def _sidebar_number(label: str, value: str):
    def act(page):
        box = page.get_by_test_id("stSidebar").get_by_role("spinbutton", name=label, exact=True).first
        box.fill(value)
        box.press("Enter")

    return act


def _step_slider(label: str):
    """Move a (select) slider one step to the right with the keyboard."""

    def act(page):
        widget = page.get_by_test_id("stMain").get_by_test_id("stSlider").filter(has_text=label).first
        widget.get_by_role("slider").first.focus()
        page.keyboard.press("ArrowRight")

    return act


def _other_option(group: str):
    """Pick the option of the radio group labelled ``group`` that is not picked."""

    def act(page):
        radio = page.get_by_test_id("stMain").get_by_test_id("stRadio").filter(has_text=group).first
        radio.locator("label:has(input:not(:checked))").first.click()

    return act


def _in_tab(tab: str, act):
    def both(page):
        page.get_by_role("tab", name=tab).click()
        act(page)

    return both


#: (page, what to do, parameter the link must carry). Each control changes a number on its page
#: (on Anchor planning's first two tabs, the number its button then computes).
CONTROLS = [
    ("/power", _number("Significance level", "0.1"), "alpha"),
    ("/power", _number("Power", "0.9"), "power"),
    ("/power", _select("Edges to detect", "+20%"), "edges"),
    ("/power?informativeness=Type+it+in", _number("Informativeness (0 to 1)", "0.3"), "typed_i"),
    ("/power", _number("Edge window from", "0.1"), "window"),
    ("/power", _select("Anchors", "sim-oak"), "pool"),
    ("/power", _radio("One model pair"), "mode"),
    ("/power?mode=One+model+pair", _select("Model A", "sim-oak"), "model_a"),
    ("/power", _number("Most instructions", "1000"), "largest"),
    ("/power", _sidebar_number("Price per judge call", "0.02"), "price_call"),
    (
        "/calibration",
        _in_tab("Floor and sample size", _sidebar_number("Price per human label", "0.5")),
        "price_label",
    ),
    ("/power", _number("Random seed", "3"), "sim_seed"),
    ("/power", _step_slider("Simulations per sample size"), "simulations"),
    ("/power", _radio("Against the anchor"), "compare"),
    ("/anchor_planning", _in_tab("Planner", _number("Models to evaluate", "40")), "plan_models"),
    ("/anchor_planning", _in_tab("Planner", _toggle("A natural anchor exists")), "plan_natural"),
    ("/anchor_planning", _in_tab("Planner", _toggle("A full ranking is needed")), "plan_full"),
    (
        "/anchor_planning",
        _in_tab("Planner", _number("Budget in judge calls (0 = no limit)", "50000")),
        "plan_budget",
    ),
    (
        "/anchor_planning",
        _in_tab("Planner", _number("Instructions planned (0 = as many as needed)", "500")),
        "plan_instructions",
    ),
    ("/anchor_planning", _in_tab("Planner", _other_option("Orders per pair")), "plan_orders"),
    (
        "/anchor_planning",
        _in_tab("Planner", _number("Informativeness of the chosen anchor", "0.3")),
        "plan_informativeness",
    ),
    (
        "/anchor_planning",
        _in_tab("Planner", _number("Decisive share of direct comparisons", "0.5")),
        "plan_decisive",
    ),
    ("/anchor_planning", _in_tab("Planner", _number("Edge to detect", "0.1")), "plan_edge"),
    ("/anchor_planning", _in_tab("Planner", _number("Pairs of interest", "4")), "plan_pairs"),
    ("/anchor_planning", _in_tab("Planner", _number("Budget", "500")), "budget_amount"),
    ("/anchor_planning", _in_tab("Planner", _number("Price per human label", "2")), "budget_label"),
    ("/anchor_planning", _in_tab("Planner", _select("First model", "sim-oak")), "budget_a"),
    ("/anchor_planning", _number("Instructions k", "12"), "pilot_k"),
    ("/anchor_planning", _number("Repetitions R", "20"), "pilot_reps"),
    ("/anchor_planning", _in_tab("Sweeps", _number("Random orders", "20")), "count_orders"),
    ("/anchors", _number("Instruction resamples", "100"), "resamples"),
    ("/judge", _toggle("Resample intervals (slower)"), "resample"),
    ("/judge?resample=1&rounds=100", _number("Bootstrap rounds", "200"), "rounds"),
    ("/judge", _in_tab("Agreement with humans", _toggle("Compare both-orders verdicts")), "agree_orders"),
    ("/leaderboard?rounds=0", _toggle("Both-orders verdicts"), "orders"),
    ("/leaderboard?rounds=0", _select("Control for style", "Length"), "style"),
    ("/leaderboard?rounds=0", _radio("Sandwich (clustered, fast)"), "interval"),
    ("/leaderboard?rounds=0", _in_tab("In time", _select("As of", "2025-01-20")), "as_of"),
    ("/anchors", _radio("tau-a"), "tau"),
    ("/anchors", _toggle("Both-orders verdicts"), "orders"),
    ("/anchors", _select("Chosen anchor (highlighted in the figures, explored below)", "sim-oak"), "anchor"),
    ("/power", _toggle("Two-sided"), "two_sided"),
    ("/power", _toggle("Exact binomial"), "exact"),
    ("/power", _select("Anchor", "sim-oak"), "anchor"),
    ("/calibration", _radio("Each judge call"), "unit"),
    ("/calibration", _select("Against", ALL_OPPONENTS), "against"),
    ("/leaderboard?rounds=0", _select("Judge", "sim-judge-tie-happy"), "judge"),
]


@pytest.mark.parametrize(
    "path,act,param", CONTROLS, ids=[f"{p.split('?')[0][1:]}-{param}" for p, _, param in CONTROLS]
)
def test_a_copied_link_shows_the_same_numbers(browser, st_app, base_url, path, act, param) -> None:
    first = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    page = _open(first, st_app, path + ("&" if "?" in path else "?") + DEMO)
    before = _shown(page)
    act(page)
    st_app.wait_idle(page)
    st_app.assert_no_exception(page)
    after = _shown(page)
    assert after != before, f"the control behind {param!r} changed nothing on {path}"
    url = page.url
    assert re.search(rf"[?&]{param}=", url), f"{param!r} is not in the link: {url}"
    first.close()
    second = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    copy = _open(second, st_app, url)
    reopened = _shown(copy)
    second.close()
    for part in ("metrics", "charts", "inputs"):
        assert reopened[part] == after[part], f"{path} {param}: the {part} differ in the copied link {url}"
    assert reopened["words"] == after["words"], (
        f"{path} {param}: the sentences differ in the copied link {url}"
    )
