"""The default demo's results, computed once when the server starts, in the background.

The first request to a fresh server starts one thread that reads the default demo and runs, through
the very evalcore functions the pages call (:func:`evalcore.findings.run_analyses`,
:func:`evalcore.judge.judge_sheets`, the leaderboard, the judges' weights, the tie conventions, …),
what the Data, Overview, Leaderboard, Anchors, Judge, Tie structure, Power and Verdicts pages show
first, on the library's default judge. Each result goes into the results shared by every untouched demo session
(:func:`ui.state.shared_value`) under the key the page itself uses, so a page opened meanwhile
waits for the result being computed (its progress bar says what) instead of computing it a second
time, and a page opened afterwards draws at once. Nothing is stored on disk: a changed demo file
has another key and is computed afresh.

It starts when the server starts: ``streamlit run app.py`` serves app.py's App, whose start-up
hook imports :mod:`ui` in a background thread (:func:`start_in_server`), then every module a page
imports (:func:`load_page_imports`), and answers once they are loaded and the demo read; a page
asked for while the work runs has its results computed next. A shared link's page is known as
soon as its address is opened (:func:`link_opened`, from the app's HTML page, about a second
before the page's script runs): its pieces are computed then, between two results of the piece
being computed, and the rest of the work waits until that page has begun and drawn; then the
pieces of that page's tabs drawn only when opened come first (the Leaderboard's pooled ranking,
categories and ranking in time; the Judge page's later tabs), the other pages' after them. A
server that runs a page script without that hook (a test's ``AppTest``) starts it on its first
page: then the page asked for comes first (the Judge page's sheets before the findings), and the
page says what happens while it waits for the libraries (a spinner, :func:`announce`).

A table a visitor loads has background work of its own (:func:`warm_loaded`): its Overview's
findings, the Judge page's sheets and the Verdicts page's cases, into that visitor's session only.

``VERDICTLAB_WARM=0`` turns both off (the test suite's page tests, which time nothing).
"""

from __future__ import annotations

import importlib
import logging
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

_STARTED = False
#: Set when the server stops (:func:`stop`): the work ends after the piece it is computing.
_STOP = threading.Event()
_THREAD: list[threading.Thread] = []
#: The pages asked for by the server's visitors, the latest last (:func:`start`).
_ASKED: list[str] = []
_LOCK = threading.Lock()
LOG = logging.getLogger(__name__)
#: The default demo's verdict file as bundled (:data:`ui.state.DEMO_DATASETS` names it from here).
DEMO_ALL_PAIRS = Path(__file__).resolve().parent.parent / "data" / "demo_all_pairs.parquet"


def demo_path(bundled: Path) -> Path:
    """A demo's verdict file: the bundled one, or the file of the same name in
    ``$VERDICTLAB_DEMO_DIR`` when that is set (an operator's regenerated demo, or the test suite's
    smaller copy; read on each load, not at import)."""
    folder = os.environ.get("VERDICTLAB_DEMO_DIR")
    return Path(folder) / bundled.name if folder else bundled


#: The default demo as the start-up thread reads it first, before the libraries the pages need are
#: imported (DuckDB reads it on the second core while the first page imports them): the file's
#: (path, modification time), the table read, and whether the reading is over.
_EARLY: dict[str, Any] = {}
_EARLY_DONE = threading.Event()


def read_early() -> None:
    """Read and check the default demo with nothing but the store imported (see :data:`_EARLY`)."""
    try:
        path = demo_path(DEMO_ALL_PAIRS)
        _EARLY["key"] = (str(path), path.stat().st_mtime_ns)
        from evalcore.store.store import VerdictStore

        _EARLY["table"] = VerdictStore().load_file(path)
    except Exception:  # noqa: BLE001 - missing or unreadable: the page reads it and says why
        _EARLY.pop("table", None)
    finally:
        _EARLY_DONE.set()


def early_table(key: tuple[str, int]) -> Any:
    """The demo table :func:`read_early` read for ``key`` (waiting while it reads), once; None
    when it read another file, failed, or never ran (then the caller reads the file itself)."""
    if _EARLY.get("key") != key:
        return None
    _EARLY_DONE.wait(300)
    return _EARLY.pop("table", None)


def wait_read(timeout: float) -> bool:
    """Wait (at most ``timeout`` seconds) until the start-up read of the default demo is over;
    whether it is. True at once when the start-up work does not run (nothing to wait for)."""
    if not _THREAD:
        return True
    return _EARLY_DONE.wait(timeout)


def page_imports() -> list[str]:
    """The modules the app's pages import, read from their files (``from a import b``: ``a``, and
    ``a.b`` where that is a module), each once. Called once ``ui`` is imported (the registry)."""
    import ast

    from ui.navigation import NAVIGATION  # every page's file (the registry)

    root = Path(__file__).resolve().parent.parent
    names: list[str] = []
    for path in [root / file for file, _, _ in NAVIGATION]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    return list(dict.fromkeys(names))


def load_page_imports() -> None:
    """Import every module a page imports (the server's start-up hook, before it answers): a page
    script imports its modules before it can draw a word, so a page opened while SciPy and Plotly
    still loaded showed nothing for seconds."""
    for name in page_imports():
        try:
            importlib.import_module(name)
        except ModuleNotFoundError:  # ``a.b`` where ``b`` is a name, not a module
            continue
    _settle_first_draw()


def _settle_first_draw() -> None:
    """What Streamlit does once per process at the first page's first elements, done before the
    server answers (a fresh server's first page, a shared link, spent 0.15–0.3 s of CPU on it): the
    emoji table every label is matched against (one large regular expression, compiled when
    first imported), the image readers the page icon is read with, and the check whether the
    app runs in an interactive interpreter, which walks the calling frames' source files (every
    loaded module looked up) and only decides whether to print a warning to the console: a
    server started by ``streamlit run`` is not one."""
    importlib.import_module("streamlit.emojis")
    from PIL import Image

    Image.preinit()
    import streamlit.delta_generator as dg

    if hasattr(dg, "_use_warning_has_been_displayed"):
        dg._use_warning_has_been_displayed = True


def enabled() -> bool:
    """Whether the start-up work runs (``VERDICTLAB_WARM``, on unless "0")."""
    return os.environ.get("VERDICTLAB_WARM", "1").strip() != "0"


def start(first: str = "") -> threading.Thread | None:
    """Start the start-up work once per server process; the thread, or None when it already ran
    or is turned off. ``first``: the page asked for (its file's stem), whose results come first;
    once the work runs (begun at server start), the page asked for last comes next."""
    global _STARTED
    with _LOCK:
        if first:
            _ASKED.append(first)
        if _STARTED or not enabled():
            return None
        _STARTED = True
    thread = threading.Thread(target=_read_then_warm, args=(first,), name="verdictlab-warm", daemon=True)
    thread.start()
    _THREAD.append(thread)
    return thread


def stop(timeout: float = 10.0) -> None:
    """End the start-up work when the server stops: no new piece begins, and the piece being
    computed is waited for (at most ``timeout`` seconds), so the process does not exit while it
    is inside DuckDB."""
    _STOP.set()
    for thread in _THREAD:
        thread.join(timeout)


def _read_then_warm(first: str) -> None:
    read_early()
    warm_demo(first)


def start_in_server() -> threading.Thread | None:
    """:func:`start` when a Streamlit server runs this process (never in a script or a benchmark
    that merely imports :mod:`ui`), for the page whose script is running."""
    try:
        from streamlit import runtime

        if not runtime.exists():
            return None
    except Exception:  # noqa: BLE001 - another Streamlit version: the pages start it themselves
        return None
    return start(requested_page())


#: What a fresh server's first page says while it imports the libraries and the demo is read.
STARTING = (
    "Starting the server: loading the statistics libraries and reading the demo (once per server "
    "start; the demo's results are then computed in the background)…"
)
#: The note being shown (a spinner's context), False once it was shown and removed.
_ANNOUNCED: Any = None


def announce() -> None:
    """On a fresh server's first page, say what happens while that page imports what it needs:
    a spinner (Streamlit's transient element, drawn after half a second) until :func:`announced`,
    which the page wrapper calls as the page begins to draw. Once per server process."""
    global _ANNOUNCED
    if _ANNOUNCED is not None:
        return
    _ANNOUNCED = False
    try:
        import streamlit as st

        if not in_page():  # the start-up thread, a script: no page to say it on
            _ANNOUNCED = None
            return
        note = st.spinner(STARTING, show_time=True)
        note.__enter__()
        _ANNOUNCED = note
    except Exception:  # noqa: BLE001 - outside a page's run (a script, another version): no note
        return


def announced() -> None:
    """Remove the start-up note of :func:`announce`, if it is shown."""
    global _ANNOUNCED
    note, _ANNOUNCED = _ANNOUNCED, False
    if note:
        try:
            note.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 - the note is a courtesy
            pass


def in_page() -> bool:
    """Whether this thread runs a page script of a Streamlit server."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        return get_script_run_ctx(suppress_warning=True) is not None
    except Exception:  # noqa: BLE001 - another Streamlit version
        return False


def requested_page() -> str:
    """The stem of the page script Streamlit is running ("" when none, e.g. the start-up thread):
    the script of the run's page in Streamlit's page registry. Not the module ``__main__``'s
    ``__file__``: under app.py's App that is app.py on every page (the Leaderboard's results then
    waited for the Leaderboard as for a page that did not show them); it is the fallback."""
    if not in_page():
        return ""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

        ctx = get_script_run_ctx(suppress_warning=True)
        info = ctx.pages_manager.get_pages().get(ctx.page_script_hash) if ctx is not None else None
        if info and info.get("script_path"):
            return Path(str(info["script_path"])).stem
    except Exception:  # noqa: BLE001 - another Streamlit version: the module's file below
        pass
    main = sys.modules.get("__main__")
    return Path(str(getattr(main, "__file__", "") or "")).stem


#: Page scripts running now (:func:`running_page`): the start-up work waits between its pieces
#: while a visitor's page runs, so that page draws at full speed on the shared cores.
_RUNNING = [0]
_RUNNING_LOCK = threading.Lock()
#: How long the start-up work still waits once a page script has ended: the visitor's browser
#: draws the page then, on the same two cores (about a second for the Methods page's text). A
#: first request for the Methods page took 2.10 and 2.15 s with no wait, 1.64 and 1.82 s with
#: this one (``benchmarks/bench_pages.py --cold-only``).
DRAW_SECONDS = 1.5
#: When the last page script ended (``time.monotonic``).
_ENDED = [-float("inf")]


@contextmanager
def running_page() -> Iterator[None]:
    """Count a page script's run (the page wrapper, :func:`ui.navigation.page`, runs in it)."""
    with _RUNNING_LOCK:
        _RUNNING[0] += 1
        _OPENED[0] = None  # the page a link opened (if any) has begun
    try:
        yield
    finally:
        with _RUNNING_LOCK:
            _RUNNING[0] -= 1
            _ENDED[0] = time.monotonic()


def wait_for_pages(limit: float = 30.0) -> None:
    """Wait while a page script runs and its browser draws it (:data:`DRAW_SECONDS` after the
    script ended), or a page whose address a browser opened has not begun yet
    (:func:`link_opened`: its visitor waits for it; at most :data:`LINK_SECONDS`), at most
    ``limit`` seconds (then the work goes on anyway)."""
    deadline = time.monotonic() + limit
    while (
        (_RUNNING[0] or _link_coming() or _drawing()) and time.monotonic() < deadline and not _STOP.is_set()
    ):
        time.sleep(0.05)


#: How long a page whose address a browser opened is waited for before its script begins (the
#: browser loads Streamlit's scripts and connects first: about a second on a loaded machine).
LINK_SECONDS = 5.0
#: When a browser last opened a page's address whose script has not begun since
#: (``time.monotonic``), else None.
_OPENED: list[float | None] = [None]


def _drawing() -> bool:
    return time.monotonic() - _ENDED[0] < DRAW_SECONDS


def _link_coming() -> bool:
    opened = _OPENED[0]
    return opened is not None and time.monotonic() - opened < LINK_SECONDS


def _ui_state():
    """The module ``ui.state`` (by its module name: the package exports a function of that name
    too), once the ``ui`` package is imported. The server's start-up thread imports the package
    while this thread runs; importing ``ui.state`` meanwhile could cross its imports (each thread
    holding a module the other needs), which Python breaks by failing one of them as a circular
    import (seen in two of three server starts on a loaded machine). So wait for the package."""
    importlib.import_module("ui")
    return importlib.import_module("ui.state")


def warm_demo(first: str = "") -> None:
    """Compute the default demo's first-page results into the shared results (see the module);
    ``first`` names the page whose results come first (the Judge page: its sheets)."""
    from evalcore.store.store import VerdictStore

    ui_state = _ui_state()
    try:
        label = ui_state.DEFAULT_DEMO
        verdicts, ranking_file = ui_state.DEMO_DATASETS[label]
        # the demo is read first (in DuckDB, beside the page's own imports), then the rest imported
        demo = ui_state._demo_table(ui_state.demo_file(label))
        from evalcore.ingest.files import read_human_ranking
        from evalcore.judge import both_orders_counts, length_preference_curve
        from evalcore.judge.pooling import pool_store
        from evalcore.judge_choice import publishing_judge
        from evalcore.power import difference_distributions
        from evalcore.present.judge import both_orders_agreement, family_list
        from evalcore.present.ties import SCORE_RULE_NAMES
        from evalcore.ranking import choose_interval, leaderboard, separation
        from evalcore.ranking.split_half import split_half_stability
        from evalcore.ties import judge_ties, labelled_counts, tie_conventions
        from evalcore.ties.conventions import ROUNDS as TIE_ROUNDS
        from evalcore.verdicts import VerdictFilter
        from ui.judges import ROUNDS as POOL_ROUNDS

        store = VerdictStore()
        with ui_state._DEMO_LOCK:
            store.load(demo)
        human = read_human_ranking(ranking_file) if ranking_file is not None else None
        identity = ui_state.demo_identity(label, None if human is None else ui_state.fingerprint(human))
        if identity is None:
            return

        #: The pieces not computed yet, the piece being computed, and how deep in a result's own
        #: computation this thread is.
        pending: list = []
        doing: list = [None]
        depth = [0]

        def cache(key: tuple, compute):
            # Between two results of a piece no page asked for, the pieces of a page asked for
            # meanwhile come first (a link's page is known as its address is opened, a second
            # before its script runs: :func:`link_opened`), then the work waits while a visitor's
            # page runs (that page computes what it needs itself, on the cores this would take);
            # never inside a result, which a page may be waiting for.
            if depth[0] == 0 and doing[0] is not None and doing[0] not in wanted():
                _compute_asked(pending, wanted, doing)
                wait_for_pages()
            depth[0] += 1
            try:
                return ui_state.shared_value(identity + tuple(key), compute)
            finally:
                depth[0] -= 1

        judges = store.judges()
        # every page starts on the library's default judge (the one rule: ui.state.default_choice)
        judge = cache(("default_judge",), lambda: publishing_judge(store)).judge
        families_file = ui_state.DATA / "demo_families.csv"
        family = family_list(families_file.read_text() if families_file.exists() else "", judges)
        counts = cache(("counts", judge, None, False), lambda: store.counts(judge=judge))
        cache(("summary",), store.summary)  # the Data page's, read by the Power and Leaderboard pages

        def findings(of: str = judge, *, report: bool = False) -> None:
            # the report's own analyses last; the keys are also the Data, Leaderboard and
            # Anchors pages'
            overview_findings(store, of, human, cache, report=report)

        def sheets() -> None:
            judge_page_sheets(store, family, None, cache)  # every category: the page's default

        def board() -> None:
            # The Leaderboard page's defaults beyond the findings' table (which it shares).
            interval = choose_interval(counts.n_instructions, counts.n_models).method
            key = (judge, None, False, 1000, 0, interval)
            table = cache(
                ("leaderboard", *key), lambda: leaderboard(counts, rounds=1000, seed=0, interval=interval)
            )
            cache(("separation", *key), lambda: separation(table))
            cache(("split_half", judge, None, False), lambda: split_half_stability(counts))

        def sections() -> None:
            # The Leaderboard page's tabs below its table, drawn when opened (the categories, in
            # time; the pooled ranking is ``weights``).
            _leaderboard_sections(store, judge, cache)

        def weights(category: str | None = None) -> None:
            # Each judge's weight on several judges: the Leaderboard's section (resampled, all
            # categories) and the Judge page's (without intervals until its switch).
            if len(judges) >= 2:
                if category is None:
                    cache(
                        ("judge_pooling", None), partial(pool_store, store, category=None, rounds=POOL_ROUNDS)
                    )
                cache(("judge_pooling", category, 0), partial(pool_store, store, category=category, rounds=0))

        def judge_page(category: str | None) -> None:
            # The Judge page on one category (its category picker; None: every category, whose
            # sheets come first), its later tabs too, as the page computes them.
            judge_page_sheets(store, family, category, cache)
            cache(
                ("length_curve", judge, category),
                lambda: length_preference_curve(store, judge, category=category),
            )
            weights(category)

        def power() -> None:
            # The Power page's ranking without intervals (its summary is the Data page's).
            cache(("pw_board", judge, None), lambda: leaderboard(counts, rounds=0, interval="bootstrap"))
            cache(("pw_dists", judge, None), lambda: difference_distributions(counts))

        def ties(of: str = judge) -> None:
            # The Tie structure page's ranking under three tie conventions (its bootstrap is long),
            # for the default judge, then for each other judge (the page's judge picker: a change
            # of judge had computed its 200 resamples while the visitor waited)
            mine = (
                counts if of == judge else cache(("counts", of, None, False), lambda: store.counts(judge=of))
            )
            labelled = cache(("ties_labelled", of, None), lambda: labelled_counts(store, of, category=None))
            rule = next(iter(SCORE_RULE_NAMES))  # the page's first choice
            cache(
                ("ties", of, None, rule),
                lambda: judge_ties(mine, labelled, human_ranking=human, score=rule),
            )
            key = ("tie_conventions", of, None, TIE_ROUNDS)
            cache(key, lambda: tie_conventions(mine, rounds=TIE_ROUNDS))

        def changes() -> None:
            # What the first switch of the Overview, Leaderboard and Judge pages asks for (every
            # judge in the report, both-orders verdicts, both-orders agreement with humans), last:
            # the same keys and calls as those pages.
            both = cache(("counts", judge, None, True), lambda: both_orders_counts(counts))
            interval = choose_interval(both.n_instructions, both.n_models).method
            key = (judge, None, True, 1000, 0, interval)
            table = cache(
                ("leaderboard", *key), lambda: leaderboard(both, rounds=1000, seed=0, interval=interval)
            )
            cache(("separation", *key), lambda: separation(table))
            cache(("split_half", judge, None, True), lambda: split_half_stability(both))
            agreement = ("agreement_both", judge, None, 1000, 0)
            cache(agreement, lambda: both_orders_agreement(store, judge, category=None, rounds=1000, seed=0))

        def cases() -> None:
            # The Verdicts page's counts over every verdict (no filter yet).
            cache(("case_stats",), lambda: store.case_stats(VerdictFilter()))

        order = {
            "overview": [findings],
            "judge": [sheets],  # its first tab; the length curve and the weights are on later tabs
            "leaderboard": [board],  # its table and first tab; the other tabs are drawn when opened
            "power": [power],
            "ties": [ties],
            "verdicts": [cases],
        }
        # the page asked for (in the order it draws) first, then the others; a page asked for
        # while the work runs (it began at server start) comes next
        # (the Leaderboard's and the Judge page's later tabs once every page's first view is done,
        # and the Tie structure page's other judges before them)
        works = [findings, sheets, board, power, cases, ties, weights, sections]
        works += [partial(ties, other) for other in judges if other != judge]
        judge_tabs = partial(judge_page, None)
        works += [judge_tabs, changes]
        # then the Judge page's category picker and the Overview's judge picker (what the page
        # shows), then the report's own analyses (its download on the Overview)
        works += [partial(judge_page, category) for category in store.categories()]
        works += [partial(findings, other) for other in judges if other != judge]
        works.append(partial(findings, report=True))
        pending[:] = dict.fromkeys(order.get(first, []) + works)  # each once

        # a page's later tabs (drawn when opened): right after that page's first draw when it
        # was asked for (its visitor opens them next), else after every page's first view
        later = {"leaderboard": [weights, sections], "judge": [judge_tabs]}

        def wanted() -> list:  # the pieces of the page asked for last
            return order.get(asked_last(first), [])

        _compute(pending, wanted, doing, lambda: later.get(asked_last(first), []))
        store.close()
    except Exception:  # noqa: BLE001 - a page computes what this could not, and says why
        LOG.warning("The demo's start-up computation stopped; pages compute on request.", exc_info=True)


class _Stopped(BaseException):
    """Raised between two results of a loaded table's background work that should end (a new
    table, a closed session, the server stopping); not an ``Exception``, so no analysis takes it
    for a failure of its own."""


def start_loaded(store: Any, kept: dict, flight: Any, prefix: tuple, human: Any) -> threading.Thread | None:
    """Begin a loaded table's Overview findings in the background (:func:`warm_loaded`); None when
    the background work is turned off (``VERDICTLAB_WARM=0``)."""
    if not enabled():
        return None
    halt = threading.Event()
    thread = threading.Thread(
        target=warm_loaded,
        args=(store, kept, flight, prefix, human, halt),
        name="verdictlab-warm-loaded",
        daemon=True,
    )
    store._vl_warm = (thread, halt)  # what stop_loaded ends
    thread.start()
    return thread


def loaded_work(store: Any) -> threading.Thread | None:
    """``store``'s background work (:func:`start_loaded`) while it runs, else None."""
    work = getattr(store, "_vl_warm", None)
    return work[0] if work is not None and work[0].is_alive() else None


def stop_loaded(store: Any) -> None:
    """End ``store``'s background work (:func:`start_loaded`) and wait for the result it is
    computing: a new table must not meet an old result written into the store's own memory of
    the table it held, and a store must not close under a running query."""
    work = getattr(store, "_vl_warm", None)
    if work is not None:
        thread, halt = work
        halt.set()
        thread.join()
        store._vl_warm = None


def warm_loaded(
    store: Any, kept: dict, flight: Any, prefix: tuple, human: Any, halt: threading.Event
) -> None:
    """The Overview's findings of a table a visitor loaded (upload, the server's data folder, a
    saved dataset), computed in the background right after the load, under the keys the pages use
    (``prefix`` + key, into the session's results ``kept``; :func:`ui.state.once`): a page opened
    meanwhile waits for the result being computed instead of computing it again, and one opened
    later draws at once. The Overview's defaults (the library's default judge, 1,000 rounds,
    seed 0, the session's human ranking), then the Judge page's sheets and the Verdicts page's
    case index. It ends between two results when ``halt`` is set or the
    server stops; a result the design cannot give is left for the page, which says why."""
    once = _ui_state().once
    try:
        from evalcore.judge_choice import publishing_judge

        def cache(key: tuple, compute: Any) -> Any:
            if halt.is_set() or _STOP.is_set():
                raise _Stopped
            return once(kept, flight, prefix + tuple(key), compute)

        judge = cache(("default_judge",), lambda: publishing_judge(store)).judge
        cache(("counts", judge, None, False), lambda: store.counts(judge=judge))
        overview_findings(store, judge, human, cache)  # from the last piece: a page opened now
        # then the Judge page's sheets, on its defaults for a visitor's table (no families typed)
        from evalcore.present.judge import family_list

        judge_page_sheets(store, family_list("", store.judges()), None, cache)
        # and the Verdicts page's cases, grouped once and kept with the table (the store keeps it)
        from evalcore.store.case_index import case_index

        cache(("case_index",), lambda: case_index(store) is not None)
    except _Stopped:
        pass
    except Exception:  # noqa: BLE001 - the pages compute what this could not, and say why
        LOG.info("A loaded table's background findings stopped; pages compute on request.", exc_info=True)


#: The Overview's pieces every later piece reads (its first keys' first words): the background
#: work computes them first, in the page's order (:func:`overview_findings`).
READ_BY_THE_REST = frozenset({"summary", "counts", "leaderboard"})


class _Later(ValueError):
    """A piece the first pass of :func:`overview_findings` notes and leaves out (a ``ValueError``:
    the findings take it for a piece these data cannot give, in a result that is thrown away)."""


def overview_findings(store: Any, judge: str, human: Any, cache: Any, *, report: bool = False) -> None:
    """The Overview's findings on its defaults (1,000 rounds, seed 0; ``report``: the report's own
    analyses too), under the page's keys through ``cache``, from the last piece to the first.

    A page drawing the Overview computes its pieces in the order it shows them, waiting for any
    piece this work computes meanwhile. Were this work to go in the same order, the page would
    wait for each piece in turn and one core would do all of it. So a first pass computes only
    what every piece reads (:data:`READ_BY_THE_REST`) and notes the others, which are computed
    from the last to the first: a page opened meanwhile computes from the first, and the two meet
    in the middle, computing different pieces at the same time (the demo's cold link to the
    Overview, and a table the visitor has just loaded; the two threads share the interpreter, so
    the gain is what the pieces' array work and DuckDB's queries run beside each other). A last pass in the page's order computes what depends on a piece
    the first pass left out (the recommended anchor's stability) and finds the rest kept."""
    from evalcore.findings import run_analyses

    later: list[tuple[tuple, Any]] = []

    def first(key: tuple, compute: Any) -> Any:
        if key[0] in READ_BY_THE_REST:
            return cache(key, compute)
        later.append((key, compute))
        raise _Later(key[1])

    call = {"judge": judge, "human_ranking": human, "rounds": 1000, "seed": 0, "report": report}
    try:
        run_analyses(store, cache=first, **call)
    except _Later:  # a piece read outside the findings' own attempts (the report's "both bad"
        pass  # share) ends the first pass: the pieces noted so far are computed below, the rest after
    for key, compute in reversed(later):
        try:
            cache(key, compute)
        except ValueError:  # a piece these data cannot give: the page says why
            pass
    later.clear()  # (the notes hold the pieces' inputs: a large table's verdicts against each model)
    run_analyses(store, cache=cache, **call)


def judge_page_sheets(store: Any, family: Any, category: str | None, cache: Any) -> None:
    """The Judge page's sheets on its defaults (analytic intervals: 1,000 rounds and seed 0 in its
    key, unused) for ``category`` and the model families ``family``, under the page's key."""
    from evalcore.judge import judge_sheets

    call = {"families": family.families, "category": category, "rounds": 1000, "seed": 0, "cache": cache}
    # each judge's sheet from the last judge to the first (a page opened meanwhile computes them
    # from the first: the two meet in the middle, as the Overview's pieces, overview_findings),
    # then the page's own key, whose call finds every sheet kept
    for judge in reversed(store.judges()):
        judge_sheets(store, [judge], **call)
    cache(("judge_sheets", category, 1000, 0, family.key), lambda: judge_sheets(store, **call))


def asked_last(first: str) -> str:
    """The page asked for last (its file's stem), else ``first``."""
    return _ASKED[-1] if _ASKED else first


def _leaderboard_sections(store: Any, judge: str, cache: Any) -> None:
    """The Leaderboard page's tabs below the ranking (drawn and computed only when opened, so
    after every page's first view), on the default judge and all categories, under the page's
    keys (:mod:`ui.leaderboard_view`): the categories compared, the ranking as of the first
    judging day, in time windows and the judge's drift. A section the design cannot give raises
    a ``ValueError``; the page says why in words, and the work goes on."""
    from evalcore.ranking.heterogeneity import store_heterogeneity
    from evalcore.ranking.judge_drift import judge_drift
    from evalcore.ranking.judging_times import has_times, judging_days
    from evalcore.ranking.over_time import WINDOW_ROUNDS, as_of_leaderboard, rating_windows

    sel = {"judge": judge, "category": None}
    pieces = [(("findings", "heterogeneity", judge), partial(store_heterogeneity, store, judge=judge))]
    if cache(("has_times",), partial(has_times, store)):
        days = cache(("judging_days", judge, None), partial(judging_days, store, **sel))
        if days:  # the page's "As of" starts on the first day
            as_of = partial(as_of_leaderboard, store, as_of=days[0], rounds=WINDOW_ROUNDS, **sel)
            pieces.append((("as_of", judge, None, days[0]), as_of))
        pieces.append((("time_windows", judge, None), partial(rating_windows, store, **sel)))
        pieces.append((("judge_drift", judge, None), partial(judge_drift, store, **sel)))
    # the categories' tab first; the time tab's pieces from the last: a page drawing them from
    # the first computes those the work has not begun while the work computes the others
    # (DuckDB's queries run beside the page's own work)
    for key, compute in [pieces[0], *reversed(pieces[1:])]:
        try:
            cache(key, compute)
        except ValueError:
            continue


def _run(work: Any, pending: list, doing: list) -> None:
    """Compute one pending piece (``doing[0]`` says which meanwhile, then again the piece it
    interrupted, if any); a piece the design cannot give (``ValueError``) is left for the page,
    which says why in words."""
    pending.remove(work)
    outer, doing[0] = doing[0], work
    try:
        work()
    except ValueError:
        pass
    finally:
        doing[0] = outer


def _compute_asked(pending: list, wanted: Any, doing: list) -> None:
    """Compute the pending pieces of the page asked for last (``wanted()``), in its order."""
    while not _STOP.is_set() and (asked := [w for w in wanted() if w in pending]):
        _run(asked[0], pending, doing)


def _compute(pending: list, wanted: Any, doing: list, later: Any = list) -> None:
    """Compute the ``pending`` pieces until done or the server stops: those of the page asked for
    last (``wanted()``) first, else once no page runs that page's later pieces (``later()``, its
    tabs drawn when opened), else the next one; ``doing[0]`` is the piece
    being computed (between its results, the pieces of a page asked for meanwhile come first and
    the work then waits for a page it was not asked for, see :func:`warm_demo`)."""
    while pending and not _STOP.is_set():
        _compute_asked(pending, wanted, doing)
        if not pending or _STOP.is_set():
            return
        wait_for_pages()  # a page asked for draws first, then the rest is computed
        asked = [w for w in [*wanted(), *later()] if w in pending]
        _run((asked or pending)[0], pending, doing)


def link_opened(path: str) -> None:
    """A browser opened the address ``path`` (the server's HTML page, :mod:`ui.opening`): the
    page it names is asked for now, a second before its script runs (the browser first loads
    Streamlit's scripts and connects), so its results are computed next, meanwhile (see
    :func:`start`). An address that names no page of the app changes nothing."""
    from ui.navigation import PAGES  # the page registry by name

    name = path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    stem = name or "app"  # the app's root is the Data page (app.py)
    if stem in PAGES:
        with _LOCK:
            _ASKED.append(stem)
        _OPENED[0] = time.monotonic()  # the rest of the work waits until that page has begun
        # its session's copy of the demo, made meanwhile (not in the server's event loop)
        threading.Thread(target=_next_session, name="verdictlab-next-session", daemon=True).start()


def _next_session() -> None:
    _ui_state().prepare_session_store()


# Imported first by the ui package: a fresh server's first page says what it does, and the
# start-up work begins while that page still imports the libraries it needs.
announce()
start_in_server()
