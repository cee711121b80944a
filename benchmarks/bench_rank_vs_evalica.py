"""The whole `rank` process against evalica's whole process and against the floor, per shape.

    python -m benchmarks.bench_rank_vs_evalica [--repeat 3] [--shapes paper arena300k-parquet …]
        [--evalica-python PATH] [--arena-dir DIR]

Shapes (each a file a user would hand to ``rank``; nothing is written into the repository):

- ``paper``: the paper-sized table (866,250 calls, 22 models, 750 instructions, 5 judges; CSV,
  ``benchmarks/paper_table.py``), one judge ranked: the automatic interval is the bootstrap,
  1,000 rounds;
- ``arena300k-parquet``, ``arena300k-json``, ``arena1800k-parquet``, ``arena1800k-json``: simulated
  Chatbot Arena tables of 300,000 and 1.8 M battles (129 models, one prompt per battle), as a
  verdict table in Parquet and as the raw published JSON dump (``benchmarks/make_arena_dump.py``;
  written once under ``--arena-dir``, by default the system temp folder): the automatic interval
  is the instruction-clustered sandwich (plus 1,000 normal draws for the rank ranges);
- ``models2000``: 2,000 models with 2,000 battles (CSV, the table of
  ``benchmarks/bench_many_models.py``): the automatic interval is the sandwich (more than 150
  models).

Three processes per shape, each fresh:

- Verdict Lab: ``python -m evalcore rank FILE [--judge J] --json`` (import, read, validate, load,
  aggregate, Bradley–Terry fit, intervals, rank ranges, split-half stability, JSON out);
- the peer, evalica: pandas reads the file (``read_csv``; ``read_parquet`` of the three columns;
  ``read_json``, as the Arena's own notebook reads its dump) and one ``evalica.bradley_terry``
  point fit, no interval. evalica is not a dependency of the project: install it in its own
  environment and pass its Python (``--evalica-python``, default /tmp/evalica-venv/bin/python)::

      python3 -m venv /tmp/evalica-venv && /tmp/evalica-venv/bin/pip install evalica pandas pyarrow

- the floor: a bare Python process that imports DuckDB, reads the file once and counts the
  battles per (model A, model B, verdict) in one ``GROUP BY``: no validation, no fit, nothing
  printed. No ranking can start before this much work is done.

Each command runs once untimed first (its modules compiled, the file in the page cache), then the
runs alternate (ours, peer, floor, ours, …) so all three see the same load; each cell is the
median of ``--repeat`` runs of wall time and the process's own peak RSS (``wait4``). The
machine's load average is printed before and after: the two cores are shared with other work, so
read the ratios more than the absolute times.

Issue 26 (item 4, target: ours ≤ 0.5 × the peer's wall, peak RSS ≤ the peer's), medians of 3 on
the shared 2-core machine; see docs/development.md for the figures before and after.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PAPER_JUDGE = "sim-judge-0"
#: The 2,000-model table's one judge (its ``judge`` column).
MANY_JUDGE = "arena"

#: The peer: pandas reads the file, then one Bradley–Terry point fit. The verdict is mapped to
#: evalica's winners through a dictionary (vectorised), not a Python lambda per row.
PEER = r"""
import sys
import evalica, numpy as np, pandas as pd
kind, path = sys.argv[1], sys.argv[2]
W = {1: evalica.Winner.X, -1: evalica.Winner.Y, 0: evalica.Winner.Draw}
if kind == "csv":
    frame = pd.read_csv(path, dtype={"verdict": "float64"})
    frame = frame[(frame["judge"] == sys.argv[3]) & frame["verdict"].notna()]
    winner = np.sign(frame["verdict"]).astype(int).map(W)
elif kind == "parquet":
    frame = pd.read_parquet(path, columns=["model_a", "model_b", "verdict"])
    winner = np.sign(frame["verdict"]).astype(int).map(W)
else:  # the raw Chatbot Arena dump, read as the Arena's notebook reads it
    frame = pd.read_json(path)
    winner = frame["winner"].map({"model_a": W[1], "model_b": W[-1], "tie": W[0], "tie (bothbad)": W[0]})
result = evalica.bradley_terry(frame["model_a"], frame["model_b"], winner)
print(result.scores.sort_values(ascending=False).head(3).to_dict())
"""

#: The floor: read the file once and one aggregation in DuckDB, in a bare process.
FLOOR = r"""
import sys
import duckdb
kind, path = sys.argv[1], sys.argv[2]
con = duckdb.connect()
if kind == "csv":
    sql = ("SELECT model_a, model_b, sign(verdict) AS v, count(*) FROM read_csv(?) "
           "WHERE judge = ? AND verdict IS NOT NULL GROUP BY ALL")
    rows = con.execute(sql, [path, sys.argv[3]]).fetchall()
elif kind == "parquet":
    rows = con.execute("SELECT model_a, model_b, verdict, count(*) FROM read_parquet(?) GROUP BY ALL",
                       [path]).fetchall()
else:
    rows = con.execute("SELECT model_a, model_b, winner, count(*) FROM read_json(?) GROUP BY ALL",
                       [path]).fetchall()
assert rows
"""


@dataclass(frozen=True)
class Shape:
    name: str
    path: Path
    kind: str  # csv, parquet, json
    judge: str | None


def arena_files(folder: Path, battles: int) -> tuple[Path, Path]:
    """The simulated arena dump of ``battles`` battles (JSON and Parquet), written once."""
    sub = folder / f"arena{battles // 1000}k"
    json_path, parquet_path = sub / "clean_battle_sim.json", sub / "clean_battle_sim.parquet"
    if not (json_path.exists() and parquet_path.exists()):
        sub.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "benchmarks.make_arena_dump", str(sub), "--battles", str(battles)],
            check=True,
            cwd=ROOT,
        )
    return json_path, parquet_path


def paper_file() -> Path:
    """The paper-sized CSV, written once by a child process: this process stays small, because
    Linux carries a parent's peak memory into every child it starts (``ru_maxrss`` survives fork
    and exec), which would put a floor under every figure below."""
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks.paper_table"], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return Path(done.stdout.split()[0])


def many_models_file() -> Path:
    """The 2,000-model table of ``benchmarks/bench_many_models.py`` (2,000 battles), written
    once by a child process (as :func:`paper_file`)."""
    path = Path(tempfile.gettempdir()) / "verdictlab-many-models" / "models2000_battles2000.csv"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        code = (
            "import sys, pathlib; from benchmarks.bench_many_models import write_table; "
            "write_table(pathlib.Path(sys.argv[1]), 2000, 2000)"
        )
        subprocess.run([sys.executable, "-c", code, str(path)], check=True, cwd=ROOT)
    return path


def shapes(names: list[str], arena_dir: Path) -> list[Shape]:
    out = []
    for name in names:
        if name == "paper":
            out.append(Shape(name, paper_file(), "csv", PAPER_JUDGE))
            continue
        if name == "models2000":
            out.append(Shape(name, many_models_file(), "csv", MANY_JUDGE))
            continue
        size, kind = name.removeprefix("arena").split("-")
        json_path, parquet_path = arena_files(arena_dir, int(size.removesuffix("k")) * 1000)
        out.append(Shape(name, parquet_path if kind == "parquet" else json_path, kind, None))
    return out


#: The children compile each module once into this folder and read it back afterwards, as an
#: installed package does (``PYTHONDONTWRITEBYTECODE`` in the caller's environment would make
#: every child compile every module it imports, seconds of work no user pays).
CHILD_ENV = {
    **{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
    "PYTHONPYCACHEPREFIX": str(Path(tempfile.gettempdir()) / "verdictlab-bench-pycache"),
}


def run(cmd: list[str]) -> tuple[float, float, float]:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system, every thread) of one fresh
    process. On a loaded machine the CPU time is the steadier figure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=CHILD_ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def cell(runs: list[tuple[float, float, float]]) -> str:
    if not runs:
        return "not run"
    wall, rss, cpu = (statistics.median(r[k] for r in runs) for k in range(3))
    return f"{wall:6.2f} s {cpu:5.2f} s {rss:5.0f} MB"


ALL_SHAPES = (
    "paper",
    "arena300k-parquet",
    "arena300k-json",
    "arena1800k-parquet",
    "arena1800k-json",
    "models2000",
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--shapes", nargs="+", choices=ALL_SHAPES, default=list(ALL_SHAPES))
    ap.add_argument("--evalica-python", default="/tmp/evalica-venv/bin/python")
    ap.add_argument("--arena-dir", type=Path, default=Path(tempfile.gettempdir()) / "verdictlab-arena")
    ap.add_argument("--no-floor", action="store_true", help="skip the DuckDB floor")
    args = ap.parse_args()
    have_peer = Path(args.evalica_python).exists()
    todo = shapes(args.shapes, args.arena_dir)
    print(f"before: {load()}")
    print(f"peer: {args.evalica_python if have_peer else 'absent (see the docstring); peer runs skipped'}")
    print(f"medians of {args.repeat} fresh processes, alternated (wall, CPU, peak RSS)\n")
    print(
        f"{'shape':19s} {'file':>6s}  {'Verdict Lab':>22s}  {'evalica (point)':>22s}  {'floor (DuckDB)':>22s}"
        "  ours/peer: wall CPU RSS  ours/floor: wall CPU"
    )
    for shape in todo:
        extra = [shape.judge] if shape.judge else []
        ours_cmd = [sys.executable, "-m", "evalcore", "rank", str(shape.path), "--json"]
        if shape.judge:
            ours_cmd[5:5] = ["--judge", shape.judge]
        peer_cmd = [args.evalica_python, "-c", PEER, shape.kind, str(shape.path), *extra]
        floor_cmd = [sys.executable, "-c", FLOOR, shape.kind, str(shape.path), *extra]
        ours: list[tuple[float, float, float]] = []
        peer: list[tuple[float, float, float]] = []
        floor: list[tuple[float, float, float]] = []
        for cmd in (ours_cmd, peer_cmd if have_peer else None, None if args.no_floor else floor_cmd):
            if cmd:  # once untimed: compiled modules and the file in the page cache for all three
                run(cmd)
        for _ in range(args.repeat):  # alternated, so all three see the same machine load
            ours.append(run(ours_cmd))
            if have_peer:
                peer.append(run(peer_cmd))
            if not args.no_floor:
                floor.append(run(floor_cmd))

        def med(runs: list[tuple[float, float, float]], k: int) -> float:
            return statistics.median(r[k] for r in runs)

        ratio = " ".join(f"{med(ours, k) / med(peer, k):4.2f}" for k in (0, 2, 1)) if peer else "-"
        to_floor = " ".join(f"{med(ours, k) / med(floor, k):4.1f}" for k in (0, 2)) if floor else "-"
        size = f"{shape.path.stat().st_size / 1e6:.0f} MB"
        print(
            f"{shape.name:19s} {size:>6s}  {cell(ours):>22s}  {cell(peer):>22s}  {cell(floor):>22s}"
            f"  {ratio:>23s}  {to_floor:>20s}",
            flush=True,
        )
    print(f"\nafter: {load()}")


if __name__ == "__main__":
    main()
