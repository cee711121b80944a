"""A shared link's page comes first in the server's start-up work (ui.warm), from the moment its
address is opened: the browser loads Streamlit's scripts and connects for about a second before
the page's script runs, and that second computes the page's results."""

from __future__ import annotations

import asyncio
import importlib
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor

import pytest

us = importlib.import_module("ui.state")


@pytest.fixture()
def warm(monkeypatch):
    from ui import warm

    monkeypatch.setattr(warm, "_ASKED", [])
    monkeypatch.setattr(warm, "_OPENED", [None])
    return warm


@pytest.mark.parametrize(
    ("path", "asked"),
    [
        ("/leaderboard", ["leaderboard"]),
        ("/ties/", ["ties"]),
        ("/base/power", ["power"]),  # a server under a base address
        ("/", ["app"]),  # the Data page
        ("/no-such-page", []),
        ("/static/js/main.js", []),
    ],
)
def test_an_opened_address_asks_for_the_page_it_names(warm, path, asked):
    warm.link_opened(path)
    assert warm._ASKED == asked
    assert (warm._OPENED[0] is not None) is bool(asked)


def test_the_app_wrapper_tells_the_start_up_work_which_page_a_browser_opens(warm):
    """The HTML page of a link is served before its script runs: the wrapper that adds the opening
    sentence tells ui.warm the page's name; a script or a data request tells nothing."""
    from ui.opening import with_opening_words

    async def served(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def send(message):
        return None

    def open_(path: str, accept: bytes) -> None:
        scope = {"type": "http", "method": "GET", "path": path, "headers": [(b"accept", accept)]}
        with ThreadPoolExecutor(1) as pool:  # an event loop of its own (a browser test may run one)
            pool.submit(asyncio.run, with_opening_words(served, scope, None, send)).result()

    open_("/static/js/index.js", b"*/*")
    assert warm._ASKED == []
    open_("/judge", b"text/html,application/xhtml+xml,*/*")
    assert warm._ASKED == ["judge"]


def test_the_page_running_is_read_from_the_page_registry_not_the_main_module(monkeypatch, warm):
    """Under app.py's App, Streamlit's module ``__main__`` is app.py whichever page runs: the page
    is the run's entry in the page registry (the old answer, "app", made the start-up work wait
    on the Leaderboard for the Leaderboard's own results)."""
    from streamlit.runtime.scriptrunner_utils import script_run_context

    pages = {"h1": {"script_path": "/somewhere/pages/leaderboard.py", "page_name": "leaderboard"}}
    ctx = types.SimpleNamespace(
        page_script_hash="h1", pages_manager=types.SimpleNamespace(get_pages=lambda: pages)
    )
    monkeypatch.setattr(script_run_context, "get_script_run_ctx", lambda suppress_warning=False: ctx)
    monkeypatch.setitem(sys.modules, "__main__", types.SimpleNamespace(__file__="/somewhere/app.py"))
    assert warm.requested_page() == "leaderboard"
    pages.clear()  # no registry entry (a test's script): the main module's file
    assert warm.requested_page() == "app"


def test_the_work_waits_for_the_page_a_link_opened_until_it_has_begun(warm):
    """Once the linked page's pieces are computed, the rest of the work waits while its visitor's
    browser starts it (the cores draw that page), and goes on once it has drawn."""
    warm.link_opened("/power")
    done = threading.Event()
    waiting = threading.Thread(target=lambda: (warm.wait_for_pages(limit=60), done.set()))
    waiting.start()
    assert not done.wait(0.5)  # the page has not begun: the work waits
    with warm.running_page():
        assert not done.wait(0.2)  # it runs: still waits
    assert done.wait(10)  # it drew: the work goes on
    waiting.join(10)


def test_a_page_linked_while_another_piece_runs_comes_before_that_piece_s_next_result(monkeypatch, warm):
    """The work begins at server start with the findings (many results); a Tie structure link
    opened meanwhile has its results computed between two of the findings' results, not after
    the whole piece (which took over a second while the page waited)."""
    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())
    keys: list[tuple] = []
    real = us.shared_value
    setup = ("summary", "default_judge", "counts")

    def record(key, compute):
        keys.append(key[3:])
        work = [k for k in keys if k[0] not in setup]
        if len(work) == 1:  # the findings' first result: the link is opened now
            warm.link_opened("/ties")
        if len(work) > 6:
            raise RuntimeError("stop here")  # the start-up work logs it and ends
        return real(key, compute)

    monkeypatch.setattr(us, "shared_value", record)
    monkeypatch.setattr(warm, "wait_for_pages", lambda limit=30.0: None)
    warm.warm_demo("")
    work = [k[0] for k in keys if k[0] not in setup]
    assert work[0] == "leaderboard"  # the findings began
    assert work[1:4] == ["ties_labelled", "ties", "tie_conventions"]  # the linked page's, at once
    assert work[4] not in ("ties_labelled", "ties", "tie_conventions")  # then the findings go on


def _asked_page_only(monkeypatch, warm, keys: list[tuple], page: str) -> list[tuple]:
    """The keys the start-up work computes for a link to ``page`` when it computes that page's
    pieces only (:func:`ui.warm._compute_asked`), in order."""
    monkeypatch.setattr(warm, "_STOP", threading.Event())
    monkeypatch.setattr(
        warm, "_compute", lambda pending, wanted, doing, *later: warm._compute_asked(pending, wanted, doing)
    )
    warm._ASKED.append(page)
    warm.warm_demo("")
    return keys


SETUP = ("summary", "default_judge", "counts")


def test_a_leaderboard_link_asks_only_for_the_table_and_its_first_tab(monkeypatch, warm, shared_keys):
    """Asked for the Leaderboard, the work computes its table, tiers and stability line (what the
    first view draws, the separation tab included) and nothing else: the pooled ranking, the
    categories and the ranking in time are on tabs drawn only when opened."""
    keys = _asked_page_only(monkeypatch, warm, shared_keys, "leaderboard")
    names = [k[0] for k in keys if k[0] not in SETUP]
    assert names == ["leaderboard", "separation", "split_half"]


def test_a_leaderboard_link_s_tabs_come_right_after_its_first_draw(monkeypatch, warm, shared_keys):
    """Once the linked Leaderboard has drawn, the pieces of its tabs come next, before the other
    pages' work (its visitor opens them next): the pooled ranking, the categories, then the time
    tab's pieces from the last (a page drawing them from the first computes the others meanwhile)."""
    monkeypatch.setattr(warm, "_STOP", threading.Event())
    monkeypatch.setattr(warm, "wait_for_pages", lambda limit=30.0: None)
    recorded = us.shared_value

    def until_as_of(key, compute):
        value = recorded(key, compute)
        if key[3] == "as_of":
            raise RuntimeError("stop here")  # the start-up work logs it and ends
        return value

    monkeypatch.setattr(us, "shared_value", until_as_of)
    warm._ASKED.append("leaderboard")
    warm.warm_demo("")
    names = [k[0] for k in shared_keys if k[0] not in SETUP]
    assert names[:3] == ["leaderboard", "separation", "split_half"]
    rest = [k[1] if k[0] == "findings" else k[0] for k in shared_keys if k[0] not in SETUP][3:]
    assert rest == [
        "judge_pooling",
        "judge_pooling",
        "has_times",
        "judging_days",
        "heterogeneity",
        "judge_drift",
        "time_windows",
        "as_of",
    ]


def test_a_judge_link_asks_only_for_what_the_page_s_first_tab_draws(monkeypatch, warm, shared_keys):
    """Asked for the Judge page, the work computes the judges' sheets (its first tab and the table
    above the tabs) and nothing else: the length curve and the weights are on tabs drawn only when
    opened, so computing them first would make the linked page wait for work it does not show."""
    keys = _asked_page_only(monkeypatch, warm, shared_keys, "judge")
    keys = list(dict.fromkeys(keys))  # each key as first asked for (the table is read by each sheet)
    names = [k[0] for k in keys if k[0] not in ("summary", "default_judge", "counts")]
    # the self-preference table, each judge's sheet (from the last judge), then the page's key
    judges = list(reversed(us._demo_table(us.demo_file(us.DEFAULT_DEMO)).store.judges()))
    assert names == ["self_preference", *["judge_sheet"] * len(judges), "judge_sheets"]
    assert [k[1] for k in keys if k[0] == "judge_sheet"] == judges
