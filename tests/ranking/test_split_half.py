"""Split-half stability: the batched count equals a refit of each half one by one (on every
shape: all pairs, where each instruction is its own pattern, and an arena or anchor table, where
the halves are summed over repeated instruction patterns), and a clear leader stays #1 while a
dead heat at the top does not."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.ranking.bradley_terry import fit_bradley_terry, pooled_wins
from evalcore.ranking.split_half import PRIOR_GAMES, split_half_stability
from tests.bt_sim import simulate_bt


@pytest.mark.parametrize(("shape", "n_instructions"), [("all_pairs", 60), ("arena", 3_000), ("anchor", 400)])
def test_counts_match_refitting_each_half_one_by_one(shape, n_instructions):
    counts = simulate_bt(
        [0.3, 0.2, 0.0, -0.1, -0.4], n_instructions, shape=shape, effect_sd=0.5, tie_rate=0.1, seed=2
    )
    if shape != "all_pairs":  # instructions repeat a few patterns: the halves sum over patterns
        assert counts.patterns.n_patterns < counts.n_instructions / 4
    result = split_half_stability(counts, halves=20, seed=5)
    rng = np.random.default_rng(5)
    full, _ = fit_bradley_terry(pooled_wins(counts), prior_games=PRIOR_GAMES)
    # strengths compared to six decimals, ties in the order of the models (as the ranks are)
    leader, top = int(np.argmax(full)), set(np.argsort(-np.round(full, 6), kind="stable")[:3].tolist())
    stays = top_stays = 0
    for _ in range(20):
        keep = rng.choice(counts.n_instructions, counts.n_instructions // 2, replace=False)
        sub = counts.subset(instructions=np.sort(keep))
        theta, _ = fit_bradley_terry(pooled_wins(sub), prior_games=PRIOR_GAMES)
        stays += int(theta[leader] >= theta.max() - 1e-6)  # a shared #1 counts as staying
        top_stays += int(set(np.argsort(-np.round(theta, 6), kind="stable")[:3].tolist()) == top)
    assert (result.leader_stays, result.top_three_stays) == (stays, top_stays)
    assert sum(result.first_in) >= 20  # a shared #1 counts for each model sharing it


def test_a_clear_leader_stays_and_a_dead_heat_does_not():
    clear = simulate_bt([1.5, 0.0, -0.2, -0.4], 200, shape="arena", seed=1)
    assert split_half_stability(clear, seed=0).leader_stays == 50
    heat = simulate_bt([0.5, 0.5, -0.2, -0.4], 200, shape="all_pairs", effect_sd=0.3, seed=1)
    r = split_half_stability(heat, seed=0)
    # two equal models: each is #1 in a good share of the halves (a 50:50 coin, ±4 sd)
    assert 8 <= r.leader_stays <= 45
    assert sorted(r.first_in)[-2] >= 5
    assert "stays #1 in" in r.sentence()
