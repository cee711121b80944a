"""Prediction-powered ratings: coverage of the true ratings, width against human-only, λ, speed.

    python benchmarks/bench_ppi.py [--repeat 200] [--instructions 300] [--fraction 0.2]

Simulates tables with a known truth (fixed latent strengths; the truth is the humans' Bradley–
Terry projection, :func:`evalcore.simulate.tables.true_human_ratings`), human labels on a random share of
instructions, and a judge whose noise sets its quality: good (noise 0.3), middling (1.0) and
useless (noise 200: verdicts unrelated to the answers). Also the double-ordered shape with one
human label shared by both orders, and an arena-shaped table for speed. Prints, per setting, the
coverage of the 95% PPI and human-only intervals over all models and repetitions, the median
ratio of PPI to human-only width, the median λ and effective-sample gain, and the median time of
one fit. ``--arena N`` instead times one fit on an arena-shaped table of N battles (129 models).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.calibration.ppi import ppi_ratings  # noqa: E402
from evalcore.simulate.tables import (  # noqa: E402
    JudgeSpec,
    SimulationSpec,
    simulate,
    true_human_ratings,
)
from evalcore.store.store import VerdictStore  # noqa: E402

STRENGTHS = (1.2, 0.7, 0.3, 0.0, -0.4, -1.1)


def run(name: str, repeat: int, **kw) -> None:
    base = dict(n_models=6, strengths=STRENGTHS, both_orders=False)
    base.update(kw)
    truth = true_human_ratings(SimulationSpec(**base))
    cover_p = cover_h = total = 0
    ratios, lams, gains, times, refused = [], [], [], [], 0
    for seed in range(repeat):
        table = simulate(SimulationSpec(**base, seed=1000 + seed)).verdicts
        store = VerdictStore()
        store.load(table)
        t0 = time.perf_counter()
        try:
            r = ppi_ratings(store)
        except ValueError:
            refused += 1
            continue
        finally:
            store.close()
        times.append(time.perf_counter() - t0)
        for k in range(len(truth)):
            cover_p += r.ppi[k].low <= truth[k] <= r.ppi[k].high
            cover_h += r.human[k].low <= truth[k] <= r.human[k].high
            total += 1
        ratios.append(np.median([p.width / h.width for p, h in zip(r.ppi, r.human, strict=True)]))
        lams.append(r.lam)
        gains.append(r.gain)
    print(
        f"{name:<34} coverage PPI {cover_p / total:6.1%}  human-only {cover_h / total:6.1%}  "
        f"width PPI/human {statistics.median(ratios):.2f}  λ {statistics.median(lams):.2f}  "
        f"gain {statistics.median(gains):.2f}×  fit {1000 * statistics.median(times):.0f} ms  "
        f"({total // len(truth)} tables, {refused} refused)"
    )


def arena_timing(battles: int, models: int = 129) -> None:
    """Time one fit on an arena-shaped table built in DuckDB: one prompt per battle, random pairs
    and orders, about 35% ties, human labels on 5% of battles (verdicts random: speed only)."""
    import resource

    store = VerdictStore()
    store.con.execute("SELECT setseed(0.42)")
    store.con.execute(
        f"""INSERT INTO verdicts
        SELECT i, 'p' || i, 'm' || lpad(a::VARCHAR, 3, '0'),
               'm' || lpad(((a + 1 + floor(random() * ({models} - 1)))::INT % {models})::VARCHAR, 3, '0'),
               CASE WHEN u < 0.2 THEN -2 WHEN u < 0.325 THEN -1 WHEN u < 0.675 THEN 0
                    WHEN u < 0.8 THEN 1 ELSE 2 END::TINYINT, 'judge',
               CASE WHEN random() < 0.05 THEN (CASE WHEN u < 0.3 THEN -1 WHEN u < 0.65 THEN 0 ELSE 1 END)
                    END::TINYINT, NULL, NULL, NULL
        FROM (SELECT range AS i, floor(random() * {models})::INT AS a, random() AS u FROM range({battles}))"""
    )
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        r = ppi_ratings(store, judge="judge")
        times.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"arena-shaped, {battles:,} battles, {models} models, {r.n_labelled_pairs:,} labelled: fit "
        f"{statistics.median(times):.1f} s median of 3 (min {min(times):.1f}, max {max(times):.1f}); "
        f"peak memory {peak:,.0f} MB"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=200)
    ap.add_argument("--instructions", type=int, default=300)
    ap.add_argument("--fraction", type=float, default=0.2)
    ap.add_argument(
        "--arena", type=int, default=0, help="only time an arena-shaped table of this many battles"
    )
    args = ap.parse_args()
    if args.arena:
        arena_timing(args.arena)
        return
    common = dict(n_instructions=args.instructions, human_fraction=args.fraction)
    for label, noise in (
        ("good judge (noise 0.3)", 0.3),
        ("middling judge (1.0)", 1.0),
        ("useless judge", 200.0),
    ):
        run(label, args.repeat, judges=(JudgeSpec("j", noise=noise),), **common)
    run(
        "good judge, both orders, shared label",
        args.repeat,
        judges=(JudgeSpec("j", noise=0.3),),
        both_orders=True,
        human_shared_orders=True,
        **common,
    )
    run(
        "good judge, anchor-only (slot B)",
        args.repeat,
        judges=(JudgeSpec("j", noise=0.3),),
        design="anchor",
        anchor="sim-dogwood",
        anchor_slot="b",
        **{**common, "n_instructions": 2 * args.instructions},
    )


if __name__ == "__main__":
    main()
