"""Arena scale: ``python -m benchmarks.bench_arena DIR [--repeats 3] [--rounds 0]``.

``DIR`` holds ``clean_battle_sim.json`` and ``clean_battle_sim.parquet`` written by
``python -m benchmarks.make_arena_dump DIR`` (1.8 M battles, 129 models, one prompt per battle).
Each measurement runs in a fresh process, so its peak resident memory is its own:

* raw JSON → loaded store (``VerdictStore.load_file``), then ``counts()`` and
  ``leaderboard(counts, rounds=…)``;
* Parquet → loaded store, then the same;
* ``VerdictStore.summary()`` on the loaded store.

Prints medians over ``--repeats`` runs, after the machine's cost of touching fresh memory
(``benchmarks/machine.py``; ``--warm GB`` pre-touches memory on a freshly booted VM). Not a test: nothing is asserted (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks.machine import first_touch_ms_per_mb, warm_memory

CHILD = r"""
import json, resource, sys, time
from evalcore.store.store import VerdictStore
from evalcore.ranking import leaderboard
path, rounds, interval = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = {}
t = time.perf_counter()
store = VerdictStore()
table = store.load_file(path)
out["load"] = time.perf_counter() - t
t = time.perf_counter()
counts = store.counts(judge=store.judges()[0])
out["counts"] = time.perf_counter() - t
t = time.perf_counter()
kwargs = {"rounds": rounds}
if interval:
    kwargs["interval"] = interval
try:
    board = leaderboard(counts, **kwargs)
    out["leaderboard"] = time.perf_counter() - t
except MemoryError as exc:  # the dense leaderboard refuses an arena table until it is sparse
    out["leaderboard"] = float("nan")
    print(f"leaderboard refused: {exc}", file=sys.stderr)
t = time.perf_counter()
summary = store.summary()
out["summary"] = time.perf_counter() - t
out["rows"] = table.report.rows
out["models"] = len(summary.models)
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(out))
"""


def run(path: Path, rounds: int, interval: str) -> dict:
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(rounds), interval],
        capture_output=True,
        text=True,
        check=False,
        cwd=root,
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    found = re.search(r"RESULT (\{.*\})", done.stdout)
    if found is None:
        raise SystemExit(done.stdout[-2000:] + done.stderr[-2000:])
    return json.loads(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dir", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=0)
    parser.add_argument("--interval", default="", help="sandwich: 95%% intervals without resampling")
    parser.add_argument("--only", choices=("json", "parquet"), default=None, help="one of the two files")
    parser.add_argument(
        "--warm", type=float, default=0.0, help="touch this many GB once first (see benchmarks/machine.py)"
    )
    args = parser.parse_args()
    warm_memory(args.warm)
    print(f"fresh memory costs {first_touch_ms_per_mb():.2f} ms per MB on first touch (warm: about 0.15)")
    for name in ("clean_battle_sim.json", "clean_battle_sim.parquet"):
        if args.only and not name.endswith(args.only):
            continue
        path = args.dir / name
        runs = [run(path, args.rounds, args.interval) for _ in range(args.repeats)]
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        total = med["load"] + med["counts"] + med["leaderboard"]
        print(
            f"{name} ({path.stat().st_size / 1e9:.2f} GB, {int(med['rows']):,} rows, "
            f"{int(med['models'])} models), median of {args.repeats}:"
        )
        print(
            f"  load {med['load']:.1f} s, counts {med['counts']:.1f} s, leaderboard "
            f"(rounds={args.rounds}{', ' + args.interval if args.interval else ''}) "
            f"{med['leaderboard']:.1f} s → read + rank {total:.1f} s; "
            f"summary {med['summary']:.1f} s; peak RSS {med['peak_mb']:,.0f} MB"
        )


if __name__ == "__main__":
    main()
