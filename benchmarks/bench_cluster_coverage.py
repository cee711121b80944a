"""Coverage of 95% rating intervals on session-correlated arenas: clustered by session, and over
instructions (one battle per instruction, so each battle its own cluster).

Sessions compare one pair over several prompts with a per-session lean (evalcore.simulate.sessions);
the truth is the population-averaged rating. Prints, per method, the share of (table, model)
intervals that contain the truth, over ``--tables`` tables (default 200), and the median width.

    python -m benchmarks.bench_cluster_coverage [--tables 200] [--rounds 200]
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE
from evalcore.ranking.leaderboard import leaderboard
from evalcore.simulate.sessions import (
    SessionSpec,
    labelled_session_frame,
    session_truth,
    simulate_sessions,
)


def coverage(spec: SessionSpec, tables: int, rounds: int, methods=("sandwich", "bootstrap")) -> dict:
    """{(method, unit): (coverage, median width)} over ``tables`` tables of ``spec``."""
    truth = ELO_CENTRE + ELO_SCALE * session_truth(spec)
    hits: dict = {}
    widths: dict = {}
    for t in range(tables):
        counts = simulate_sessions(spec, seed=t)
        for unit, c in (("session", counts), ("instruction", counts.over_instructions())):
            for method in methods:
                board = leaderboard(c, rounds=rounds if method == "bootstrap" else 0, seed=t, interval=method)
                cols = board.columns
                order = [board.models.index(x) for x in cols["model"]]
                low, high = cols["ci_low"], cols["ci_high"]
                ok = (low <= truth[order]) & (truth[order] <= high)
                hits.setdefault((method, unit), []).extend(ok.tolist())
                widths.setdefault((method, unit), []).extend((high - low).tolist())
    return {k: (float(np.mean(v)), float(np.nanmedian(widths[k]))) for k, v in hits.items()}


def ppi_coverage(spec: SessionSpec, tables: int) -> dict:
    """{unit: (coverage, median width)} of prediction-powered intervals (judge on every call, the
    human's outcome on 40%, the judge flipping 15%) over ``tables`` tables of ``spec``."""
    from evalcore.calibration import ppi_ratings
    from evalcore.store.store import VerdictStore

    truth = ELO_CENTRE + ELO_SCALE * session_truth(spec)
    hits: dict = {}
    widths: dict = {}
    for t in range(tables):
        store = VerdictStore.from_frame(labelled_session_frame(spec, seed=t))
        for unit in ("session", "instruction"):
            r = ppi_ratings(store, cluster=None if unit == "instruction" else unit)
            order = [int(m[1:]) for m in r.models]
            for k, est in enumerate(r.ppi):
                hits.setdefault(unit, []).append(est.low <= truth[order[k]] <= est.high)
                widths.setdefault(unit, []).append(est.high - est.low)
        store.close()
    return {k: (float(np.mean(v)), float(np.median(widths[k]))) for k, v in hits.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    spec = SessionSpec()
    start = time.perf_counter()
    result = coverage(spec, args.tables, args.rounds)
    took = time.perf_counter() - start
    print(
        f"{args.tables} tables: {len(spec.theta)} models, {spec.sessions} sessions of "
        f"{spec.per_session} battles, session lean sd {spec.session_sd}; bootstrap {args.rounds} rounds"
    )
    for (method, unit), (cov, width) in sorted(result.items()):
        print(f"  {method:9s} over {unit:11s}: coverage {100 * cov:5.1f}%  median width {width:6.1f} Elo")
    start = time.perf_counter()
    for unit, (cov, width) in sorted(ppi_coverage(spec, args.tables).items()):
        print(
            f"  prediction-powered, over {unit:11s}: coverage {100 * cov:5.1f}%  median width {width:6.1f} Elo"
        )
    took += time.perf_counter() - start
    print(f"took {took:.1f} s; load averages {os.getloadavg()}")


if __name__ == "__main__":
    main()
