"""The pair-based Newton–CG solver equals the dense Newton solver on every shape the tests know.

The dense M × M solve (``solver="dense"``, and the whole leaderboard with the size switch
:data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` set out of reach) is the reference; the
sparse one (the switch at 2 models) must give the same ratings, intervals and bootstrap samples to
1e-6 Elo: all pairs, anchor only, arena, disconnected pieces, undefeated and winless models,
bootstrap rounds with absent models, style control and prediction-powered ratings.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.counts import VerdictCounts
from evalcore.ranking import (
    ELO_SCALE,
    comparison_graph,
    fit_bradley_terry,
    leaderboard,
    mle_exists,
    pooled_wins,
    sparse_fit,
)
from evalcore.ranking import split_half as split_halves
from evalcore.ranking.intervals import bootstrap_thetas
from evalcore.ranking.sparse_fit import Pairs, solve_information
from tests.bt_sim import LEVEL_LOSS, LEVEL_TIE, LEVEL_WIN, simulate_bt

THETA = np.array([1.2, 0.8, 0.3, 0.0, -0.4, -0.9, 0.5, -0.2])
ELO_TOL = 1e-6


@pytest.fixture
def dense(monkeypatch):
    """Run the block with the dense solver everywhere (the reference)."""

    def use(kind: str) -> None:
        monkeypatch.setattr(sparse_fit, "SPARSE_FROM_MODELS", 10**9 if kind == "dense" else 2)
        monkeypatch.setattr(split_halves, "DENSE_HALVES_BELOW", 10**9 if kind == "dense" else 2)

    return use


def _cells(models, rows) -> VerdictCounts:
    """Counts from (instruction, a, b, level index) rows, one call each."""
    rows = np.asarray(rows)
    n = np.zeros((len(rows), 5), dtype=np.int64)
    n[np.arange(len(rows)), rows[:, 3]] = 1
    return VerdictCounts.from_cells(
        models=tuple(models),
        instructions=tuple(f"q{k}" for k in range(int(rows[:, 0].max()) + 1)),
        judge="sim",
        inst=rows[:, 0],
        a=rows[:, 1],
        b=rows[:, 2],
        n=n,
    )


def _disconnected() -> VerdictCounts:
    """Two pieces ({a, b, c} and {d, e}) that never met, each with wins both ways."""
    rng = np.random.default_rng(3)
    rows = []
    for k in range(60):
        piece = (0, 1, 2) if k % 2 else (3, 4)
        a, b = rng.choice(piece, 2, replace=False)
        rows.append((k, a, b, rng.choice([LEVEL_WIN, LEVEL_LOSS, LEVEL_TIE])))
    return _cells("abcde", rows)


def _undefeated() -> VerdictCounts:
    """Model a never loses, e never scores; the rest meet both ways (the weak prior is on)."""
    rng = np.random.default_rng(4)
    rows = []
    for k in range(80):
        a, b = rng.choice(5, 2, replace=False)
        level = rng.choice([LEVEL_WIN, LEVEL_LOSS, LEVEL_TIE])
        if 0 in (a, b):
            level = LEVEL_WIN if a == 0 else LEVEL_LOSS
        if 4 in (a, b):
            level = LEVEL_LOSS if a == 4 else LEVEL_WIN
        rows.append((k, a, b, level))
    return _cells("abcde", rows)


SHAPES = {
    "all_pairs": lambda: simulate_bt(THETA, 30, shape="all_pairs", effect_sd=0.5, tie_rate=0.2, seed=1),
    "anchor": lambda: simulate_bt(THETA, 40, shape="anchor", tie_rate=0.2, seed=2),
    "arena": lambda: simulate_bt(THETA, 300, shape="arena", tie_rate=0.3, seed=3),
    "sparse_arena": lambda: simulate_bt(THETA, 40, shape="arena", tie_rate=0.3, seed=5),
    "disconnected": _disconnected,
    "undefeated": _undefeated,
}


def _board_numbers(board) -> dict[str, np.ndarray]:
    t = board.table.set_index("model").loc[list(board.models)]
    return {
        "rating": t["rating"].to_numpy(float),
        "ci_low": t["ci_low"].to_numpy(float),
        "ci_high": t["ci_high"].to_numpy(float),
        "samples": board.samples,
        "covariance": board.covariance,
    }


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_the_leaderboard_is_the_same_with_either_solver(shape, interval, dense):
    counts = SHAPES[shape]()
    out = {}
    for kind in ("dense", "sparse"):
        dense(kind)
        board = leaderboard(counts, rounds=60, seed=7, interval=interval)
        out[kind] = (
            _board_numbers(board),
            board.notes,
            board.table[["rank", "rank_low", "rank_high", "piece"]],
        )
    ref, got = out["dense"], out["sparse"]
    for key in ("rating", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[0][key], ref[0][key], atol=ELO_TOL, rtol=0, err_msg=key)
    # The sandwich is exact on both paths: every entry, and so the variances behind the intervals.
    np.testing.assert_allclose(
        np.asarray(got[0]["covariance"]), np.asarray(ref[0]["covariance"]), atol=1e-6, rtol=1e-9
    )
    np.testing.assert_allclose(
        got[0]["covariance"].diagonal(), np.diag(np.asarray(ref[0]["covariance"])), atol=1e-6
    )
    assert got[1] == ref[1]
    if interval == "bootstrap":
        # Bootstrap samples are refits: equal to 1e-6, and so are the rank ranges.
        np.testing.assert_allclose(got[0]["samples"], ref[0]["samples"], atol=ELO_TOL, rtol=0)
        pd.testing.assert_frame_equal(got[2], ref[2])
    else:
        # The sandwich's draws are made differently (solves of drawn scores, not a factor of the
        # covariance): the same distribution, other numbers. Their covariance is checked below.
        pd.testing.assert_frame_equal(got[2][["rank", "piece"]], ref[2][["rank", "piece"]])


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_graph_diagnosis_is_the_same_with_either_method(shape, dense):
    counts = SHAPES[shape]()
    wins = pooled_wins(counts)
    dense("dense")
    ref = comparison_graph(wins, counts.models), bool(mle_exists(wins))
    dense("sparse")
    got = comparison_graph(wins, counts.models), bool(mle_exists(wins))
    np.testing.assert_array_equal(got[0].pieces, ref[0].pieces)
    assert (got[0].undefeated, got[0].winless, got[0].mle_exists, got[1]) == (
        ref[0].undefeated,
        ref[0].winless,
        ref[0].mle_exists,
        ref[1],
    )


def test_batched_fits_with_frozen_models_and_warm_starts_agree():
    rng = np.random.default_rng(11)
    m, batch = 12, 9
    theta = rng.normal(size=m)
    games = rng.poisson(4.0, (batch, m, m)) * (rng.random((batch, m, m)) < 0.5)
    p = 1 / (1 + np.exp(-(theta[:, None] - theta[None, :])))
    won = rng.binomial(games, p).astype(float)
    wins = won + np.swapaxes(games - won, 1, 2)
    frozen = rng.random((batch, m)) < 0.15
    # with the prior: any graph; without it: every present pair met both ways (the MLE exists)
    for prior, extra in ((1.0, 0.0), (0.0, 1.0)):
        w = wins + extra * (1.0 - np.eye(m))
        w[frozen] = 0.0
        w[np.broadcast_to(frozen[:, None, :], w.shape)] = 0.0
        ref, ok_ref = fit_bradley_terry(w, prior_games=prior, theta0=theta, frozen=frozen, solver="dense")
        got, ok = fit_bradley_terry(w, prior_games=prior, theta0=theta, frozen=frozen, solver="sparse")
        assert ok and ok_ref
        np.testing.assert_allclose(ELO_SCALE * got, ELO_SCALE * ref, atol=ELO_TOL)
    full = wins.sum(axis=0) + 1.0 - np.eye(m)  # every pair met both ways: the MLE exists
    ref, _ = fit_bradley_terry(full, solver="dense")
    got, _ = fit_bradley_terry(full, solver="sparse")
    np.testing.assert_allclose(ELO_SCALE * got, ELO_SCALE * ref, atol=ELO_TOL)


def test_many_models_equal_the_dense_fit():
    """Two hundred models, a sparse arena, pieces and undefeated models: the case the sparse
    solver exists for, against the dense solve it replaces."""
    rng = np.random.default_rng(12)
    m, n = 200, 600
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    s = rng.normal(size=m)
    win = rng.random(n) < 1 / (1 + np.exp(-(s[a] - s[b])))
    wins = np.zeros((m, m))
    np.add.at(wins, (np.where(win, a, b), np.where(win, b, a)), 1.0)
    graph = comparison_graph(wins, tuple(map(str, range(m))))
    assert not graph.mle_exists and graph.undefeated
    ref, _ = fit_bradley_terry(wins, prior_games=1.0, solver="dense")
    got, _ = fit_bradley_terry(wins, prior_games=1.0, solver="sparse")
    np.testing.assert_allclose(ELO_SCALE * got, ELO_SCALE * ref, atol=ELO_TOL)


def test_a_resample_with_an_absent_model_and_an_undefeated_one_gets_the_prior(dense):
    """The full data have a finite MLE; some resamples lose every battle of one model and every
    loss of another. Those rounds need the weak prior. The old existence check linked an absent
    model both ways to everyone, so such rounds looked connected, were fitted without the prior
    and diverged (unconverged fits, ratings thousands of points out)."""
    rows = [(0, 0, 1, LEVEL_WIN), (1, 1, 0, LEVEL_WIN), (2, 1, 2, LEVEL_WIN), (3, 2, 1, LEVEL_WIN)]
    rows += [(4, 2, 3, LEVEL_WIN), (5, 3, 2, LEVEL_WIN), (6, 0, 3, LEVEL_TIE)]
    counts = _cells("abcd", rows)
    assert mle_exists(pooled_wins(counts))
    theta, _ = fit_bradley_terry(pooled_wins(counts))
    for kind in ("dense", "sparse"):
        dense(kind)
        samples, absent, regularised, unconverged = bootstrap_thetas(
            counts, theta, prior_games=0.0, rounds=200, seed=1
        )
        assert absent.any()
        assert unconverged == 0
        assert regularised > 0
        assert np.nanmax(np.abs(ELO_SCALE * samples)) < 1000  # old check: 2,611


def test_prediction_powered_ratings_are_the_same_with_either_solver(dense):
    from evalcore.calibration.ppi import ppi_ratings
    from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
    from tests.frames import on_store

    for design in ("all_pairs", "anchor"):
        extra = {"design": "anchor", "anchor": "sim-cedar", "anchor_slot": "b"} if design == "anchor" else {}
        spec = SimulationSpec(
            n_models=5,
            n_instructions=200,
            human_fraction=0.3,
            seed=3,
            judges=(JudgeSpec("j", noise=0.3),),
            both_orders=False,
            **extra,
        )
        table = simulate(spec).verdicts
        out = {}
        for kind in ("dense", "sparse"):
            dense(kind)
            r = on_store(ppi_ratings)(table)
            out[kind] = np.array(
                [[e.value, e.low, e.high] for e in (*r.ppi, *r.human, *r.judge_only)], dtype=float
            )
        np.testing.assert_allclose(out["sparse"], out["dense"], atol=ELO_TOL)


def test_style_controlled_ratings_are_the_same_with_either_solver(dense):
    from evalcore.ranking.style import controlled_leaderboard
    from evalcore.simulate.arena import arena_verdict_frame, simulate_arena
    from evalcore.store.store import VerdictStore

    store = VerdictStore()
    store.load(
        arena_verdict_frame(simulate_arena(n_battles=3000, n_models=8, seed=2, style_effects={"length": 0.8}))
    )
    out = {}
    for kind in ("dense", "sparse"):
        dense(kind)
        sc = controlled_leaderboard(store, judge="arena", controls="length")
        out[kind] = sc.table.sort_values("model")[["rating", "rating_plain", "ci_low", "ci_high"]].to_numpy(
            float
        )
    np.testing.assert_allclose(out["sparse"], out["dense"], atol=ELO_TOL)


@pytest.mark.parametrize("prior", [0.0, 1.0])
def test_the_fit_with_covariates_is_the_same_with_either_solver(prior):
    from evalcore.ranking import fit_bradley_terry_covariates

    rng = np.random.default_rng(21)
    m, rows = 9, 1500
    a = rng.integers(0, m, rows)
    b = (a + rng.integers(1, m, rows)) % m
    x = np.column_stack([np.ones(rows), rng.normal(size=rows)])  # slot A, a length-like term
    eta = THETA[np.minimum(a, 7)] - THETA[np.minimum(b, 7)] + x @ np.array([0.3, 0.5])
    y = (rng.random(rows) < 1 / (1 + np.exp(-eta))).astype(float)
    y[rng.random(rows) < 0.2] = 0.5
    n = np.ones(rows)
    out = {}
    for kind in ("dense", "sparse"):
        theta, beta, info, ok = fit_bradley_terry_covariates(a, b, y, n, x, m, prior_games=prior, solver=kind)
        assert ok
        out[kind] = (theta, beta, info)
    np.testing.assert_allclose(ELO_SCALE * out["sparse"][0], ELO_SCALE * out["dense"][0], atol=ELO_TOL)
    np.testing.assert_allclose(out["sparse"][1], out["dense"][1], atol=1e-8)
    np.testing.assert_allclose(out["sparse"][2], out["dense"][2], rtol=1e-7, atol=1e-7)


def test_sandwich_draws_for_many_models_have_the_sandwich_covariance():
    """Above a hundred models the normal draws behind the rank ranges come from a Cholesky
    factor instead of an eigendecomposition: their covariance must still be the sandwich's."""
    from evalcore.ranking.intervals import EIGH_DRAWS_UP_TO

    m = EIGH_DRAWS_UP_TO + 30
    counts = simulate_bt(np.linspace(1.5, -1.5, m), 30 * m, shape="arena", tie_rate=0.3, seed=8)
    board = leaderboard(counts, rounds=4000, seed=3, interval="sandwich")
    draws = board.samples - board.samples.mean(axis=1, keepdims=True)  # the centred frame
    sd = np.sqrt(np.diag(board.covariance))
    np.testing.assert_allclose(draws.std(axis=0, ddof=1), sd, rtol=0.08)  # 4,000 draws: SE ≈ 1.1%
    pair = np.cov(draws[:, 0] - draws[:, 1])
    c = board.covariance
    assert abs(pair / (c[0, 0] + c[1, 1] - 2 * c[0, 1]) - 1) < 0.1


def test_a_leaderboard_too_large_for_the_budget_is_refused_in_words_before_allocating(monkeypatch):
    from evalcore.errors import ResourceLimitError

    monkeypatch.setenv("VERDICTLAB_MEMORY_BUDGET_MB", "16")
    m = 700  # over the pairs: the draws' chunked work alone is over 16 MB
    rows = [(k, k, (k + 1) % m, LEVEL_WIN) for k in range(m)]
    counts = _cells([f"m{k}" for k in range(m)], rows)
    with pytest.raises(ResourceLimitError, match=r"leaderboard of 700 models .* pairs that met"):
        leaderboard(counts, rounds=0)


def test_the_memory_estimate_follows_the_pairs_not_the_square_of_the_models(monkeypatch):
    """The 10,000-model, 200,000-battle arena was refused ("would need 4.5 GiB"): the estimate
    was six models × models matrices. Over the pairs it keeps none, and the estimate follows the
    pairs, the cells and the draws: under the default 2 GiB budget, and under 1 GiB."""
    from evalcore.limits import DEFAULT_BUDGET_MB
    from evalcore.ranking.leaderboard import LEADERBOARD_MATRICES, board_bytes

    old = LEADERBOARD_MATRICES * 8.0 * 10_000**2
    assert old > DEFAULT_BUDGET_MB * 2**20  # what refused it
    assert board_bytes(10_000, 200_000, 200_000, 1000) < 2**30
    # and a board the old estimate refused is built: 3,000 models under a 400 MB budget
    monkeypatch.setenv("VERDICTLAB_MEMORY_BUDGET_MB", "400")
    assert LEADERBOARD_MATRICES * 8.0 * 3000**2 > 400 * 2**20
    rng = np.random.default_rng(5)
    m = 3000
    rows = [
        (k, k % m, (k + 1 + int(rng.integers(0, 3))) % m, int(rng.choice([LEVEL_WIN, LEVEL_LOSS, LEVEL_TIE])))
        for k in range(2 * m)
    ]
    board = leaderboard(_cells([f"m{k:04d}" for k in range(m)], rows), rounds=20, interval="sandwich")
    assert np.isfinite(board.table["rating"]).all()
    assert not isinstance(board.covariance, np.ndarray)  # kept as its factors


def test_drawn_variances_of_a_large_piece_match_the_exact_ones(monkeypatch, dense):
    """In a piece over EXACT_PIECE_MODELS models the sandwich's variances come from draws (the
    Jacobi approximation as a control variate) instead of inverting the information: against the
    exact variances of the same table, within a few percent of a standard error."""
    from evalcore.ranking import pair_board

    dense("sparse")
    m = 40
    counts = simulate_bt(np.linspace(1.5, -1.5, m), 40 * m, shape="arena", tie_rate=0.3, seed=9)
    exact = leaderboard(counts, rounds=0, interval="sandwich").covariance
    assert exact.exact
    monkeypatch.setattr(pair_board, "EXACT_PIECE_MODELS", 10)
    drawn = leaderboard(counts, rounds=0, interval="sandwich")
    assert not drawn.covariance.exact
    assert any("random draws" in n for n in drawn.notes)
    ratio = np.sqrt(drawn.covariance.diagonal() / exact.diagonal())
    assert np.abs(ratio - 1).max() < 0.04, ratio  # 1,000 draws: about 1% per model
    # the model-based variances (the floor of few-instruction intervals) too
    model = np.sqrt(drawn.covariance.model_variances() / exact.model_variances())
    assert np.abs(model - 1).max() < 0.06, model


@pytest.mark.parametrize("shape", list(SHAPES))
def test_split_halves_are_the_same_over_the_pairs(shape, dense):
    from evalcore.ranking.split_half import split_half_stability

    counts = SHAPES[shape]()
    dense("dense")
    ref = split_half_stability(counts, seed=4)
    dense("sparse")
    got = split_half_stability(counts, seed=4)
    assert got == ref


def test_the_slot_balance_counts_pairs_and_orders_without_a_matrix():
    """Against the (M, M) count by hand: pairs, pairs seen in both orders, their calls, the order
    balance and the one-slot models."""
    from evalcore.slots import slot_balance

    counts = SHAPES["sparse_arena"]()
    n = counts.pooled().sum(axis=-1).astype(float)
    upper = np.triu(np.ones(n.shape, dtype=bool), k=1)
    both = (n > 0) & (n.T > 0) & upper
    got = slot_balance(counts)
    assert got.pairs == int((((n + n.T) > 0) & upper).sum())
    assert got.pairs_both_orders == int(both.sum())
    assert got.calls_both_orders == int((n + n.T)[both].sum())
    assert got.order_balance == pytest.approx(1 - np.abs(n - n.T)[upper].sum() / n.sum())
    assert got.calls == int(n.sum())


def test_the_direct_step_solves_the_system_built_by_hand():
    # Three models, pairs (0, 1) weight 2 and (1, 2) weight 3, no prior: the Laplacian plus the
    # rank-one term 1/3 everywhere, written out; and the same with a prior's diagonal instead.
    from evalcore.ranking.sparse_fit import solve_information_dense

    pairs = Pairs.from_arrays(np.array([0, 1]), np.array([1, 2]), 3)
    info = np.array([2.0, 3.0])
    rhs = np.array([1.0, -3.0, 2.0])
    lap = np.array([[2.0, -2.0, 0.0], [-2.0, 5.0, -3.0], [0.0, -3.0, 3.0]])
    np.testing.assert_allclose(
        solve_information_dense(pairs, info, 0.0, rhs, rank_one=True),
        np.linalg.solve(lap + 1.0 / 3.0, rhs),
        rtol=1e-12,
    )
    prior = np.array([0.25, 0.2, 0.1])
    np.testing.assert_allclose(
        solve_information_dense(pairs, info, prior, rhs, rank_one=False),
        np.linalg.solve(lap + np.diag(prior), rhs),
        rtol=1e-12,
    )
    # and it agrees with the conjugate gradients it stands in for
    np.testing.assert_allclose(
        solve_information_dense(pairs, info, 0.0, rhs, rank_one=True),
        solve_information(pairs, info[None, :], 0.0, rhs[None, :], rank_one=True, rtol=1e-14)[0],
        atol=1e-10,
    )


def test_the_direct_step_declines_models_in_separate_pieces():
    # Pair (0, 1) met, pair (2, 3) met, nothing between: without a prior the system is singular,
    # so the caller keeps the conjugate gradients (which solve within each piece); a pair whose
    # weight fell to zero in a resample splits the graph the same way.
    from evalcore.ranking.sparse_fit import solve_information_dense

    pairs = Pairs.from_arrays(np.array([0, 2, 1]), np.array([1, 3, 2]), 4)
    rhs = np.array([1.0, -1.0, 2.0, -2.0])
    assert solve_information_dense(pairs, np.array([1.0, 1.0, 0.0]), 0.0, rhs, rank_one=True) is None
    assert solve_information_dense(pairs, np.array([1.0, 1.0, 0.5]), 0.0, rhs, rank_one=True) is not None
    assert solve_information_dense(pairs, np.array([1.0, 1.0, 0.0]), 0.2, rhs, rank_one=False) is not None


@pytest.mark.parametrize("shape", [*SHAPES, "many_models"])
def test_halves_fitted_side_by_side_equal_each_half_fitted_alone(shape):
    """The split halves' one problem (the halves side by side, only the pairs each half has, an
    absent model at the prior's centre) gives each half's own dense fit to 1e-6 Elo."""
    from evalcore.ranking.split_half import PRIOR_GAMES, _fit_side_by_side

    if shape == "many_models":  # 150 models, 300 battles: pieces, one-battle models, undefeated
        theta = np.random.default_rng(8).normal(0.0, 0.8, 150)
        counts = simulate_bt(theta, 300, shape="arena", tie_rate=0.2, seed=9)
    else:
        counts = SHAPES[shape]()
    wins = pooled_wins(counts)
    pairs, _, _ = sparse_fit.dense_to_pairs(wins)
    rng = np.random.default_rng(1)
    halves = []
    for _ in range(6):
        keep = rng.choice(counts.n_instructions, counts.n_instructions // 2, replace=False)
        halves.append(pooled_wins(counts.subset(instructions=np.sort(keep))))
    halves = np.stack(halves)
    got = _fit_side_by_side(pairs, halves[:, pairs.i, pairs.j], halves[:, pairs.j, pairs.i])
    for h, w in enumerate(halves):
        ref, _ = fit_bradley_terry(w, prior_games=PRIOR_GAMES, solver="dense")
        np.testing.assert_allclose(ELO_SCALE * got[h], ELO_SCALE * ref, atol=ELO_TOL, rtol=0)


@pytest.mark.parametrize("shape", ["arena", "disconnected", "undefeated"])
def test_with_few_models_and_many_clusters_the_sandwich_draws_are_the_table_sized_ones(shape, dense):
    """Where the models squared are at most the clusters (an arena: a cluster per battle), the
    pairs' path draws the rank ranges from the covariance's factor, as the table-sized path
    does: the same draws to 1e-5 Elo (no longer other numbers of the same distribution)."""
    from evalcore.ranking import pair_board

    counts = SHAPES[shape]()
    assert counts.n_models**2 <= counts.n_instructions
    out = {}
    for kind in ("dense", "sparse"):
        dense(kind)
        board = leaderboard(counts, rounds=200, seed=11, interval="sandwich")
        out[kind] = (board.samples, board.table[["rank", "rank_low", "rank_high"]])
    np.testing.assert_allclose(out["sparse"][0], out["dense"][0], atol=1e-5, rtol=0)
    pd.testing.assert_frame_equal(out["sparse"][1], out["dense"][1])
    assert pair_board.PairSandwich.draws.__doc__ and "factor" in pair_board.PairSandwich.draws.__doc__


@pytest.mark.parametrize("shape", ["arena", "disconnected"])
def test_separation_over_the_pairs_reads_the_covariance_once(shape, dense, monkeypatch):
    """The many-model leaderboard keeps its sandwich as factors, an entry two solves: the
    separation test takes the (at most 150 × 150) matrix once, and its intervals and p-values are
    those of the entries, hand-computed here by the delta method from the dense path's matrix."""
    import math

    from evalcore.ranking import pair_board, separation
    from evalcore.stats.intervals import Z95

    counts = SHAPES[shape]()
    dense("dense")
    reference = np.asarray(leaderboard(counts, rounds=0, seed=7, interval="sandwich").covariance)
    dense("sparse")
    board = leaderboard(counts, rounds=0, seed=7, interval="sandwich")
    assert isinstance(board.covariance, pair_board.PairSandwich)

    def refuse(self, index):
        raise AssertionError("an entry solved on its own")

    monkeypatch.setattr(pair_board.PairSandwich, "__getitem__", refuse)
    sep = separation(board)
    for r in sep.pairs.itertuples():
        i, j = board.models.index(r.model_1), board.models.index(r.model_2)
        var = reference[i, i] + reference[j, j] - 2 * reference[i, j]
        if math.isnan(r.p_value):
            continue
        assert r.high - r.difference == pytest.approx(Z95 * math.sqrt(var), rel=1e-6)
        assert r.p_value == pytest.approx(
            math.erfc(abs(r.difference) / math.sqrt(var) / math.sqrt(2)), rel=1e-5
        )
