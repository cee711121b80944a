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
* **widget change**: in that session, the page's first real interaction (:data:`WIDGETS`: its main
  drop-down set to another choice, or its main switch flipped; on a page not listed there, its
  first switch, else its first drop-down set to a choice other than the current one), until the
  page is drawn again. The change made is printed beside the figure. A change that draws no run
  within :data:`NO_RUN_SECONDS` (a choice equal to the current one, a widget not found) is
  reported as an error in words, never waited for until a time-out.

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
from typing import Callable

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


#: Each page's first real interaction: (kind, the widget's label, the choice to make or None for
#: the choice after the current one). Chosen per page, not "the first widget found":
#: the first drop-down of most pages is the judge picker, whose second choice is the judge the
#: page opens on (the library's default judge), so setting it drew no run.
WIDGETS: dict[str, tuple[str, str, str | None] | None] = {
    "": None,  # the Data page: its interaction is loading data (benchmarks.bench_upload_pages)
    "overview": ("drop-down", "Judge", None),
    "leaderboard": ("switch", "Both-orders verdicts", None),
    "anchors": ("drop-down", "Chosen anchor (highlighted in the figures, explored below)", None),
    "anchor_planning": ("switch", "Both-orders verdicts", None),
    "judge": ("drop-down", "Category", None),  # its first switch asks for the slower resampling
    "ties": ("drop-down", "Judge", "sim-judge-tie-happy"),  # the page's point: the tie-happy judge
    "power": ("switch", "Two-sided", None),
    "calibration": ("drop-down", "Candidate", None),
    "verdicts": ("switch", "The two orders disagree", None),
    "methods": None,  # text only
}
#: Seconds a widget change may take to start a run of the page before it is reported as drawing none.
NO_RUN_SECONDS = 10.0
#: True once a run began after the mark.
STARTED = """() => (window.__vlRuns.slice(window.__vlMark || 0)).includes("running")"""


class NoRun(Exception):
    """A widget change that could not be made or drew no run of the page (its words say which)."""


def _labelled(main, test_id: str, label: str):
    """The widget labelled ``label``, waited for a little (a page may still draw below its title)."""
    found = main.get_by_test_id(test_id).filter(has=main.page.get_by_text(label, exact=True)).first
    try:
        found.wait_for(state="attached", timeout=NO_RUN_SECONDS * 1000)
    except Exception:  # noqa: BLE001 - Playwright's time-out: the caller says it is missing
        pass
    return found


def flip(page, label: str | None) -> tuple[str, Callable[[], None] | None]:
    """Find the switch labelled ``label`` (the first switch when None): what flipping it does and
    the action that flips it (None when the page has no switch)."""
    main = page.get_by_test_id("stMain")
    if label is None:
        toggles = main.locator('[data-testid="stCheckbox"] label:not([disabled])')
        if not toggles.count():
            return "", None
        box, label = toggles.first, toggles.first.inner_text().strip()
    else:
        box = _labelled(main, "stCheckbox", label).locator("label")
        if not box.count():
            raise NoRun(f"no switch labelled \u201c{label}\u201d on the page")
    return f"switch \u201c{label}\u201d", box.click


def choose(page, label: str | None, choice: str | None) -> tuple[str, Callable[[], None] | None]:
    """Open the drop-down labelled ``label`` (the first when None): what setting it to ``choice``
    (when None, the choice after the current one) does and the action that picks it."""
    main = page.get_by_test_id("stMain")
    if label is None:
        boxes = main.get_by_test_id("stSelectbox")
        if not boxes.count():
            return "", None
        box = boxes.first
        label = box.get_by_test_id("stWidgetLabel").inner_text().strip()
    else:
        box = _labelled(main, "stSelectbox", label)
        if not box.count():
            raise NoRun(f"no drop-down labelled \u201c{label}\u201d on the page")
    current = box.locator('input[role="combobox"]').input_value().strip()
    box.click()
    options = page.get_by_role("option")
    texts = [options.nth(i).inner_text().strip() for i in range(options.count())]
    wanted = choice
    if wanted is None and len(texts) > 1:  # the choice after the current one (the first after the last)
        wanted = texts[(texts.index(current) + 1) % len(texts)] if current in texts else texts[0]
    if wanted is None or wanted == current or wanted not in texts:
        page.keyboard.press("Escape")
        why = (
            f"it offers only \u201c{current}\u201d"
            if wanted is None
            else f"\u201c{wanted}\u201d is not another choice"
        )
        raise NoRun(f"drop-down \u201c{label}\u201d cannot be changed: {why}")
    return f"drop-down \u201c{label}\u201d: {current} \u2192 {wanted}", options.nth(texts.index(wanted)).click


def find_widget(page, name: str = "") -> tuple[str, Callable[[], None] | None]:
    """The page's first real interaction (:data:`WIDGETS`; on a page not listed, its first
    switch, else its first drop-down set to another choice): what it does and the action that
    makes it (None when the page has no such widget). Raises :class:`NoRun` when it cannot be
    made."""
    if name in WIDGETS and WIDGETS[name] is None:
        return "", None
    kind, label, choice = WIDGETS.get(name) or ("", None, None)
    if kind == "switch":
        return flip(page, label)
    if kind == "drop-down":
        return choose(page, label, choice)
    found = flip(page, None)
    return found if found[1] is not None else choose(page, None, None)


def change_widget(page, act: Callable[[], None], done: str) -> None:
    """Make the change (``act``) and wait until the run it started has ended."""
    mark(page)
    act()
    wait_changed(page, done)


def wait_changed(page, done: str) -> None:
    """Until the run a widget change started has ended; :class:`NoRun` when none starts within
    :data:`NO_RUN_SECONDS`."""
    try:
        page.wait_for_function(STARTED, timeout=NO_RUN_SECONDS * 1000, polling=20)
    except Exception as exc:  # noqa: BLE001 - Playwright's time-out: the change drew no run
        raise NoRun(f"{done} drew no run of the page within {NO_RUN_SECONDS:g} s") from exc
    wait_drawn(page)


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

        seconds, cpu, _ = timed(server, first)
        widget, widget_cpu = float("nan"), 0.0
        try:
            done, act = find_widget(page, name)
            if act is not None:
                widget, widget_cpu, _ = timed(
                    server, lambda page=page, act=act, done=done: change_widget(page, act, done)
                )
        except NoRun as exc:
            done = f"ERROR: {exc}"
            print(f"  {name or 'data'}: {done}", flush=True)
        out[name] = (seconds, cpu, widget, widget_cpu, done)
        page.context.close()
    browser.close()
    return out


def said(rows: list[tuple[float, float, float, float, str]]) -> str:
    """The widget change the runs made, or the first run's error in words."""
    return next((r[4] for r in rows if r[4].startswith("ERROR")), rows[0][4] if rows else "")


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
            f"{median([x[2] for x in w]):9.2f} {median([x[3] for x in w]):6.2f}  {said(w)}"
        )


if __name__ == "__main__":
    main()
