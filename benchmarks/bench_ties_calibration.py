"""Tie structure and calibration on an arena-shaped table (issue 15): sparse counts, SQL aggregates.

    python benchmarks/bench_ties_calibration.py [--battles 1800000] [--models 129] [--repeat 3]

Builds a Chatbot-Arena-shaped verdict table in DuckDB (one prompt per battle, random pairs and
orders, about 35% ties, human labels on 5% of battles) and times, each in a fresh process so the
peak memory is its own: the tie structure of the judge, the tie structure against the human
labels, and the calibration of one model against all its opponents. Prints medians (min–max) of
wall time and the peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {root!r})
from evalcore.store.store import VerdictStore
from evalcore.ties import labelled_counts, verdict_tie_structure
from evalcore.calibration import calibrate
store = VerdictStore()
store.con.execute("SET enable_progress_bar = false")
store.con.execute("SELECT setseed(0.42)")
store.con.execute('''
    INSERT INTO verdicts
    SELECT i AS "row", 'p' || i AS instruction_id, 'm' || lpad(a::VARCHAR, 3, '0') AS model_a,
           'm' || lpad(((a + 1 + floor(random() * ({models} - 1)))::INT % {models})::VARCHAR, 3, '0')
               AS model_b,
           CASE WHEN u < 0.2 THEN -2 WHEN u < 0.325 THEN -1 WHEN u < 0.675 THEN 0
                WHEN u < 0.8 THEN 1 ELSE 2 END::TINYINT AS verdict,
           'judge' AS judge,
           CASE WHEN random() < 0.05 THEN (CASE WHEN u < 0.3 THEN -1 WHEN u < 0.65 THEN 0 ELSE 1 END)
                END::TINYINT AS human,
           NULL, NULL, NULL
    FROM (SELECT range AS i, floor(random() * {models})::INT AS a, random() AS u
          FROM range({battles}))''')
task = {task!r}
t0 = time.perf_counter()
if task == "ties":
    counts = store.counts(judge="judge")
    t_counts = time.perf_counter() - t0
    result = verdict_tie_structure(counts)
    detail = dict(store_counts_seconds=round(t_counts, 2), top_tied=result.top_tied,
                  instructions=result.instructions)
elif task == "ties_human":
    lab = labelled_counts(store, "judge")
    result = verdict_tie_structure(lab.judge, lab.human)
    detail = dict(calls=result.n_calls, tau_a=result.agreement.tau_a)
else:
    cal = calibrate(store, judge="judge", candidate="m000")
    detail = dict(n_judged=cal.counts.n_judged, n_labelled=cal.counts.n_labelled,
                  patterns=int(len(cal.counts.multiplicity)), refused=cal.refused)
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print("RESULT " + json.dumps(dict(seconds=seconds, peak_mb=peak, **detail)))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=1_800_000)
    parser.add_argument("--models", type=int, default=129)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"arena-shaped table: {args.battles:,} battles (one prompt each), {args.models} models")
    for task, label in (
        ("ties", "tie structure of the judge"),
        ("ties_human", "tie structure against the human labels"),
        ("calibrate", "calibrate one model against all opponents"),
    ):
        runs = []
        for _ in range(args.repeat):
            code = _CHILD.format(root=str(ROOT), models=args.models, battles=args.battles, task=task)
            out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
            line = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")][-1]
            runs.append(json.loads(line[len("RESULT ") :]))
        secs = [r["seconds"] for r in runs]
        peaks = [r["peak_mb"] for r in runs]
        extra = {k: v for k, v in runs[0].items() if k not in ("seconds", "peak_mb")}
        print(
            f"{label}: median {statistics.median(secs):.2f} s ({min(secs):.2f}–{max(secs):.2f}), "
            f"peak memory (whole process, table included) median {statistics.median(peaks):.0f} MB; "
            f"{extra}"
        )


if __name__ == "__main__":
    main()
