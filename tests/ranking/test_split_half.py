"""Split-half stability: the batched count equals a refit of each half one by one (on every
shape: all pairs, where each instruction is its own pattern, and an arena or anchor table, where
the halves are summed over repeated instruction patterns), and a clear leader stays #1 while a
dead heat at the top does not."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.counts import VerdictCounts
from evalcore.ranking import split_half
from evalcore.ranking.bradley_terry import fit_bradley_terry, pooled_wins
from evalcore.ranking.split_half import HYPERGEOMETRIC_FROM, PRIOR_GAMES, split_half_stability
from tests.bt_sim import simulate_bt


def _drawn_instructions(counts, drawn: np.ndarray) -> np.ndarray:
    """Instructions making up a drawn half: the first ``drawn[s]`` instructions of pattern s
    (any instructions of one pattern carry the same verdicts)."""
    of = counts.patterns.of_instruction
    order = np.argsort(of, kind="stable")
    starts = np.r_[0, np.cumsum(np.bincount(of, minlength=drawn.size))[:-1]]
    return np.sort(np.concatenate([order[starts[s] : starts[s] + k] for s, k in enumerate(drawn) if k]))


@pytest.mark.parametrize(
    ("shape", "n_instructions"), [("all_pairs", 60), ("arena", 3_000), ("anchor", 400), ("arena", 300)]
)
def test_counts_match_refitting_each_half_one_by_one(shape, n_instructions):
    counts = simulate_bt(
        [0.3, 0.2, 0.0, -0.1, -0.4], n_instructions, shape=shape, effect_sd=0.5, tie_rate=0.1, seed=2
    )
    if shape != "all_pairs":  # instructions repeat a few patterns: the halves sum over patterns
        assert counts.patterns.n_patterns < counts.n_instructions / 4
    # both draws are met: over the patterns (many instructions a pattern), among positions
    many = counts.n_instructions >= HYPERGEOMETRIC_FROM * counts.patterns.n_patterns
    assert many == (n_instructions == 3_000)
    result = split_half_stability(counts, halves=20, seed=5)
    rng = np.random.default_rng(5)
    full, _ = fit_bradley_terry(pooled_wins(counts), prior_games=PRIOR_GAMES)
    # strengths compared to six decimals, ties in the order of the models (as the ranks are)
    leader, top = int(np.argmax(full)), set(np.argsort(-np.round(full, 6), kind="stable")[:3].tolist())
    stays = top_stays = 0
    other = None  # the rest of the instructions of the last split
    for h in range(20):
        # a random half counted per pattern, in pattern order: one multivariate hypergeometric
        # draw (many instructions per pattern), or positions among the instructions listed
        # pattern by pattern; every second half is the rest of the instructions
        mult, half = counts.patterns.multiplicity, counts.n_instructions // 2
        if h % 2:
            drawn = other
        elif counts.n_instructions >= HYPERGEOMETRIC_FROM * mult.size:
            drawn = rng.multivariate_hypergeometric(mult, half)
        else:
            listed = np.repeat(np.arange(mult.size), mult)
            drawn = np.bincount(
                listed[rng.choice(mult.sum(), half, replace=False, shuffle=False)], minlength=mult.size
            )
        other = mult - drawn
        sub = counts.subset(instructions=_drawn_instructions(counts, drawn))
        assert sub.n_instructions == (counts.n_instructions - half if h % 2 else half)
        theta, _ = fit_bradley_terry(pooled_wins(sub), prior_games=PRIOR_GAMES)
        stays += int(theta[leader] >= theta.max() - 1e-6)  # a shared #1 counts as staying
        top_stays += int(set(np.argsort(-np.round(theta, 6), kind="stable")[:3].tolist()) == top)
    assert (result.leader_stays, result.top_three_stays) == (stays, top_stays)
    assert sum(result.first_in) >= 20  # a shared #1 counts for each model sharing it


@pytest.mark.parametrize("shape", ["all_pairs", "arena"])
def test_the_halves_do_not_depend_on_how_the_instructions_are_numbered(shape):
    """The same table with its instructions in another order (other ids, another file order)
    gives the same counts of halves: the draws follow the patterns, found from the cells."""
    counts = simulate_bt(
        [0.3, 0.25, 0.2, -0.1, -0.4], 300 if shape == "arena" else 40, shape=shape, tie_rate=0.2, seed=4
    )
    perm = np.random.default_rng(9).permutation(counts.n_instructions)
    shuffled = VerdictCounts.from_cells(
        models=counts.models,
        instructions=tuple(counts.instructions[k] for k in perm),
        judge=counts.judge,
        inst=np.argsort(perm)[counts.inst],
        a=counts.a,
        b=counts.b,
        n=counts.n,
    )
    assert not np.array_equal(shuffled.n, counts.n)  # the cells are in another order
    one, other = split_half_stability(counts, seed=3), split_half_stability(shuffled, seed=3)
    assert (one.leader_stays, one.top_three_stays, one.first_in) == (
        other.leader_stays,
        other.top_three_stays,
        other.first_in,
    )


@pytest.mark.parametrize("from_", [1, 10**9])
def test_a_half_holds_each_pattern_in_proportion_to_its_instructions(from_, monkeypatch):
    """Simulation with known truth: over 2,000 random splits, pattern s is drawn mult[s] × half ÷
    all times on average in a split's first half (a uniformly random half of the instructions),
    within 4 standard errors, by either draw (over the patterns, or positions among the
    instructions); the second half of each split holds the rest."""
    from evalcore.ranking.split_half import _half_draws

    monkeypatch.setattr(split_half, "HYPERGEOMETRIC_FROM", from_)
    counts = simulate_bt([0.4, 0.0, -0.3], 501, shape="arena", tie_rate=0.3, seed=6)
    reps, draw = _half_draws(counts, counts.n_instructions // 2, np.random.default_rng(2))
    drawn = np.array([draw() for _ in range(4_000)])
    mult = counts.patterns.multiplicity
    n, k = counts.n_instructions, counts.n_instructions // 2
    # halves in pairs: a random half of k instructions, then the other n − k (n is odd here)
    assert (drawn[0::2].sum(axis=1) == k).all() and (drawn[1::2].sum(axis=1) == n - k).all()
    assert (drawn[0::2] + drawn[1::2] == mult).all()
    # the first halves alone: 2,000 independent draws
    mean = mult * k / n
    sd = np.sqrt(mult * (k / n) * (1 - k / n) * (n - k) / (n - 1))  # hypergeometric variance
    assert np.all(np.abs(drawn[0::2].mean(axis=0) - mean) <= 4 * sd / np.sqrt(2_000) + 1e-12)


def test_a_clear_leader_stays_and_a_dead_heat_does_not():
    clear = simulate_bt([1.5, 0.0, -0.2, -0.4], 200, shape="arena", seed=1)
    assert split_half_stability(clear, seed=0).leader_stays == 50
    heat = simulate_bt([0.5, 0.5, -0.2, -0.4], 200, shape="all_pairs", effect_sd=0.3, seed=1)
    r = split_half_stability(heat, seed=0)
    # two equal models: each is #1 in a good share of the halves (a 50:50 coin, ±4 sd)
    assert 8 <= r.leader_stays <= 45
    assert sorted(r.first_in)[-2] >= 5
    assert "stays #1 in" in r.sentence()


def test_the_halves_are_fitted_densely_only_where_most_pairs_met(monkeypatch):
    """Between 100 and 256 models the halves are a batch of dense problems where at least half
    of all pairs of models met (an arena of many battles), and over the pairs where few did (the
    dense solve would cost models³ per half for a handful of pairs)."""
    taken = []
    by_pairs = split_half._fit_halves_by_pairs
    monkeypatch.setattr(
        split_half, "_fit_halves_by_pairs", lambda *a, **k: taken.append("pairs") or by_pairs(*a, **k)
    )
    rng = np.random.default_rng(3)
    theta = rng.normal(0.0, 0.8, 120)
    crowded = simulate_bt(theta, 12_000, shape="arena", tie_rate=0.2, seed=5)
    sparse_table = simulate_bt(theta, 400, shape="arena", tie_rate=0.2, seed=5)
    pairs = {
        name: np.unique(np.minimum(c.a, c.b).astype(np.int64) * 120 + np.maximum(c.a, c.b)).size
        for name, c in (("crowded", crowded), ("sparse", sparse_table))
    }
    assert 4 * pairs["crowded"] >= 120 * 119 > 4 * pairs["sparse"]
    split_half_stability(crowded, halves=10)
    assert taken == []
    split_half_stability(sparse_table, halves=10)
    assert taken == ["pairs"]
