"""`rank --json` stays light: the whole process never imports pandas (about 45 MB and 0.3 s of a
paper-sized run's 1.7 s and 257 MB), the Markdown parser (only text on a page needs it) or, on a
table under a million rows, pyarrow (40 MB of libraries), so a lazy import turned eager again
fails here."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tests.conftest import ROOT


def _heavy_modules(path, *, compact: bool = False, extra: tuple[str, ...] = ()) -> tuple[str, str]:
    """`rank PATH --json` in a fresh process: its output, and the heavy modules it imported.
    ``compact``: instruction names kept in Arrow as for an arena of a million battles."""
    code = (
        "import runpy, sys\n"
        + ("import evalcore.store.store as s; s.COMPACT_NAMES_FROM = 0\n" if compact else "")
        + f"sys.argv = ['evalcore', 'rank', {str(path)!r}, '--bootstrap', '20', '--json', *{list(extra)!r}]\n"
        "try:\n"
        "    runpy.run_module('evalcore', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('pandas', 'markdown_it', 'pyarrow') if m in sys.modules]\n"
        "print('HEAVY ' + ' '.join(heavy) if heavy else 'NO-PANDAS', file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert '"ratings"' in done.stdout or '"rating"' in done.stdout, done.stdout[-500:] + done.stderr[-2000:]
    return done.stdout, done.stderr.strip().splitlines()[-1]


def test_rank_json_never_imports_pandas(tmp_path, small_sim):
    path = tmp_path / "verdicts.csv"
    small_sim.verdicts.to_csv(path, index=False)
    assert _heavy_modules(path)[1] == "NO-PANDAS"


def _battles(n: int = 400) -> list[dict]:
    rng = np.random.default_rng(3)
    models = [f"m{k}" for k in range(6)]
    out = []
    for k in range(n):
        a, b = rng.choice(models, 2, replace=False)
        winner = str(rng.choice(["model_a", "model_b", "tie", "tie (bothbad)"]))
        out.append(
            {
                "model_a": str(a),
                "model_b": str(b),
                "winner": winner,
                "judge": f"arena_user_{k % 50}",
                "language": "English",
                "question_id": f"{k:032x}",
            }
        )
    return out


def test_rank_of_an_arena_dump_never_imports_pandas(tmp_path):
    """The raw Chatbot Arena dump is converted in SQL: no importer (they read frames) is loaded."""
    path = tmp_path / "clean_battle.json"
    path.write_text(json.dumps(_battles()))
    assert _heavy_modules(path)[1] == "NO-PANDAS"


def test_rank_of_a_large_arena_table_imports_no_pandas(tmp_path):
    """An arena table of a million battles keeps its ids in Arrow (pyarrow is loaded then), but
    its counts are read from Arrow's buffers: pandas stays out."""
    path = tmp_path / "arena.parquet"
    rows = _battles()
    level = {"model_a": 1, "model_b": -1, "tie": 0, "tie (bothbad)": 0}
    table = pa.table(
        {
            "instruction_id": [r["question_id"] for r in rows],
            "model_a": [r["model_a"] for r in rows],
            "model_b": [r["model_b"] for r in rows],
            "verdict": pa.array([level[r["winner"]] for r in rows], pa.int8()),
        }
    )
    pq.write_table(table, path)
    # the interval an arena's size chooses (the sandwich; the bootstrap takes a subset's names)
    plain, _ = _heavy_modules(path, extra=("--interval", "sandwich"))
    compact, heavy = _heavy_modules(path, compact=True, extra=("--interval", "sandwich"))
    assert heavy == "HEAVY pyarrow" and compact == plain


def test_rank_of_an_arena_of_many_models_imports_no_graph_library_or_unused_analysis(tmp_path):
    """An arena of 120 models (ranked over the pairs that met) reads its pieces off the graph's
    closure and inverts its information with numpy: scipy's graph library and linear algebra
    stay out, as do the analyses ``rank`` never runs (fragility, style control) and numpy's tools
    that scipy's import would load (see tests/stats/test_lazy_sparse.py)."""
    rng = np.random.default_rng(4)
    n = 3_000
    a = rng.integers(0, 120, n)
    b = (a + rng.integers(1, 120, n)) % 120
    path = tmp_path / "arena.parquet"
    pq.write_table(
        pa.table(
            {
                "instruction_id": [f"p{k:05d}" for k in range(n)],
                "model_a": [f"m{k:03d}" for k in a],
                "model_b": [f"m{k:03d}" for k in b],
                "verdict": pa.array(rng.choice([-1, 0, 1], n), pa.int8()),
            }
        ),
        path,
    )
    unused = (
        "scipy.sparse.csgraph",
        "scipy.linalg",
        "evalcore.ranking.fragility",
        "evalcore.ranking.style",
        "numpy.f2py.crackfortran",
        "numpy.testing._private.utils",
    )
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['evalcore', 'rank', {str(path)!r}, '--interval', 'sandwich', '--json']\n"
        "try:\n"
        "    runpy.run_module('evalcore', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print('LOADED', *[m for m in {unused!r} if m in sys.modules], file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert '"rating"' in done.stdout, done.stdout[-500:] + done.stderr[-2000:]
    assert json.loads(done.stdout)["split_half"]["halves"] == 50
    assert done.stderr.strip().splitlines()[-1] == "LOADED"


def test_rank_of_few_models_never_imports_scipy_sparse(tmp_path, small_sim):
    """A table of few models is fitted, bootstrapped and split in halves on models × models
    arrays: scipy's sparse matrices (a third of a second of CPU at start-up) stay out (the
    operands' equality with scipy's is tested in tests/stats/test_entries_operand.py)."""
    path = tmp_path / "verdicts.csv"
    small_sim.verdicts.to_csv(path, index=False)
    code = (
        "import runpy, sys\n"
        f"sys.argv = ['evalcore', 'rank', {str(path)!r}, '--bootstrap', '50', '--json']\n"
        "try:\n"
        "    runpy.run_module('evalcore', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('SPARSE' if 'scipy.sparse' in sys.modules else 'NO-SPARSE', file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=False)
    assert '"rating"' in done.stdout, done.stdout[-500:] + done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == "NO-SPARSE"
