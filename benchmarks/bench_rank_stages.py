"""Where the whole `rank --json` process spends its time, per shape: one fresh process per shape
that runs the command's steps one after another and prints each step's wall and CPU seconds
(CPU: every thread of the process, DuckDB's too; on a shared machine the steadier figure).

    python -m benchmarks.bench_rank_stages [--shapes paper arena300k-parquet …] [--arena-dir DIR]
        [--statements]

Steps: the imports `rank` needs before reading (the interpreter's own start is not counted),
reading and checking the file into the store (the ranking's libraries imported meanwhile in a
second thread, as the command does), the counts, the leaderboard (Bradley–Terry fit, intervals,
rank ranges), the split-half stability check and the JSON. The shapes and files are those of
``benchmarks/bench_rank_vs_evalica.py`` (written once, nothing in the repository).

``--statements`` also lists, under each step, the DuckDB statements the store ran through
``execute`` that took 10 ms or more (wall and CPU, the statement's first words): where reading
and checking the file goes (the typed table, its row checks, its name checks).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_rank_vs_evalica import ALL_SHAPES, CHILD_ENV, ROOT, load, shapes

#: One fresh process: the CLI's own steps, timed (the same calls ``run_rank`` makes).
STEPS = r"""
import time, sys
t0 = time.perf_counter()
marks = []
def lap(step):
    marks.append((step, time.perf_counter(), time.process_time()))
import io, contextlib
from evalcore.cli import data  # what `python -m evalcore rank` imports
from evalcore.cli.common import load_store, pick_judge, print_json
lap("imports")
if sys.argv[3] == "statements":  # each statement the store executes, timed (a cursor stand-in)
    from evalcore.store import store as store_module

    class Timed:
        def __init__(self, target):
            self._target = target
        def execute(self, sql, *args, **kwargs):
            w, c = time.perf_counter(), time.process_time()
            self._target.execute(sql, *args, **kwargs)
            w, c = time.perf_counter() - w, time.process_time() - c
            if w >= 0.01:
                marks.append(("    " + " ".join(sql.split())[:44], w, c))
            return self
        def cursor(self):
            return Timed(self._target.cursor())
        def __enter__(self):  # the store reads on its own cursors, in `with` blocks
            return self
        def __exit__(self, *exc):
            self._target.close()
        def __getattr__(self, name):
            return getattr(self._target, name)

    made = store_module.VerdictStore.__init__
    def timed_store(self, *args, **kwargs):
        made(self, *args, **kwargs)
        self.con = Timed(self.con)
    store_module.VerdictStore.__init__ = timed_store
ranking = data._import_meanwhile("evalcore.ranking.split_half")  # as the command: during the read
store = load_store(sys.argv[1])
ranking()
lap("read and check the file")
judge = pick_judge(store, sys.argv[2] if sys.argv[2] != "-" else None)
from evalcore.ranking.sparse_fit import SPARSE_FROM_MODELS
# many models: scipy's sparse matrices imported while DuckDB counts, as the command does
sparse = data._import_meanwhile("scipy.sparse") if len(store.models()) >= SPARSE_FROM_MODELS else None
counts = store.counts(judge=judge)
if sparse is not None:
    sparse()
store.close()
lap("counts")
from evalcore.ranking import leaderboard
from evalcore.ranking.split_half import split_half_stability
# (the command fits the split halves beside the leaderboard, on the other core; here one after
# the other, to see each one's time)
counts.pattern_counts()
board = leaderboard(counts, rounds=1000, seed=0, interval="auto")
lap("leaderboard (fit, intervals)")
stability = split_half_stability(counts, seed=0)
lap("split-half stability")
out = board.as_dict()
out["split_half"] = stability.as_dict()
with contextlib.redirect_stdout(io.StringIO()):
    print_json(out)
lap("JSON")
wall0, cpu0 = 0.0, 0.0
for step, wall, cpu in marks:
    if step.startswith("    "):  # a statement: its own seconds, listed before its step
        print(f"  {step:48s} {wall:7.2f} s {cpu:6.2f} s")
        continue
    wall -= t0
    print(f"  {step:48s} {wall - wall0:7.2f} s {cpu - cpu0:6.2f} s")
    wall0, cpu0 = wall, cpu
print(f"  {'total':48s} {wall0:7.2f} s {cpu0:6.2f} s")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shapes", nargs="+", choices=ALL_SHAPES, default=list(ALL_SHAPES))
    ap.add_argument("--arena-dir", type=Path, default=Path(tempfile.gettempdir()) / "verdictlab-arena")
    ap.add_argument("--statements", action="store_true", help="also each DuckDB statement of 10 ms or more")
    args = ap.parse_args()
    print(f"before: {load()}")
    print(f"{'step (one fresh process per shape)':50s} wall     CPU")
    for shape in shapes(args.shapes, args.arena_dir):
        extra = "statements" if args.statements else "-"
        cmd = [sys.executable, "-c", STEPS, str(shape.path), shape.judge or "-", extra]
        subprocess.run(cmd, cwd=ROOT, env=CHILD_ENV, capture_output=True, check=True)  # compiled, cached
        done = subprocess.run(cmd, cwd=ROOT, env=CHILD_ENV, capture_output=True, text=True, check=True)
        print(shape.name)
        print(done.stdout, end="", flush=True)
    print(f"after: {load()}")


if __name__ == "__main__":
    main()
