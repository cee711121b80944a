"""Every page's first visit after a large upload: in Chromium against ``streamlit run``, and in one process.

Default (``--browser``): for each table of ``--tables``, ``--repeat`` fresh servers; in each, one browser
session loads the table on the Data page, then opens every page from the sidebar once, in sidebar
order (the first visit of each page after the upload, in the session that loaded it), once the
server's start-up work on the demo is done (its CPU idle), so that work is not counted. Printed per
page and table: wall seconds until the page is fully drawn and the server's CPU seconds over the
same span (all its threads, from /proc), medians of ``--repeat``, with the load average. The
tables: the paper-sized one (866,250 calls, :mod:`benchmarks.paper_table`) is uploaded through
the browser's file widget; the 1.8 M-battle arena table (Parquet, from ``--arena``, default the
simulated dump of :mod:`benchmarks.make_arena_dump` under the system temp folder, written when
missing) is loaded from the server's data folder, as an operator serves files above the upload
limit (its output says which way each table came in). ``--tables models2000 models10000``: the
simulated arenas of many models of :mod:`benchmarks.bench_many_models` (2,000 models with 2,000
battles; 10,000 models with 200,000 battles), uploaded in the browser.

``--in-process``: the evalcore calls behind four pages' first draw, in one process (below).

``python -m benchmarks.bench_upload_pages [--repeat 3]`` loads the 866,250-call table of
:mod:`benchmarks.paper_table` (22 models, 750 instructions, 5 judges; written once under the
system temp folder) into a fresh store, then runs, on the library's default judge and the pages'
defaults, the evalcore calls behind the first draw of the Overview (the findings), the Leaderboard
(the board with 1,000 rounds, its separation test and split halves), the Judge page (every judge's
spec sheet, 1,000 rounds) and Power (the ranking without intervals and the difference
distributions), each in a session of its own as a visitor who opens that page first (nothing
shared between them but the loaded table). Printed: wall and CPU seconds of each (medians of
``--repeat`` fresh stores) and the load average. Not the browser's drawing: ``bench_pages`` times
that for the demo.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.paper_table import paper_sized_file


def pages(store) -> dict[str, Callable[[], object]]:
    from evalcore.findings import run_analyses
    from evalcore.judge import judge_sheets
    from evalcore.judge_choice import publishing_judge
    from evalcore.power import difference_distributions
    from evalcore.ranking import choose_interval, leaderboard, separation
    from evalcore.ranking.split_half import split_half_stability

    judge = publishing_judge(store).judge

    def board() -> None:
        counts = store.counts(judge=judge)
        interval = choose_interval(counts.n_instructions, counts.n_models).method
        table = leaderboard(counts, rounds=1000, seed=0, interval=interval)
        separation(table)
        split_half_stability(counts)

    def power() -> None:
        counts = store.counts(judge=judge)
        leaderboard(counts, rounds=0, interval="bootstrap")
        difference_distributions(counts)

    return {
        "Overview": lambda: run_analyses(store, judge=judge, rounds=1000, seed=0),
        "Leaderboard": board,
        "Judge": lambda: judge_sheets(store, category=None, rounds=1000, seed=0),
        "Power": power,
    }


def in_process(repeat: int) -> None:
    from evalcore.store.store import VerdictStore

    path = paper_sized_file()
    print(f"load average at start: {os.getloadavg()}")
    times: dict[str, list[tuple[float, float]]] = {}
    for _ in range(repeat):
        loaded = VerdictStore().load_file(path)
        for name in ("Overview", "Leaderboard", "Judge", "Power"):
            store = VerdictStore()  # a visitor's session: a copy of the loaded table
            store.load(loaded)
            run = pages(store)[name]
            wall, cpu = time.perf_counter(), time.process_time()
            run()
            times.setdefault(name, []).append((time.perf_counter() - wall, time.process_time() - cpu))
            store.close()
        loaded.store.close()
    print(f"load average at end: {os.getloadavg()}")
    print(f"{'page':12} {'wall s':>7} {'cpu s':>6}")
    for name, runs in times.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        print(f"{name:12} {wall:7.2f} {cpu:6.2f}")


#: Seconds a page may take before the run gives up on it (and says so).
PAGE_TIMEOUT_MS = 300_000


def load_from_data_folder(page, table: Path) -> None:
    """Pick ``table`` in the Data page's data-folder drop-down and press its load button (the
    caller waits for the "Loaded" line: each benchmark times that wait its own way)."""
    box = page.get_by_test_id("stSelectbox").filter(has_text="File in the data folder")
    if table.name not in box.inner_text():  # not the folder's first file: pick it
        box.click()
        page.keyboard.type(table.name)
        page.keyboard.press("Enter")
    page.get_by_role("button", name="Load this file").click()


def arena_file(given: Path | None) -> Path:
    """The 1.8 M-battle arena table as Parquet: ``given``, else the simulated dump (made once)."""
    if given is not None:
        return given
    out = Path(tempfile.gettempdir()) / "verdictlab-arena" / "arena1800k"
    path = out / "clean_battle_sim.parquet"
    if not path.exists():
        subprocess.run([sys.executable, "-m", "benchmarks.make_arena_dump", str(out)], check=True)
    return path


def many_models_file(n_models: int, n_battles: int) -> Path:
    """The simulated arena of ``benchmarks.bench_many_models`` (written once under the system temp
    folder)."""
    from benchmarks.bench_many_models import write_table

    folder = Path(tempfile.gettempdir()) / "verdictlab-many-models"
    folder.mkdir(exist_ok=True)
    return write_table(folder / f"models{n_models}_battles{n_battles}.csv", n_models, n_battles)


def settle(pid: int, *, quiet: float = 0.3, every: float = 3.0, longest: float = 180.0) -> None:
    """Until the server spends under ``quiet`` CPU seconds in ``every`` seconds (its start-up work
    done), at most ``longest`` seconds: that work is not charged to the pages timed next."""
    from benchmarks.bench_pages import cpu_seconds

    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(every)
        if cpu_seconds(pid) - before < quiet:
            return


def browser_visits(
    pw, folder: Path, table: Path, how: str, only: list[str] | None = None
) -> tuple[float, dict[str, tuple[float, float]]]:
    """A fresh server; one session loads ``table`` (``how``: "upload" or "data folder"), then opens
    every page from the sidebar (the titles in ``only``, when given, in sidebar order): (load
    seconds, page title → (wall s, server CPU s))."""
    from benchmarks.bench_pages import PAGES, mark, timed, wait_drawn, watch
    from benchmarks.bench_sessions import CHROMIUM, CHROMIUM_ARGS, Server

    if how == "upload":
        os.environ.pop("VERDICTLAB_DATA_DIR", None)
    else:
        os.environ["VERDICTLAB_DATA_DIR"] = str(table.parent)
    server = Server(folder)
    out: dict[str, tuple[float, float]] = {}
    try:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context()
        watch(context)
        page = context.new_page()
        page.goto(server.url)
        wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)
        settle(server.process.pid)  # the server's start-up work on the demo is done first

        def load() -> None:
            mark(page)
            if how == "upload":
                drop = page.locator(".st-key-upload").get_by_test_id("stFileUploaderDropzoneInput")
                drop.set_input_files(str(table))
            else:
                load_from_data_folder(page, table)
            page.get_by_text(f"Loaded: {table.name}").first.wait_for(timeout=PAGE_TIMEOUT_MS)
            wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)

        loaded, _, _ = timed(server, load)
        for name, title in PAGES.items():
            if not name or (only and title not in only):
                continue  # the Data page: drawn by the load itself

            def visit(title=title) -> None:
                mark(page)
                page.get_by_test_id("stSidebar").get_by_role("link", name=title, exact=True).click()
                wait_drawn(page, timeout_ms=PAGE_TIMEOUT_MS)

            try:
                seconds, cpu, _ = timed(server, visit)
            except Exception:  # noqa: BLE001 - a page that did not finish: said, not timed
                seconds, cpu = float("nan"), float("nan")
            out[title] = (seconds, cpu)
            print(f"    {title}: {seconds:.2f} s, server CPU {cpu:.2f} s", flush=True)
        browser.close()
        return loaded, out
    finally:
        server.close()


def browser(repeat: int, arena: Path | None, tables: list[str], only: list[str] | None = None) -> None:
    from playwright.sync_api import sync_playwright

    todo = {
        "paper": (paper_sized_file, "upload", "paper-sized table, 866,250 calls, uploaded in the browser"),
        "arena": (
            lambda: arena_file(arena),
            "data folder",
            "arena table, 1.8 M battles, from the server's data folder",
        ),
        "models2000": (
            lambda: many_models_file(2_000, 2_000),
            "upload",
            "2,000 models, 2,000 battles (most models play once or twice), uploaded in the browser",
        ),
        "models10000": (
            lambda: many_models_file(10_000, 200_000),
            "upload",
            "10,000 models, 200,000 battles, uploaded in the browser",
        ),
    }
    print(f"load average at start: {os.getloadavg()}")
    results: dict[str, tuple[list[float], dict[str, list[tuple[float, float]]]]] = {}
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        for key in tables:
            make, how, label = todo[key]
            table = make()  # written on first use only
            loads: list[float] = []
            per_page: dict[str, list[tuple[float, float]]] = {}
            for r in range(repeat):
                print(f"  {label}: run {r + 1}, load average {os.getloadavg()}", flush=True)
                loaded, visited = browser_visits(pw, Path(tmp), table, how, only)
                loads.append(loaded)
                for title, row in visited.items():
                    per_page.setdefault(title, []).append(row)
            results[key] = (loads, per_page)
    print(f"load average at end: {os.getloadavg()}")
    for key, (loads, per_page) in results.items():
        print(f"\n{todo[key][2]}; load {statistics.median(loads):.2f} s; medians of {repeat}")
        print(f"{'page':16} {'first visit s':>13} {'server cpu s':>12}")
        for title, runs in per_page.items():
            wall = [r[0] for r in runs if r[0] == r[0]]
            cpu = [r[1] for r in runs if r[1] == r[1]]
            shown = (
                f"{statistics.median(wall):13.2f} {statistics.median(cpu):12.2f}" if wall else "  not drawn"
            )
            print(f"{title:16} {shown}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--in-process", action="store_true", help="the evalcore calls only, no browser")
    parser.add_argument("--arena", type=Path, default=None, help="the 1.8 M-battle arena table (Parquet)")
    parser.add_argument(
        "--tables",
        nargs="+",
        choices=("paper", "arena", "models2000", "models10000"),
        default=["paper", "arena"],
    )
    parser.add_argument(
        "--pages",
        nargs="+",
        default=None,
        metavar="TITLE",
        help="visit only these pages (sidebar titles, e.g. Overview 'Tie structure' Verdicts), in "
        "sidebar order; a page then shares only these pages' results",
    )
    args = parser.parse_args()
    if args.in_process:
        in_process(args.repeat)
    else:
        browser(args.repeat, args.arena, args.tables, args.pages)


if __name__ == "__main__":
    main()
