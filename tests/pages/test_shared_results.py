"""Results of an untouched demo are shared between sessions; anything else stays in its session,
and a new human ranking never shows results computed with the old one (ui.state.memo)."""

from __future__ import annotations

import importlib
import time

import numpy as np
import pandas as pd
import pytest

from tests.conftest import open_page

# the module, not ui.state the function that ui re-exports under the same name
us = importlib.import_module("ui.state")


@pytest.fixture()
def sessions(monkeypatch):
    """Plain dicts as session states, one at a time (``use``), and an empty shared store."""
    current: dict = {}
    monkeypatch.setattr(us, "state", lambda: current["s"])
    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())

    def use(**fields) -> dict:
        current["s"] = {"version": 1, "memo": {}, "demo": None, "human_ranking": None, **fields}
        return current["s"]

    return use


def counter():
    calls: list[int] = []

    def compute() -> int:
        calls.append(1)
        return len(calls)

    return compute, calls


def test_an_untouched_demo_shares_its_results_between_sessions(sessions):
    compute, calls = counter()
    sessions(demo=us.DEFAULT_DEMO)
    assert us.memo(("board", "j"), compute) == 1
    sessions(demo=us.DEFAULT_DEMO)  # another visitor
    assert us.memo(("board", "j"), compute) == 1
    assert len(calls) == 1
    assert us.memo(("board", "other judge"), compute) == 2


def test_uploads_keep_their_results_to_themselves(sessions):
    compute, calls = counter()
    sessions(demo=None)  # an upload
    assert us.memo(("board", "j"), compute) == 1
    sessions(demo=None)  # another upload, perhaps another file
    assert us.memo(("board", "j"), compute) == 2
    sessions(demo=us.DEFAULT_DEMO)
    assert us.memo(("board", "j"), compute) == 3


def test_a_new_human_ranking_is_a_new_result_in_the_session_and_across_sessions(sessions):
    compute, calls = counter()
    first = pd.DataFrame({"model": ["a", "b"], "score": [1.0, 2.0]})
    s = sessions(demo=us.DEFAULT_DEMO, human_ranking=first)
    assert us.memo(("anchor_sweep",), compute) == 1
    s["human_ranking"] = pd.DataFrame({"model": ["a", "b"], "score": [2.0, 1.0]})  # uploaded
    assert us.memo(("anchor_sweep",), compute) == 2
    sessions(demo=us.DEFAULT_DEMO, human_ranking=first.copy())  # same content, another frame
    assert us.memo(("anchor_sweep",), compute) == 1


def test_a_result_not_computed_yet_is_not_shared(sessions):
    # A page asks memo(key, lambda: None) for a button's result it has not computed.
    sessions(demo=us.DEFAULT_DEMO)
    assert us.memo(("sweep",), lambda: None) is None
    sessions(demo=us.DEFAULT_DEMO)
    assert us.memo(("sweep",), lambda: 42) == 42


def test_two_visitors_of_the_demo_get_the_same_leaderboard_object():
    first = open_page("pages/leaderboard.py")
    second = open_page("pages/leaderboard.py")
    one, two = first.session_state["vl"]["memo"], second.session_state["vl"]["memo"]
    boards = [k for k in one if "leaderboard" in k]
    assert boards
    assert all(two[k] is one[k] for k in boards if k in two)
    assert any(k in two for k in boards)


def test_a_second_visitor_waits_for_the_result_being_computed_instead_of_computing_it(sessions):
    import threading

    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow() -> object:
        calls.append("slow")
        started.set()
        release.wait(30)
        return object()

    got: dict[str, object] = {}
    first = threading.Thread(target=lambda: got.__setitem__("first", us.shared_value(("k",), slow)))
    first.start()
    started.wait(30)
    second = threading.Thread(
        target=lambda: got.__setitem__("second", us.shared_value(("k",), lambda: calls.append("again")))
    )
    second.start()
    second.join(0.2)
    assert second.is_alive()  # waiting, not computing
    release.set()
    first.join(30)
    second.join(30)
    assert calls == ["slow"]
    assert got["first"] is got["second"]


def test_a_failed_computation_lets_the_waiting_visitor_compute_it(sessions):
    def fails() -> int:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        us.shared_value(("k",), fails)
    assert us.shared_value(("k",), lambda: 7) == 7  # nothing left in flight or kept


def test_the_start_up_work_gives_the_pages_the_numbers_they_compute_themselves(sessions, monkeypatch):
    """The demo's results computed when the server starts (ui.warm) sit under the keys the pages
    ask for and equal what the pages compute without it; a page opened afterwards takes them."""
    from evalcore.findings import run_analyses
    from evalcore.ingest.files import read_human_ranking
    from evalcore.present.judge import both_orders_agreement
    from ui import warm

    monkeypatch.setattr(us, "_DEMO_TABLES", {})
    warm.warm_demo()
    label = us.DEFAULT_DEMO
    human = read_human_ranking(us.DEMO_DATASETS[label][1])
    identity = us.demo_identity(label, us.fingerprint(human))
    board_key = identity + ("leaderboard", "sim-judge-steady", None, False, 1000, 0, "bootstrap")
    judge = ("sim-judge-steady", None, False)
    # the keys the Leaderboard, Power, Judge and Tie structure pages ask for on their first draw
    pages = [
        ("default_judge",),
        ("separation", *board_key[4:]),
        ("split_half", *judge),
        ("judge_pooling", None),
        ("pw_board", "sim-judge-steady", None),
        ("pw_dists", "sim-judge-steady", None),
        ("length_curve", "sim-judge-steady", None),
        ("ties", "sim-judge-steady", None, "soft"),
        ("tie_conventions", "sim-judge-steady", None, 200),
        # the Tie structure page's judge picker: every judge's ranking under the tie conventions
        ("ties", "sim-judge-tie-happy", None, "soft"),
        ("tie_conventions", "sim-judge-tie-happy", None, 200),
        ("tie_conventions", "sim-judge-first-slot", None, 200),
        ("case_stats",),
        # what the first switch of the Leaderboard, Judge and Overview pages asks for
        ("counts", "sim-judge-steady", None, True),
        ("leaderboard", "sim-judge-steady", None, True, 1000, 0, "bootstrap"),
        ("separation", "sim-judge-steady", None, True, 1000, 0, "bootstrap"),
        ("split_half", "sim-judge-steady", None, True),
        ("agreement_both", "sim-judge-steady", None, 1000, 0),
        ("findings", "judge_sheet", "sim-judge-first-slot", 0),
        ("findings", "judge_sheet", "sim-judge-tie-happy", 0),
        # the Leaderboard's sections below the ranking
        ("findings", "heterogeneity", "sim-judge-steady"),
        ("time_windows", "sim-judge-steady", None),
        ("judge_drift", "sim-judge-steady", None),
        # the Judge page's weights without intervals, and its category picker's first choices
        ("judge_pooling", None, 0),
        ("judge_pooling", "math", 0),
        ("length_curve", "sim-judge-steady", "math"),
        # the Overview's judge picker (what the page shows), then the report's own analyses
        ("counts", "sim-judge-tie-happy", None, False),
        ("findings", "monitor", "sim-judge-steady"),
    ]
    for key in [("summary",), ("counts", *judge), board_key[3:], *pages]:
        assert identity + key in us._SHARED, key
    assert any(k[3] == "judge_sheets" for k in us._SHARED)
    assert any(k[3:5] == ("judge_sheets", "coding") for k in us._SHARED)
    assert any(k[3] == "as_of" for k in us._SHARED)
    assert us._SHARED[identity + ("default_judge",)].judge == "sim-judge-steady"

    store = us._demo_table(us.demo_file(label)).store
    # the Verdicts page's cases, grouped once for every session's copy of the demo
    assert store.kept(("case_index",)) is not None
    fresh = run_analyses(store, judge="sim-judge-steady", human_ranking=human, rounds=1000, seed=0)
    warmed = us._SHARED[board_key]
    pd.testing.assert_frame_equal(warmed.table, fresh.leaderboard.table)
    sheet = us._SHARED[identity + ("findings", "judge_sheet", "sim-judge-steady", 0)]
    pd.testing.assert_frame_equal(sheet.table(), fresh.judge_sheet.table())

    both = us._SHARED[identity + ("agreement_both", "sim-judge-steady", None, 1000, 0)]
    again = both_orders_agreement(store, "sim-judge-steady", category=None, rounds=1000, seed=0)
    np.testing.assert_equal(both.as_dict(), again.as_dict())  # NaN where humans cannot say

    s = sessions(demo=label, human_ranking=human)  # a visitor of the untouched demo
    assert us.memo(board_key[3:], lambda: pytest.fail("computed again")) is warmed
    assert s["memo"]


def test_the_start_up_work_is_off_when_asked_and_starts_once(monkeypatch):
    from ui import warm

    monkeypatch.setattr(warm, "_STARTED", False)
    monkeypatch.setenv("VERDICTLAB_WARM", "0")
    assert warm.start() is None
    monkeypatch.setattr(warm, "warm_demo", lambda first="": None)
    monkeypatch.setenv("VERDICTLAB_WARM", "1")
    thread = warm.start()
    assert thread is not None
    thread.join(10)
    assert warm.start() is None  # once per server process


@pytest.mark.parametrize(
    ("page", "first"),
    # (the Judge page's sheets begin with the self-preference table every sheet reads)
    [
        ("", ("leaderboard", "sim-judge-steady")),
        ("judge", ("self_preference",)),
        ("ties", ("ties_labelled",)),
    ],
)
def test_the_start_up_work_computes_first_what_the_page_asked_for_shows(monkeypatch, page, first):
    """A fresh server's first request names a page: its results come before the others (the
    Judge page's sheets, not the findings, on a Judge link)."""
    from ui import warm

    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())
    monkeypatch.setattr(warm, "_ASKED", [])  # a fresh server: no page asked for before (other tests')
    asked: list[tuple] = []
    real = us.shared_value
    setup = ("summary", "default_judge", "counts")

    def first_only(key, compute):
        asked.append(key[3:])
        if key[3] in setup:
            return real(key, compute)
        raise RuntimeError("stop here")  # the start-up work logs it and ends

    monkeypatch.setattr(us, "shared_value", first_only)
    warm.warm_demo(page)
    work = [k for k in asked if k[0] not in setup]
    assert work and work[0][: len(first)] == first


def test_the_start_up_work_waits_for_a_server(monkeypatch):
    """Importing the ui package outside a Streamlit server (a script, a benchmark) starts nothing."""
    from ui import warm

    monkeypatch.setattr(warm, "_STARTED", False)
    monkeypatch.setenv("VERDICTLAB_WARM", "1")
    assert warm.start_in_server() is None
    assert warm._STARTED is False


def test_the_demo_the_server_reads_as_it_starts_is_the_one_the_pages_copy(monkeypatch):
    """The start-up thread reads the default demo before the pages' libraries are imported; the
    first page takes that table instead of reading the file a second time, and once only."""
    import threading

    from evalcore.store.store import VerdictStore
    from ui import warm

    monkeypatch.setattr(us, "_DEMO_TABLES", {})
    monkeypatch.setattr(warm, "_EARLY", {})
    monkeypatch.setattr(warm, "_EARLY_DONE", threading.Event())
    warm.read_early()
    early = warm._EARLY["table"]
    assert early.rows > 0 and early.store is not None

    def read_again(*args, **kwargs):
        raise AssertionError("the demo was read a second time")

    monkeypatch.setattr(VerdictStore, "load_file", read_again)
    path = us.demo_file(us.DEFAULT_DEMO)
    assert us._demo_table(path) is early
    assert us._demo_table(path) is early  # kept for every later session
    assert warm.early_table(warm._EARLY["key"]) is None  # handed over once


def test_the_start_up_work_pauses_while_a_page_runs(monkeypatch):
    """Between its pieces the start-up work waits while a visitor's page script runs and for
    :data:`ui.warm.DRAW_SECONDS` after (its browser draws the page on the same cores), then goes
    on."""
    import threading

    from ui import warm

    monkeypatch.setattr(warm, "DRAW_SECONDS", 1.0)
    done = threading.Event()
    with warm.running_page():
        waiting = threading.Thread(target=lambda: (warm.wait_for_pages(limit=60), done.set()))
        waiting.start()
        assert not done.wait(0.5)  # a page runs: the work waits
    ended = time.monotonic()
    assert not done.wait(0.5)  # its browser draws it: the work still waits
    assert done.wait(10)  # then it goes on
    assert time.monotonic() - ended >= 1.0
    waiting.join(10)


def test_a_page_asked_for_while_the_start_up_work_runs_comes_next(monkeypatch):
    """The work begins at server start with no page asked for; a Judge link arriving meanwhile
    makes the Judge page's sheets the next piece, before the findings."""
    from ui import warm

    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())
    monkeypatch.setattr(warm, "_ASKED", ["judge"])
    asked: list[tuple] = []
    real = us.shared_value
    setup = ("summary", "default_judge", "counts")

    def first_only(key, compute):
        asked.append(key[3:])
        if key[3] in setup:
            return real(key, compute)
        raise RuntimeError("stop here")

    monkeypatch.setattr(us, "shared_value", first_only)
    warm.warm_demo("")
    work = [k for k in asked if k[0] not in setup]
    # the Judge page's pieces: the self-preference table every sheet reads, then the sheets
    assert work and work[0][0] == "self_preference"


def test_the_start_up_work_stops_with_the_server(monkeypatch):
    """Once the server stops (ui.warm.stop), no further piece is computed."""
    import threading

    from ui import warm

    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())
    monkeypatch.setattr(warm, "_STOP", threading.Event())
    monkeypatch.setattr(warm, "_THREAD", [])
    warm.stop()
    warm.warm_demo("")
    assert {k[3] for k in us._SHARED} <= {"summary", "default_judge", "counts"}


@pytest.mark.parametrize(("page", "waits"), [("methods", True), ("overview", False)])
def test_the_start_up_work_waits_between_results_while_a_page_it_was_not_asked_for_runs(
    monkeypatch, page, waits
):
    """Inside a piece (the findings: many results), the start-up work waits between two results
    while a page that does not show them runs (that page computes what it needs on the cores
    the work would take); for the page asked for, whose results they are, it goes on."""
    from ui import warm

    monkeypatch.setattr(us, "_SHARED", type(us._SHARED)())
    monkeypatch.setattr(warm, "_ASKED", [page])
    events: list = []
    real = us.shared_value
    setup = ("summary", "default_judge", "counts")

    def record(key, compute):
        events.append(key[3:])
        if len([e for e in events if e != "wait" and e[0] not in setup]) > 3:
            raise RuntimeError("stop here")
        return real(key, compute)

    monkeypatch.setattr(us, "shared_value", record)
    monkeypatch.setattr(warm, "wait_for_pages", lambda limit=30.0: events.append("wait"))
    warm.warm_demo("")
    work = [i for i, e in enumerate(events) if e != "wait" and e[0] not in setup]
    between = events[work[0] + 1 : work[-1]]
    assert len(work) > 1
    assert ("wait" in between) is waits
