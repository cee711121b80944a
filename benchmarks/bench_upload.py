"""How the upload path copes with a large file: ``python -m benchmarks.bench_upload [--mb 200]``.

Builds a verdict table of about ``--mb`` megabytes in memory (the bytes a browser upload hands
to the Data page), then times the step the page runs: ``VerdictStore.load_bytes`` (spill,
DuckDB read, SQL validation, insert), plus one ``counts()`` aggregation. It prints wall
time per step and the process's peak resident memory, so the lead can choose
``server.maxUploadSize``. Not a test: no assertion on time (CONTRIBUTING.md).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def make_table(target_mb: float, *, instructions: int = 5_000, seed: int = 0) -> bytes:
    """A contract CSV of about ``target_mb`` MB: 40 models, 3 judges, labels and lengths."""
    rng = np.random.default_rng(seed)
    row_bytes = 55.5  # measured average of the rows below
    n = int(target_mb * 1e6 / row_bytes)
    models = np.array([f"sim-model-{k:02d}" for k in range(40)])
    a = rng.integers(0, 40, n)
    b = (a + rng.integers(1, 40, n)) % 40
    frame = pd.DataFrame(
        {
            "instruction_id": np.char.add("inst-", rng.integers(0, instructions, n).astype(str)),
            "model_a": models[a],
            "model_b": models[b],
            "verdict": rng.choice(np.array(["2", "1", "0", "-1", "-2", ""]), n),
            "judge": rng.choice(np.array(["judge-a", "judge-b", "judge-c"]), n),
            "length_a": rng.integers(50, 4000, n),
            "length_b": rng.integers(50, 4000, n),
        }
    )
    return frame.to_csv(index=False).encode("utf-8")


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200.0, help="size of the upload in MB")
    parser.add_argument(
        "--instructions",
        type=int,
        default=5_000,
        help="distinct instructions (the count tensor grows as I × M² × 5)",
    )
    parser.add_argument("--build", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build:  # child process: write the table, so its memory is not counted below
        Path(args.build).write_bytes(make_table(args.mb, instructions=args.instructions))
        return 0

    from evalcore.store.store import VerdictStore

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.csv"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.bench_upload",
                "--mb",
                str(args.mb),
                "--instructions",
                str(args.instructions),
                "--build",
                str(path),
            ],
            check=True,
        )
        data = path.read_bytes()  # an upload arrives as bytes in memory
    base = peak_rss_mb()
    print(f"upload: {len(data) / 1e6:,.0f} MB in memory (process RSS {base:,.0f} MB)")

    t1 = time.perf_counter()
    store = VerdictStore()
    table = store.load_bytes(data, name="big.csv")  # spilled to a scratch file, read by DuckDB
    t2 = time.perf_counter()
    t3 = t2
    print(
        f"VerdictStore.load_bytes: {table.report.rows:,} rows in {t2 - t1:.1f} s "
        f"(peak RSS {peak_rss_mb():,.0f} MB)"
    )

    counts = store.counts(judge="judge-a")
    t4 = time.perf_counter()
    print(f"counts(judge='judge-a'): {counts!r} in {t4 - t3:.1f} s (peak RSS {peak_rss_mb():,.0f} MB)")
    print(
        f"total from bytes to counts: {t4 - t1:.1f} s; peak RSS {peak_rss_mb():,.0f} MB "
        f"({peak_rss_mb() - base:,.0f} MB above the upload itself)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
