"""Deep links as the first request to a fresh server, and offline pages (real Chromium).

A shared link must open the right page with its settings even when it is the first request a
newly started server sees (Streamlit's multipage router decides on that request), show the
product's own sidebar, and say so when a setting in it is unknown. No request may leave this
machine while the pages are walked.
"""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from tests.e2e.conftest import _MISSING, CHROMIUM, IDLE, serve

pytestmark = pytest.mark.e2e
TIMEOUT = 120_000
LAUNCH = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture()
def fresh_server(tmp_path):
    """A new ``streamlit run app.py`` per test: its first request is the test's."""
    if _MISSING is not None:
        pytest.skip(f"browser tests skipped: {_MISSING}")
    with serve(tmp_path) as server:
        yield server.url


def _browser(playwright):
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH)


def _open(page, url: str) -> None:
    page.goto(url, timeout=TIMEOUT)
    # the page's title is drawn by its script, so its run has begun (on a loaded machine it can
    # begin later than any fixed wait), then its end
    page.wait_for_selector("h1", state="attached", timeout=TIMEOUT)
    page.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT)


def _outside(requests: list[str]) -> list[str]:
    return [
        u
        for u in requests
        if urlparse(u).scheme in ("http", "https", "ws", "wss")
        and urlparse(u).hostname not in ("127.0.0.1", "localhost")
    ]


@pytest.mark.parametrize(
    "path,heading",
    [
        ("/anchors?judge=sim-judge-tie-happy&anchor=sim-larch", "Anchors"),
        ("/leaderboard?judge=sim-judge-steady&rounds=200", "Leaderboard"),
        ("/", "Verdict Lab"),
    ],
)
def test_a_deep_link_is_the_first_request_to_a_fresh_server(fresh_server, playwright, path, heading):
    browser = _browser(playwright)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    _open(page, fresh_server + path)
    body = page.locator("body").inner_text()
    assert "Page not found" not in body
    assert page.locator("h1").first.inner_text().strip().endswith(heading)
    sidebar = page.get_by_test_id("stSidebar")
    for label in ("Data", "Overview", "Leaderboard", "Anchors", "Judge", "Calibration"):
        assert sidebar.get_by_role("link", name=label).count() == 1, label
    if "anchor=" in path:
        # the anchor picker (on a loaded machine a rerun can end between the title and the picker)
        try:
            page.wait_for_selector('[data-testid="stSelectbox"] input', state="attached", timeout=TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - say what the page showed instead
            raise AssertionError(page.locator("body").inner_text()[:3000]) from exc
        assert path.split("anchor=")[1].split("&")[0] in page.evaluate(
            "() => Array.from(document.querySelectorAll('[data-testid=stSelectbox] input')).map(e => e.value)"
        )
    if "judge=" in path:
        judge = path.split("judge=")[1].split("&")[0]
        # the judge picker shows the linked judge (a selectbox keeps its value in its input)
        shown = page.evaluate(
            "() => Array.from(document.querySelectorAll('[data-testid=stSelectbox] input')).map(e => e.value)"
        )
        assert judge in shown, shown
        assert "judge=" + judge in page.url  # and the link keeps it
    assert not _outside(requests), _outside(requests)
    assert page.get_by_test_id("stException").count() == 0
    browser.close()


def test_an_unknown_judge_in_a_link_says_so(fresh_server, playwright):
    browser = _browser(playwright)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    _open(page, fresh_server + "/leaderboard?judge=no-such-judge")
    alerts = " ".join(a.inner_text() for a in page.get_by_test_id("stAlert").all())
    assert "no-such-judge" in alerts
    browser.close()


def test_no_request_leaves_this_machine_on_a_walk_of_every_page(fresh_server, playwright):
    browser = _browser(playwright)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    _open(page, fresh_server + "/")
    for label in (
        "Overview",
        "Leaderboard",
        "Anchors",
        "Anchor planning",
        "Judge",
        "Tie structure",
        "Power",
        "Calibration",
        "Verdicts",
        "Data",
    ):
        page.get_by_test_id("stSidebar").get_by_role("link", name=label).click()
        page.wait_for_timeout(500)
        page.wait_for_selector(
            '[data-testid="stApp"][data-test-script-state="notRunning"]', state="attached", timeout=TIMEOUT
        )
    assert requests and not _outside(requests), _outside(requests)
    browser.close()
