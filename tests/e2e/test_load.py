"""Load test (issue 6, item 6): several browser sessions at once against one server.

Each session (its own browser context, so its own Streamlit session) opens a shared link, uploads
its own small simulated CSV with model names no other session has, saves it into the shared
workspace and opens the leaderboard; all sessions act at the same time, so the server handles
their uploads, saves and bootstraps concurrently. Checks: no exception in any session or in the
server log, every session sees only its own models (drawn in the forest plot and in the
leaderboard CSV it downloads), and every saved dataset holds its own session's models. The figures (sessions,
total time, per-session time, errors) are printed; there are no timing assertions.
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
import pytest

from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.workspace import Workspace

pytest.importorskip("playwright.sync_api")
from playwright.sync_api import expect  # noqa: E402

pytestmark = pytest.mark.e2e

SESSIONS = 5
MODELS_PER_SESSION = 4
TIMEOUT_S = 150  # bound on the whole concurrent run
IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
CHART = '[data-testid="stPlotlyChart"] .main-svg'


def _models(k: int) -> tuple[str, ...]:
    return tuple(f"load{k}-model{j}" for j in range(1, MODELS_PER_SESSION + 1))


def _csv(folder: Path, k: int) -> Path:
    sim = simulate(
        SimulationSpec(
            n_models=MODELS_PER_SESSION,
            n_instructions=30,
            model_names=_models(k),
            judges=(JudgeSpec(f"load{k}-judge"),),
            seed=100 + k,
        )
    )
    path = folder / f"session{k}_verdicts.csv"
    sim.verdicts.drop(columns=["row"]).to_csv(path, index=False)
    return path


def _idle(page) -> bool:
    return page.locator(IDLE).count() > 0


def _await_all(pages, ready, started: float, deadline: float) -> list[float]:
    """Poll every session (bounded by ``deadline``) until ``ready(k, page)``; seconds per session."""
    done: dict[int, float] = {}
    while len(done) < len(pages):
        if time.monotonic() > deadline:
            missing = sorted(set(range(len(pages))) - set(done))
            raise AssertionError(f"sessions {missing} did not finish within {TIMEOUT_S} s")
        for k, page in enumerate(pages):
            if k not in done and ready(k, page):
                done[k] = time.perf_counter() - started
        pages[0].wait_for_timeout(100)  # lets Playwright process the sessions' events
    return [done[k] for k in range(len(pages))]


def test_concurrent_sessions_see_only_their_own_data(
    browser, app_server, base_url: str, tmp_path: Path, capsys
) -> None:
    files = [_csv(tmp_path, k) for k in range(SESSIONS)]
    every_model = {m for k in range(SESSIONS) for m in _models(k)}
    log_start = app_server.log.stat().st_size
    contexts = [
        browser.new_context(
            base_url=base_url, accept_downloads=True, viewport={"width": 1400, "height": 1000}
        )
        for _ in range(SESSIONS)
    ]
    try:
        pages = [context.new_page() for context in contexts]
        deadline = time.monotonic() + TIMEOUT_S
        started = time.perf_counter()

        # 1. every session opens a shared link at once (the small anchor-only demo)
        for page in pages:
            page.goto("/?dataset=demo-anchor", wait_until="commit")
        opened = _await_all(
            pages,
            lambda k, p: _idle(p) and p.get_by_text("Loaded: demo_anchor_only.csv.gz").count() > 0,
            started,
            deadline,
        )

        # 2. every session drops its own file at once
        for page, path in zip(pages, files, strict=True):
            page.locator(".st-key-upload").get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                str(path)
            )
        uploaded = _await_all(
            pages,
            lambda k, p: _idle(p) and p.get_by_text(f"Loaded: {files[k].name}").count() > 0,
            started,
            deadline,
        )

        # 3. every session saves its upload into the shared workspace at once
        for k, page in enumerate(pages):
            page.get_by_test_id("stExpander").filter(has_text="Saved datasets").locator("summary").click()
            page.get_by_label("Save the loaded data as").fill(f"load session {k}")
        for page in pages:
            page.get_by_test_id("stBaseButton-secondaryFormSubmit").filter(has_text="Save").click()
        saved = _await_all(
            pages,
            lambda k, p: (
                _idle(p)
                and p.get_by_test_id("stAlert").filter(has_text=f"Saved as load session {k}").count() > 0
            ),
            started,
            deadline,
        )

        # 4. every session opens its leaderboard at once (1,000 bootstrap rounds each)
        for page in pages:
            page.get_by_test_id("stSidebar").get_by_role("link", name="Leaderboard").click()
        ranked = _await_all(
            pages,
            lambda k, p: (
                _idle(p)
                and p.locator(CHART).count() > 0
                and p.locator("h1").first.inner_text().strip().endswith("Leaderboard")
            ),
            started,
            deadline,
        )
        total = time.perf_counter() - started

        errors: list[str] = []
        leaks: list[str] = []
        for k, page in enumerate(pages):
            own = set(_models(k))
            exceptions = page.get_by_test_id("stException")
            if exceptions.count():
                errors.append(f"session {k}: {exceptions.first.inner_text()[:200]}")
            drawn = set(page.locator('[data-testid="stPlotlyChart"] text').all_text_contents())
            if not own <= drawn:
                leaks.append(f"session {k} does not show its models {sorted(own - drawn)}")
            if drawn & (every_model - own):
                leaks.append(
                    f"session {k} shows other sessions' models {sorted(drawn & (every_model - own))}"
                )
            if any(text.startswith("sim-") for text in drawn):
                leaks.append(f"session {k} still shows the demo")
            button = page.locator(".st-key-dl_lb").get_by_role("button")
            expect(button).to_be_visible()
            with page.expect_download() as download:
                button.click()
            table = pd.read_csv(download.value.path())
            if set(table["model"]) != own:
                leaks.append(f"session {k} downloaded the leaderboard of {sorted(set(table['model']))}")
        workspace = Workspace(app_server.workspace)
        for k in range(SESSIONS):
            models = set(workspace.load(f"load session {k}").table.frame["model_a"])
            if models != set(_models(k)):
                leaks.append(f"saved dataset of session {k} holds {sorted(models)}")
        log = app_server.log.read_text()[log_start:]
        errors += [line for line in log.splitlines() if "Traceback" in line or "Error" in line]

        with capsys.disabled():
            print(
                f"\nload test: {SESSIONS} concurrent sessions against one server on 127.0.0.1, "
                f"total {total:.1f} s, errors {len(errors)}, data leaks {len(leaks)}"
            )
            print("  session  opened  uploaded  saved  leaderboard   (seconds since the start)")
            for k in range(SESSIONS):
                print(
                    f"  {k:>7}  {opened[k]:>6.1f}  {uploaded[k]:>8.1f}  {saved[k]:>5.1f}  {ranked[k]:>11.1f}"
                )
        assert not errors, errors
        assert not leaks, leaks
    finally:
        for context in contexts:
            context.close()
