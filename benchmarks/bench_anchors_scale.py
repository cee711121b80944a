"""Time and peak memory of the Anchors analyses on an anchor-only table of 200 models × 750
instructions (every model against one anchor, both slot orders: 298,500 judge calls).

    python -m benchmarks.bench_anchors_scale [--repeats 3] [--models 200] [--instructions 750]
    python -m benchmarks.bench_anchors_scale --arena [--repeats 3]   # 1.8 M battles, 129 models

Target (issue 15): the Anchors analyses in ≤ 1.5 GB. Each repeat runs in a fresh process (peak
RSS only grows within a process) and builds the counts directly from cells, as the store's
``GROUP BY`` would hand them over, so the figure is the analyses' own. Prints each step's time
and the tracemalloc peak of its allocations (numpy reports its buffers to tracemalloc), then the
process's peak RSS; the summary gives the medians over repeats.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, ResourceLimitError
from evalcore.schema import LEVELS


def anchor_only_counts(n_models: int, n_instructions: int, seed: int = 0) -> VerdictCounts:
    """Every model against the middle model on every instruction, in both slot orders, with a
    Bradley–Terry-like 5-level judge (strength gap + instruction noise + call noise)."""
    rng = np.random.default_rng(seed)
    models = tuple(f"model-{k:03d}" for k in range(n_models))
    anchor = n_models // 2
    strength = np.sort(rng.normal(0, 1, n_models))[::-1]
    others = np.array([k for k in range(n_models) if k != anchor])
    inst = np.repeat(np.arange(n_instructions), others.size)
    model = np.tile(others, n_instructions)
    quality = rng.normal(0, 0.6, (n_instructions, n_models))
    latent = strength[model] - strength[anchor] + quality[inst, model] - quality[inst, anchor]
    cells_a, cells_b, cells_i, levels = [], [], [], []
    for first in (True, False):  # both slot orders, each with its own call noise
        y = latent + rng.normal(0, 0.5, latent.size)
        level = np.digitize(y, [-1.5, -0.3, 0.3, 1.5]) - 2  # −2..+2 from the model's side
        if first:
            cells_a.append(model), cells_b.append(np.full_like(model, anchor))
            levels.append(level)
        else:
            cells_a.append(np.full_like(model, anchor)), cells_b.append(model)
            levels.append(-level)
        cells_i.append(inst)
    lv = np.concatenate(levels) - LEVELS[0]
    n = np.zeros((lv.size, len(LEVELS)), dtype=np.int32)
    n[np.arange(lv.size), lv] = 1
    return VerdictCounts.from_cells(
        models=models,
        instructions=tuple(f"q{i:04d}" for i in range(n_instructions)),
        judge="bench",
        inst=np.concatenate(cells_i),
        a=np.concatenate(cells_a),
        b=np.concatenate(cells_b),
        n=n,
    )


def arena_counts(n_models: int = 129, n_battles: int = 1_800_000, seed: int = 0) -> VerdictCounts:
    """Arena shape: every battle its own prompt, a random pair of models each time."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(n_models, size=n_battles)
    b = (a + rng.integers(1, n_models, size=n_battles)) % n_models
    level = np.digitize(strength[a] - strength[b] + rng.logistic(size=n_battles), [-2.0, -0.4, 0.4, 2.0])
    n = np.zeros((n_battles, len(LEVELS)), dtype=np.int32)
    n[np.arange(n_battles), level] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"model-{k:03d}" for k in range(n_models)),
        instructions=tuple(f"p{i}" for i in range(n_battles)),
        judge="arena",
        inst=np.arange(n_battles),
        a=a,
        b=b,
        n=n,
    )


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None  # as the page: no informativeness, none given


def _step(results: dict, name: str, fn) -> None:
    tracemalloc.start()
    start = time.perf_counter()
    try:
        fn()
        status = "ok"
    except DesignError:  # said in words on the page; the cost of saying so is measured too
        status = "not applicable"
    except ResourceLimitError:  # a dense path elsewhere (e.g. the leaderboard) refused
        status = "refused: over the dense-tensor budget"
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    results[name] = {"seconds": seconds, "peak_mb": peak / 1024**2, "status": status}


def run_once(n_models: int, n_instructions: int, arena: bool = False) -> dict:
    from evalcore.anchors import (
        anchor_count_sweep,
        anchor_ranking,
        anchor_stability,
        anchor_sweep,
        decisive_rate,
        orders_per_pair,
        pilot_screening,
        plan_evaluation,
        sample_size_sweep,
        win_rate_distribution,
    )

    counts = arena_counts() if arena else anchor_only_counts(n_models, n_instructions)
    anchor = counts.models[counts.n_models // 2]
    results: dict = {"cells": counts.n_cells, "calls": counts.calls}
    holder: dict = {}
    _step(results, "anchor_sweep", lambda: holder.setdefault("sweep", anchor_sweep(counts)))
    _step(results, "anchor_ranking", lambda: anchor_ranking(counts, anchor))
    _step(results, "win_rate_distribution", lambda: win_rate_distribution(counts, anchor))
    _step(results, "anchor_stability (200 resamples)", lambda: anchor_stability(counts, rounds=200))
    _step(results, "pilot_screening", lambda: pilot_screening(counts))
    if not arena:  # on the arena table both sweeps run (all pairs met) but take minutes: they
        # are button-press analyses with progress, timed separately if needed
        _step(results, "sample_size_sweep", lambda: sample_size_sweep(counts, reference="all_pairs"))
        _step(results, "anchor_count_sweep", lambda: anchor_count_sweep(counts))
    _step(
        results,
        "planner",
        lambda: plan_evaluation(
            counts.n_models,
            informativeness=_finite(holder["sweep"].table["informativeness"].max()),
            direct_decisive_rate=decisive_rate(counts),
            orders=orders_per_pair(counts),
        ),
    )
    # The Power page on the same table (verdict differences against the anchor).
    from evalcore.power import detectable_edges, difference_distributions

    _step(results, "power: difference_distributions", lambda: difference_distributions(counts))
    if not arena:  # arena: the leaderboard's own benchmark covers it
        _step(results, "power: detectable_edges", lambda: detectable_edges(counts, anchor=anchor))
    total = sum(r["seconds"] for r in results.values() if isinstance(r, dict))
    results["total_seconds"] = total
    results["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--models", type=int, default=200)
    parser.add_argument("--instructions", type=int, default=750)
    parser.add_argument(
        "--arena", action="store_true", help="an arena-shaped table (1.8 M battles, 129 models) instead"
    )
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.once:
        print(json.dumps(run_once(args.models, args.instructions, args.arena)))
        return
    runs = []
    for r in range(args.repeats):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.bench_anchors_scale",
                "--once",
                "--models",
                str(args.models),
                "--instructions",
                str(args.instructions),
            ]
            + (["--arena"] if args.arena else []),
            check=True,
            stdout=subprocess.PIPE,
            text=True,
        )
        runs.append(json.loads(out.stdout))
        print(f"run {r + 1}: {runs[-1]['total_seconds']:.2f} s, peak RSS {runs[-1]['peak_rss_mb']:.0f} MB")
    first = runs[0]
    shape = (
        "Arena-shaped table: 129 models, one prompt per battle"
        if args.arena
        else f"Anchor-only table: {args.models} models × {args.instructions} instructions"
    )
    print(f"\n{shape}, {first['cells']:,} cells, {first['calls']:,} calls; medians of {len(runs)} runs")
    for name, value in first.items():
        if isinstance(value, dict):
            sec = statistics.median(r[name]["seconds"] for r in runs)
            peak = statistics.median(r[name]["peak_mb"] for r in runs)
            print(f"  {name:34s} {sec:7.3f} s   peak allocations {peak:7.1f} MB   ({value['status']})")
    print(f"  {'all analyses':34s} {statistics.median(r['total_seconds'] for r in runs):7.3f} s")
    print(
        f"  peak RSS of the process (incl. building the table): "
        f"{statistics.median(r['peak_rss_mb'] for r in runs):.0f} MB (target ≤ 1,536 MB)"
    )


if __name__ == "__main__":
    main()
