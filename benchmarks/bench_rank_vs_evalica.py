"""The whole `rank` process against evalica's whole process, side by side in one run.

    python -m benchmarks.bench_rank_vs_evalica [--repeat 7] [--evalica-python PATH]

Verdict Lab: ``python -m evalcore rank FILE --judge J --bootstrap 1000 --json`` (read + validate
+ load + aggregate + Bradley–Terry + 1,000 bootstrap rounds). Peer: evalica (read the same CSV
with pandas + one ``evalica.bradley_terry`` fit, a point estimate with no interval). evalica is
not a dependency of the project: install it in a separate environment and pass its Python, e.g.

    python3 -m venv --system-site-packages /tmp/evalica-venv && /tmp/evalica-venv/bin/pip install evalica

Each process is run fresh; wall time and the process's own peak RSS (``wait4``) are recorded and
medians printed. The file is the paper-sized table (866,250 rows, 22 models, 5 judges).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.paper_table import paper_sized_file  # noqa: E402

EVALICA = r"""
import sys
import evalica, pandas as pd
frame = pd.read_csv(sys.argv[1], dtype={"verdict": "float64"})
frame = frame[(frame["judge"] == sys.argv[2]) & frame["verdict"].notna()]
winner = frame["verdict"].map(lambda v: evalica.Winner.X if v > 0 else
                              (evalica.Winner.Y if v < 0 else evalica.Winner.Draw))
result = evalica.bradley_terry(frame["model_a"], frame["model_b"], winner)
print(result.scores.sort_values(ascending=False).head(3).to_dict())
"""


def run(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}\n{proc.stderr.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--evalica-python", default="/tmp/evalica-venv/bin/python")
    ap.add_argument("--interval", default="bootstrap", choices=("bootstrap", "sandwich"))
    args = ap.parse_args()
    path = paper_sized_file()
    judge = "sim-judge-0"
    ours = [
        sys.executable,
        "-m",
        "evalcore",
        "rank",
        str(path),
        "--judge",
        judge,
        "--bootstrap",
        "1000",
        "--interval",
        args.interval,
        "--json",
    ]
    peer = [args.evalica_python, "-c", EVALICA, str(path), judge]
    have_peer = Path(args.evalica_python).exists()
    results: dict[str, list[tuple[float, float]]] = {"verdict lab": [], "evalica": []}
    for _ in range(args.repeat):  # interleaved, so both see the same machine load
        results["verdict lab"].append(run(ours))
        if have_peer:
            results["evalica"].append(run(peer))
    print(
        f"file: {path.name} ({path.stat().st_size / 1e6:.1f} MB), judge {judge}, "
        f"{args.repeat} runs each, interleaved"
    )
    for name, runs in results.items():
        if not runs:
            print(f"{name:>12}: not run (no Python at {args.evalica_python}; see the docstring)")
            continue
        walls = [w for w, _ in runs]
        rss = [r for _, r in runs]
        print(
            f"{name:>12}: wall median {statistics.median(walls):.2f} s "
            f"(min {min(walls):.2f}, max {max(walls):.2f}); peak RSS median "
            f"{statistics.median(rss):.0f} MB"
        )


if __name__ == "__main__":
    main()
