"""Verdicts with their text at the size of released arena preference sets:
``python -m benchmarks.bench_verdicts [--rows 150000] [--kb 30] [--pages 7]``.

Writes a simulated verdict table with ``--rows`` judge calls and about ``--kb`` kilobytes of text
per call (prompt, both answers, the judge's reasoning) as Parquet into a temporary folder, loads
it with :meth:`evalcore.store.store.VerdictStore.load_file` in a child process, and prints the load
time, the child's peak resident memory and the median time per page of 20 cases for several
filters (none, one pair, a free-text search, the flipped cases, a late page). The folder is
removed afterwards. Not a test: no assertion on time (see docs/development.md).

Each phase runs in a fresh process so that ``ru_maxrss`` is the peak of that phase alone.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

_WORDS = (
    "the of and to in is that for it as was with be by on not he this are or his from at which "
    "but have an they you were her she there been one all we their has would when if so no will "
    "model answer judge prompt response assistant better worse first second tie reason because "
    "explain code function return value error python list string number example correct wrong "
    "however therefore overall helpful accurate concise detailed missing clear step result"
).split()


def _pool(rng: np.random.Generator, chars: int) -> str:
    """A long run of random words: text that compresses about as well as English prose."""
    words = np.array(_WORDS, dtype=object)
    picks = words[rng.integers(0, len(words), chars // 4)]
    return " ".join(picks.tolist())[:chars]


def write_table(path: Path, *, rows: int, kb: float, seed: int = 0, models: int = 20) -> None:
    """A verdict table with text, written in row groups so that memory stays small.

    Two judges, every (judge, instruction, pair) judged in both orders, a human label on one
    case in ten; prompt, answers and judge output share ``kb`` kilobytes per row.
    """
    rng = np.random.default_rng(seed)
    pool = _pool(rng, 8_000_000)
    sizes = {"prompt": 0.08, "response_a": 0.33, "response_b": 0.33, "judge_output": 0.26}
    names = np.array([f"model-{k:02d}" for k in range(models)])
    batch = 5_000
    writer = None
    try:
        for start in range(0, rows, batch):
            n = min(batch, rows - start)
            k = np.arange(start, start + n)
            case = k // 2  # rows 2c and 2c + 1 are the two orders of case c
            a = (case * 7919) % models
            b = (a + 1 + (case * 104729) % (models - 1)) % models
            swap = k % 2 == 1
            model_a = np.where(swap, names[b], names[a])
            model_b = np.where(swap, names[a], names[b])
            strength = (a - b) / models
            verdict = np.clip(np.round(rng.normal(np.where(swap, -strength, strength) + 0.3, 1.0)), -2, 2)
            human = np.where((case % 10) == 0, np.sign(np.where(swap, -strength, strength)), np.nan)
            columns = {
                "instruction_id": pa.array([f"q{c // 2}" for c in case]),
                "model_a": pa.array(model_a.tolist()),
                "model_b": pa.array(model_b.tolist()),
                "verdict": pa.array(verdict.astype(int).tolist()),
                "judge": pa.array(np.where(case % 2 == 0, "judge-x", "judge-y").tolist()),
                "human": pa.array([None if np.isnan(h) else int(h) for h in human], type=pa.int64()),
                "category": pa.array(np.where(case % 3 == 0, "code", "chat").tolist()),
            }
            for name, share in sizes.items():
                length = int(kb * 1000 * share)
                offsets = rng.integers(0, len(pool) - length, n)
                columns[name] = pa.array(
                    [f"[{name} {start + i}] " + pool[o : o + length] for i, o in enumerate(offsets)]
                )
            table = pa.table(columns)
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema, compression="zstd")
            writer.write_table(table, row_group_size=batch)
    finally:
        if writer is not None:
            writer.close()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def child(path: str, pages: int) -> None:
    """Load and page in this process; print one JSON line of measurements."""
    from evalcore.store.store import VerdictStore
    from evalcore.verdicts import VerdictFilter

    out: dict = {}
    store = VerdictStore()
    t = time.perf_counter()
    store.load_file(path)
    out["load_seconds"] = time.perf_counter() - t
    out["rss_after_load_mb"] = _peak_mb()
    filters = {
        "no filter": VerdictFilter(),
        "one pair": VerdictFilter(model_a="model-03", model_b="model-11"),
        "one judge and model": VerdictFilter(judge="judge-x", model_a="model-05"),
        "search (all text)": VerdictFilter(search="Prompt 1234]"),
        "search within one pair": VerdictFilter(model_a="model-03", model_b="model-11", search="model"),
        "flipped": VerdictFilter(flipped=True),
        "disagrees with human": VerdictFilter(disagrees_with_human=True),
    }
    out["pages"] = {}
    for label, flt in filters.items():
        times = []
        total = 0
        for _ in range(pages):
            t = time.perf_counter()
            page = store.verdicts(flt, offset=0, limit=20)
            times.append(time.perf_counter() - t)
            total = page.total
        out["pages"][label] = {"median_seconds": statistics.median(times), "total": total}
    times = []
    for _ in range(pages):
        t = time.perf_counter()
        store.verdicts(None, offset=50_000, limit=20)
        times.append(time.perf_counter() - t)
    out["pages"]["page 2,501 (offset 50,000)"] = {"median_seconds": statistics.median(times), "total": -1}
    out["peak_rss_mb"] = _peak_mb()
    store.close()
    print(json.dumps(out))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=150_000, help="judge calls (rows)")
    parser.add_argument("--kb", type=float, default=30.0, help="kilobytes of text per row")
    parser.add_argument("--pages", type=int, default=7, help="repeats per filter (median reported)")
    parser.add_argument(
        "--parquet", default=None, help="use this table (written by an earlier run) instead of writing one"
    )
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.pages)
        return 0
    work = Path(tempfile.mkdtemp(prefix="bench-verdicts-"))
    try:
        path = Path(args.parquet) if args.parquet else work / "verdicts.parquet"
        if not args.parquet:
            t = time.perf_counter()
            write_table(path, rows=args.rows, kb=args.kb)
            print(
                f"wrote {args.rows:,} rows, {args.kb:g} KB of text each: "
                f"{path.stat().st_size / 1e6:,.0f} MB Parquet in {time.perf_counter() - t:.0f} s"
            )
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.bench_verdicts",
                "--child",
                str(path),
                "--pages",
                str(args.pages),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if run.returncode != 0:
            print(run.stderr, file=sys.stderr)
            return run.returncode
        got = json.loads(run.stdout.strip().splitlines()[-1])
        print(f"load: {got['load_seconds']:.1f} s; peak RSS after load {got['rss_after_load_mb']:,.0f} MB")
        for label, row in got["pages"].items():
            total = f", {row['total']:,} cases" if row["total"] >= 0 else ""
            print(f"  page of 20 cases, {label}: median {row['median_seconds'] * 1000:,.0f} ms{total}")
        print(f"peak RSS of the loading process: {got['peak_rss_mb']:,.0f} MB (target < 1,536 MB)")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
