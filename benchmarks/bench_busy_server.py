"""Does the server keep answering other sessions while one session ranks 10,000 models?

    python -m benchmarks.bench_busy_server [--repeat 3] [--pages methods overview]

Against a real ``streamlit run app.py`` (the :class:`benchmarks.bench_sessions.Server` helper) in
headless Chromium:

1. **alone**: a second session's first visit of each of ``--pages`` on the demo, the server idle
   otherwise (``--repeat`` visits each, medians);
2. **busy**: session A uploads the simulated 10,000-model, 200,000-battle arena table (the one
   ``bench_many_models`` writes) and opens the Leaderboard (1,000 draws, sandwich intervals, the
   split halves, the chart); while its script runs, the second session visits the same pages again
   and again (each a new browser session) and every visit is timed.

Meanwhile a probe asks the server's health address every 0.1 s: a long answer there means the
process's event loop was held (by a computation keeping the interpreter's lock), not merely that
the two cores were busy. Printed: per page the medians alone and while busy, session A's upload
and Leaderboard times, the probe's median and longest answer, the server's CPU seconds, and the
machine's load before and after. Figures only, nothing asserted.

Needs Playwright and Debian's Chromium at /usr/bin/chromium (never ``playwright install``).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.bench_many_models import write_table
from benchmarks.bench_pages import cpu_seconds, wait_drawn, watch
from benchmarks.bench_sessions import CHROMIUM, CHROMIUM_ARGS, IDLE, TIMEOUT_MS, Server


class Probe(threading.Thread):
    """Asks ``url`` every ``every`` seconds; keeps each answer's time."""

    def __init__(self, url: str, every: float = 0.1) -> None:
        super().__init__(daemon=True)
        self.url, self.every, self.times, self._done = url, every, [], threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            start = time.perf_counter()
            try:
                with urllib.request.urlopen(self.url, timeout=60) as r:
                    r.read()
            except OSError:
                pass
            self.times.append(time.perf_counter() - start)
            time.sleep(self.every)

    def stop(self) -> list[float]:
        self._done.set()
        self.join()
        return self.times


def visit(browser, url: str) -> float:
    """Seconds until a new session's page at ``url`` is fully drawn."""
    context = browser.new_context()
    watch(context)
    page = context.new_page()
    start = time.perf_counter()
    page.goto(url)
    wait_drawn(page)
    seconds = time.perf_counter() - start
    context.close()
    return seconds


def load() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:  # noqa: C901 - one scripted scenario
    from playwright.sync_api import sync_playwright

    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pages", nargs="+", default=["methods", "overview"])
    ap.add_argument("--folder", default=str(Path(tempfile.gettempdir()) / "verdictlab-many-models"))
    args = ap.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    big = write_table(folder / "models10000_battles200000.csv", 10_000, 200_000)
    print("load before:", load(), flush=True)
    alone: dict[str, list[float]] = {p: [] for p in args.pages}
    busy: dict[str, list[float]] = {p: [] for p in args.pages}
    a_times, probe_busy, probe_alone, cpu_busy = [], [], [], []
    for run in range(args.repeat):
        server = Server(Path(tempfile.mkdtemp(prefix="bench_busy_")))
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                visit(browser, f"{server.url}/")  # a first visitor: imports done, the demo read
                time.sleep(5)
                probe = Probe(f"{server.url}/_stcore/health")
                probe.start()
                for name in args.pages:
                    alone[name].append(visit(browser, f"{server.url}/{name}"))
                probe_alone += probe.stop()
                # session A: the 10,000-model table, uploaded, then its Leaderboard
                context = browser.new_context()
                watch(context)
                a = context.new_page()
                a.goto(server.url)
                a.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                start = time.perf_counter()
                a.locator(".st-key-upload").get_by_test_id("stFileUploaderDropzoneInput").set_input_files(
                    str(big)
                )
                a.get_by_text(f"Loaded: {big.name}").first.wait_for(timeout=TIMEOUT_MS)
                a.wait_for_selector(IDLE, state="attached", timeout=TIMEOUT_MS)
                uploaded = time.perf_counter() - start
                cpu0, start = cpu_seconds(server.process.pid), time.perf_counter()
                a.evaluate("() => { window.__vlMark = window.__vlRuns.length; }")
                a.get_by_test_id("stSidebar").get_by_role("link", name="Leaderboard").click()
                probe = Probe(f"{server.url}/_stcore/health")
                probe.start()
                done = None
                rounds = 0
                while done is None:
                    for name in args.pages:
                        busy[name].append(visit(browser, f"{server.url}/{name}"))
                    rounds += 1
                    if a.evaluate(
                        """() => { const r = window.__vlRuns.slice(window.__vlMark || 0);
                        const s = r.indexOf("running");
                        return s >= 0 && r.slice(s).includes("notRunning"); }"""
                    ):
                        done = time.perf_counter() - start
                probe_busy += probe.stop()
                cpu_busy.append(cpu_seconds(server.process.pid) - cpu0)
                a_times.append((uploaded, done))
                print(
                    f"run {run + 1}: upload {uploaded:.1f} s, Leaderboard of 10,000 models drawn after "
                    f"{done:.1f} s (about; checked between visits), {rounds} rounds of visits meanwhile",
                    flush=True,
                )
                browser.close()
        finally:
            server.close()
    print(f"\nmedians over {args.repeat} servers; second session's first visit of a page (s)")
    print(f"{'page':12s} {'alone':>8s} {'while A ranks':>14s} {'visits':>7s}")
    for name in args.pages:
        print(
            f"{name:12s} {statistics.median(alone[name]):8.2f} {statistics.median(busy[name]):14.2f} {len(busy[name]):7d}"
        )
    print(
        f"health probe: alone median {statistics.median(probe_alone):.3f} s, longest {max(probe_alone):.3f} s; "
        f"while A ranks median {statistics.median(probe_busy):.3f} s, longest {max(probe_busy):.3f} s"
    )
    print(
        f"session A: upload {statistics.median(u for u, _ in a_times):.1f} s, Leaderboard "
        f"{statistics.median(d for _, d in a_times):.1f} s; server CPU meanwhile {statistics.median(cpu_busy):.1f} s"
    )
    print("load after:", load())


if __name__ == "__main__":
    main()
