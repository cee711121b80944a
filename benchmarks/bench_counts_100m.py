"""Counting a 100-million-call verdict table in Parquet, out of core:
``python -m benchmarks.bench_counts_100m [--calls 100_000_000] [--dir /tmp/verdictlab-100m]``.

Writes (once; reused when present) a simulated verdict table of ``--calls`` judge calls as
hive-partitioned Parquet (``run=<k>/``), shaped like repeated runs of one benchmark: 500
instructions, 25 models in every ordered pair, two judges, a Bradley–Terry truth with a slot
bias, 3% calls without a verdict, per-answer lengths. Then counts it in a fresh process with
:func:`evalcore.ingest.counts_table.aggregate_files` (the path ``evalcore.load`` and the
server's data folder take for a folder) and prints the wall and CPU time, the peak resident
memory of that process, the counts table's rows and the load average. The issue's target is
≤ 60 s and ≤ 2 GB. ``--load`` then opens the folder as ``evalcore.load`` does (counted, the
counts table stored as its rows, each with its calls as its weight: 100 million calls are more
than the row limit) and ranks it. Not a test: no assertion on time (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

INSTRUCTIONS, MODELS, JUDGES = 500, 25, 2
PAIRS = MODELS * (MODELS - 1)
PER_RUN = INSTRUCTIONS * PAIRS * JUDGES  # 600,000 calls: every judge on every ordered pair


def _unit(expr: str) -> str:
    """A deterministic uniform number in [0, 1) from an integer expression."""
    return f"((hash({expr}) % 1000003) / 1000003.0)"


def generate(folder: Path, calls: int) -> None:
    """The simulated table as Parquet files, one folder (and file) per run, written one run at a
    time so that writing it takes little memory."""
    con = duckdb.connect()
    con.execute("SET preserve_insertion_order = false")
    con.execute("SET memory_limit = '1GB'")
    noise = f"({_unit('i')} + {_unit('i + 7919')} + {_unit('i + 104729')} - 1.5) * 2"
    for run in range((calls + PER_RUN - 1) // PER_RUN):
        first, last = run * PER_RUN, min(calls, (run + 1) * PER_RUN)
        part = folder / f"run={run}"
        part.mkdir(parents=True, exist_ok=True)
        con.execute(f"""
        COPY (
          WITH c AS (SELECT i, i % {PER_RUN} AS j FROM range({first}, {last}) t(i)),
          k AS (
            SELECT i, j // {INSTRUCTIONS * PAIRS} AS judge, (j % {INSTRUCTIONS * PAIRS}) // {PAIRS} AS inst,
                   (j % {PAIRS}) // {MODELS - 1} AS a, (j % {PAIRS}) % {MODELS - 1} AS b0 FROM c),
          p AS (SELECT *, b0 + (b0 >= a)::INTEGER AS b FROM k),
          y AS (SELECT *, (b - a) * 0.12 + 0.2 + {noise} AS latent FROM p)
          SELECT 'q' || lpad(inst::VARCHAR, 4, '0') AS instruction_id,
                 'model-' || lpad(a::VARCHAR, 2, '0') AS model_a,
                 'model-' || lpad(b::VARCHAR, 2, '0') AS model_b,
                 CASE WHEN {_unit("i + 31")} < 0.03 THEN NULL
                      WHEN latent > 1.5 THEN 2 WHEN latent > 0.4 THEN 1 WHEN latent > -0.4 THEN 0
                      WHEN latent > -1.5 THEN -1 ELSE -2 END::TINYINT AS verdict,
                 'judge-' || judge AS judge,
                 (200 + (hash(inst * 100 + a) % 800))::DOUBLE AS length_a,
                 (200 + (hash(inst * 100 + b) % 800))::DOUBLE AS length_b
          FROM y
        ) TO '{part / "calls.parquet"}' (FORMAT parquet)""")
    con.close()


_COUNT = r"""
import sys, time, resource
from pathlib import Path
from evalcore.ingest.counts_table import aggregate_files
folder, out, memory, tmp = sys.argv[1:5]
t, c = time.perf_counter(), time.process_time()
rows = aggregate_files(folder, Path(out), name="bench", memory_limit=memory, temp_dir=tmp)
print(time.perf_counter() - t, time.process_time() - c, rows,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
"""


# The whole path of ``evalcore.load(folder)``: counted out of core, the counts table checked and
# stored as its rows (each with its calls as its weight), then ranked by Bradley-Terry.
_LOAD = r"""
import sys, time, resource
from evalcore.dataset import Dataset
from evalcore.store.store import VerdictStore
folder = sys.argv[1]
t, c = time.perf_counter(), time.process_time()
store = VerdictStore()
loaded = store.load_file(folder)
t_load, c_load = time.perf_counter() - t, time.process_time() - c
board = Dataset(store).leaderboard(judge="judge-0", rounds=100)
stored = store.con.execute("SELECT count(*) FROM verdicts").fetchone()[0]
print(t_load, c_load, time.perf_counter() - t, time.process_time() - c, loaded.report.rows, stored,
      len(board.models), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100_000_000, help="judge calls to simulate")
    parser.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "verdictlab-100m"))
    parser.add_argument("--memory", default="1GB", help="DuckDB's memory limit while counting")
    parser.add_argument("--repeat", type=int, default=1, help="counting runs (the median is printed)")
    parser.add_argument(
        "--load",
        action="store_true",
        help="also open the folder as evalcore.load does (counted, stored as a counts table) and rank it",
    )
    args = parser.parse_args(argv)
    folder = Path(args.dir) / f"calls-{args.calls}"
    if not folder.exists():
        t = time.perf_counter()
        folder.parent.mkdir(parents=True, exist_ok=True)
        generate(folder, args.calls)
        print(f"wrote {args.calls:,} calls in {time.perf_counter() - t:.1f} s to {folder}")
    size = sum(f.stat().st_size for f in folder.rglob("*.parquet"))
    files = sum(1 for _ in folder.rglob("*.parquet"))
    print(f"table: {args.calls:,} calls, {files:,} Parquet files in run= partitions, {size / 2**20:,.0f} MB")
    root = Path(__file__).resolve().parents[1]
    results = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="verdictlab-bench-") as work:
            out = Path(work) / "counts.parquet"
            done = subprocess.run(
                [sys.executable, "-c", _COUNT, str(folder), str(out), args.memory, work],
                capture_output=True,
                text=True,
                check=True,
                cwd=root,
                env=os.environ | {"PYTHONPATH": str(root)},
            )
            wall, cpu, rows, rss = (float(x) for x in done.stdout.split())
            results.append((wall, cpu, int(rows), rss))
            print(
                f"  counted in {wall:.1f} s wall, {cpu:.1f} s CPU; peak memory {rss:,.0f} MB; {int(rows):,} rows"
            )

    def median(k: int) -> float:
        return sorted(r[k] for r in results)[len(results) // 2]

    wall, cpu, rows, rss = median(0), median(1), results[0][2], max(r[3] for r in results)
    load = os.getloadavg()
    print(
        f"100M figure: {args.calls:,} calls counted in {wall:.1f} s wall, {cpu:.1f} s CPU (medians "
        f"of {len(results)}), peak resident memory {rss:,.0f} MB at most (target ≤ 60 s, ≤ 2,048 MB); "
        f"counts table {rows:,} rows; {os.cpu_count()} cores; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    if args.load:
        done = subprocess.run(
            [sys.executable, "-c", _LOAD, str(folder)],
            capture_output=True,
            text=True,
            cwd=root,
            env=os.environ | {"PYTHONPATH": str(root)},
        )
        if done.returncode:
            print("opening the folder failed:", done.stderr.strip().splitlines()[-1:])
            return 1
        t_load, c_load, t_all, c_all, calls, stored, models, rss = (float(x) for x in done.stdout.split())
        load = os.getloadavg()
        print(
            f"opened as a counts table: {int(calls):,} calls in {int(stored):,} stored rows, loaded in "
            f"{t_load:.1f} s wall ({c_load:.1f} s CPU), loaded and ranked (one judge, {int(models)} models, 100 "
            f"bootstrap rounds) in {t_all:.1f} s wall ({c_all:.1f} s CPU); peak resident memory "
            f"{rss:,.0f} MB; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
