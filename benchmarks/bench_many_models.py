"""Many models: whole `rank` processes against evalica's, side by side in one run.

    python -m benchmarks.bench_many_models [--repeat 3] [--timeout 120] [--skip-10k]

Tables (simulated arenas, one battle per prompt, written to a temporary folder, never into the
repository): 2,000 models with 2,000 battles (the 35 KB table of issue 26: most models play once
or twice, the graph is in many pieces and many models are undefeated) and 10,000 models with
200,000 battles.

Verdict Lab, each a fresh ``python -m evalcore rank FILE --json`` process (read + validate + load
+ aggregate + fit + intervals):

- 2,000 models, point fit: ``--bootstrap 0``;
- 2,000 models, ``--interval bootstrap --bootstrap 200``;
- 10,000 models, ``--interval sandwich`` (the automatic choice there), with 1,000 draws for the
  rank ranges.

Each process also computes the split halves of the stability sentence. From 100 models the
leaderboard keeps no models × models matrix (:mod:`evalcore.ranking.pair_board`): the fits are
Newton's method over the pairs that met (with the prior, the graph's leaves eliminated exactly
and the core factorised or solved by conjugate gradients: :mod:`evalcore.ranking.peeling`), the
sandwich is kept as its factors (exact by pieces of the comparison graph up to 2,500 models, a
large sparse piece through its sparse factor; in the 10,000-model arena, one piece, its standard errors
come from 1,000 random-sign draws of the scores with a control variate, to about 1%). The
targets of issue 26: the 2,000-model point fit faster than evalica's whole process and within its
peak memory; 200 bootstrap rounds within 10 s; the 10,000-model sandwich within 10 s and 1 GB.

Peer: evalica (pandas ``read_csv`` + ``evalica.bradley_terry``; for the bootstrap line,
``evalica.bootstrap`` with 200 percentile resamples). evalica is not a dependency of the project:
it lives in its own virtualenv, by default /tmp/evalica-venv (``EVALICA_PYTHON`` names another
interpreter); without it the peer's lines are skipped::

    python3 -m venv /tmp/evalica-venv && /tmp/evalica-venv/bin/pip install evalica pandas

Each command runs once untimed first (its modules compiled into one folder, read back by the
timed runs: :data:`benchmarks.bench_rank_vs_evalica.CHILD_ENV`, as an installed package reads its
own; without it, a caller's ``PYTHONDONTWRITEBYTECODE`` with a ``PYTHONPYCACHEPREFIX`` made both
sides compile every module on every run, 1.5 s of the peer's 2.2 on the 2,000-model table).
Runs alternate (ours, peer, ours, …) so both see the same load; each cell is the median of
``--repeat`` runs of wall time, CPU time (user + system) and the process's own peak RSS
(``wait4``); the last two columns are ours ÷ the peer's for wall and for CPU time. A run longer than
``--timeout`` seconds is stopped and reported as such. The machine's load (``uptime``) is
printed before and after: the two cores are shared with other work, so read the ratios more
than the absolute times.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.bench_rank_vs_evalica import CHILD_ENV

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PEER_FIT = r"""
import sys
import evalica, pandas as pd
frame = pd.read_csv(sys.argv[1])
winner = frame["verdict"].map(lambda v: evalica.Winner.X if v > 0 else
                              (evalica.Winner.Y if v < 0 else evalica.Winner.Draw))
rounds = int(sys.argv[2])
if rounds:
    result = evalica.bootstrap(evalica.bradley_terry, frame["model_a"], frame["model_b"], winner,
                               n_resamples=rounds, bootstrap_method="percentile", random_state=0)
    print(type(result).__name__)
else:
    result = evalica.bradley_terry(frame["model_a"], frame["model_b"], winner)
    print(result.scores.sort_values(ascending=False).head(3).to_dict())
"""


def write_table(path: Path, n_models: int, n_battles: int) -> Path:
    """A simulated arena table as a small CSV (instruction, models, verdict, judge)."""
    if path.exists():
        return path
    from evalcore.simulate.arena import arena_verdict_frame, simulate_arena

    frame = arena_verdict_frame(simulate_arena(n_battles=n_battles, n_models=n_models, seed=0))
    frame[["instruction_id", "model_a", "model_b", "verdict", "judge"]].to_csv(path, index=False)
    return path


def run(cmd: list[str], timeout: float) -> tuple[float, float, float] | str:
    """Wall seconds, peak RSS (MB) and CPU seconds (user + system) of one fresh process, or why
    it has none. On a loaded machine the CPU time is the steadier figure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT, env=CHILD_ENV)
    deadline = t0 + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            proc.send_signal(signal.SIGKILL)
            os.wait4(proc.pid, 0)
            return f"stopped after {timeout:.0f} s"
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        err = proc.stderr.read().decode().strip().splitlines() if proc.stderr else []
        return "failed: " + (err[-1][:150] if err else "no message")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def summary(results: list[tuple[float, float, float] | str]) -> str:
    done = [r for r in results if not isinstance(r, str)]
    if not done:
        return str(results[0])
    wall = statistics.median(r[0] for r in done)
    peak = statistics.median(r[1] for r in done)
    cpu = statistics.median(r[2] for r in done)
    failed = len(results) - len(done)
    return f"{wall:6.2f} s {cpu:6.2f} s {peak:5.0f} MB" + (
        f" ({failed} of {len(results)} failed)" if failed else ""
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--skip-10k", action="store_true", help="only the 2,000-model table")
    ap.add_argument("--folder", default=os.path.join(tempfile.gettempdir(), "verdictlab-many-models"))
    args = ap.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    peer_python = os.environ.get("EVALICA_PYTHON", "/tmp/evalica-venv/bin/python")
    have_peer = Path(peer_python).exists()
    small = write_table(folder / "models2000_battles2000.csv", 2000, 2000)
    cases = [
        ("2,000 models, point fit", small, ["--bootstrap", "0"], 0),
        ("2,000 models, bootstrap 200", small, ["--interval", "bootstrap", "--bootstrap", "200"], 200),
    ]
    if not args.skip_10k:
        big = write_table(folder / "models10000_battles200000.csv", 10_000, 200_000)
        cases.append(("10,000 models, sandwich", big, ["--interval", "sandwich"], 0))

    print("load before:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"peer: {peer_python if have_peer else 'absent (set EVALICA_PYTHON); peer lines skipped'}")
    print(f"medians of {args.repeat} whole processes (wall, CPU, peak RSS); 2 cores shared with other work\n")
    print(f"{'case':30s} {'Verdict Lab':>26s}   {'evalica':>26s}   wall ratio  CPU ratio")
    for name, path, flags, rounds in cases:
        ours_cmd = [sys.executable, "-m", "evalcore", "rank", str(path), *flags, "--json"]
        peer_cmd = [peer_python, "-c", PEER_FIT, str(path), str(rounds)]
        ours, peer = [], []
        # once untimed: both compile their modules into CHILD_ENV's folder and read them back
        # afterwards (with the caller's PYTHONDONTWRITEBYTECODE and a fresh PYTHONPYCACHEPREFIX,
        # every run compiled pandas, SciPy and evalica again: 1.5 s of the peer's 2.2)
        run(ours_cmd, args.timeout)
        if have_peer:
            run(peer_cmd, args.timeout)
        for _ in range(args.repeat):
            ours.append(run(ours_cmd, args.timeout))
            if have_peer:
                peer.append(run(peer_cmd, args.timeout))
        ratio = ""
        done_o = [r for r in ours if not isinstance(r, str)]
        done_p = [r for r in peer if not isinstance(r, str)]
        if done_o and done_p:
            ratio = "  ".join(
                f"{statistics.median(r[k] for r in done_o) / statistics.median(r[k] for r in done_p):9.2f}"
                for k in (0, 2)
            )
        print(f"{name:30s} {summary(ours):>26s}   {summary(peer) if have_peer else 'skipped':>26s}   {ratio}")
    print("\nload after:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
