"""Why the Leaderboard page starts with the sandwich above 200,000 instructions.

``python -m benchmarks.bench_leaderboard_interval [--sizes 20000 100000 200000] [--rounds 200]
[--repeats 3]``: on arena-shaped tables (one prompt per battle, 129 models), the seconds a
leaderboard takes with the bootstrap over instructions and with the clustered sandwich. Prints
medians; the bootstrap's time per 1,000 rounds is extrapolated linearly from ``--rounds``. Not a
test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import leaderboard
from evalcore.simulate.tables import simulate_arena


def arena_counts(n_battles: int, seed: int = 0) -> VerdictCounts:
    sim = simulate_arena(n_battles=n_battles, seed=seed)
    level = np.where(sim.outcome == 1, 4, np.where(sim.outcome == -1, 0, 2))
    n = np.zeros((n_battles, 5), dtype=np.int32)
    n[np.arange(n_battles), level] = 1
    return VerdictCounts.from_cells(
        models=sim.models,
        instructions=tuple(f"p{i}" for i in range(n_battles)),
        judge="human",
        inst=np.arange(n_battles, dtype=np.int32),
        a=sim.a,
        b=sim.b,
        n=n,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000, 200_000])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"{'instructions':>12}  {'bootstrap s/1000 rounds':>24}  {'sandwich s':>10}")
    for size in args.sizes:
        counts = arena_counts(size)
        boot, sand = [], []
        for _ in range(args.repeats):
            t = time.perf_counter()
            leaderboard(counts, rounds=args.rounds, seed=0)
            boot.append((time.perf_counter() - t) * 1000 / args.rounds)
            t = time.perf_counter()
            leaderboard(counts, rounds=args.rounds, seed=0, interval="sandwich")
            sand.append(time.perf_counter() - t)
        print(f"{size:>12,}  {statistics.median(boot):>24.1f}  {statistics.median(sand):>10.2f}")


if __name__ == "__main__":
    main()
