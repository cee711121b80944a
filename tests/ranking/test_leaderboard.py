"""Bradley–Terry: hand-worked cases, seed 004's 400-point example, recovery of a simulated truth,
degenerate graphs, and the bootstrap's honesty (seeded, identical models get identical intervals)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize
from scipy.stats import kendalltau

from evalcore.ranking import (
    ELO_SCALE,
    comparison_graph,
    fit_bradley_terry,
    leaderboard,
    pairwise_wins,
    to_elo,
    win_probability,
)
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore, read_verdicts


def test_seed_004_a_400_point_gap_is_a_10_to_1_win_probability():
    assert win_probability(1400.0, 1000.0) == pytest.approx(10 / 11)
    assert win_probability(1000.0, 1000.0) == pytest.approx(0.5)
    # And the fit inverts it: 10 wins to 1 between two models is a 400-point gap.
    theta, ok = fit_bradley_terry(np.array([[0.0, 10.0], [1.0, 0.0]]))
    assert ok
    r = to_elo(theta)
    assert r[0] - r[1] == pytest.approx(400.0, abs=1e-6)
    assert r.mean() == pytest.approx(1000.0)


def test_three_models_worked_by_hand():
    # θ = (ln 2, 0, −ln 2) gives P(A>B) = P(B>C) = 2/3 and P(A>C) = 4/5. Data exactly in those
    # proportions (2:1, 2:1, 4:1) satisfy the likelihood equations, so the MLE is that θ:
    # Elo gaps of 400·log10(2) = 120.41 points.
    wins = np.array([[0, 2, 4], [1, 0, 2], [1, 1, 0]], dtype=float)
    theta, ok = fit_bradley_terry(wins)
    assert ok
    np.testing.assert_allclose(theta, [np.log(2), 0.0, -np.log(2)], atol=1e-9)
    np.testing.assert_allclose(to_elo(theta) - 1000, [120.412, 0.0, -120.412], atol=1e-3)


def test_ties_count_half_a_win_each():
    # One A-win and two ties between A and B is 2 wins for A to 1 for B: θ_A − θ_B = ln 2.
    frame = pd.DataFrame(
        {
            "instruction_id": ["1", "2", "3"],
            "model_a": ["A", "A", "B"],
            "model_b": ["B", "B", "A"],
            "verdict": ["A>B", "A=B", "A=B"],
        }
    )
    store = VerdictStore()
    store.load(read_verdicts(frame.to_csv(index=False).encode(), name="t.csv"))
    counts = store.counts()
    total = pairwise_wins(counts).sum(0)
    np.testing.assert_allclose(total, [[0, 2], [1, 0]])
    theta, _ = fit_bradley_terry(total)
    assert theta[0] - theta[1] == pytest.approx(np.log(2))


def test_mle_matches_a_generic_optimiser_on_random_counts():
    rng = np.random.default_rng(4)
    wins = rng.integers(1, 30, (7, 7)).astype(float)
    np.fill_diagonal(wins, 0)
    theta, ok = fit_bradley_terry(wins)

    def nll(t):
        d = t[:, None] - t[None, :]
        return -(wins * -np.logaddexp(0, -d)).sum() + 1e-8 * (t**2).sum() / 2

    ref = minimize(nll, np.zeros(7), method="BFGS", options={"gtol": 1e-10}).x
    assert ok
    np.testing.assert_allclose(theta, ref - ref.mean(), atol=1e-5)


def test_batched_fit_equals_single_fits():
    rng = np.random.default_rng(5)
    batch = rng.integers(1, 20, (4, 5, 5)).astype(float)
    theta, _ = fit_bradley_terry(batch)
    for b in range(4):
        np.testing.assert_allclose(theta[b], fit_bradley_terry(batch[b])[0], atol=1e-9)


def test_large_simulated_table_recovers_the_true_order():
    spec = SimulationSpec(
        n_models=15, n_instructions=400, judges=(JudgeSpec("j", slot_bias=0.3),), both_orders=False, seed=11
    )
    sim = simulate(spec)
    store = VerdictStore()
    store.load(sim.verdicts)
    board = leaderboard(store.counts(judge="j"), rounds=200, seed=1)
    truth = sim.strengths.set_index("model")["strength"]
    tau = kendalltau(truth[board.table["model"]].to_numpy(), board.table["rating"].to_numpy()).statistic
    assert tau >= 0.9
    # Ratings track the latent strengths linearly (BT on a probit-like simulator): strong correlation.
    assert np.corrcoef(truth[board.table["model"]], board.table["rating"])[0, 1] > 0.97


def test_bootstrap_is_seeded_and_intervals_are_95_percent_percentiles(small_store):
    counts = small_store.counts(judge="j1")
    one = leaderboard(counts, rounds=300, seed=3)
    two = leaderboard(counts, rounds=300, seed=3)
    other = leaderboard(counts, rounds=300, seed=4)
    pd.testing.assert_frame_equal(one.table, two.table)
    assert not np.allclose(one.table["ci_low"], other.table["ci_low"])
    samples = one.samples[:, [one.models.index(m) for m in one.table["model"]]]
    np.testing.assert_allclose(one.table["ci_low"], np.percentile(samples, 2.5, axis=0))
    np.testing.assert_allclose(one.table["ci_high"], np.percentile(samples, 97.5, axis=0))
    assert (one.table["ci_low"] <= one.table["rating"]).all()
    assert (one.table["rating"] <= one.table["ci_high"]).all()
    assert (one.table["rank_low"] <= one.table["rank"]).all()
    assert (one.table["rank"] <= one.table["rank_high"]).all()


def test_two_identical_models_get_identical_intervals():
    # "twin" has exactly the battles of "orig" against every other model, and ties with it.
    sim = simulate(SimulationSpec(n_models=5, n_instructions=80, both_orders=False, seed=2))
    rows = sim.verdicts
    orig = "sim-cedar"
    twin_rows = rows[(rows.model_a == orig) | (rows.model_b == orig)].copy()
    twin_rows["model_a"] = twin_rows["model_a"].replace(orig, "twin")
    twin_rows["model_b"] = twin_rows["model_b"].replace(orig, "twin")
    ties = pd.DataFrame(
        {"instruction_id": rows.instruction_id.unique(), "model_a": orig, "model_b": "twin", "verdict": 0}
    )
    table = pd.concat([rows, twin_rows, ties], ignore_index=True)
    table = table[["instruction_id", "model_a", "model_b", "verdict"]]
    store = VerdictStore()
    store.load(read_verdicts(table.to_csv(index=False).encode(), name="twins.csv"))
    board = leaderboard(store.counts(), rounds=400, seed=9)
    t = board.table.set_index("model")
    for col in ("rating", "ci_low", "ci_high"):
        assert t.loc[orig, col] == pytest.approx(t.loc["twin", col], abs=1e-6)


def _table(rows):
    frame = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])
    store = VerdictStore()
    store.load(read_verdicts(frame.to_csv(index=False).encode(), name="t.csv"))
    return store.counts()


def test_a_model_that_never_loses_is_explained_and_finite():
    rows = [(str(i), "champ", other, 1) for i in range(10) for other in ("b", "c")]
    rows += [(str(i), "b", "c", 1 if i % 3 else -1) for i in range(10)]
    board = leaderboard(_table(rows), rounds=100, seed=0)
    assert board.prior_games == 1.0
    assert any("champ lost no battle" in n for n in board.notes)
    # The MLE is infinite: the rating is a one-sided bound, never a finite two-sided interval.
    champ = board.table.set_index("model").loc["champ"]
    assert champ["bound"] == "at least" and champ["ci_high"] == np.inf
    assert np.isfinite(champ[["rating", "ci_low"]].astype(float)).all()
    others = board.table[board.table["model"] != "champ"]
    assert np.isfinite(others[["rating", "ci_low", "ci_high"]].to_numpy(dtype=float)).all()
    assert board.table.iloc[0]["model"] == "champ"


def test_a_model_that_never_wins_is_explained():
    rows = [(str(i), "a", "loser", 1) for i in range(5)] + [(str(i), "a", "b", (-1) ** i) for i in range(5)]
    rows += [(str(i), "b", "loser", "A>B") for i in range(5)]
    board = leaderboard(_table(rows), rounds=50)
    assert any("loser won no battle" in n for n in board.notes)


def test_a_table_of_many_pieces_and_sweeps_says_so_in_a_few_sentences():
    """Hundreds of models in pieces of two, each pair one sweep (a sparse table of thousands of
    models looks like this): one sentence per kind names the first few and counts the rest, and
    each model's one-sided bound stays in the table, not in a sentence of its own."""
    n = 120
    rows = [(f"{k}-{i}", f"w{k:03d}", f"l{k:03d}", 1) for k in range(n) for i in range(3)]
    board = leaderboard(_table(rows), rounds=20, seed=0, interval="bootstrap")
    pieces = [note for note in board.notes if "pieces that never met" in note]
    assert len(pieces) == 1 and f"{n} pieces" in pieces[0]
    assert "{l000, w000}; {l001, w001}" in pieces[0] and f"and {n - 5} more)" in pieces[0]
    assert "w005" not in pieces[0]
    won = [note for note in board.notes if "won every one" in note]
    lost = [note for note in board.notes if "lost every one" in note]
    assert len(won) == len(lost) == 1
    assert won[0].startswith(f"{n} models won every one of their battles (w000, w001, w002, w003, w004 and")
    assert "lower end of its interval in the table" in won[0]
    assert "upper end of its interval in the table" in lost[0]
    table = board.table.set_index("model")
    assert set(table.loc[[f"w{k:03d}" for k in range(n)], "bound"]) == {"at least"}
    assert np.isfinite(table.loc["w000", "ci_low"]) and table.loc["w000", "ci_high"] == np.inf
    assert sum(len(note) for note in board.notes) < 4000  # 240 models, a few sentences


def test_a_few_sweeps_keep_a_sentence_each():
    rows = [(f"{k}-{i}", f"w{k}", f"l{k}", 1) for k in range(3) for i in range(3)]
    board = leaderboard(_table(rows), rounds=20, seed=0, interval="bootstrap")
    won = [note for note in board.notes if "won every one" in note]
    assert sorted(note.split(" ")[0] for note in won) == ["w0", "w1", "w2"]
    assert all("won every one of its 3 battles: its rating is at least" in note for note in won)


def test_a_graph_in_pieces_is_ranked_within_pieces():
    rows = [(str(i), "a", "b", (-1) ** i if i % 3 else 1) for i in range(9)]
    rows += [(str(i), "c", "d", 1 if i % 4 else -1) for i in range(9)]
    board = leaderboard(_table(rows), rounds=50)
    assert board.table["piece"].nunique() == 2
    assert sorted(board.table["rank"]) == [1, 1, 2, 2]
    assert any("2 pieces" in n for n in board.notes)
    graph = comparison_graph(pairwise_wins(_table(rows)).sum(0), ("a", "b", "c", "d"))
    assert graph.n_pieces == 2 and not graph.mle_exists


def test_all_ties_judge_gives_equal_ratings():
    rows = [(str(i), a, b, 0) for i in range(40) for a, b in (("x", "y"), ("y", "z"), ("x", "z"))]
    board = leaderboard(_table(rows), rounds=50)
    np.testing.assert_allclose(board.table["rating"], 1000.0, atol=1e-6)
    # Every resample alike: no zero-width interval.
    assert any("same rating" in n for n in board.notes)
    assert board.table["ci_low"].isna().all()
    assert not any("lead" in n for n in board.notes)
    # Six instructions: the few-instructions warning, and every model's interval is the
    # model-based one (ties are evidence of equal strength), never zero-width.
    board = leaderboard(_table(rows[:18]), rounds=50)
    assert any("Only 6 instructions" in n for n in board.notes)
    assert any("Every model was judged on fewer than 30" in n for n in board.notes)
    t = board.table
    assert (t["ci_high"] - t["ci_low"] > 50).all()
    np.testing.assert_allclose(t["ci_high"] - 1000.0, 1000.0 - t["ci_low"], atol=1e-6)


def test_too_little_data_is_a_clear_error():
    with pytest.raises(ValueError, match="at least two different models"):
        leaderboard(_table([("1", "a", "b", "")]), rounds=10)


def test_elo_scale_constant():
    assert ELO_SCALE == pytest.approx(400 / np.log(10))


def test_ranks_share_ties_like_scipy_min_ranks():
    from scipy.stats import rankdata

    from evalcore.ranking import ranks_descending

    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, (50, 9)).astype(float)
    np.testing.assert_array_equal(ranks_descending(scores), rankdata(-scores, method="min", axis=-1))
    assert ranks_descending(np.array([3.0, 1.0, 3.0 + 1e-9])).tolist() == [1, 3, 1]
    # long rows of many ties and absent models (-inf), where an unstable sort reorders the ties
    wide = rng.integers(0, 5, (30, 400)).astype(float)
    wide[rng.random(wide.shape) < 0.1] = -np.inf
    np.testing.assert_array_equal(ranks_descending(wide), rankdata(-wide, method="min", axis=-1))


def test_comparison_graph_agrees_with_scipy_on_random_graphs():
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(3)
    for _ in range(200):
        m = int(rng.integers(2, 9))
        wins = (rng.random((m, m)) < rng.uniform(0.05, 0.5)) * rng.integers(1, 4, (m, m)).astype(float)
        np.fill_diagonal(wins, 0)
        graph = comparison_graph(wins, tuple("abcdefghi"[:m]))
        n_pieces, pieces = connected_components((wins + wins.T) > 0, directed=False)
        n_strong, _ = connected_components(wins > 0, directed=True, connection="strong")
        assert graph.n_pieces == n_pieces
        np.testing.assert_array_equal(graph.pieces, pieces)
        assert graph.mle_exists == (n_strong == 1)


def test_interval_contains_the_rating_when_every_round_is_the_full_data():
    # One instruction: every bootstrap round redraws that instruction, so every round is the full
    # data; a collapsed interval would claim certainty, so none is shown.
    rows = [
        ("1", a, b, v)
        for a, b, v in (
            ("m1", "m2", 1),
            ("m2", "m3", 1),
            ("m3", "m4", -1),
            ("m1", "m3", 0),
            ("m2", "m4", 1),
            ("m1", "m4", 1),
            ("m2", "m1", 1),
            ("m4", "m1", -1),
        )
    ]
    board = leaderboard(_table(rows), rounds=50, seed=0)
    t = board.table
    # Nothing to resample: no interval is shown (never a zero-width one), and the note says why.
    assert t["ci_low"].isna().all() and t["ci_high"].isna().all()
    assert any("single instruction" in n for n in board.notes)


def test_resamples_without_a_finite_mle_are_regularised_and_said():
    # Two instructions; on one, m1 never loses. Rounds that draw it twice need the prior.
    rows = [
        ("1", "m1", "m2", 1),
        ("1", "m2", "m3", 1),
        ("1", "m3", "m1", -1),
        ("2", "m1", "m2", -1),
        ("2", "m2", "m3", -1),
        ("2", "m3", "m1", 1),
    ]
    board = leaderboard(_table(rows), rounds=200, seed=1)
    assert board.prior_games == 0.0
    assert any("bootstrap rounds drew instructions" in n for n in board.notes)
    assert np.isfinite(board.samples).all()
