"""Cost of reading counts clustered by a session column, against plain counts, and of a clustered
leaderboard (sandwich), on a session-shaped arena table. Medians of 3, with the load averages.

    python -m benchmarks.bench_cluster_counts [--sessions 50000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from evalcore.ranking.leaderboard import leaderboard
from evalcore.simulate.sessions import SessionSpec, session_frame
from evalcore.store.store import VerdictStore


def _median(run, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=50_000)
    args = parser.parse_args()
    spec = SessionSpec(theta=tuple(x / 10 for x in range(-10, 11)), sessions=args.sessions, per_session=6)
    frame = session_frame(spec, seed=0)
    store = VerdictStore.from_frame(frame)
    store.unit_columns()  # read once, as a session does
    plain = _median(lambda: store.counts())
    clustered = _median(lambda: store.counts(cluster="session"))
    counts = store.counts(cluster="session")
    board_plain = _median(lambda: leaderboard(counts.over_instructions(), rounds=0, interval="sandwich"))
    board_unit = _median(lambda: leaderboard(counts, rounds=0, interval="sandwich"))
    print(f"{len(frame):,} battles, {len(spec.theta)} models, {args.sessions:,} sessions (medians of 3)")
    print(f"  counts: plain {plain:.2f} s, clustered by session {clustered:.2f} s")
    print(f"  sandwich leaderboard: over instructions {board_plain:.2f} s, by session {board_unit:.2f} s")
    print(f"load averages {os.getloadavg()}")


if __name__ == "__main__":
    main()
