"""The analyses with a limit on the number of models, timed across it: the fragility search
(:data:`evalcore.ranking.fragility.MAX_MODELS`) and the ranking with the ties modelled
(:data:`evalcore.ties.conventions.MAX_MODELS`). Both work on the full model-by-model matrices, so
their cost grows with the cube of the models; the limits keep a page from hanging on a table of
thousands of models, and come from these figures.

    python -m benchmarks.bench_model_limits [--shapes 130x20000 200x2000 300x3000 1000x10000]

Each shape is a simulated arena of M models and N battles (``benchmarks/bench_many_models.py``,
one judge); the limits are lifted here to time beyond them. Prints seconds per analysis (the
fragility search's both kinds, the tie conventions with 200 rounds).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_many_models import write_table  # noqa: E402
from evalcore.ranking import fragility  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402
from evalcore.ties import conventions  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--shapes", nargs="+", default=["130x20000", "200x2000", "300x3000", "1000x10000"])
    args = parser.parse_args()
    fragility.MAX_MODELS = conventions.MAX_MODELS = 10**9  # timed beyond the limits
    for shape in args.shapes:
        m, n = (int(x) for x in shape.split("x"))
        path = Path(tempfile.mkdtemp()) / f"models{m}_battles{n}.csv"
        write_table(path, m, n)
        store = VerdictStore()
        store.load_file(path)
        counts = store.counts(judge=store.judges()[0])
        store.close()
        for kind in ("remove", "flip"):
            t = time.perf_counter()
            fragility.ranking_fragility(counts, kind=kind)
            print(
                f"{m:,} models, {n:,} battles: fragility ({kind}) {time.perf_counter() - t:.2f} s", flush=True
            )
        t = time.perf_counter()
        conventions.tie_conventions(counts, rounds=conventions.ROUNDS)
        print(f"{m:,} models, {n:,} battles: tie conventions {time.perf_counter() - t:.2f} s", flush=True)


if __name__ == "__main__":
    main()
