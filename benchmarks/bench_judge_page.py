"""The Judge page's own computations on three tables, in one process: before and after.

``python -m benchmarks.bench_judge_page [--repeat 3] [--tables demo paper arena]`` loads each table
into a fresh store per run (the demo; the 866,250-call table of :mod:`benchmarks.paper_table`; the
1.8 M-battle arena table from the data folder, :func:`benchmarks.bench_upload_pages.arena_file`),
then times what the Judge page computes for its first draw: every judge's spec sheet (the demo
with its model families) and, on a table with several judges, the judges' weights. Printed: CPU
and wall seconds, medians of ``--repeat``, for the page's default (analytic intervals; the
weights without resampling) and for the resampled intervals (1,000 rounds; the weights with 200
resamples: what the page computed by default before), with the load average.

Run it on another checkout (``PYTHONPATH=that/checkout``) for the figures of that code: a
library without the ``interval`` option gets the resampled path only (its only one).
"""

from __future__ import annotations

import argparse
import inspect
import os
import statistics
import time
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


def _store(table: str):
    from evalcore.store.store import VerdictStore

    store = VerdictStore()
    if table == "demo":
        store.load_file(str(DATA / "demo_all_pairs.parquet"), name="demo")
    elif table == "paper":
        from benchmarks.paper_table import paper_sized_file

        store.load_file(str(paper_sized_file()), name="paper")
    else:
        from benchmarks.bench_upload_pages import arena_file

        store.load_file(str(arena_file(None)), name="arena")
    return store


def _page(store, table: str, kind: str) -> tuple[float, float, float]:
    """(sheets CPU, weights CPU, wall of both) of the page's first draw."""
    from evalcore.judge import judge_sheets
    from evalcore.judge.pooling import pool_store
    from evalcore.judge.self_preference import read_families

    families = read_families((DATA / "demo_families.csv").read_text()) if table == "demo" else None
    options: dict = {"category": None, "rounds": 1000, "seed": 0, "families": families}
    if "interval" in inspect.signature(judge_sheets).parameters:
        options["interval"] = kind
    wall, cpu = time.perf_counter(), time.process_time()
    judge_sheets(store, **options)
    sheets = time.process_time() - cpu
    weights = 0.0
    if len(store.judges()) >= 2:
        cpu = time.process_time()
        pool_store(store, category=None, rounds=0 if kind == "analytic" else 200)
        weights = time.process_time() - cpu
    return sheets, weights, time.perf_counter() - wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--tables", nargs="+", choices=("demo", "paper", "arena"), default=["demo", "paper", "arena"]
    )
    args = parser.parse_args()
    from evalcore.judge import judge_sheets

    kinds = (
        ["analytic", "bootstrap"]
        if "interval" in inspect.signature(judge_sheets).parameters
        else ["bootstrap"]
    )
    print(f"load average at start: {os.getloadavg()}")
    print(f"{'table':8} {'intervals':10} {'sheets cpu s':>12} {'weights cpu s':>13} {'wall s':>7}")
    for table in args.tables:
        for kind in kinds:
            runs = []
            for _ in range(args.repeat):
                store = _store(table)
                store.counts()  # the load's own reading, not the page's
                runs.append(_page(store, table, kind))
                store.close()
            sheets, weights, wall = (statistics.median(r[k] for r in runs) for k in range(3))
            print(f"{table:8} {kind:10} {sheets:12.2f} {weights:13.2f} {wall:7.2f}", flush=True)
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
