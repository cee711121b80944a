"""The ranking's shortcuts give the numbers of the longer paths they replace.

Each shortcut of the whole ``rank`` process (pooled wins summed per ordered pair of models instead
of sorted out of every battle, the sandwich's variances from its models × models pieces instead of
a pass over every cluster, …) is checked here against the path it replaced, kept below as the
reference, on every shape the tests know: all pairs, anchor only, arena, disconnected pieces,
undefeated and winless models, and many models with few battles.
"""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.counts import VerdictCounts
from evalcore.ranking import pair_board, sparse_fit
from evalcore.ranking.bradley_terry import win_entries
from tests.bt_sim import simulate_bt
from tests.ranking.test_sparse_fit import SHAPES


def _many_models() -> VerdictCounts:
    """300 models, 400 battles: far more model pairs than battles (the sorting path)."""
    rng = np.random.default_rng(11)
    n = 400
    a = rng.integers(0, 300, n)
    b = (a + 1 + rng.integers(0, 299, n)) % 300
    levels = rng.integers(0, 5, n)
    counts = np.zeros((n, 5), dtype=np.int64)
    counts[np.arange(n), levels] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"m{k:03d}" for k in range(300)),
        instructions=tuple(f"q{k}" for k in range(n)),
        judge="sim",
        inst=np.arange(n),
        a=a,
        b=b,
        n=counts,
    )


def _big_arena() -> VerdictCounts:
    """110 models, one battle per prompt (more battles than models squared), with ties."""
    theta = np.random.default_rng(5).normal(0, 1, 110)
    return simulate_bt(theta, 20_000, shape="arena", tie_rate=0.3, seed=8)


ALL_SHAPES = {**SHAPES, "many_models": _many_models, "big_arena": _big_arena}


def _pooled_pair_wins_by_sorting(counts: VerdictCounts) -> pair_board.PairWins:
    """The replaced path: every battle's wins as entries, the pairs sorted out of them."""
    m = counts.n_models
    _, cols, vals = win_entries(counts)
    first, second = cols // m, cols % m
    keep = first != second
    first, second, vals = first[keep], second[keep], vals[keep]
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    keys, pair = np.unique(lo * m + hi, return_inverse=True)
    pairs = sparse_fit.Pairs.from_arrays(keys // m, keys % m, m)
    forward = first < second
    k = pairs.n_pairs
    w_ij = np.bincount(pair[forward], vals[forward], minlength=k)
    w_ji = np.bincount(pair[~forward], vals[~forward], minlength=k)
    return pair_board.PairWins(pairs, w_ij, w_ji)


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
@pytest.mark.parametrize("slots", [0, 10**9])
def test_pooled_pair_wins_equal_the_sorted_entries(shape, slots, monkeypatch):
    """Both routes of ``pooled_pair_wins`` (per ordered pair, or sorted) give exactly the wins of
    the replaced path: the same pairs in the same order, the same sums of whole and half battles."""
    monkeypatch.setattr(pair_board, "DIRECT_PAIR_SLOTS_PER_CELL", slots)
    counts = ALL_SHAPES[shape]()
    ref = _pooled_pair_wins_by_sorting(counts)
    got = pair_board.pooled_pair_wins(counts)
    np.testing.assert_array_equal(got.pairs.i, ref.pairs.i)
    np.testing.assert_array_equal(got.pairs.j, ref.pairs.j)
    np.testing.assert_array_equal(got.w_ij, ref.w_ij)
    np.testing.assert_array_equal(got.w_ji, ref.w_ji)
    assert (got.pairs.incidence != ref.pairs.incidence).nnz == 0


def test_the_per_pair_route_is_the_one_an_arena_takes():
    """An arena (few models for its battles) takes the per-pair route, many models the sorted one."""
    arena, many = _big_arena(), _many_models()
    assert arena.n_models**2 <= pair_board.DIRECT_PAIR_SLOTS_PER_CELL * arena.n_cells
    assert many.n_models**2 > pair_board.DIRECT_PAIR_SLOTS_PER_CELL * many.n_cells


def _sandwich(counts: VerdictCounts, *, weighted: bool = False) -> pair_board.PairSandwich:
    """The leaderboard's sandwich over the pairs, as :class:`~evalcore.ranking.board_fit.BoardFit`
    builds it (the fit's prior where a model never lost or never won)."""
    pw = pair_board.pooled_pair_wins(counts)
    graph = pair_board.pair_graph(pw, counts.models)
    prior = 0.0 if graph.mle_exists else 1.0
    weight = pair_board.inverse_pair_weight(pw) if weighted else None
    fitted = pw.weighted(weight)
    theta, _ = sparse_fit.fit_pairs(pw.pairs, fitted.w_ij, fitted.w_ji, prior_games=prior)
    return pair_board.pair_sandwich(
        counts, theta, fitted, graph.pieces, prior_games=prior, pair_weight=weight, seed=3
    )


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
@pytest.mark.parametrize("weighted", [False, True])
def test_the_meat_and_the_variances_equal_the_pass_over_every_cluster(shape, weighted):
    """The meat summed per pair (clusters of one cell) and the variances through it equal the
    replaced path: B = Gᵀ G over the models × clusters scores, and diag(X B X) as a pass over
    every cluster's scores, piece by piece (to 1e-6 Elo² and 1e-9 relative)."""
    counts = ALL_SHAPES[shape]()
    s = _sandwich(counts, weighted=weighted)
    g = s.scores_t
    np.testing.assert_allclose(s.meat.toarray(), (g @ g.T).toarray(), rtol=1e-12, atol=1e-12)
    raw = np.zeros(s.n_models)
    for idx in pair_board._pieces(s.pieces):
        raw[idx] = pair_board._variances_over_clusters(pair_board._piece_inverse(s, idx), g[idx])
    m = s.n_models
    ref = np.clip(raw - 2.0 * s.row_sums / m + s.row_sums.sum() / m**2, 0.0, None)
    elo2 = pair_board_scale()
    np.testing.assert_allclose(s.variances * elo2, ref * elo2, rtol=1e-9, atol=1e-6)


def test_an_arena_takes_the_short_routes():
    """An arena's clusters are single battles: its meat is summed per pair and its variances go
    through the meat; the models × clusters scores are never built."""
    s = _sandwich(_big_arena())
    assert s._scores_t is None
    assert s.n_models**2 <= s.n_clusters


def pair_board_scale() -> float:
    from evalcore.ranking.bradley_terry import ELO_SCALE

    return ELO_SCALE**2


def _axes_and_cells(counts: VerdictCounts) -> dict:
    """The fields of ``counts`` but its calls (for a fresh object of the same cells)."""
    return {
        "models": counts.models,
        "instructions": counts.instructions,
        "judge": counts.judge,
        "inst": counts.inst,
        "a": counts.a,
        "b": counts.b,
    }


def _general_patterns(counts: VerdictCounts):
    """The patterns by the general path (every instruction's hash sorted)."""
    fresh = VerdictCounts(n=counts.n, **_axes_and_cells(counts))
    fresh._cache["one_cell_each"] = False
    return fresh.patterns


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
def test_one_call_patterns_equal_the_sorted_hashes(shape):
    """Patterns found among the (model, model, level) slots of a table of one call per
    instruction are the general path's: the same numbering, multiplicities and representatives
    (the bootstrap and the split halves draw by them)."""
    counts = ALL_SHAPES[shape]()
    got, ref = counts.patterns, _general_patterns(counts)
    np.testing.assert_array_equal(got.of_instruction, ref.of_instruction)
    np.testing.assert_array_equal(got.multiplicity, ref.multiplicity)
    np.testing.assert_array_equal(got.representative, ref.representative)


def test_an_arena_of_single_calls_takes_the_slots_and_a_table_of_many_calls_does_not():
    assert _big_arena().one_call_each()
    assert ALL_SHAPES["arena"]().one_call_each()
    assert not ALL_SHAPES["all_pairs"]().one_call_each()
    two_calls = VerdictCounts.from_cells(
        models=("a", "b"),
        instructions=("q1", "q2"),
        judge=None,
        inst=[0, 1],
        a=[0, 1],
        b=[1, 0],
        n=[[0, 0, 0, 0, 2], [0, 0, 0, 1, 0]],
    )
    assert not two_calls.one_call_each()
    assert not two_calls.single_call_instructions()  # two calls on one cell
    assert _big_arena().single_call_instructions() and ALL_SHAPES["arena"]().single_call_instructions()
    assert not ALL_SHAPES["all_pairs"]().single_call_instructions()
    # many models for few battles: no slot search, but every instruction is still one call
    sparse_arena = VerdictCounts.from_cells(
        models=tuple(f"m{k}" for k in range(40)),
        instructions=("q1", "q2"),
        judge=None,
        inst=[0, 1],
        a=[0, 2],
        b=[1, 39],
        n=[[0, 0, 0, 0, 1], [0, 0, 1, 0, 0]],
    )
    assert sparse_arena.single_call_instructions() and not sparse_arena.one_call_each()
    np.testing.assert_array_equal(two_calls.patterns.multiplicity, _general_patterns(two_calls).multiplicity)


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
def test_the_representatives_cells_are_those_of_the_general_selection(shape):
    """``subset`` of instructions of a table of one cell each takes cell k for instruction k: the
    same cells as the general selection by instruction spans."""
    counts = ALL_SHAPES[shape]()
    idx = np.random.default_rng(1).choice(counts.n_instructions, 25, replace=True)
    got = counts.subset(instructions=idx)
    general = VerdictCounts(
        models=counts.models,
        instructions=counts.instructions,
        judge=counts.judge,
        inst=counts.inst,
        a=counts.a,
        b=counts.b,
        n=counts.n,
    )
    general._cache["one_cell_each"] = False
    ref = general.subset(instructions=idx)
    for name in ("inst", "a", "b", "n"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
    assert tuple(got.instructions) == tuple(ref.instructions)


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
def test_pieces_from_the_closure_equal_the_graph_library(shape, monkeypatch):
    """The pieces and the strongly connected pieces read off the transitive closure (up to
    ``CLOSURE_MODELS`` models) are the graph library's, numbered alike."""
    counts = ALL_SHAPES[shape]()
    pw = pair_board.pooled_pair_wins(counts)
    present = np.zeros(counts.n_models, dtype=bool)
    present[::2] = True
    got = (
        sparse_fit.weak_pieces(pw.pairs),
        sparse_fit.strong_pieces(pw.pairs, pw.w_ij, pw.w_ji),
        sparse_fit.strong_pieces(pw.pairs, pw.w_ij, pw.w_ji, present),
    )
    monkeypatch.setattr(sparse_fit, "CLOSURE_MODELS", 0)
    ref = (
        sparse_fit.weak_pieces(pw.pairs),
        sparse_fit.strong_pieces(pw.pairs, pw.w_ij, pw.w_ji),
        sparse_fit.strong_pieces(pw.pairs, pw.w_ij, pw.w_ji, present),
    )
    np.testing.assert_array_equal(got[0], ref[0])
    assert got[1:] == ref[1:]


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
def test_a_small_piece_inverted_by_numpy_equals_the_in_place_cholesky(shape, monkeypatch):
    """The information of a piece of few models inverted by numpy equals scipy's in-place
    Cholesky inverse (to 1e-9 relative), with and without the prior."""
    s = _sandwich(ALL_SHAPES[shape]())
    for idx in pair_board._pieces(s.pieces):
        got = pair_board._piece_inverse(s, idx)
        monkeypatch.setattr(pair_board, "SMALL_PIECE_MODELS", 0)
        ref = pair_board._piece_inverse(s, idx)
        monkeypatch.undo()
        np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-12 * np.abs(ref).max())


def _sign_counts_per_call(counts: VerdictCounts) -> dict[str, np.ndarray]:
    """The replaced path: each model's wins, ties and losses from the cells' scores, a pass per
    model, side and outcome."""
    from evalcore.schema import LEVELS

    m = counts.n_models
    levels = np.asarray(LEVELS)
    a, b = counts.a.astype(np.int64), counts.b.astype(np.int64)

    def per_model(values, side):
        return np.rint(np.bincount(side, weights=counts.cell_scores(values), minlength=m)).astype(np.int64)

    win, tie, loss = (levels > 0) * 1.0, (levels == 0) * 1.0, (levels < 0) * 1.0
    wins = per_model(win, a) + per_model(loss, b)
    losses = per_model(loss, a) + per_model(win, b)
    ties = per_model(tie, a) + per_model(tie, b)
    return {"wins": wins, "losses": losses, "ties": ties, "battles": wins + losses + ties}


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
def test_sign_counts_and_slot_balance_equal_the_replaced_paths(shape, monkeypatch):
    """Wins, ties and losses per model, and the slot balance summed per ordered pair, equal the
    replaced paths exactly (the slot balance's sorted pairs: the same pairs in the same order)."""
    from evalcore import slots
    from evalcore.ranking.leaderboard import sign_counts

    counts = ALL_SHAPES[shape]()
    ref = _sign_counts_per_call(counts)
    got = sign_counts(counts)
    for key in ref:
        np.testing.assert_array_equal(got[key], ref[key])
    fast = slots.slot_balance(counts)
    monkeypatch.setattr(slots, "PAIR_SLOTS_PER_CELL", 0)
    assert slots.slot_balance(counts) == fast


@pytest.mark.parametrize("shape", list(ALL_SHAPES))
def test_a_per_level_weighting_of_single_calls_is_the_column_sum(shape):
    """Counts that keep each call's level (a typed load's judge) weight their cells by a lookup:
    the same numbers as the column-by-column sum of the general path, for any values."""
    counts = ALL_SHAPES[shape]()
    values = np.array([1.0, 0.75, 0.5, 0.25, 0.0])
    general = (counts.n * values).sum(axis=1)
    if (counts.n.sum(axis=1) == 1).all():
        kept = VerdictCounts.from_single_calls(level=np.argmax(counts.n, axis=1), **_axes_and_cells(counts))
        np.testing.assert_array_equal(kept.n, counts.n)
        np.testing.assert_array_equal(kept.cell_scores(values), general)
    np.testing.assert_array_equal(counts.cell_scores(values), general)


def test_a_table_of_several_calls_a_cell_keeps_no_levels():
    single = ALL_SHAPES["arena"]()
    assert single.single_call_levels() is not None
    doubled = single.with_cells(single.inst, single.a, single.b, single.n * 2)
    assert doubled.single_call_levels() is None
    np.testing.assert_array_equal(
        doubled.cell_scores([1.0, 1.0, 0.5, 0.0, 0.0]), 2 * single.cell_scores([1.0, 1.0, 0.5, 0.0, 0.0])
    )


@pytest.mark.parametrize("shape", ["arena", "big_arena", "disconnected", "undefeated"])
def test_an_arena_sandwich_over_its_patterns_equals_the_one_over_its_battles(shape, monkeypatch):
    """The residuals summed over the (model A, model B, verdict) patterns with their
    multiplicities give the sandwich of the pass over every battle, the replaced path."""
    from evalcore.ranking import intervals

    counts = ALL_SHAPES[shape]()
    assert counts.one_call_each()
    reps, mult, _ = intervals.score_residuals(counts, np.zeros(counts.n_models))
    assert mult is not None and mult.sum() == counts.n_instructions > reps.n_instructions
    got = _sandwich(counts)
    monkeypatch.setattr(VerdictCounts, "one_call_each", lambda self: False)
    ref = _sandwich(counts)
    assert ref.n_score_rows == counts.n_instructions > got.n_score_rows
    elo2 = pair_board_scale()
    np.testing.assert_allclose(got.meat.toarray(), ref.meat.toarray(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.variances * elo2, ref.variances * elo2, rtol=1e-9, atol=1e-6)


def test_pair_probabilities_equal_the_tangent_and_fall_back_on_wide_strengths():
    """σ(θ_i − θ_j) from exponentials of the strengths equals the hyperbolic tangent's value to
    rounding; strengths spread over EXP_SPAN (where an exponential would underflow) take the
    tangent."""
    from evalcore.ranking import bradley_terry as bt

    theta = np.random.default_rng(3).normal(0.0, 3.0, (4, 30))
    ref = bt._sigmoid(theta[:, :, None] - theta[:, None, :])
    np.testing.assert_allclose(bt._pair_probabilities(theta), ref, rtol=1e-13, atol=1e-15)
    wide = theta.copy()
    wide[0, 0], wide[0, 1] = -800.0, 800.0  # both exponentials of e − max would underflow
    got = bt._pair_probabilities(wide)
    assert np.isfinite(got).all()
    np.testing.assert_array_equal(got, bt._sigmoid(wide[:, :, None] - wide[:, None, :]))
