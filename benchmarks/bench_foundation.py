"""Foundation benchmark (issue 2): load, aggregate, fit and bootstrap on the paper-sized table.

    python benchmarks/bench_foundation.py [--repeat 5]

Prints medians (and min–max) over repeated runs; targets on a 2-core machine: load ≤ 3 s,
aggregation + fit for one judge ≤ 0.3 s, 1,000 bootstrap rounds ≤ 1 s, peak memory ≤ 1.5 GB,
and the whole `python -m evalcore rank FILE --judge J --bootstrap 1000` process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.paper_table import paper_sized_file  # noqa: E402

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from evalcore.store.store import VerdictStore
from evalcore.ranking import pairwise_wins, fit_bradley_terry, leaderboard
t0 = time.perf_counter()
store = VerdictStore()
table = store.load_file({path!r})  # DuckDB reads, SQL validates, rows inserted: one step
t1 = time.perf_counter()
t2 = t1
judge = store.judges()[0]
counts = store.counts(judge=judge)
t3 = time.perf_counter()
theta, ok = fit_bradley_terry(pairwise_wins(counts).sum(0))
t4 = time.perf_counter()
board = leaderboard(counts, rounds=1000, seed=0)
t5 = time.perf_counter()
board0 = leaderboard(counts, rounds=0)
t6 = time.perf_counter()
print(json.dumps({{"read_validate": t1 - t0, "load_duckdb": t2 - t1, "aggregate": t3 - t2,
                  "fit": t4 - t3, "bootstrap_1000": (t5 - t4) - (t6 - t5),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rows": len(table.frame)}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    path = paper_sized_file()
    print(f"table: {path} ({path.stat().st_size / 1e6:.1f} MB)")
    runs = []
    for _ in range(args.repeat):
        out = subprocess.run(
            [sys.executable, "-c", _CHILD.format(root=str(ROOT), path=str(path))],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(out.stdout))
    whole = []
    for _ in range(args.repeat):
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "evalcore",
                "rank",
                str(path),
                "--judge",
                "sim-judge-0",
                "--bootstrap",
                "1000",
                "--json",
            ],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        whole.append(time.perf_counter() - t)
    print(f"rows: {runs[0]['rows']:,}; {args.repeat} runs each; median (min–max)")

    def show(label: str, values: list[float], unit: str = "s", target: str = "") -> None:
        med = statistics.median(values)
        print(f"  {label:<44} {med:8.3f} {unit}  ({min(values):.3f}–{max(values):.3f}) {target}")

    show("read + validate (CSV → canonical frame)", [r["read_validate"] for r in runs])
    show("load into DuckDB", [r["load_duckdb"] for r in runs])
    show(
        "read + validate + load", [r["read_validate"] + r["load_duckdb"] for r in runs], target="target ≤ 3 s"
    )
    show("aggregation, one judge (SQL → count tensor)", [r["aggregate"] for r in runs])
    show("one Bradley–Terry fit (22×22 counts)", [r["fit"] for r in runs])
    show("aggregation + fit", [r["aggregate"] + r["fit"] for r in runs], target="target ≤ 0.3 s")
    show("1,000 bootstrap rounds", [r["bootstrap_1000"] for r in runs], target="target ≤ 1 s")
    show(
        "peak memory (RSS) of the whole flow",
        [r["peak_rss_mb"] for r in runs],
        unit="MB",
        target="target ≤ 1,536 MB",
    )
    show(
        "whole process: python -m evalcore rank … --bootstrap 1000",
        whole,
        target="peer: ~1.2 s without intervals",
    )


if __name__ == "__main__":
    main()
