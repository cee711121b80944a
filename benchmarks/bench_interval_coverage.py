"""Coverage of the leaderboard's 95% intervals against the number of instructions (simulation).

Known truth: the Bradley–Terry fit on a very large sample of the same process (all pairs judged on
every instruction, instruction-level random effects per model, 20% ties). For each instruction
count, many small tables are drawn and the share of intervals containing the truth is printed,
for the bootstrap over instructions and the clustered sandwich. This is where
``MIN_INSTRUCTIONS_FOR_NOMINAL`` in :mod:`evalcore.ranking.design` comes from.

    python -m benchmarks.bench_interval_coverage [--reps 200]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.ranking import leaderboard  # noqa: E402
from tests.bt_sim import simulate_bt  # noqa: E402

THETA = np.array([1.0, 0.6, 0.2, -0.1, -0.5, -1.2])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=300)
    args = ap.parse_args()
    big = simulate_bt(THETA, 20_000, shape="all_pairs", effect_sd=0.8, tie_rate=0.2, seed=12345)
    truth = leaderboard(big, rounds=0).table.set_index("model")["rating"]
    print(
        f"{'instructions':>12} {'bootstrap':>10} {'sandwich':>10}   (coverage of nominal 95%, "
        f"{args.reps} tables × {THETA.size} models)"
    )
    for n in (2, 3, 5, 10, 15, 20, 30, 50, 100):
        cover = {"bootstrap": [], "sandwich": []}
        for rep in range(args.reps):
            c = simulate_bt(THETA, n, shape="all_pairs", effect_sd=0.8, tie_rate=0.2, seed=rep)
            for method in cover:
                t = leaderboard(c, rounds=args.rounds, seed=rep, interval=method).table
                t = t.set_index("model").loc[truth.index]
                ok = (t["ci_low"] <= truth) & (truth <= t["ci_high"])  # NaN bounds count as misses
                cover[method].append(ok.to_numpy().mean())
        print(f"{n:>12} {np.mean(cover['bootstrap']):>10.3f} {np.mean(cover['sandwich']):>10.3f}", flush=True)


if __name__ == "__main__":
    main()
