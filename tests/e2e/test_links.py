"""Links in a real Chromium (issue 23, items 4–6): a link reproduces the view, a link that asks
for something the app cannot show says so, the evidence a number links to holds that number,
and every page is readable at 1400 px and at 390 px (a phone).

- **Reproduce**: for each control that changes a number, set it in one browser context, copy
  the URL, open it in a new context and compare what the page shows (every metric, every
  sentence of the main column and the data of every chart).
- **Unknown**: an unknown parameter name, an unknown value, an unknown page path and a link made
  with an unsaved upload each show a warning that names them.
- **Evidence**: the link of each aggregate (the Leaderboard's win-rate cell, the Calibration's
  disagreements, the Judge's flips, the Anchors' "beats every model") opens as many cases, in
  the unit clicked, as the aggregate says.
- **Readable**: nothing is cut (text in a box that hides its overflow, content past the right
  edge that no scroll bar reaches, a chart title under the chart's toolbar or past its edge, a
  chart label cut in the middle) on any page at 1400 and 390 px. A data table of a dozen
  quantities is wider than the page: it scrolls inside its own frame, and must show that it does
  (its scroll bar drawn, not an overlay; its first column pinned), or the test fails.

Screenshots of every page at both widths go to $VERDICTLAB_LINK_SHOTS (default
/tmp/shots-links).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

from evalcore.present.calibration_words import ALL_OPPONENTS  # noqa: E402

pytestmark = pytest.mark.e2e
SHOTS = Path(os.environ.get("VERDICTLAB_LINK_SHOTS", "/tmp/shots-links"))
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
    ("/calibration", _sidebar_number("Price per human label", "0.5"), "price_label"),
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
    ("/leaderboard?rounds=0", _toggle("Both-orders verdicts"), "orders"),
    ("/leaderboard?rounds=0", _select("Control for style", "Length"), "style"),
    ("/leaderboard?rounds=0", _radio("Sandwich (clustered, fast)"), "interval"),
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
def test_a_link_names_what_it_could_not_use(browser, st_app, base_url, path, named) -> None:
    context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    # a link made with an upload names no dataset (an upload has no name in a link)
    page = _open(context, st_app, path if "upload=" in path else path + ("&" if "?" in path else "?") + DEMO)
    alerts = " ".join(a.inner_text() for a in page.get_by_test_id("stAlert").all())
    context.close()
    for word in named:
        assert word in alerts, f"{path}: no warning names {word!r}: {alerts!r}"


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


def test_the_disagreements_link_opens_that_many_cases(browser, st_app, base_url) -> None:
    context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    page = _open(context, st_app, f"/calibration?{DEMO}&judge=sim-judge-first-slot")
    text = _follow(page, st_app, re.compile(r"disagree on whether"))
    n = _count(re.search(r"Read the ([\d,]+) both-orders verdicts?", text).group(1))
    assert n > 0
    assert _cases_total(page) == n, (text, _evidence(page))
    assert f"{n:,} labelled both-orders verdict" in _evidence(page)
    context.close()


def test_the_flips_link_opens_that_many_pairings(browser, st_app, base_url) -> None:
    context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    page = _open(context, st_app, f"/judge?{DEMO}&rounds=0")
    text = _follow(page, st_app, re.compile(r"flipped with the order"))
    n = _count(re.search(r"Read the ([\d,]+) pairings?", text).group(1))
    assert _cases_total(page) == n, (text, _evidence(page))
    assert f"{n:,} cases whose two orders disagree" in _evidence(page)
    context.close()


def test_the_beats_every_model_link_says_instructions_and_cases(browser, st_app, base_url) -> None:
    context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    page = _open(context, st_app, f"/anchors?{DEMO}")
    page.get_by_role("tab", name="Win-rate distributions").click()
    st_app.wait_idle(page)
    text = _follow(page, st_app, re.compile(r"beats every model"))
    found = re.search(r"Read the ([\d,]+) instructions? .* \(([\d,]+) cases?", text)
    instructions, cases = _count(found.group(1)), _count(found.group(2))
    assert cases > instructions > 0
    assert _cases_total(page) == cases
    assert f"{instructions:,} instruction" in _evidence(page)
    context.close()


#: The page position and the [row, column, rate, battles] of cell k of the win-rate matrix.
CELL = """k => {
  const g = [...document.querySelectorAll('.js-plotly-plot')]
    .find(g => g.data.length === 2 && g.data[0].type === 'heatmap');
  const L = g._fullLayout, box = g.getBoundingClientRect(), d = g.data[1];
  return {x: box.left + L.xaxis._offset + L.xaxis.d2p(d.x[k]),
          y: box.top + L.yaxis._offset + L.yaxis.d2p(d.y[k]), data: d.customdata[k]};
}"""


@pytest.mark.parametrize("orders", ["", "&orders=both"], ids=["single order", "both orders"])
def test_a_win_rate_cell_opens_its_battles_and_win_rate(browser, st_app, base_url, orders) -> None:
    context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1000})
    page = _open(context, st_app, f"/leaderboard?{DEMO}&rounds=0{orders}")
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
    context.close()


#: Everything cut on the page (empty = readable); see the module's docstring.
AUDIT = """() => {
  const out = [], tables = [];
  const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== "hidden";
  const main = document.querySelector('[data-testid="stMain"]');
  const vw = document.documentElement.clientWidth;
  for (const e of main.querySelectorAll("*")) {
    if (!shown(e) || e.clientWidth === 0 || e.closest('.js-plotly-plot')) continue;
    const cs = getComputedStyle(e), text = (e.innerText || "").trim();
    if (e.scrollWidth > e.clientWidth + 1 && (cs.overflowX === "hidden" || cs.overflowX === "clip") && text
        && !e.closest('[data-testid="stDataFrameResizable"]')) {
      out.push({kind: "cut", text: text.slice(0, 60), scroll: e.scrollWidth, client: e.clientWidth});
    }
    const r = e.getBoundingClientRect();
    if (r.right > vw + 1) {
      let scrolls = false;
      for (let a = e.parentElement; a && a !== main; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if ((o === "auto" || o === "scroll") && a.getBoundingClientRect().right <= vw + 1) { scrolls = true; break; }
      }
      if (!scrolls) out.push({kind: "past the right edge", text: text.slice(0, 60), right: Math.round(r.right)});
    }
  }
  for (const t of main.querySelectorAll('[data-testid="stDataFrameResizable"]')) {
    const s = t.querySelector(".dvn-scroller");
    // a table wider than its frame scrolls in it, with its scroll bar drawn (it takes room)
    if (s && s.scrollWidth > s.clientWidth + 1)
      tables.push({scroll: s.scrollWidth, client: s.clientWidth, overflow: getComputedStyle(s).overflowX,
                   bar: getComputedStyle(s).scrollbarWidth});
  }
  for (const chart of main.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    const svg = chart.querySelector(".main-svg");
    if (!svg || !shown(svg)) continue;
    const box = svg.getBoundingClientRect();
    for (const t of chart.querySelectorAll(".gtitle")) {
      const r = t.getBoundingClientRect();
      if (r.right > box.right + 1 || r.left < box.left - 1) out.push({kind: "title cut", text: t.textContent.slice(0, 60)});
      for (const bar of chart.querySelectorAll(".modebar")) {
        const m = bar.getBoundingClientRect();
        if (m.width && r.top < m.bottom && r.bottom > m.top && r.right > m.left && r.left < m.right)
          out.push({kind: "title under the toolbar", text: t.textContent.slice(0, 60)});
      }
    }
    for (const t of chart.querySelectorAll(".xtick text, .ytick text")) {
      if (/\\w…\\w/.test(t.textContent) && / /.test(t.textContent)) out.push({kind: "label cut in the middle", text: t.textContent});
    }
  }
  return {out, tables};
}"""


def _screenshot(page, path: Path) -> None:
    """The whole page (Streamlit scrolls inside its main column: the window grows to it first)."""
    size = page.viewport_size
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], min(int(height), 12000))})
    page.wait_for_timeout(400)  # layout only: no script run follows a resize
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)


def _pages() -> list[tuple[str, str]]:
    from tests.e2e.test_pages import PAGES

    return PAGES


@pytest.fixture(scope="module", params=[1400, 390], ids=["1400px", "390px"])
def sized(request, browser, st_app, base_url):
    context = browser.new_context(base_url=base_url, viewport={"width": request.param, "height": 900})
    page = context.new_page()
    st_app.open(page, "/?" + DEMO)
    yield page, request.param
    context.close()


@pytest.mark.parametrize("file,title", _pages(), ids=[Path(f).stem for f, _ in _pages()])
def test_nothing_is_cut_at_1400_and_390_px(sized, st_app, file, title) -> None:
    page, width = sized
    if width < 700:  # the sidebar is folded away on a phone: open each page by its link
        path = "/" if file == "app.py" else "/" + Path(file).stem
        st_app.open(page, path + "?" + DEMO)
    else:
        st_app.navigate(page, title)
    st_app.assert_no_exception(page)
    page.wait_for_timeout(500)
    found = page.evaluate(AUDIT)
    SHOTS.mkdir(parents=True, exist_ok=True)
    _screenshot(page, SHOTS / f"{Path(file).stem}-{width}.png")
    assert not found["out"], f"{title} at {width} px: {found['out']}"
    # a table wider than its frame scrolls inside it, and shows that it does: its scroll bar is
    # drawn (ui.readable.READABLE_CSS), its first column stays (ui.readable.count_columns)
    # (headless Chromium hides every scroll bar, so the bar's room cannot be measured here: the
    # frame must scroll and must not hide its bar, which a browser then draws)
    hidden = [t for t in found["tables"] if t["overflow"] not in ("auto", "scroll") or t["bar"] == "none"]
    assert not hidden, (
        f"{title} at {width} px: tables scroll sideways with no scroll bar drawn: {json.dumps(hidden)}"
    )
