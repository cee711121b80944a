"""Time and peak memory of the judge's spec sheet on arena-shaped and anchor-only tables.

    python -m benchmarks.bench_judge_scale            # every scenario, 3 runs each
    python -m benchmarks.bench_judge_scale --runs 5

Each run is a fresh Python process (so its peak resident memory is the run's own) that builds
the table, then times the analysis alone. Scenarios:

- ``arena-counts``: 200,000 instructions with one battle each (the arena shape), 60 models,
  random slots, about a third ties; ``judge_sheet`` on the sparse counts, 1,000 bootstrap rounds.
  The dense instructions × models × models × levels tensor this used to build would be 200,000 ×
  60 × 60 × 5 × 4 bytes = 14.4 GB.
- ``arena-store``: the same table loaded into the store with response lengths: the whole sheet
  including coverage, self-comparisons and the length-controlled Bradley–Terry fit.
- ``double-ordered``: 100,000 instructions, each one pair judged in both orders (swap
  consistency and the both-orders verdict), 60 models.
- ``anchor-only``: 200 models × 750 instructions against one reference always in slot B.
- ``self-preference``: three judges on a 50,000-battle arena table, 500 rounds.

Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.schema import LEVELS

SCENARIOS = ("arena-counts", "arena-store", "double-ordered", "anchor-only", "self-preference")


def _verdicts(rng: np.random.Generator, margin: np.ndarray) -> np.ndarray:
    """A 5-level judge on a latent margin: about a third ties on an arena-like spread."""
    y = margin + rng.normal(0.0, 1.0, margin.size)
    return np.select([y > 1.5, y > 0.45, y >= -0.45, y >= -1.5], [2, 1, 0, -1], -2)


def _arena(
    rng: np.random.Generator,
    n_inst: int,
    n_models: int,
    *,
    both_orders: bool = False,
    anchor: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(instruction, slot A, slot B, verdict) arrays: one pair per instruction."""
    strengths = rng.normal(0.0, 0.8, n_models)
    if anchor is None:
        a = rng.integers(0, n_models, n_inst)
        b = (a + rng.integers(1, n_models, n_inst)) % n_models
    else:
        b = np.full(n_inst, anchor)
        a = (anchor + rng.integers(1, n_models, n_inst)) % n_models
    inst = np.arange(n_inst)
    if both_orders:
        inst, a, b = np.r_[inst, inst], np.r_[a, b], np.r_[b, a]
    return inst, a, b, _verdicts(rng, strengths[a] - strengths[b] + 0.1)


def _counts(n_inst: int, n_models: int, **kw) -> VerdictCounts:
    rng = np.random.default_rng(0)
    inst, a, b, v = _arena(rng, n_inst, n_models, **kw)
    n = np.zeros((inst.size, len(LEVELS)), dtype=np.int64)
    n[np.arange(inst.size), v + 2] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"model-{k:03d}" for k in range(n_models)),
        instructions=tuple(f"p{k:07d}" for k in range(n_inst)),
        judge="judge",
        inst=inst,
        a=a,
        b=b,
        n=n,
    )


def _store(n_inst: int, n_models: int, judges: tuple[str, ...]):
    from evalcore.schema import validate_verdicts
    from evalcore.store.store import VerdictStore

    rng = np.random.default_rng(0)
    frames = []
    for judge in judges:
        inst, a, b, v = _arena(rng, n_inst, n_models)
        frames.append(
            pd.DataFrame(
                {
                    "instruction_id": np.char.add("p", inst.astype(str)),
                    "model_a": np.char.add("model-", a.astype(str)),
                    "model_b": np.char.add("model-", b.astype(str)),
                    "verdict": v,
                    "judge": judge,
                    "length_a": np.round(np.exp(rng.normal(6.0, 0.4, inst.size))),
                    "length_b": np.round(np.exp(rng.normal(6.0, 0.4, inst.size))),
                }
            )
        )
    store = VerdictStore()
    store.load(validate_verdicts(pd.concat(frames, ignore_index=True), file="benchmark"))
    return store


def run(scenario: str) -> dict:
    """Build the table, then time the analysis; peak RSS covers both (the process's maximum)."""
    from evalcore.judge import judge_sheet, self_preference

    if scenario == "arena-counts":
        counts = _counts(200_000, 60)
        start = time.perf_counter()
        judge_sheet(counts, "judge", rounds=1000)
    elif scenario == "arena-store":
        store = _store(200_000, 60, ("judge",))
        start = time.perf_counter()
        judge_sheet(store, "judge", rounds=1000)
    elif scenario == "double-ordered":
        counts = _counts(100_000, 60, both_orders=True)
        start = time.perf_counter()
        judge_sheet(counts, "judge", rounds=1000)
    elif scenario == "anchor-only":
        rng = np.random.default_rng(0)
        models, n_inst = 200, 750
        inst = np.repeat(np.arange(n_inst), models - 1)
        a = np.tile(np.arange(1, models), n_inst)
        b = np.zeros_like(a)  # the reference (model 0) always in slot B
        v = _verdicts(rng, rng.normal(0.0, 0.8, models)[a])
        n = np.zeros((inst.size, len(LEVELS)), dtype=np.int64)
        n[np.arange(inst.size), v + 2] = 1
        counts = VerdictCounts.from_cells(
            models=tuple(f"model-{k:03d}" for k in range(models)),
            instructions=tuple(f"p{k:04d}" for k in range(n_inst)),
            judge="judge",
            inst=inst,
            a=a,
            b=b,
            n=n,
        )
        start = time.perf_counter()
        judge_sheet(counts, "judge", rounds=1000)
    elif scenario == "self-preference":
        store = _store(50_000, 30, ("judge-a", "judge-b", "judge-c"))
        families = {f"model-{k}": ("fam-a" if k % 2 else "fam-b") for k in range(30)}
        families.update({"judge-a": "fam-a", "judge-b": "fam-b"})
        start = time.perf_counter()
        self_preference(store, families, rounds=500)
    else:
        raise SystemExit(f"unknown scenario {scenario!r}; choose from {', '.join(SCENARIOS)}")
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB
    return {"scenario": scenario, "seconds": seconds, "peak_mb": peak_mb}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--scenario",
        choices=SCENARIOS,
        default=None,
        help="run one scenario once in this process and print JSON",
    )
    args = parser.parse_args()
    if args.scenario:
        print(json.dumps(run(args.scenario)))
        return
    for scenario in SCENARIOS:
        results = []
        for _ in range(args.runs):
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.bench_judge_scale", "--scenario", scenario],
                capture_output=True,
                text=True,
                check=True,
            )
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        seconds = statistics.median(r["seconds"] for r in results)
        peak = statistics.median(r["peak_mb"] for r in results)
        print(
            f"{scenario:16s} analysis {seconds:7.2f} s   peak RSS {peak:7.0f} MB   "
            f"(median of {args.runs} processes)",
            flush=True,
        )


if __name__ == "__main__":
    main()
