"""Fragility benchmark: the fewest verdicts that flip the leader / each adjacent pair.

    python benchmarks/bench_fragility.py [--repeat 3] [--skip-arena]

Two tables: the paper-sized one (22 models, all 231 pairs, 750 instructions, one judge of five:
173,250 calls) read from CSV as the app reads it, and an arena-shaped one built directly as sparse
counts (1.8 M one-battle instructions, 129 models, known Bradley–Terry strengths). Prints medians
(and min–max) of ``ranking_fragility`` in both modes, the headline, and the peak memory of the
process. Small M × M linear algebra is slowed many times by BLAS thread oversubscription on a busy
machine; run with ``OPENBLAS_NUM_THREADS=1`` to see the single-thread figures.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.paper_table import paper_sized_file  # noqa: E402
from evalcore.ranking.fragility import ranking_fragility  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402
from tests.bt_sim import simulate_bt  # noqa: E402


def _timed(fn, repeat: int) -> tuple[list[float], object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return times, out


def _report(label: str, times: list[float], result) -> None:
    med = statistics.median(times)
    found = [p.n_drop for p in result.pairs if p.n_drop]
    print(
        f"{label:<34} median {med:7.2f} s  (min {min(times):.2f}, max {max(times):.2f})  "
        f"pairs {len(result.pairs)}, flipped {len(found)}, exhaustive refits {result.exhaustive_refits:,}"
    )
    print(f"{'':<34} {result.headline()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-arena", action="store_true")
    args = parser.parse_args()

    t = time.perf_counter()
    store = VerdictStore()
    from evalcore.store.store import read_verdicts

    store.load(read_verdicts(paper_sized_file()))
    judge = store.judges()[0]
    counts = store.counts(judge=judge)
    print(f"paper-sized table: {counts!r} (load + aggregate {time.perf_counter() - t:.1f} s)")
    for mode in ("leader", "adjacent"):
        times, result = _timed(lambda m=mode: ranking_fragility(counts, pairs=m), args.repeat)
        _report(f"paper-sized, {mode}", times, result)
    store.close()

    if not args.skip_arena:
        t = time.perf_counter()
        theta = np.sort(np.random.default_rng(0).normal(0.0, 0.8, 129))
        arena = simulate_bt(theta, 1_800_000, shape="arena", tie_rate=0.2, seed=3)
        print(f"arena-shaped table: {arena!r} (built in {time.perf_counter() - t:.1f} s)")
        for mode in ("leader", "adjacent"):
            times, result = _timed(lambda m=mode: ranking_fragility(arena, pairs=m), args.repeat)
            _report(f"arena-shaped, {mode}", times, result)
    print(f"peak memory of the process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
