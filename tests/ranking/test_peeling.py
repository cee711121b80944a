"""The leaves' exact elimination (:mod:`evalcore.ranking.peeling`) against brute force.

A Newton step with the weak prior solves (L(w) + D) x = b; the peeled solve (leaves eliminated
round after round, the core factorised or solved by conjugate gradients) must equal the dense
solve of the same matrix built by hand, on the sparse shapes where it applies: a forest of
pieces (pairs on their own, stars, chains), anchor-only (a star around the anchor), an arena
with a core of cycles, a batch whose rounds drop pairs (zero weights). The fits that use it
must equal the dense Newton fit to 1e-6 Elo, and the sandwich's variances from the sparse
factor must equal those of the dense inverse.
"""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.ranking import ELO_SCALE, fit_bradley_terry, leaderboard, pair_board, peeling, sparse_fit
from evalcore.ranking.sparse_fit import Pairs, solve_information
from tests.bt_sim import simulate_bt

ELO_TOL = 1e-6


def _dense_matrix(pairs: Pairs, w: np.ndarray, diag: np.ndarray) -> np.ndarray:
    m = pairs.n_models
    a = np.zeros((m, m))
    np.add.at(a, (pairs.i, pairs.j), -w)
    np.add.at(a, (pairs.j, pairs.i), -w)
    a[np.arange(m), np.arange(m)] += diag
    a[np.arange(m), np.arange(m)] -= a.sum(axis=1) - np.diag(a)  # the Laplacian's degrees
    return a


def _forest() -> Pairs:
    """Pieces: a pair alone (0–1), a star (2 at the centre of 3, 4, 5), a chain 6–7–8–9, a
    model that met nobody (10), a star whose leaves hang off a chain (11–12–13, 14 and 15 on 13)."""
    i = np.array([0, 2, 2, 2, 6, 7, 8, 11, 12, 13, 13])
    j = np.array([1, 3, 4, 5, 7, 8, 9, 12, 13, 14, 15])
    return Pairs.from_arrays(i, j, 16)


def _anchor_only(m: int = 9) -> Pairs:
    return Pairs.from_arrays(np.zeros(m - 1, dtype=int), np.arange(1, m), m)


def _arena_with_core(seed: int = 3, m: int = 60, n: int = 80) -> Pairs:
    """A sparse arena: leaves and chains hanging off cycles (a core left after the peeling)."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    pairs, _ = sparse_fit.rows_to_pairs(a, b, m)
    return pairs


GRAPHS = {"forest": _forest, "anchor_only": _anchor_only, "arena_with_core": _arena_with_core}


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize("batch", [1, 4])
@pytest.mark.parametrize("core", ["factorised", "conjugate_gradients"])
def test_the_peeled_solve_equals_the_dense_solve(graph, batch, core, monkeypatch):
    monkeypatch.setattr(peeling, "DIRECT_CORE_DEGREE", 100.0 if core == "factorised" else 0.0)
    pairs = GRAPHS[graph]()
    rng = np.random.default_rng(5)
    w = rng.gamma(1.0, 1.0, (batch, pairs.n_pairs))
    if batch > 1:
        w[1, ::3] = 0.0  # a round without some pairs: they still are eliminated, exactly
    prior = rng.uniform(0.01, 0.3, (batch, pairs.n_models))
    rhs = rng.normal(size=(batch, pairs.n_models))
    plan = peeling.plan(pairs.i, pairs.j, pairs.n_models)
    assert plan.eliminated > 0
    if graph == "arena_with_core":
        assert plan.core.size > 0  # the core's own solve is exercised (direct or by CG)
    else:
        assert plan.core.size == 0  # a forest is eliminated completely
    got = solve_information(pairs, w, prior, rhs, rank_one=False, rtol=1e-14)
    for row in range(batch):
        ref = np.linalg.solve(_dense_matrix(pairs, w[row], prior[row]), rhs[row])
        np.testing.assert_allclose(got[row], ref, rtol=0, atol=1e-9 * np.abs(ref).max())


def test_the_order_eliminates_each_model_once_and_keeps_the_core():
    pairs = _arena_with_core()
    plan = peeling.plan(pairs.i, pairs.j, pairs.n_models)
    gone = np.concatenate([r[0] for r in plan.rounds]) if plan.rounds else np.zeros(0, int)
    every = np.concatenate([gone, plan.roots, plan.core])
    assert np.array_equal(np.sort(every), np.arange(pairs.n_models))  # each model exactly once
    for leaf, nbr, _, _, _ in plan.rounds:
        assert not np.isin(nbr, leaf).any()  # an opponent is never eliminated in the same round
    deg = np.bincount(plan.core_i, minlength=plan.core.size) + np.bincount(
        plan.core_j, minlength=plan.core.size
    )
    assert (deg >= 2).all()  # the core has no leaf left


def test_a_graph_without_leaves_is_not_peeled():
    m = 6
    i, j = np.nonzero(np.triu(np.ones((m, m)), 1))
    plan = peeling.plan(i, j, m)
    assert plan.eliminated == 0 and plan.core.size == m


def _one_sided_counts(seed: int, m: int, n: int):
    """An arena of few battles per model: undefeated and winless models, pieces, the prior on."""
    theta = np.random.default_rng(seed).normal(0.0, 0.8, m)
    return simulate_bt(theta, n, shape="arena", tie_rate=0.1, seed=seed)


@pytest.mark.parametrize("shape", ["sparse_arena", "anchor_undefeated", "disconnected"])
def test_fits_with_the_prior_equal_the_dense_newton_fit(shape):
    """The sparse fit (now peeled) against the dense Newton fit it replaces, to 1e-6 Elo."""
    from evalcore.ranking.bradley_terry import pooled_wins

    if shape == "sparse_arena":
        wins = pooled_wins(_one_sided_counts(7, 150, 200))
    elif shape == "anchor_undefeated":
        wins = pooled_wins(simulate_bt(np.linspace(1, -1, 9), 6, shape="anchor", seed=2))
        wins[1, 0] += 3.0  # model 1 never loses to the anchor
        wins[0, 1] = 0.0
    else:
        wins = np.zeros((12, 12))
        wins[0, 1], wins[1, 0], wins[2, 3] = 2.0, 1.0, 1.0  # a pair both ways, an undefeated one
        wins[4, 5], wins[5, 6], wins[6, 4], wins[7, 4] = 1.0, 1.0, 1.0, 2.0  # a cycle and a leaf
    for prior in (1.0, 0.05):
        ref, ok_ref = fit_bradley_terry(wins, prior_games=prior, solver="dense")
        got, ok = fit_bradley_terry(wins, prior_games=prior, solver="sparse")
        assert ok and ok_ref
        np.testing.assert_allclose(ELO_SCALE * got, ELO_SCALE * ref, atol=ELO_TOL, rtol=0)


def test_the_sandwich_from_the_sparse_factor_equals_the_dense_inverse(monkeypatch):
    """A sparse table with the prior (undefeated models): the sandwich's and the model-based
    variances of every piece from the sparse factor (the switch lowered to 2 models) equal those
    from the dense inverse."""
    monkeypatch.setattr(sparse_fit, "SPARSE_FROM_MODELS", 2)
    counts = _one_sided_counts(11, 120, 180)
    out = {}
    for name, first in (("dense", 10**9), ("factor", 2)):
        monkeypatch.setattr(pair_board, "FACTOR_PIECE_MODELS", first)
        board = leaderboard(counts, rounds=0, interval="sandwich")
        assert board.prior_games > 0
        out[name] = board.covariance.diagonal(), board.covariance.model_variances()
    np.testing.assert_allclose(out["factor"][0], out["dense"][0], rtol=1e-9, atol=1e-6)
    # the model-based variances (the floor under few-instruction intervals): diag of the inverse
    np.testing.assert_allclose(out["factor"][1], out["dense"][1], rtol=1e-9, atol=1e-12)
