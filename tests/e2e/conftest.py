"""Browser tests: one Streamlit server per test session, driven by Debian's headless Chromium.

Recipe: shared/notes/TESTING_IN_A_BROWSER.md. The whole folder is skipped, with a message, when
/usr/bin/chromium (or $VERDICTLAB_CHROMIUM) or Playwright is missing. The server gets its own workspace file in a
temporary folder, so saved datasets of the tests never touch ./workspace.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("VERDICTLAB_CHROMIUM", "/usr/bin/chromium"))  # Debian's package
# Screenshots to look at after a run; outside the checkout so the tests leave nothing behind.
SCREENSHOTS = Path(
    os.environ.get("VERDICTLAB_SCREENSHOTS", Path(tempfile.gettempdir()) / "verdictlab-screenshots")
)
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: The app is idle: connected to the server and no script is running.
IDLE = '[data-testid="stApp"][data-test-connection-state="CONNECTED"][data-test-script-state="notRunning"]'
#: The page's script has drawn at least one element in the main column.
DRAWN = '[data-testid="stMain"] [data-testid="stElementContainer"]'
#: Longest wait for one script run (ms): the demo leaderboard bootstraps 1,000 rounds.
RUN_TIMEOUT_MS = 90_000

#: How long an ``expect`` waits for what it checks (ms). Playwright's 5 s default is shorter than
#: one script run of the demo on the loaded two-core CI machine, where a check of a page that was
#: still drawing failed now and then (its judge picker not there yet).
EXPECT_TIMEOUT_MS = 30_000

_MISSING = None
if importlib.util.find_spec("playwright") is None:
    _MISSING = "Playwright is not installed (pip install pytest-playwright)"
elif not CHROMIUM.exists():
    _MISSING = (
        f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install -y chromium) "
        "to run the browser tests; never `playwright install`"
    )
if _MISSING is None:
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip every test of this folder, with the reason, when the browser cannot run."""
    if _MISSING is None:
        return
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.skip(reason=f"browser tests skipped: {_MISSING}"))


@dataclass(frozen=True)
class AppServer:
    url: str
    workspace: Path
    log: Path
    process: subprocess.Popen


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.read().decode().strip() == "ok"
    except OSError:
        return False


@contextmanager
def serve(folder: Path, env: dict[str, str] | None = None) -> Iterator[AppServer]:
    """``streamlit run app.py`` on a free loopback port, with a throw-away workspace file in
    ``folder`` and ``env`` added to this process's environment; stopped on exit. A traceback in
    its log fails the test: every error a visitor can cause is said on the page, so one in the
    log is a failure nobody saw (the start-up work once died there in two of three starts)."""
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    log = folder / "streamlit.log"
    workspace = folder / "workspace" / "verdictlab.duckdb"
    # A low decompression cap keeps the bomb test quick (the default is 2 GiB).
    env = {
        **os.environ,
        "VERDICTLAB_WORKSPACE": str(workspace),
        "VERDICTLAB_MAX_BYTES": "512M",
        **(env or {}),
    }
    command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless=true"]
    command += ["--server.address=127.0.0.1", f"--server.port={port}"]
    # (no file watcher: the project's configuration, as the README's server)
    command += ["--browser.gatherUsageStats=false"]
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 90
        while not _healthy(url):
            if process.poll() is not None:
                pytest.fail(f"streamlit exited with {process.returncode}:\n{log.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not answer /_stcore/health in 90 s:\n{log.read_text()}")
            time.sleep(0.2)
        yield AppServer(url=url, workspace=workspace, log=log, process=process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
    text = log.read_text(errors="replace")
    if "Traceback" in text:
        at = text.index("Traceback")
        pytest.fail(f"the server logged a traceback:\n{text[max(0, at - 500) : at + 3000]}")


@pytest.fixture(scope="session")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """``streamlit run app.py`` on a free loopback port, with a throw-away workspace file."""
    if _MISSING is not None:
        pytest.skip(f"browser tests skipped: {_MISSING}")
    with serve(tmp_path_factory.mktemp("server")) as server:
        yield server


@pytest.fixture(scope="session")
def base_url(app_server: AppServer) -> str:
    """pytest-playwright resolves ``page.goto("/leaderboard")`` against the server."""
    return app_server.url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    return {**browser_type_launch_args, "executable_path": str(CHROMIUM), "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1000}}


class Driver:
    """Waiting and navigation helpers for a Streamlit page (Streamlit's script state, no sleeps)."""

    @staticmethod
    def wait_idle(page, timeout: int = RUN_TIMEOUT_MS) -> None:
        """Wait until Streamlit has finished the script run that the last action started."""
        page.wait_for_timeout(250)
        page.wait_for_selector(IDLE, state="attached", timeout=timeout)

    def open(self, page, path: str = "/", timeout: int = RUN_TIMEOUT_MS) -> None:
        """Open a URL (a new browser session) and wait for its first run to finish."""
        page.goto(path)
        page.wait_for_selector('[data-testid="stApp"]', state="attached", timeout=timeout)
        # Connected and not running is also the state before the first run begins (seen on the
        # loaded CI machine: a test read the page before it was drawn), so wait for the run to
        # have drawn something (every page draws its title), then for it to end.
        page.wait_for_selector(DRAWN, state="attached", timeout=timeout)
        self.wait_idle(page, timeout)

    def navigate(self, page, title: str, timeout: int = RUN_TIMEOUT_MS) -> None:
        """Go to another page through the sidebar (the same browser session keeps its data)."""
        page.get_by_test_id("stSidebar").get_by_role("link", name=title).click()
        self.wait_idle(page, timeout)

    def upload(self, page, path: Path, timeout: int = RUN_TIMEOUT_MS) -> None:
        """Drop a file on the Data page's verdict uploader (the widget with key ``upload``) and
        wait until the run that reads it has finished."""
        zone = page.locator(".st-key-upload").get_by_test_id("stFileUploaderDropzoneInput")
        self.run_after(page, lambda: zone.set_input_files(str(path)))
        self.wait_idle(page, timeout)

    @staticmethod
    def run_after(page, action, timeout: int = 30_000) -> None:
        """Do ``action`` (an upload, which always starts a run) and wait until that run has
        begun. On a busy machine the upload's request can take longer than :meth:`wait_idle`'s
        grace period, which then saw the previous run's idle state and let the next step
        interrupt the upload. A run that is never seen within ``timeout`` falls back to
        :meth:`wait_idle` alone, as before."""
        page.evaluate(
            """() => {
                window.__vlRunSeen = false;
                const app = document.querySelector('[data-testid="stApp"]');
                // a run that began and ended between two callbacks shows as its old value
                new MutationObserver((records) => {
                    const seen = records.some((r) => r.oldValue === 'running');
                    if (seen || app.getAttribute('data-test-script-state') === 'running') window.__vlRunSeen = true;
                }).observe(app, {
                    attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state'],
                });
            }"""
        )
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError  # here: may be absent

        action()
        try:
            page.wait_for_function("() => window.__vlRunSeen === true", timeout=timeout)
        except PlaywrightTimeoutError:
            pass

    @staticmethod
    def assert_no_exception(page) -> None:
        exceptions = page.get_by_test_id("stException")
        assert exceptions.count() == 0, exceptions.first.inner_text()

    @staticmethod
    def screenshot(page, name: str) -> Path:
        """A full-page screenshot in $VERDICTLAB_SCREENSHOTS (default: the temp folder) to look at."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        # Streamlit scrolls inside stMain, so grow the viewport to the content for the picture
        size = page.viewport_size
        height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]')?.scrollHeight ?? 0")
        page.set_viewport_size(
            {"width": size["width"], "height": max(size["height"], min(int(height), 8000))}
        )
        page.wait_for_timeout(300)  # layout only: no script run follows a resize
        page.screenshot(path=str(path), full_page=True)
        page.set_viewport_size(size)
        return path


@pytest.fixture(scope="session")
def st_app() -> Driver:
    return Driver()
