"""The anchor paper's release at full size: ``python -m benchmarks.bench_judgements_900k DIR
[--repeats 3]``.

Writes ``DIR/judgements_900k.parquet`` once: the shape of ``ibm-research/900K-Judgements``
(5 judges × 750 Arena-Hard prompts × all 231 pairs of the paper's 22 models = 866,250 calls, uids
``{16 hex}_{model_1}_{model_2}`` with ``/`` as ``_``, slots swapped at random, 5-level verdicts,
1% INVALID). Then, each run in a fresh process (its own peak memory): load the file
(``VerdictStore.load_file``: the SQL conversion and the contract checks), ``counts()`` of one
judge on Arena-Hard, and the per-anchor sweep against the bundled human ranking.

Prints medians over ``--repeats`` runs. Not a test: nothing is asserted (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, resource, sys, time
from evalcore.store.store import VerdictStore
from evalcore.anchors import anchor_sweep
from evalcore.ingest.reference import human_ranking
out = {}
t = time.perf_counter()
store = VerdictStore()
table = store.load_file(sys.argv[1])
out["load"] = time.perf_counter() - t
t = time.perf_counter()
counts = store.counts(judge=store.judges()[0], category="Arena-Hard v2.0")
out["counts"] = time.perf_counter() - t
t = time.perf_counter()
anchor_sweep(counts, human_ranking=human_ranking("paper"))
out["sweep"] = time.perf_counter() - t
out["rows"] = table.report.rows
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""

MAKE = r"""
import sys
import duckdb
from evalcore.ingest.reference import paper_human_ranking
con = duckdb.connect()
con.register("elo", paper_human_ranking()[["model", "score"]])
con.execute('''CREATE TABLE pairs AS SELECT a.model AS m1, b.model AS m2, a.score - b.score AS d
               FROM elo a, elo b WHERE a.model < b.model''')
con.execute('''COPY (
  WITH calls AS (
    SELECT j.judge, p.m1, p.m2, p.d, i.inst, random() < 0.5 AS swap, random() AS u
    FROM (SELECT unnest(['Qwen/Qwen3-8B', 'deepseek-ai/DeepSeek-V3', 'openai/gpt-oss-120b',
                         'Qwen/Qwen3-235B-A22B-Instruct-2507', 'openai/gpt-oss-20b']) AS judge) j,
         pairs p,
         (SELECT lpad(printf('%x', hash(range)), 16, '0') AS inst FROM range(750)) i),
  judged AS (
    SELECT *, 1 / (1 + exp(-d / 60)) AS p1 FROM calls)
  SELECT inst || '_' || replace(m1, '/', '_') || '_' || replace(m2, '/', '_') AS uid,
         judge AS judge_model,
         CASE WHEN swap THEN m2 ELSE m1 END AS model_a_in_prompt,
         CASE WHEN swap THEN m1 ELSE m2 END AS model_b_in_prompt,
         CASE WHEN u < 0.01 THEN 'INVALID'
              WHEN u < 0.01 + 0.99 * p1 * 0.4 THEN m1 || '>>' || m2
              WHEN u < 0.01 + 0.99 * p1 THEN m1 || '>' || m2
              WHEN u < 0.01 + 0.99 * (p1 + (1 - p1) * 0.2) THEN m1 || '=' || m2
              WHEN u < 0.01 + 0.99 * (p1 + (1 - p1) * 0.7) THEN m2 || '>' || m1
              ELSE m2 || '>>' || m1 END AS final_verdict
  FROM judged) TO ''' + "'" + sys.argv[1] + "'" + ''' (FORMAT parquet)''')
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    path = args.dir / "judgements_900k.parquet"
    if not path.exists():
        subprocess.run([sys.executable, "-c", MAKE, str(path)], check=True)
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", CHILD, str(path)], check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(args.repeats)
    ]
    print(
        f"{runs[0]['rows']:,} calls, {path.stat().st_size / 1024**2:.1f} MB Parquet; medians of {len(runs)} runs:"
    )
    for key, unit in (("load", "s"), ("counts", "s"), ("sweep", "s"), ("peak_mb", "MB")):
        print(f"  {key:8s} {statistics.median(r[key] for r in runs):8.2f} {unit}")


if __name__ == "__main__":
    main()
