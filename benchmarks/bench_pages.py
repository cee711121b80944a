"""Per-page response times of the bundled demo in headless Chromium against ``streamlit run app.py``.

Three figures per page, each the median of ``--repeat`` runs, printed with the server's CPU
seconds over the same span (the server process, all its threads, from /proc: on a shared, loaded
machine wall time says how busy the machine was, CPU time what the page itself cost):

* **cold link**: a freshly started server, the page's own address as its very first request, until
  the full page is drawn (the script stopped running). Timed twice: from the server's first
  answer (its health check; app.py's start-up hook holds that answer until the libraries are
  loaded and the demo is read) and from the server's process start (``streamlit run``). A fresh server per page and run; the request
  is sent as soon as the server answers, or ``--cold-after`` seconds later (a visitor who comes
  after the server started: its start-up hook, app.py's, computes meanwhile).
* **first visit**: a new browser session opening the page on a server that has answered before
  (the start-up work of ``ui.warm`` had the time a real server has between starting and its
  visitors: ``--settle`` seconds).
* **widget change**: in that session, the page's first switch flipped (else its first drop-down set
  to its second choice), until the page is drawn again.

Also printed: whether anything besides the title was on screen while a cold link was running
(a spinner, progress bar or text saying what is being computed), sampled every 0.2 s.

Usage::

    python -m benchmarks.bench_pages                     # every page, 3 runs
    python -m benchmarks.bench_pages --pages overview judge --repeat 1

Needs Playwright and Debian's Chromium at /usr/bin/chromium (never ``playwright install``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from benchmarks.bench_sessions import CHROMIUM, CHROMIUM_ARGS, IDLE, Server
from ui.navigation import NAVIGATION

TIMEOUT_MS = 300_000
#: Page name in the address → its title in the sidebar ("" is the Data page, app.py).
PAGES = {Path(file).stem if file != "app.py" else "": label for file, label, _ in NAVIGATION}
#: What a page shows while it works: a spinner, a progress bar, a status line.
BUSY = '[data-testid="stSpinner"], [data-testid="stProgress"], [data-testid="stStatusWidget"]'


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads) from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Installed in every page before it loads: records each change of the app's script state
#: ("running", "notRunning"; also the state the app is first drawn in) as it happens, so a run is
#: seen however short it is (polling for the running state missed fast runs and then waited for
#: its time-out, or took the idle state before a slow run began for the end of it).
WATCH = """
window.__vlRuns = [];
new MutationObserver(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app && app.getAttribute("data-test-script-state");
  if (state && state !== window.__vlRuns[window.__vlRuns.length - 1]) window.__vlRuns.push(state);
}).observe(document, {attributes: true, childList: true, subtree: true});
"""
#: True once a run began and ended after the mark (``window.__vlMark``), with a title drawn.
DRAWN = """() => {
  const runs = window.__vlRuns.slice(window.__vlMark || 0);
  const start = runs.indexOf("running");
  return start >= 0 && runs.slice(start).includes("notRunning") && !!document.querySelector("h1");
}"""


def watch(context) -> None:
    """Record the script's runs in every page of ``context`` (see :data:`WATCH`)."""
    context.add_init_script(WATCH)


def mark(page) -> None:
    """Runs recorded from now on count for :func:`wait_drawn` (before a widget is changed)."""
    page.evaluate("() => { window.__vlMark = window.__vlRuns.length; }")


def wait_drawn(page, *, timeout_ms: int = TIMEOUT_MS) -> None:
    """Until a run that began after the last :func:`mark` (or the page's loading) has ended, the
    page connected and idle, with its title drawn."""
    page.wait_for_function(DRAWN, timeout=timeout_ms, polling=50)
    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)


def change_widget(page) -> str:
    """Flip the first switch, else pick the second choice of the first drop-down; what was done."""
    main = page.get_by_test_id("stMain")
    toggles = main.locator('[data-testid="stCheckbox"] label:not([disabled]), [data-baseweb="checkbox"]')
    if toggles.count():
        toggles.first.click()
        return "switch"
    boxes = main.locator('[data-testid="stSelectbox"]')
    if boxes.count():
        boxes.first.click()
        options = page.locator('[role="option"]')
        options.nth(1 if options.count() > 1 else 0).click()
        return "drop-down"
    return ""


def timed(server: Server, action) -> tuple[float, float, object]:
    cpu, start = cpu_seconds(server.process.pid), time.perf_counter()
    out = action()
    return time.perf_counter() - start, cpu_seconds(server.process.pid) - cpu, out


def cold_link(pw, name: str, folder: Path, after: float = 0.0) -> tuple[float, float, float, bool]:
    """A fresh server; the page's address as its first request, ``after`` seconds once the server
    answers (its start-up hook's work runs meanwhile): (seconds from the server's first answer,
    seconds from the server's process start, server CPU over the visit, said what).

    Both times end when the page is drawn. The browser is started before the server, so the
    second time is the server's start-up (which may hold its first answer while it loads the
    libraries and reads the demo) plus the visit, without the browser's own start."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context()
    watch(context)
    page = context.new_page()
    said: list[bool] = []
    server = Server(folder)
    try:
        time.sleep(after)

        def visit() -> None:
            page.goto(f"{server.url}/{name}", wait_until="domcontentloaded")
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while time.monotonic() < deadline:
                if page.evaluate(DRAWN) and page.locator(IDLE).count():
                    return
                said.append(page.locator(BUSY).count() > 0)
                time.sleep(0.1)

        seconds, cpu, _ = timed(server, visit)
        from_start = time.perf_counter() - server.started
        return seconds, from_start, cpu, any(said) or not said
    finally:
        browser.close()
        server.close()


def visits(pw, server: Server, names: list[str]) -> dict[str, tuple[float, float, float, float, str]]:
    """First visit and widget change of each page in a new session: seconds and server CPU."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    out = {}
    for name in names:
        context = browser.new_context()
        watch(context)
        page = context.new_page()

        def first(page=page, name=name) -> None:
            page.goto(f"{server.url}/{name}")
            wait_drawn(page)

        def change(page=page) -> str:
            mark(page)
            done = change_widget(page)
            if done:
                try:
                    wait_drawn(page, timeout_ms=60_000)
                except Exception:  # noqa: BLE001 - a rerun too quick to show its running state
                    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
                    return done + " (no run seen)"
            return done

        seconds, cpu, _ = timed(server, first)
        widget, widget_cpu, done = timed(server, change)
        out[name] = (seconds, cpu, widget if done else float("nan"), widget_cpu, str(done))
        page.context.close()
    browser.close()
    return out


def median(values: list[float]) -> float:
    kept = [v for v in values if v == v]
    return statistics.median(kept) if kept else float("nan")


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="*", default=None, help="page names (overview, judge, …)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--settle", type=float, default=60.0, help="seconds a server runs before visits")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold links (a server each)")
    parser.add_argument("--cold-after", type=float, default=0.0, help="seconds before a cold link's request")
    args = parser.parse_args()
    names = [n for n in PAGES if args.pages is None or n in args.pages or (n == "" and "data" in args.pages)]
    print(f"load average at start: {os.getloadavg()}")
    cold: dict[str, list[tuple[float, float, float, bool]]] = {n: [] for n in names}
    warm: dict[str, list[tuple[float, float, float, float, str]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        for r in range(args.repeat):
            if not args.no_cold:
                for name in names:
                    cold[name].append(cold_link(pw, name, Path(tmp), args.cold_after))
                    print(f"  cold {name or 'data'}: {cold[name][-1]}", flush=True)
            server = Server(Path(tmp))
            try:
                # one session starts the server's work, then the server gets its settling time
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                context = browser.new_context()
                watch(context)
                page = context.new_page()
                page.goto(server.url)
                wait_drawn(page)
                browser.close()
                time.sleep(args.settle)
                for name, row in visits(pw, server, names).items():
                    warm[name].append(row)
                    print(f"  visit {name or 'data'}: {row}", flush=True)
            finally:
                server.close()
            print(f"run {r + 1} done, load average {os.getloadavg()}", flush=True)
    print(f"load average at end: {os.getloadavg()}")
    print(
        "cold link s: from the server's first answer to the page drawn; from start s: from the "
        "server's process start (streamlit run) to the page drawn; cpu: the server's over the visit"
    )
    head = (
        f"{'page':16} {'cold link s':>11} {'from start s':>12} {'cpu':>6} {'said':>5} {'first s':>8} "
        f"{'cpu':>6} {'widget s':>9} {'cpu':>6}"
    )
    print(head)
    for name in names:
        c, w = cold[name], warm[name]
        print(
            f"{PAGES[name]:16} {median([x[0] for x in c]):11.2f} {median([x[1] for x in c]):12.2f} "
            f"{median([x[2] for x in c]):6.2f} "
            f"{('yes' if all(x[3] for x in c) else 'NO') if c else '-':>5} "
            f"{median([x[0] for x in w]):8.2f} {median([x[1] for x in w]):6.2f} "
            f"{median([x[2] for x in w]):9.2f} {median([x[3] for x in w]):6.2f}  {w[0][4] if w else ''}"
        )


if __name__ == "__main__":
    main()
