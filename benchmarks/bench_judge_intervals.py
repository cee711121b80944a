"""Coverage and time of the judge sheet's intervals: analytic against the bootstrap.

``python -m benchmarks.bench_judge_intervals [--replications 1000] [--boot-replications 200]``
prints, for tables of a few dozen instructions simulated with a known truth
(:mod:`tests.judge_interval_sim`: five models in all pairs and both orders, calls of one
instruction correlated), the share of 95% intervals that contain the true value, per figure, for
the analytic intervals (the default) and the bootstrap (200 rounds, fewer tables: it is slower),
each with its Monte Carlo standard error; then the CPU seconds of every judge's sheet on the demo
both ways (medians of three) and the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[1] / "data"


def _sheets_cpu(interval: str, repeat: int) -> float:
    import pandas as pd

    from evalcore.judge import judge_sheets
    from evalcore.judge.self_preference import read_families
    from evalcore.store.store import VerdictStore

    families = read_families((DATA / "demo_families.csv").read_text())
    times = []
    for _ in range(repeat):
        store = VerdictStore.from_frame(pd.read_parquet(DATA / "demo_all_pairs.parquet"))
        store.counts()  # the load, not the sheets
        start = time.process_time()
        judge_sheets(store, families=families, rounds=1000, interval=interval)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--boot-replications", type=int, default=200)
    parser.add_argument("--instructions", type=int, nargs="+", default=[20, 60])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from tests.judge_interval_sim import FIGURES, coverage

    print(f"load average at start: {os.getloadavg()}")
    for n in args.instructions:
        runs = {
            "analytic": coverage(args.replications, n, interval="analytic"),
            "bootstrap": coverage(args.boot_replications, n, interval="bootstrap"),
        }
        reps = {"analytic": args.replications, "bootstrap": args.boot_replications}
        print(f"\ncoverage of 95% intervals, tables of {n} instructions")
        print(f"{'figure':24s}" + "".join(f"{k + f' ({reps[k]} tables)':>26s}" for k in runs))
        for key in FIGURES:
            cells = []
            for kind, found in runs.items():
                se = np.sqrt(0.95 * 0.05 / reps[kind])
                cells.append(f"{found[key]:>18.3f} ± {se:.3f}")
            print(f"{key:24s}" + "".join(f"{c:>26s}" for c in cells))
    for kind in ("analytic", "bootstrap"):
        print(
            f"every judge's sheet on the demo, {kind}: {_sheets_cpu(kind, args.repeat):.2f} CPU s (median of {args.repeat})"
        )
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
