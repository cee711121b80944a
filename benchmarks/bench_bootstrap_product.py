"""The bootstrap's one product, weights (rounds × patterns) times a per-pattern matrix, dense or
sparse; and what the choice does to the Judge page's first visit on the bundled demo.

    python -m benchmarks.bench_bootstrap_product            # 5 runs of each
    python -m benchmarks.bench_bootstrap_product --runs 9

Part 1 times both ways of the product for 1,000 rounds on matrices with the shapes the spec
sheet meets (patterns × quantities, share of non-zero entries) and prints which one
:func:`evalcore.stats.bootstrap.pattern_operand` picks. The all-pairs shapes are the bundled
demo's (300 instructions, 20 models, one judge): the pair-total matrix of self-preference and the
slot-pair matrix of position bias and the order swap. The arena shapes have one battle per
instruction. Part 2 times ``judge_sheets`` on the bundled demo (three judges, 1,000 rounds, the
Judge page's defaults) with the picked product and with the sparse product forced.

Figures are medians, printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import sparse

from benchmarks.timing import median_seconds
from evalcore.stats import bootstrap
from evalcore.stats.bootstrap import pattern_operand, weighted_totals

ROOT = Path(__file__).resolve().parents[1]
#: (label, patterns, quantities, share of non-zero entries)
SHAPES = (
    ("all pairs: slot pairs (demo)", 300, 1_140, 0.98),
    ("all pairs: pair totals (demo)", 300, 7_200, 0.31),
    ("arena: 20,000 battles, 60 models", 20_000, 3 * 60 * 60, 3 / (3 * 60 * 60)),
    ("arena: 3,000 patterns, 40 models", 3_000, 3 * 40 * 40, 0.03),
)


def products(runs: int) -> None:
    rng = np.random.default_rng(0)
    print(f"{'shape':36s} {'sparse ms':>10s} {'dense ms':>10s}  picked")
    for label, s, f, density in SHAPES:
        x = sparse.random(s, f, density=density, format="csr", random_state=1)
        w = rng.multinomial(s, np.full(s, 1 / s), size=1_000).astype(np.float64)
        as_sparse = sparse.csr_matrix(x.T)
        t_sparse = median_seconds(lambda: weighted_totals(w, as_sparse), runs)  # noqa: B023
        dense = "too big"  # a dense copy past the limit is never made
        if s * f * 8 <= bootstrap.DENSE_PATTERN_BYTES:
            as_dense = x.toarray()
            dense = f"{median_seconds(lambda: weighted_totals(w, as_dense), runs) * 1e3:.0f}"  # noqa: B023
        picked = "dense" if isinstance(pattern_operand(x), np.ndarray) else "sparse"
        print(f"{label:36s} {t_sparse * 1e3:10.0f} {dense:>10s}  {picked}")


def judge_page(runs: int) -> None:
    from evalcore.judge.comparison import judge_sheets
    from evalcore.store.store import VerdictStore

    store = VerdictStore()
    store.load_file(ROOT / "data" / "demo_all_pairs.parquet")
    families = pd.read_csv(ROOT / "data" / "demo_families.csv")
    family = dict(zip(families["model"], families["family"], strict=True))
    judge_sheets(store, families=family, rounds=20)  # imports and first queries out of the way
    # the two ways alternate, so that a slow spell of the machine hits both
    density = bootstrap.DENSE_PATTERN_DENSITY
    picked, forced = [], []
    try:
        for _ in range(runs):
            for never_dense, times in ((False, picked), (True, forced)):
                bootstrap.DENSE_PATTERN_DENSITY = 2.0 if never_dense else density  # 2: the product as it was
                start = time.perf_counter()
                judge_sheets(store, families=family, rounds=1_000)
                times.append(time.perf_counter() - start)
    finally:
        bootstrap.DENSE_PATTERN_DENSITY = density
    print(
        f"judge_sheets on the demo, 1,000 rounds: {statistics.median(picked):.2f} s as picked, "
        f"{statistics.median(forced):.2f} s all sparse"
    )
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    products(runs)
    judge_page(runs)


if __name__ == "__main__":
    main()
