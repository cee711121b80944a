"""Where a page's wall time goes in Chromium after the 1.8 M-battle arena table is loaded from the
server's data folder: the server's script run against the browser's own work.

A fresh server; one session loads the arena table on the Data page (as
:mod:`benchmarks.bench_upload_pages` does), then opens each page named from the sidebar (its first
visit after the load). Printed per page: the wall seconds until the page is drawn and idle, the
seconds until the server's run of the page's script ended (the browser told of it), the server's
CPU seconds over the visit (all its threads), and the browser's own busy time over the same span
from Chromium's performance counters (its main thread's tasks: script, layout, style), with the
machine's load averages. Wall far above the server's run end is the browser's drawing; a run end
far above the server's CPU is the server waiting (on the machine, or on the browser).

Usage::

    python -m benchmarks.trace_page_wall --pages Leaderboard Overview [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

#: Records each script state with the page's clock, beside bench_pages' own record.
TIMES = """
window.__vlTimes = [];
new MutationObserver(() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app && app.getAttribute("data-test-script-state");
  const last = window.__vlTimes[window.__vlTimes.length - 1];
  if (state && (!last || last[0] !== state)) window.__vlTimes.push([state, performance.now()]);
}).observe(document, {attributes: true, childList: true, subtree: true});
"""
BUSY = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def trace(pages: list[str], table: Path) -> dict[str, tuple[float, float, float, dict[str, float]]]:
    from playwright.sync_api import sync_playwright

    from benchmarks.bench_pages import PAGES, mark, timed, wait_drawn, watch
    from benchmarks.bench_sessions import CHROMIUM, CHROMIUM_ARGS, Server
    from benchmarks.bench_upload_pages import PAGE_TIMEOUT_MS, load_from_data_folder, settle

    os.environ["VERDICTLAB_DATA_DIR"] = str(table.parent)
    out = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        server = Server(Path(tmp))
        try:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            context = browser.new_context()
            watch(context)
            context.add_init_script(TIMES)
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            page.goto(server.url)
            wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)
            settle(server.process.pid)
            mark(page)
            load_from_data_folder(page, table)
            page.get_by_text(f"Loaded: {table.name}").first.wait_for(timeout=PAGE_TIMEOUT_MS)
            wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)
            for title in (t for t in PAGES.values() if t in pages):

                def metrics() -> dict[str, float]:
                    got = cdp.send("Performance.getMetrics")["metrics"]
                    return {m["name"]: m["value"] for m in got if m["name"] in BUSY}

                before = metrics()
                mark(page)
                clicked = page.evaluate("() => { window.__vlTimes = []; return performance.now(); }")

                def visit(title=title) -> None:
                    page.get_by_test_id("stSidebar").get_by_role("link", name=title, exact=True).click()
                    wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)

                wall, cpu, _ = timed(server, visit)
                after = metrics()
                times = page.evaluate("() => window.__vlTimes")
                ended = [t for state, t in times if state == "notRunning"]
                run_end = (ended[-1] - clicked) / 1000 if ended else float("nan")
                busy = {k: after.get(k, 0.0) - before.get(k, 0.0) for k in BUSY}
                out[title] = (wall, run_end, cpu, busy)
                print(
                    f"    {title}: {wall:.2f} s wall, run ended {run_end:.2f} s, server CPU {cpu:.2f} s; "
                    + ", ".join(f"{k.removesuffix('Duration').lower()} {v:.2f}" for k, v in busy.items()),
                    flush=True,
                )
            browser.close()
        finally:
            server.close()
    return out


def main() -> None:
    from benchmarks.bench_upload_pages import arena_file

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", default=["Leaderboard"], metavar="TITLE")
    parser.add_argument("--arena", type=Path, default=None)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    table = arena_file(args.arena)
    runs = []
    for r in range(args.repeat):
        print(f"  run {r + 1}, load average {os.getloadavg()}", flush=True)
        start = time.perf_counter()
        runs.append(trace(args.pages, table))
        print(f"  ({time.perf_counter() - start:.0f} s)", flush=True)
    print(f"load average at end: {os.getloadavg()}; medians of {len(runs)}")
    print(
        f"{'page':14} {'wall s':>7} {'run end s':>9} {'server cpu s':>12} {'browser busy s':>14} {'script s':>8}"
    )
    for title in runs[0]:
        col = [run[title] for run in runs]
        med = [statistics.median(c[k] for c in col) for k in range(3)]
        busy = statistics.median(c[3]["TaskDuration"] for c in col)
        script = statistics.median(c[3]["ScriptDuration"] for c in col)
        print(f"{title:14} {med[0]:7.2f} {med[1]:9.2f} {med[2]:12.2f} {busy:14.2f} {script:8.2f}")


if __name__ == "__main__":
    main()
