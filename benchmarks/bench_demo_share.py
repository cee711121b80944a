"""What a new session's demo costs the server: its store loading the server's once-read demo by a
copy of the rows (as before) or through the shared table (:meth:`VerdictStore.share`).

    python -m benchmarks.bench_demo_share [--sessions 8] [--runs 3]

In one process, as in the server: the demo read once; then ``--sessions`` new stores load it one
after another and each counts its default judge's verdicts once (what a first page reads). Printed
for each way: the load's median wall and CPU seconds per session, the first count's median wall
seconds, and the process's resident memory grown per session (median of ``--runs`` rounds of
``--sessions``), with the machine's load averages (the machine is shared).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.store.store import VerdictStore  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo_all_pairs.parquet"
JUDGE = "sim-judge-steady"


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f} / {five:.1f} / {fifteen:.1f}"


def _round(demo, sessions: int) -> tuple[list[float], list[float], list[float], float]:
    stores, walls, cpus, counts = [], [], [], []
    before = _rss_mb()
    for _ in range(sessions):
        store = VerdictStore()
        wall, cpu = time.perf_counter(), time.process_time()
        store.load(demo)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        store._kept = {}  # each session counts for itself here (the server shares the counts)
        start = time.perf_counter()
        store.counts(judge=JUDGE)
        counts.append(time.perf_counter() - start)
        stores.append(store)
    grown = (_rss_mb() - before) / sessions
    for store in stores:
        store.close()
    return walls, cpus, counts, grown


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    demo = VerdictStore().load_file(DEMO)
    VerdictStore().load(demo)  # imports (pandas) outside the timings
    print(f"demo: {DEMO.name}; {args.sessions} sessions a round, {args.runs} rounds; {_load()}")
    lent = None
    for way in ("copied", "shared", "copied", "shared", "copied", "shared")[: 2 * args.runs]:
        if way == "shared" and demo.store._lent is None:
            demo.store._lent = lent
            if lent is None:
                start = time.perf_counter()
                demo.store.share()
                lent = demo.store._lent
                print(f"sharing the demo once per server: {time.perf_counter() - start:.2f} s")
        if way == "copied":
            demo.store._lent = None
        walls, cpus, counts, grown = _round(demo, args.sessions)
        print(
            f"{way}: load {statistics.median(walls):.3f} s wall, {statistics.median(cpus):.3f} s CPU; "
            f"first count {statistics.median(counts):.3f} s; memory {grown:+.1f} MB a session; {_load()}"
        )
    print(f"peak resident memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
