"""Shared fixtures: simulated tables with a known truth, the demo loaded once per worker, the one
way page tests open the app, and the path to ../shared (optional)."""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a worktree elsewhere names it with $VERDICTLAB_SHARED
SHARED = Path(os.environ.get("VERDICTLAB_SHARED") or ROOT.parent / "shared")


def _scratch(prefix: str) -> str:
    """A temporary folder removed when the test process ends."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


# Tests never write into the checkout: saved datasets of page tests go to a throw-away workspace
# (set before any app code reads it; each xdist worker gets its own folder).
os.environ.setdefault("VERDICTLAB_WORKSPACE", str(Path(_scratch("verdictlab-tests-")) / "verdictlab.duckdb"))

# The server's start-up work (ui.warm) computes the whole demo in a background thread: page tests
# open pages one at a time and time nothing, so it would only compete with them for the cores.
os.environ.setdefault("VERDICTLAB_WARM", "0")

# Hypothesis keeps found examples and a cache in ./.hypothesis by default: tests never write into
# the checkout, so its storage goes to the temporary folder and the example database is off.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", _scratch("verdictlab-hypothesis-"))
settings.register_profile("verdictlab", database=None)
settings.load_profile("verdictlab")


def shared_path(*parts: str) -> Path:
    """A file under ../shared, or skip the test where it is absent (as on a user's machine)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is not available here (../shared is only on the developers' machines)")
    return path


@pytest.fixture(scope="session")
def small_sim():
    spec = SimulationSpec(
        n_models=6,
        n_instructions=60,
        judges=(JudgeSpec("j1"), JudgeSpec("j2", slot_bias=0.4)),
        human_fraction=0.2,
        categories=("x", "y"),
        seed=7,
    )
    return simulate(spec)


@pytest.fixture()
def small_store(small_sim):
    store = VerdictStore()
    store.load(small_sim.verdicts, name="small")
    yield store
    store.close()


#: The bundled all-pairs demo (20 simulated models, 3 judges, 342,000 calls).
DEMO = ROOT / "data" / "demo_all_pairs.parquet"


class RecordingCache:
    """A ``cache(key, compute)`` for the analyses that take one (``run_analyses``,
    ``judge_sheets``, the background work): each key computed once, kept in ``kept``, the keys in
    the order they were first computed in ``order``."""

    def __init__(self) -> None:
        self.kept: dict = {}
        self.order: list[tuple] = []

    def __call__(self, key, compute):
        if key not in self.kept:
            self.order.append(key)
            self.kept[key] = compute()
        return self.kept[key]


@pytest.fixture(scope="session")
def full_demo_store():
    """The all-pairs demo in a store (with its text), loaded once per test worker the way the app
    loads it and shared by every file that asks (2–5 s each time saved): read it, never load
    another table into it."""
    store = VerdictStore()
    store.load_file(DEMO)
    yield store
    store.close()


@pytest.fixture(scope="session")
def demo_store(full_demo_store):
    """The demo the app shows (page tests: the small copy unless marked ``full_demo``)."""
    return full_demo_store


@functools.cache
def _components():
    """Streamlit's registry of custom components, scanned once per worker: every new AppTest
    otherwise reads the metadata of every installed package (about 0.3 s each; the app uses
    no custom components, so the scan finds the same nothing every time)."""
    from streamlit.components.v2.component_manager import BidiComponentManager

    manager = BidiComponentManager()
    manager.discover_and_register_components(start_file_watching=False)
    return manager


def new_app(script: str = "app.py", *, timeout: float = 120):
    """A fresh AppTest of the app (a new visitor's session), not yet run; ``script`` is the page a
    link opens first (the Data page, ``app.py``, unless given)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / script), default_timeout=timeout)
    at._bidi_component_manager = _components()  # AppTest's own attribute; None makes it scan
    return at


#: Pages that draw only their open tab (``ui.open_tabs``): page → the tabs' widget key. The walks
#: of every page (the catalogue's, the hostile names') open each of their tabs in turn.
OPEN_TABS = {
    "pages/anchors.py": "anchors_tab",
    "pages/calibration.py": "cal_tab",
    "pages/judge.py": "judge_tab",
    "pages/leaderboard.py": "lb_tab",
}


def open_tab(at, key: str, label: str):
    """Open the tab ``label`` of a page's tabs kept under ``key`` (pages draw only the open tab,
    :func:`ui.open_tabs`), as a click on it does; fails on any exception."""
    at.session_state[key] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.fixture(scope="session")
def small_demo_dir(tmp_path_factory) -> Path:
    """A folder with a tenth of the all-pairs demo (its first 30 instructions: the same 20 models,
    3 judges, categories, labels and text) and the anchor-only demo as bundled."""
    import duckdb

    folder = tmp_path_factory.mktemp("small-demo")
    con = duckdb.connect()
    con.execute(
        f"""COPY (SELECT * FROM read_parquet(?) WHERE instruction_id IN
                  (SELECT DISTINCT instruction_id FROM read_parquet(?) ORDER BY 1 LIMIT 30)
                  )
            TO '{folder / DEMO.name}' (FORMAT parquet)""",
        [str(DEMO), str(DEMO)],
    )
    con.close()
    shutil.copy(ROOT / "data" / "demo_anchor_only.csv.gz", folder)
    return folder


@pytest.fixture(scope="session")
def small_demo_store(small_demo_dir):
    """The small copy of the all-pairs demo in a store (read it, never load into it)."""
    store = VerdictStore()
    store.load_file(small_demo_dir / DEMO.name)
    yield store
    store.close()


@pytest.fixture()
def small_demo(small_demo_dir, monkeypatch) -> Path:
    """The app's demo is the small copy during this test (``$VERDICTLAB_DEMO_DIR``): for tests that
    replace the demo at once with an upload, so that opening the app does not copy 342,000 calls
    first (about a second per session), and for tests of a page's wiring (links, filters, paging)
    that compare with :func:`small_demo_store`. Nothing they check is about the demo's numbers."""
    monkeypatch.setenv("VERDICTLAB_DEMO_DIR", str(small_demo_dir))
    return small_demo_dir


def open_page(page: str | None = None, *, timeout: float = 120):
    """The app as a visitor's first request opens it (the default demo loaded), then ``page``
    (``"pages/power.py"``; None stays on the Data page); fails on any exception. The one way page
    tests open a page: the app keeps the demo read once per process, so each call costs the
    page's own work, not reading the demo again. Tests that only read a page's default view share
    one opened page through a module-scoped fixture instead of opening it again each."""
    at = new_app(timeout=timeout)
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


#: Fixtures of pytest-playwright: a test that uses one drives a real browser.
_BROWSER_FIXTURES = {"page", "context", "new_context", "browser", "browser_type", "browser_name"}


_PAGE_TESTS = ROOT / "tests" / "pages"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that drives the browser is an ``e2e`` test, marked or not, so that
    ``-m "not e2e"`` never starts Chromium; every page test is an ``app`` test, so that
    ``-m "not app"`` is the library's own loop (both run before the ``-m`` selection)."""
    for item in items:
        if _BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
        if item.path.is_relative_to(_PAGE_TESTS):
            item.add_marker(pytest.mark.app)


#: Whether the test running now is marked ``app`` (set around each test, setup to teardown).
_APP_ALLOWED = [True]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _APP_ALLOWED[0] = item.get_closest_marker("app") is not None
    yield
    _APP_ALLOWED[0] = True


def pytest_configure(config: pytest.Config) -> None:
    """A test outside tests/pages that runs the app must say so (``@pytest.mark.app``): otherwise
    ``-m "not app"`` would run it and the library loop would quietly slow down. AppTest's one run
    method refuses such a test in words."""
    from streamlit.testing.v1 import AppTest

    run = AppTest._run

    @functools.wraps(run)
    def guarded(self, *args, **kwargs):
        if not _APP_ALLOWED[0]:
            raise AssertionError(
                "This test runs the app in AppTest but is not marked: add @pytest.mark.app "
                "(or move it under tests/pages), so that the library loop (-m 'not app') skips it."
            )
        return run(self, *args, **kwargs)

    AppTest._run = guarded  # type: ignore[method-assign]
