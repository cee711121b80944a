"""Leaving a page while its long work runs: does the page clicked next come promptly, and did the
left page say in words what it was computing?

In Chromium against ``streamlit run`` (the helpers of :mod:`benchmarks.bench_upload_pages`): a
fresh server with the 1.8 M-battle arena table in its data folder; one session loads it on the
Data page, opens a slow page (``--slow``, the Overview by default) and, ``--after`` seconds into its
work, clicks another page in the sidebar (``--next``, the Methods page by default: it computes
nothing, so its time is the wait for the left page's work to stop). Printed per run: the words on
the slow page when it was left (its progress bar's or spinner's text), the seconds until the next
page was fully drawn, and the same page's time when opened on its own (a fresh session on the
same server, nothing running), with the load average; medians of ``--repeat``.

Streamlit stops a page's script at its next call to Streamlit (a progress report is one); a
computation between two reports finishes first. So "promptly" here is about the gap between
two progress reports of the left page, not about the next page's own work.

Usage::

    python -m benchmarks.bench_leave_page --repeat 3
    python -m benchmarks.bench_leave_page --slow "Tie structure" --after 1.0
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

#: The URL path of a page by its sidebar title, where it is not the title in small letters.
TITLES = {"Tie structure": "ties", "Anchor planning": "anchor_planning"}
#: True once the script has been idle since the mark (a run ended after it), with a title drawn.
IDLE_AFTER_MARK = """(heading) => {
  const runs = window.__vlRuns.slice(window.__vlMark || 0);
  const title = document.querySelector("h1");
  return runs.includes("notRunning") && !!title && title.innerText.startsWith(heading);
}"""
#: A page's title where it is not its sidebar title.
HEADINGS = {"Methods": "Methods and references"}
#: What a page says while it works: a progress bar's text, a spinner's.
BUSY = "[data-testid='stProgress'], [data-testid='stSpinner']"


def _say(text: str) -> None:
    print(f"    {time.strftime('%H:%M:%S')} {text}", flush=True)


def one_run(pw, folder: Path, table: Path, slow: str, after: float, nxt: str) -> tuple[str, float, float]:
    """(the words on the slow page when left, seconds until the next page is drawn, the next
    page's seconds on its own)."""
    from benchmarks.bench_pages import mark, wait_drawn, watch
    from benchmarks.bench_sessions import CHROMIUM, CHROMIUM_ARGS, IDLE, Server
    from benchmarks.bench_upload_pages import PAGE_TIMEOUT_MS, load_from_data_folder, settle

    os.environ["VERDICTLAB_DATA_DIR"] = str(table.parent)
    server = Server(folder)
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context()
        watch(context)
        page = context.new_page()
        page.goto(server.url)
        wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)
        settle(server.process.pid)
        _say("server settled; loading the table")
        mark(page)
        load_from_data_folder(page, table)
        page.get_by_text(f"Loaded: {table.name}").first.wait_for(timeout=PAGE_TIMEOUT_MS)
        wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)
        sidebar = page.get_by_test_id("stSidebar")
        _say(f"loaded; opening {slow}")
        mark(page)
        sidebar.get_by_role("link", name=slow, exact=True).click()
        time.sleep(after)
        busy = page.locator(BUSY)
        words = " | ".join(t.strip() for t in busy.all_inner_texts() if t.strip()) or "(nothing said)"
        _say(f"leaving for {nxt}")
        mark(page)
        start = time.perf_counter()
        sidebar.get_by_role("link", name=nxt, exact=True).click()
        try:
            page.wait_for_url(f"**/{TITLES.get(nxt, nxt.lower())}", timeout=PAGE_TIMEOUT_MS)
            # the left page's run is stopped and the next one runs without an idle state between
            # them: drawn once the script is idle after the click
            heading = HEADINGS.get(nxt, nxt)
            page.wait_for_function(IDLE_AFTER_MARK, arg=heading, timeout=PAGE_TIMEOUT_MS, polling=50)
            page.wait_for_selector(IDLE, timeout=PAGE_TIMEOUT_MS)
        except Exception:  # noqa: BLE001 - said with what the page shows, then raised
            heads = page.locator("h1").all_inner_texts()
            _say(f"not drawn: at {page.url}, headings {heads}, busy {page.locator(BUSY).all_inner_texts()}")
            raise
        left = time.perf_counter() - start
        _say(f"{nxt} drawn after {left:.2f} s")
        # the same page on its own: a fresh session, nothing running
        settle(server.process.pid)
        alone_page = context.new_page()
        alone_page.goto(server.url)
        alone_page.wait_for_selector("h1", timeout=PAGE_TIMEOUT_MS)
        alone_page.wait_for_selector(IDLE, timeout=PAGE_TIMEOUT_MS)
        mark(alone_page)
        start = time.perf_counter()
        alone_page.get_by_test_id("stSidebar").get_by_role("link", name=nxt, exact=True).click()
        alone_page.wait_for_function(IDLE_AFTER_MARK, arg=heading, timeout=PAGE_TIMEOUT_MS, polling=50)
        alone_page.wait_for_selector(IDLE, timeout=PAGE_TIMEOUT_MS)
        alone = time.perf_counter() - start
        browser.close()
        return words, left, alone
    finally:
        server.close()


def main() -> None:
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_upload_pages import arena_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--arena", type=Path, default=None, help="the arena table (Parquet)")
    parser.add_argument("--slow", default="Overview", help="the page left while it works (sidebar title)")
    parser.add_argument("--next", default="Methods", help="the page clicked meanwhile (sidebar title)")
    parser.add_argument("--after", type=float, default=2.0, help="seconds into the slow page's work")
    args = parser.parse_args()
    table = arena_file(args.arena)
    print(f"load average at start: {os.getloadavg()}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        for r in range(args.repeat):
            words, left, alone = one_run(pw, Path(tmp), table, args.slow, args.after, args.next)
            rows.append((left, alone))
            print(
                f"  run {r + 1}: {args.slow} said {words!r} after {args.after:g} s; "
                f"{args.next} drawn {left:.2f} s after the click (alone {alone:.2f} s); "
                f"load {os.getloadavg()[0]:.2f}",
                flush=True,
            )
    print(f"load average at end: {os.getloadavg()}")
    print(
        f"\nleaving {args.slow} for {args.next}: median {statistics.median(r[0] for r in rows):.2f} s "
        f"(the page alone: {statistics.median(r[1] for r in rows):.2f} s), medians of {args.repeat}"
    )


if __name__ == "__main__":
    main()
