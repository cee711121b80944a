"""Separation: pairwise differences agree with the leaderboard, Holm controls the family-wise
error on equal models, and clearly different models land in different tiers."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.ranking import adjust_p_values, leaderboard, separation
from tests.bt_sim import simulate_bt


def test_holm_and_bh_match_hand_worked_values():
    p = np.array([0.01, 0.02, 0.03, 0.04, 0.5])
    # Holm: 5·0.01, 4·0.02, 3·0.03, 2·0.04, 1·0.5, made monotone.
    np.testing.assert_allclose(adjust_p_values(p), [0.05, 0.08, 0.09, 0.09, 0.5])
    # BH: 0.5·5/5, 0.04·5/4, 0.03·5/3, 0.02·5/2, 0.01·5/1, made monotone from the top.
    np.testing.assert_allclose(adjust_p_values(p, correction="bh"), [0.05, 0.05, 0.05, 0.05, 0.5])


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_the_matrix_agrees_with_the_leaderboards_differences(interval):
    counts = simulate_bt([1.0, 0.5, 0.0, -0.5], 80, shape="all_pairs", effect_sd=0.4, seed=3)
    board = leaderboard(counts, rounds=500, seed=1, interval=interval)
    sep = separation(board)
    for row in sep.pairs.itertuples():
        d = board.difference(row.model_1, row.model_2)
        assert row.difference == pytest.approx(d.value)
        assert row.low == pytest.approx(d.low) and row.high == pytest.approx(d.high)
    m = sep.matrix()
    assert m.loc["m00", "m01"] == pytest.approx(-m.loc["m01", "m00"])
    assert "Holm" in sep.as_dict()["multiplicity_control"]


def test_clearly_different_models_fall_in_different_tiers():
    counts = simulate_bt([2.0, 2.0, 0.0, 0.0, -2.0], 150, shape="all_pairs", seed=5)
    sep = separation(leaderboard(counts, rounds=0, interval="sandwich"))
    tiers = dict(zip(sep.tiers["model"], sep.tiers["tier"], strict=True))
    assert tiers["m00"] == tiers["m01"] < tiers["m02"] == tiers["m03"] < tiers["m04"]


@pytest.mark.slow
def test_holm_controls_the_family_wise_error_on_equal_models():
    # Six equal models: any "separated" pair is a false discovery. Unadjusted two-sided tests on
    # 15 pairs would flag some pair far more often than 5% of the time.
    any_holm, any_raw = [], []
    for rep in range(200):
        counts = simulate_bt(np.zeros(6), 60, shape="all_pairs", effect_sd=0.5, seed=rep)
        sep = separation(leaderboard(counts, rounds=0, interval="sandwich"))
        any_holm.append(sep.pairs["separated"].any())
        any_raw.append((sep.pairs["p_value"] < 0.05).any())
    assert np.mean(any_holm) <= 0.08  # nominal 0.05, Monte-Carlo error about ±0.03
    assert np.mean(any_raw) > 0.15


def test_the_matrix_holds_each_pairs_value_in_both_cells_and_nothing_else():
    counts = simulate_bt([1.0, 0.5, 0.0, -0.5, -1.0], 60, shape="all_pairs", seed=4)
    sep = separation(leaderboard(counts, rounds=0, interval="sandwich"))
    order = list(sep.tiers["model"])
    for column, sign in (("difference", -1.0), ("p_adjusted", 1.0), ("low", 1.0)):
        m = sep.matrix(column)
        assert list(m.index) == order and list(m.columns) == order
        assert m.dtypes.eq(float).all()
        assert np.isnan(np.diag(m.to_numpy())).all()  # a model against itself: no value
        for row in sep.pairs.itertuples():
            value = getattr(row, column)
            assert m.loc[row.model_1, row.model_2] == pytest.approx(value)
            assert m.loc[row.model_2, row.model_1] == pytest.approx(sign * value)
        assert np.isfinite(m.to_numpy()).sum() == 2 * len(sep.pairs)
