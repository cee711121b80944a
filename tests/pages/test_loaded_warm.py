"""A table a visitor loads has its Overview findings computed in the background at once, under
the keys the pages use (ui.warm.warm_loaded): the Overview then computes nothing again; a new load
ends the old table's work first, and a closed session's store closes only once that work ended."""

from __future__ import annotations

import importlib
import threading

import pytest

from evalcore.findings import run_analyses
from evalcore.store.store import VerdictStore
from tests.conftest import DEMO, RecordingCache, open_page

us = importlib.import_module("ui.state")
warm = importlib.import_module("ui.warm")

pytestmark = pytest.mark.usefixtures("small_demo")


def test_the_background_work_computes_what_the_overview_asks_for(small_demo_dir):
    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)  # this test's own session store
    kept: dict = {}
    flight = us.InFlight()
    prefix = (1, None)
    warm.warm_loaded(store, kept, flight, prefix, None, threading.Event())
    assert prefix + ("default_judge",) in kept and any(k[2] == "findings" for k in kept)
    judge = kept[prefix + ("default_judge",)].judge

    def never(key, compute):
        return us.once(kept, flight, prefix + tuple(key), lambda: pytest.fail(f"computed again: {key}"))

    # the Overview's own call (pages/overview.py): the default judge, 1,000 rounds, seed 0
    run_analyses(store, judge=judge, human_ranking=None, rounds=1000, seed=0, cache=never, report=False)
    store.close()


def test_a_halted_work_stops_between_two_results_and_a_page_computes_the_rest(small_demo_dir):
    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)
    kept: dict = {}
    halt = threading.Event()
    halt.set()
    warm.warm_loaded(store, kept, us.InFlight(), (1, None), None, halt)
    assert kept == {}  # nothing begun once halted
    store.close()


def _load_from_folder(tmp_path, monkeypatch, name: str, body: bytes):
    (tmp_path / name).write_bytes(body)
    monkeypatch.setenv("VERDICTLAB_DATA_DIR", str(tmp_path))


ROWS = b"instruction_id,model_a,model_b,verdict\n" + b"".join(
    f"{q},m{a},m{b},{v}\n".encode()
    for q in range(40)
    for a, b, v in ((1, 2, "A>B"), (2, 3, "A=B"), (3, 1, "B>A"), (1, 4, "A>>B"), (4, 2, "B>A"))
)


def test_a_table_loaded_in_the_app_has_its_overview_ready(tmp_path, monkeypatch):
    """The Data page's load starts the work (once the demo's start-up work is out of the way);
    the Overview and the Judge page opened afterwards find every result they draw and compute
    none again."""
    monkeypatch.setenv("VERDICTLAB_WARM", "1")
    monkeypatch.setattr(warm, "_STARTED", True)  # the demo's start-up work is not this test's
    started: list[threading.Thread] = []
    real = warm.start_loaded

    def record(*args, **kwargs):
        thread = real(*args, **kwargs)
        started.append(thread)
        return thread

    monkeypatch.setattr(warm, "start_loaded", record)
    _load_from_folder(tmp_path, monkeypatch, "mine.csv", ROWS)
    at = open_page()
    assert not started  # the demo is shared work of its own, not a visitor's table
    at.button(key="data_folder_load").click().run()
    assert not at.exception and len(started) == 1
    started[0].join(60)
    assert not started[0].is_alive()
    memo = at.session_state["vl"]["memo"]
    warmed = {k: v for k, v in memo.items() if k[2] == "findings"}
    assert warmed

    import evalcore.findings.analyses as analyses
    import evalcore.judge as ej

    # what the pages would compute again, recorded (a page shows an exception in words, so a
    # raising stand-in would not fail the test)
    again: list[str] = []
    for module, name in ((analyses, "leaderboard"), (analyses, "ranking_fragility"), (ej, "judge_sheets")):
        real_function = getattr(module, name)

        def recorded(*args, _name=name, _real=real_function, **kwargs):
            again.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(module, name, recorded)
    at.switch_page("pages/overview.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert again == []
    for key, value in warmed.items():
        assert at.session_state["vl"]["memo"][key] is value
    at.switch_page("pages/judge.py").run()  # the Judge page's sheets too, on its defaults
    assert not at.exception, [e.value for e in at.exception]
    assert again == []
    assert at.get("metric")  # the page drew its figures
    from evalcore.store import case_index

    # grouping the cases again would now fail (and the page would say so)
    monkeypatch.setattr(case_index, "_INDEX", "SELECT no_such_column FROM verdicts")
    at.switch_page("pages/verdicts.py").run()  # the cases were grouped by the background work
    assert not at.exception, [e.value for e in at.exception]
    assert not [e for e in at.error], [e.value for e in at.error]


def test_a_new_load_ends_the_old_tables_work_before_the_store_changes(small_demo_dir):
    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)
    entered, release = threading.Event(), threading.Event()
    kept: dict = {}

    class Slow(dict):
        def __setitem__(self, key, value):  # the first result is held until the test says
            entered.set()
            release.wait(30)
            super().__setitem__(key, value)

    kept = Slow()
    halt = threading.Event()
    thread = threading.Thread(
        target=warm.warm_loaded, args=(store, kept, us.InFlight(), (1, None), None, halt)
    )
    store._vl_warm = (thread, halt)
    thread.start()
    assert entered.wait(30)
    assert warm.loaded_work(store) is thread
    stopping = threading.Thread(target=warm.stop_loaded, args=(store,))
    stopping.start()
    stopping.join(0.2)
    assert stopping.is_alive()  # waits for the result being computed…
    release.set()
    stopping.join(30)
    assert not thread.is_alive() and warm.loaded_work(store) is None
    assert len(kept) == 1  # …and nothing after it
    store.close()


def test_a_closed_sessions_store_closes_after_its_work(small_demo_dir, monkeypatch):
    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)
    release = threading.Event()
    closed = threading.Event()
    thread = threading.Thread(target=release.wait, args=(30,))
    thread.start()
    store._vl_warm = (thread, threading.Event())
    real_close = store.close

    def close():
        assert not thread.is_alive()  # never under the running work
        real_close()
        closed.set()

    monkeypatch.setattr(store, "close", close)
    monkeypatch.setattr(us, "_schedule_reap", lambda: None)  # no timer left behind by this test
    monkeypatch.setattr(us, "release_memory", lambda: None)
    us._close(store)  # returns at once: the server's thread does not wait
    assert not closed.is_set()
    release.set()
    assert closed.wait(30)


def test_the_overview_s_pieces_are_computed_from_the_last_while_a_page_computes_from_the_first(
    small_demo_dir,
):
    """The background work computes what every piece reads first, then the Overview's pieces from
    the last to the first (a page opened meanwhile computes from the first: the two meet in the
    middle), then what depends on a piece left out; the same keys the page's own order gives."""
    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)
    judge = store.judges()[0]
    page_order: list[tuple] = []

    def page(key, compute):
        page_order.append(key)
        return compute()

    run_analyses(store, judge=judge, human_ranking=None, rounds=1000, seed=0, cache=page, report=False)
    work = RecordingCache()
    warm.overview_findings(store, judge, None, work)
    work_order = work.order
    store.close()
    shared = [k for k in page_order if k[0] in warm.READ_BY_THE_REST]
    assert work_order[: len(shared)] == shared  # the summary, the counts, the leaderboard
    rest = [k for k in page_order if k[0] not in warm.READ_BY_THE_REST]
    assert len(rest) >= 5 and set(work_order) == set(page_order)
    # every piece the page reaches without the others' results, from its last to its first, then
    # a piece reached only through another's result (the recommended anchor's stability)
    depends = [k for k in rest if k[:2] == ("findings", "anchor_stability")]
    assert depends  # the small demo recommends an anchor: the last pass is exercised
    assert work_order[len(shared) :] == [k for k in reversed(rest) if k not in depends] + depends


def test_the_judge_page_s_sheets_are_computed_from_the_last_judge(small_demo_dir):
    """The background work computes the Judge page's sheets one judge at a time from the last (a
    page opened meanwhile computes them from the first), then the page's own key, which finds
    every sheet kept."""
    from evalcore.present.judge import family_list

    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)
    cache = RecordingCache()
    family = family_list("", store.judges())
    warm.judge_page_sheets(store, family, None, cache)
    kept, order = cache.kept, cache.order
    judges = store.judges()
    store.close()
    assert len(judges) >= 2
    sheets = [k[1] for k in order if k[0] == "judge_sheet"]
    assert sheets == list(reversed(judges))
    assert order[-1][0] == "judge_sheets" and set(kept[order[-1]]) == set(judges)
    assert all(kept[order[-1]][j] is kept[k] for j in judges for k in order if k[:2] == ("judge_sheet", j))
