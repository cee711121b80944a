"""The analyses with a limit on the number of models, timed across it: the fragility search
(:data:`evalcore.ranking.fragility.MAX_MODELS`), the ranking with the ties modelled
(:data:`evalcore.ties.conventions.MAX_MODELS`) and self-preference
(:data:`evalcore.judge.self_preference.MAX_MODELS`). Each works on full model-by-model matrices,
so its cost grows with the cube of the models; the limits keep a page from hanging on a table of
thousands of models, and come from these figures.

    python -m benchmarks.bench_model_limits [--shapes 130x20000 200x2000 300x3000 1000x10000]
        [--self-preference 1000x40000 2000x40000 5000x100000]

Each shape is a simulated arena of M models and N battles (``benchmarks/bench_many_models.py``,
one judge); the limits are lifted here to time beyond them. Prints seconds per analysis (the
fragility search's both kinds, the tie conventions with 200 rounds). Self-preference needs two
judges and families: each of its shapes is the arena judged twice (the second judge flips a fifth
of the verdicts), the models in five families and each judge in one of them; printed with the
process's peak memory (analytic intervals, the pages' default).
"""

from __future__ import annotations

import argparse
import importlib
import resource
import subprocess
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
    parser.add_argument("--shapes", nargs="*", default=["130x20000", "200x2000", "300x3000", "1000x10000"])
    parser.add_argument("--self-preference", nargs="*", default=["1000x40000", "2000x40000", "5000x100000"])
    args = parser.parse_args()
    selfpref = importlib.import_module("evalcore.judge.self_preference")  # the name is also a function's
    fragility.MAX_MODELS = conventions.MAX_MODELS = selfpref.MAX_MODELS = 10**9  # timed beyond the limits
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
    for shape in args.self_preference:
        m, n = (int(x) for x in shape.split("x"))
        # in a process of its own, so that its peak memory is its own
        code = f"from benchmarks.bench_model_limits import self_preference_run; self_preference_run({m}, {n})"
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)


def self_preference_run(m: int, n: int) -> None:
    """Self-preference on the arena of ``m`` models and ``n`` battles judged by two judges."""
    import numpy as np
    import pandas as pd

    selfpref = importlib.import_module("evalcore.judge.self_preference")
    selfpref.MAX_MODELS = 10**9
    path = Path(tempfile.mkdtemp()) / f"models{m}_battles{n}.csv"
    write_table(path, m, n)
    first = pd.read_csv(path)
    second = first.copy()
    flip = np.random.default_rng(1).random(len(second)) < 0.2
    second.loc[flip, "verdict"] = second["verdict"].sample(frac=1.0, random_state=2).to_numpy()[flip]
    both = path.with_name(f"two_judges_{path.name}")
    pd.concat([first.assign(judge="j1"), second.assign(judge="j2")]).to_csv(both, index=False)
    store = VerdictStore()
    store.load_file(both)
    models = sorted(set(first["model_a"]) | set(first["model_b"]))
    families = {x: f"f{i % 5}" for i, x in enumerate(models)} | {"j1": "f0", "j2": "f1"}
    t = time.perf_counter()
    selfpref.self_preference(store, families)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{m:,} models, {n:,} battles, two judges: self-preference {time.perf_counter() - t:.2f} s, "
        f"peak memory {peak:,.0f} MB",
        flush=True,
    )


if __name__ == "__main__":
    main()
