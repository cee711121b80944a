"""The default demo's results, computed once when the server starts, in the background.

The first request to a fresh server starts one thread that reads the default demo and runs, through
the very evalcore functions the pages call (:func:`evalcore.findings.run_analyses`,
:func:`evalcore.judge.judge_sheets`), what the Data, Overview, Leaderboard, Anchors and Judge pages
show first. Each result goes into the results shared by every untouched demo session
(:func:`ui.state.shared_value`) under the key the page itself uses, so a page opened meanwhile
waits for the result being computed (its progress bar says what) instead of computing it a second
time, and a page opened afterwards draws at once. Nothing is stored on disk: a changed demo file
has another key and is computed afresh.

``VERDICTLAB_WARM=0`` turns it off (the test suite's page tests, which time nothing).
"""

from __future__ import annotations

import importlib
import logging
import os
import threading

_STARTED = False
_LOCK = threading.Lock()
LOG = logging.getLogger(__name__)


def enabled() -> bool:
    """Whether the start-up work runs (``VERDICTLAB_WARM``, on unless "0")."""
    return os.environ.get("VERDICTLAB_WARM", "1").strip() != "0"


def start() -> threading.Thread | None:
    """Start the start-up work once per server process; the thread, or None when it already ran
    or is turned off."""
    global _STARTED
    with _LOCK:
        if _STARTED or not enabled():
            return None
        _STARTED = True
    thread = threading.Thread(target=warm_demo, name="verdictlab-warm", daemon=True)
    thread.start()
    return thread


def warm_demo() -> None:
    """Compute the default demo's first-page results into the shared results (see the module)."""
    from evalcore.findings import run_analyses
    from evalcore.ingest.files import read_human_ranking
    from evalcore.judge import judge_sheets
    from evalcore.present.judge import family_list
    from evalcore.store.store import VerdictStore

    # ``ui.state`` by its module name: the package exports a function of that name too
    ui_state = importlib.import_module("ui.state")
    try:
        label = ui_state.DEFAULT_DEMO
        verdicts, ranking_file = ui_state.DEMO_DATASETS[label]
        demo = ui_state._demo_table(ui_state.demo_file(label))
        store = VerdictStore()
        with ui_state._DEMO_LOCK:
            store.load(demo)
        human = read_human_ranking(ranking_file) if ranking_file is not None else None
        identity = ui_state.demo_identity(label, None if human is None else ui_state.fingerprint(human))
        if identity is None:
            return

        def cache(key: tuple, compute):
            return ui_state.shared_value(identity + tuple(key), compute)

        judges = store.judges()
        judge = ui_state.DEMO_JUDGE.get(label, judges[0])
        judge = judge if judge in judges else judges[0]
        # The Overview's defaults (its ROUNDS and SEED, one judge): its keys are also those of
        # the Data, Leaderboard and Anchors pages.
        run_analyses(store, judge=judge, human_ranking=human, rounds=1000, seed=0, cache=cache)
        # The Judge page's defaults: every judge, 1,000 rounds, seed 0, the demo's families.
        families_file = ui_state.DATA / "demo_families.csv"
        family = family_list(families_file.read_text() if families_file.exists() else "", judges)
        cache(
            ("judge_sheets", None, 1000, 0, family.key),
            lambda: judge_sheets(store, families=family.families, category=None, rounds=1000, seed=0),
        )
        store.close()
    except Exception:  # noqa: BLE001 - a page computes what this could not, and says why
        LOG.warning("The demo's start-up computation stopped; pages compute on request.", exc_info=True)
