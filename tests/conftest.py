"""Shared fixtures: simulated tables with a known truth, and the path to ../shared (optional)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

from evalcore.simulate import JudgeSpec, SimulationSpec, simulate
from evalcore.store import VerdictStore

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout; a worktree elsewhere names it with $VERDICTLAB_SHARED
SHARED = Path(os.environ.get("VERDICTLAB_SHARED") or ROOT.parent / "shared")

# Tests never write into the checkout: saved datasets of page tests go to a throw-away workspace
# (set before any app code reads it; each xdist worker gets its own folder).
os.environ.setdefault(
    "VERDICTLAB_WORKSPACE", str(Path(tempfile.mkdtemp(prefix="verdictlab-tests-")) / "verdictlab.duckdb")
)


# Hypothesis keeps found examples and a cache in ./.hypothesis by default: tests never write into
# the checkout, so its storage goes to the temporary folder and the example database is off.
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", tempfile.mkdtemp(prefix="verdictlab-hypothesis-"))
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


@pytest.fixture(scope="session")
def demo_store():
    """The all-pairs demo in a store, loaded once per test worker and shared by every file that
    asks (about 5 s each time saved): read it, never load another table into it."""
    from evalcore.io import read_verdicts

    store = VerdictStore()
    store.load(read_verdicts(DEMO))
    yield store
    store.close()


def open_page(page: str | None = None, *, timeout: float = 120):
    """The app as a visitor's first request opens it (the default demo loaded), then ``page``
    (``"pages/power.py"``; None stays on the Data page); fails on any exception. The one way page
    tests open a page: the app keeps the demo read once per process, so each call costs the
    page's own work, not reading the demo again."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.run()
    if page is not None:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at
