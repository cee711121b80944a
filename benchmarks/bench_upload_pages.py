"""What each page computes on its first draw after an upload of the paper's size, in one process.

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
import time
from collections.abc import Callable

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from evalcore.store.store import VerdictStore

    path = paper_sized_file()
    print(f"load average at start: {os.getloadavg()}")
    times: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.repeat):
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


if __name__ == "__main__":
    main()
