"""The Overview's work done once equals the work done apart, on every shape the tests know.

- The verdicts-against table built once for the anchor sweep and the detectable edges gives the
  very sweep and edges each gave building its own (all pairs, anchor only, arena, sparse arena,
  disconnected pieces, undefeated and winless models); ``run_analyses`` builds it once.
- The fragility search's refits of one removal alone, solved densely, give the same removal sets,
  counts and listed calls as solved over the pairs (and the ratings to 1e-6 Elo).
- The head-to-head calls read without the per-call repeat (every row one call) are those read
  with it; a counts table's rows are still repeated once per call.
- ``run_analyses`` runs with one BLAS thread.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from evalcore.anchors import anchor_sweep
from evalcore.errors import UsageError
from evalcore.findings import analyses as findings_analyses
from evalcore.findings import run_analyses
from evalcore.power import detectable_edges
from evalcore.ranking import ELO_SCALE, sparse_fit
from evalcore.ranking.fragility import outcomes as fragility_outcomes
from evalcore.ranking.fragility import ranking_fragility
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.stats import against as against_module
from evalcore.stats.against import shared_against, verdicts_against
from evalcore.store.judge_queries import EACH_CALL, each_call_join
from evalcore.store.queries import head_to_head_codes, head_to_head_rows
from evalcore.store.store import VerdictStore
from tests.ranking.test_sparse_fit import SHAPES


def _same(x, y, path: str = "", *, tol: float = 0.0) -> None:
    """``x`` and ``y`` equal field by field (floats within ``tol``; frames and arrays exactly
    when ``tol`` is 0), failing with the path of the first difference."""
    if dataclasses.is_dataclass(x):
        assert type(x) is type(y), path
        for f in dataclasses.fields(x):
            _same(getattr(x, f.name), getattr(y, f.name), f"{path}.{f.name}", tol=tol)
    elif isinstance(x, pd.DataFrame):
        pd.testing.assert_frame_equal(x, y, check_exact=not tol, atol=tol or None, rtol=0 if tol else None)
    elif isinstance(x, dict):
        assert x.keys() == y.keys(), path
        for k in x:
            _same(x[k], y[k], f"{path}[{k!r}]", tol=tol)
    elif isinstance(x, (list, tuple)):
        assert len(x) == len(y), path
        for k, (u, v) in enumerate(zip(x, y, strict=True)):
            _same(u, v, f"{path}[{k}]", tol=tol)
    elif isinstance(x, np.ndarray):
        if tol and x.dtype.kind == "f":
            np.testing.assert_allclose(x, y, atol=tol, rtol=0, err_msg=path)
        else:
            np.testing.assert_array_equal(x, y, err_msg=path)
    elif isinstance(x, float):
        assert (math.isnan(x) and math.isnan(y)) or abs(x - y) <= tol, (path, x, y)
    else:
        assert x == y, (path, x, y)


# -- the verdicts-against table, built once -------------------------------------------------------


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_anchor_sweep_on_a_shared_against_table_is_the_sweep(shape):
    counts = SHAPES[shape]()
    _same(anchor_sweep(counts, against=verdicts_against(counts)), anchor_sweep(counts), shape)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_detectable_edges_on_a_shared_against_table_are_the_edges(shape):
    counts = SHAPES[shape]()
    shared = verdicts_against(counts)
    _same(detectable_edges(counts, against=shared), detectable_edges(counts), shape)
    anchor = counts.models[0]  # through an anchor, as on an anchor-only table
    _same(
        detectable_edges(counts, anchor=anchor, against=shared),
        detectable_edges(counts, anchor=anchor),
        f"{shape} through {anchor}",
    )


def test_an_against_table_of_other_counts_is_refused():
    arena, all_pairs = SHAPES["arena"](), SHAPES["all_pairs"]()
    with pytest.raises(UsageError, match="other counts"):
        shared_against(arena, verdicts_against(all_pairs))
    with pytest.raises(UsageError, match="other counts"):
        anchor_sweep(arena, against=verdicts_against(all_pairs))


@pytest.fixture(scope="module")
def store():
    sim = simulate(SimulationSpec(n_models=6, n_instructions=60, seed=3))
    s = VerdictStore()
    s.load(sim.verdicts, name="sim")
    yield s
    s.close()


def test_the_findings_build_the_against_table_once(store, monkeypatch):
    built = []

    def counted(counts, **kw):
        built.append(kw.get("only"))
        return original(counts, **kw)

    original = against_module.verdicts_against
    # every place the table was built from: the findings, the shared helper, and (before it was
    # shared) the anchor sweep's and the detectable edges' own modules
    for module in ("evalcore.findings.analyses", "evalcore.stats.against", "evalcore.anchors.tau"):
        monkeypatch.setattr(f"{module}.verdicts_against", counted, raising=False)
    monkeypatch.setattr("evalcore.power.edges.verdicts_against", counted, raising=False)
    analyses = run_analyses(store, rounds=20, seed=0)
    assert analyses.anchors is not None and analyses.edges is not None
    assert built.count(None) == 1  # every model's verdicts against every reference: once


def test_the_findings_equal_the_analyses_run_apart(store):
    """The sweep and the edges in the findings are those of the library's calls made alone."""
    analyses = run_analyses(store, rounds=20, seed=0)
    counts = store.counts(judge=analyses.judge)
    _same(analyses.anchors, anchor_sweep(counts), "anchors")
    anchor = analyses.summary.anchor if analyses.summary.design == "anchor-only" else None
    alone = detectable_edges(counts, analyses.leaderboard.comparable_only(), anchor=anchor)
    _same(analyses.edges, alone, "edges")


def test_the_findings_run_with_one_blas_thread(store, monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    seen: list[list[int]] = []
    original = findings_analyses.verdict_tie_structure

    def spy(counts):
        seen.append([i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"])
        return original(counts)

    monkeypatch.setattr(findings_analyses, "verdict_tie_structure", spy)
    with threadpoolctl.threadpool_limits(limits=2, user_api="blas"):
        run_analyses(store, rounds=20, seed=0)
    if not seen or not seen[0]:
        pytest.skip("no BLAS library that threadpoolctl can see")
    assert all(n == 1 for n in seen[0]), seen


# -- the fragility search's single refits, solved densely ----------------------------------------


@pytest.fixture
def sparse_auto(monkeypatch):
    """Every 'auto' fit over the pairs (the switch at 2 models), as on a table of 100+ models."""
    monkeypatch.setattr(sparse_fit, "SPARSE_FROM_MODELS", 2)
    return monkeypatch


@pytest.mark.parametrize("kind", ["remove", "flip"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_fragility_with_dense_single_refits_is_fragility_over_the_pairs(shape, kind, sparse_auto):
    counts = SHAPES[shape]()
    dense_singles = ranking_fragility(counts, kind=kind, exhaustive=200)
    sparse_auto.setattr(sparse_fit, "SINGLE_SPARSE_FROM_MODELS", 0)  # every refit over the pairs
    all_sparse = ranking_fragility(counts, kind=kind, exhaustive=200)
    # the same sets, counts and calls; the gaps (Elo) to the fit's precision
    _same(dense_singles, all_sparse, f"{shape} {kind}", tol=1e-6)
    for mine, theirs in zip(dense_singles.pairs, all_sparse.pairs, strict=True):
        assert (
            mine.n_drop == theirs.n_drop and mine.outcomes == theirs.outcomes and mine.calls == theirs.calls
        )


def test_a_single_refit_below_the_switch_is_dense_and_a_batch_is_not(sparse_auto):
    counts = SHAPES["arena"]()
    used: list[str] = []
    original = fragility_outcomes.fit_bradley_terry

    def spy(w, **kw):
        used.append(kw.get("solver", "auto"))
        return original(w, **kw)

    sparse_auto.setattr(fragility_outcomes, "fit_bradley_terry", spy)
    out = fragility_outcomes.Outcomes(counts)
    theta, _ = original(out.wins, prior_games=0.0 if out.exists else 1.0)
    one = np.zeros((1, out.size), dtype=np.int64)
    one[0, 0] = 1
    single, _ = out.refit(one, theta)
    assert used == ["dense"]
    batch, _ = out.refit(np.repeat(one, 3, axis=0), theta)
    assert used[1:] == ["auto"]
    np.testing.assert_allclose(ELO_SCALE * single[0], ELO_SCALE * batch[0], atol=1e-6)
    sparse_auto.setattr(sparse_fit, "SINGLE_SPARSE_FROM_MODELS", counts.n_models)  # the switch reached
    out.refit(one, theta)
    assert used[-1] == "auto"


# -- head-to-head calls without the per-call repeat -----------------------------------------------


def _h2h_frame(weights: list[int]) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "instruction_id": [f"q{k}" for k in range(len(weights))],
            "model_a": ["a", "b", "c", "a"][: len(weights)],
            "model_b": ["b", "c", "a", "c"][: len(weights)],
            "verdict": pd.array([2, -1, 0, 1][: len(weights)], dtype="Int8"),
            "judge": "j",
            "weight": weights,
        }
    )


def test_head_to_head_calls_of_one_call_rows_are_those_read_with_the_repeat():
    store = VerdictStore.from_frame(_h2h_frame([1, 1, 1, 1]))
    try:
        cur = store.con.cursor()
        assert each_call_join(cur) == ""
        names, fast = head_to_head_codes(cur, judge="j", category=None)
        rows_fast = head_to_head_rows(cur, judge="j", category=None, models=None)
        slow = cur.execute(
            f'SELECT "row", model_a, model_b, (sign(verdict) + 1) / 2.0 AS score FROM verdicts, {EACH_CALL} '
            'WHERE verdict IS NOT NULL AND model_a <> model_b ORDER BY "row"'
        ).df()
        pd.testing.assert_frame_equal(rows_fast, slow)
        assert names == ("a", "b", "c")
        decoded = fast.assign(model_a=[names[k] for k in fast["a"]], model_b=[names[k] for k in fast["b"]])
        pd.testing.assert_frame_equal(decoded[list(slow.columns)], slow, check_dtype=False)
    finally:
        store.close()


def test_a_counts_table_row_still_stands_for_its_calls():
    store = VerdictStore.from_frame(_h2h_frame([3, 1, 2]))
    try:
        cur = store.con.cursor()
        assert each_call_join(cur) == f", {EACH_CALL}"
        _, codes = head_to_head_codes(cur, judge="j", category=None)
        assert codes["row"].tolist() == [1, 1, 1, 2, 3, 3]
        rows = head_to_head_rows(cur, judge="j", category=None, models=("a", "b"))
        assert rows["row"].tolist() == [1, 1, 1]
    finally:
        store.close()


# -- the pooled counts, computed once per counts ---------------------------------------------------


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_pooled_counts_are_computed_once_read_only_and_equal_a_fresh_sum(shape):
    counts = SHAPES[shape]()
    pooled = counts.pooled()
    assert counts.pooled() is pooled  # shared, not recomputed
    with pytest.raises(ValueError):
        pooled[0, 0, 0] += 1  # shared read-only: no caller changes another's numbers
    m, fresh = counts.n_models, np.zeros((counts.n_models, counts.n_models, 5), dtype=np.int64)
    for a, b, n in zip(counts.a, counts.b, counts.n, strict=True):
        fresh[a, b] += n
    np.testing.assert_array_equal(pooled, fresh)
    assert m == pooled.shape[0]


# -- the category test's fits, one category at a time ---------------------------------------------


@pytest.mark.parametrize("shape", ["all_pairs", "anchor", "arena", "disconnected", "undefeated"])
def test_the_category_test_with_dense_single_fits_is_the_test_over_the_pairs(shape, sparse_auto):
    from evalcore.ranking.heterogeneity import category_heterogeneity

    counts = SHAPES[shape]()
    every = np.arange(counts.n_instructions)
    per = {"odd": counts.subset(instructions=every[1::2]), "even": counts.subset(instructions=every[0::2])}
    dense_singles = category_heterogeneity(per, min_verdicts=1)
    sparse_auto.setattr(sparse_fit, "SINGLE_SPARSE_FROM_MODELS", 0)  # every fit over the pairs
    _same(dense_singles, category_heterogeneity(per, min_verdicts=1), shape, tol=1e-6)
