"""Speed of the anchor analyses on the paper-sized table (866,250 rows, 22 models, 5 judges).

    python -m benchmarks.bench_anchors

Targets (issue 3): the whole per-anchor sweep for one judge (all-pairs ranking + 22 anchor rankings +
tau + informativeness) ≤ 1 s after loading; the instruction-count sweep (10 sizes × 30
repetitions × 23 rankings) ≤ 15 s. Each figure is the median of several runs.
"""

from __future__ import annotations

import time

from benchmarks.paper_table import paper_sized_file
from benchmarks.timing import median_seconds
from evalcore.anchors import anchor_count_sweep, anchor_sweep, pilot_screening, sample_size_sweep
from evalcore.store.store import VerdictStore, read_verdicts


def main() -> None:
    path = paper_sized_file()
    start = time.perf_counter()
    table = read_verdicts(path)
    store = VerdictStore()
    store.load(table)
    load = time.perf_counter() - start
    judge = store.judges()[0]
    print(f"{path.name}: {len(table.frame):,} rows, loaded and validated in {load:.2f} s")

    aggregate = median_seconds(lambda: store.counts(judge=judge), 5)
    counts = store.counts(judge=judge)
    print(f"counts tensor for {judge} {counts.counts.shape}: {aggregate:.3f} s (DuckDB, median of 5)")

    sweep = median_seconds(lambda: anchor_sweep(counts), 7)
    print(
        f"per-anchor sweep (all-pairs ranking + {counts.n_models} anchor rankings + tau + "
        f"informativeness): {sweep:.3f} s (median of 7; target ≤ 1 s)"
    )

    sizes = median_seconds(lambda: sample_size_sweep(counts, repetitions=30, reference="all_pairs"), 3)
    print(
        f"instruction-count sweep (10 sizes × 30 repetitions × {counts.n_models + 1} rankings): "
        f"{sizes:.2f} s (median of 3; target ≤ 15 s)"
    )

    count = median_seconds(lambda: anchor_count_sweep(counts, permutations=40), 3)
    print(f"anchor-count sweep (40 orders × {counts.n_models} set sizes): {count:.2f} s (median of 3)")

    pilot = median_seconds(lambda: pilot_screening(counts, k=10, repetitions=30), 3)
    print(f"pilot screening (k = 10, 30 repetitions, {counts.n_models} anchors): {pilot:.2f} s (median of 3)")
    store.close()


if __name__ == "__main__":
    main()
