"""The category heterogeneity test: its size under one ranking and its power under a planted swap.

    python benchmarks/bench_heterogeneity.py [--reps 100] [--permutations 99]

Three designs with known truth, each ``--reps`` fixed seeds:

* arena-shaped battles (one per instruction, 8 models, 10 languages as categories, 12,000
  battles) with one ranking: the rejection rate at 5% should be about 5%;
* the same with the two best models swapping places in one language (Chinese, about a tenth of
  the battles; ±0.75 log-strength each): the power, and how often the swap is flagged as a
  reversal;
* all pairs on every instruction with instruction-level effects (8 models, 120 instructions,
  3 random category labels): the size of this test against a chi-squared reference that counts
  verdicts as independent (which rejects far too often).

Prints rejection rates with a 95% Wilson interval, the CPU seconds per analysis (median) and the
load average. Use OPENBLAS_NUM_THREADS=1 on a busy machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import chi2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evalcore.ranking.heterogeneity import store_heterogeneity  # noqa: E402
from evalcore.simulate.arena import ARENA_LANGUAGES, arena_verdict_frame, simulate_arena  # noqa: E402
from evalcore.simulate.tables import SimulationSpec, simulate  # noqa: E402
from evalcore.stats.intervals import wilson_interval  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402

M = 8


def _arena(seed: int, swap: float) -> VerdictStore:
    effects = None
    if swap:
        effects = np.zeros((len(ARENA_LANGUAGES), M))
        effects[1, 0], effects[1, 1] = -swap, swap
    sim = simulate_arena(n_battles=12_000, n_models=M, n_voters=300, seed=seed, category_effects=effects)
    return VerdictStore.from_frame(arena_verdict_frame(sim, with_category=True))


def _all_pairs(seed: int) -> VerdictStore:
    spec = SimulationSpec(n_models=M, n_instructions=120, categories=("a", "b", "c"), seed=seed)
    return VerdictStore.from_frame(simulate(spec).verdicts)


def _rate(hits: int, n: int) -> str:
    lo, hi = wilson_interval(hits, n)
    return f"{hits / n:6.1%} ({lo:.1%}–{hi:.1%})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=100)
    parser.add_argument("--permutations", type=int, default=99)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.reps} seeds; {args.permutations} permutations")
    designs = (
        ("arena, one ranking", lambda s: _arena(s, 0.0)),
        ("arena, swap planted", lambda s: _arena(s, 0.75)),
        ("all pairs, clustered", _all_pairs),
    )
    for name, make in designs:
        reject = naive = flagged = 0
        cpu = []
        for seed in range(args.reps):
            store = make(seed)
            judge = store.judges()[0]
            t = time.process_time()
            h = store_heterogeneity(store, judge=judge, permutations=args.permutations, seed=seed)
            cpu.append(time.process_time() - t)
            reject += h.rejects
            naive += chi2.sf(h.statistic, h.df) < 0.05
            flagged += any(
                {r.better_overall, r.worse_overall} == {"sim-arena-000", "sim-arena-001"} for r in h.reversals
            )
        line = (
            f"{name:22s} rejects {_rate(reject, args.reps)}; chi-squared reference {_rate(naive, args.reps)}"
        )
        if "swap" in name:
            line += f"; swap flagged {_rate(flagged, args.reps)}"
        print(line + f"; {statistics.median(cpu):.2f} s CPU per analysis")


if __name__ == "__main__":
    main()
