"""Sparse leaderboard: equal to the dense computation, bootstrap over patterns equal in
distribution to resampling instructions, sandwich intervals that cover, absent models handled."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from evalcore.counts import VerdictCounts
from evalcore.ranking import (
    ELO_CENTRE,
    ELO_SCALE,
    fit_bradley_terry,
    leaderboard,
    pairwise_wins,
    pooled_wins,
)
from tests.bt_sim import simulate_bt

THETA = np.array([1.2, 0.8, 0.3, 0.0, -0.4, -0.9])


def _old_bootstrap(counts: VerdictCounts, rounds: int, seed: int) -> np.ndarray:
    """The pre-sparse estimator written out: dense per-instruction wins, multinomial over
    instructions, refit each round, ratings centred. (rounds, M) Elo ratings."""
    per = pairwise_wins(counts)
    i = counts.n_instructions
    rng = np.random.default_rng(seed)
    w = rng.multinomial(i, np.full(i, 1.0 / i), size=rounds).astype(float)
    wins = (w @ per.reshape(i, -1)).reshape(rounds, counts.n_models, counts.n_models)
    theta, _ = fit_bradley_terry(wins)
    return ELO_CENTRE + ELO_SCALE * theta


@pytest.mark.parametrize("shape", ["arena", "all_pairs", "anchor"])
def test_pooled_wins_equal_the_dense_sum(shape):
    counts = simulate_bt(THETA, 40, shape=shape, tie_rate=0.3, seed=1)
    np.testing.assert_allclose(pooled_wins(counts), pairwise_wins(counts).sum(axis=0))


def test_point_ratings_equal_an_independent_maximum_likelihood_fit():
    counts = simulate_bt(THETA, 2000, shape="arena", tie_rate=0.35, seed=2)
    wins = pooled_wins(counts)
    games = wins + wins.T

    def nll(t):
        d = t[:, None] - t[None, :]
        return -(wins * -np.logaddexp(0, -d)).sum() + 1e-9 * t.sum() ** 2

    ref = minimize(nll, np.zeros(THETA.size), method="BFGS", options={"gtol": 1e-10}).x
    ref = ELO_CENTRE + ELO_SCALE * (ref - ref.mean())
    board = leaderboard(counts, rounds=0)
    got = board.table.set_index("model").loc[list(counts.models), "rating"].to_numpy()
    assert games.sum() > 0
    np.testing.assert_allclose(got, ref, atol=1e-3)


@pytest.mark.parametrize("shape", ["arena", "all_pairs"])
def test_bootstrap_equals_the_instruction_level_bootstrap_within_monte_carlo_error(shape):
    n = 3000 if shape == "arena" else 60
    counts = simulate_bt(THETA, n, shape=shape, tie_rate=0.3, effect_sd=0.5, seed=3)
    if shape == "arena":
        assert counts.patterns.n_patterns < counts.n_instructions / 10  # the compression works
    board = leaderboard(counts, rounds=2000, seed=7)
    old = _old_bootstrap(counts, 2000, seed=11)
    old_low, old_high = np.percentile(old, [2.5, 97.5], axis=0)
    t = board.table.set_index("model").loc[list(counts.models)]
    width = old_high - old_low
    # Percentile endpoints of 2,000 rounds wobble by a few percent of the width.
    np.testing.assert_allclose(t["ci_low"], old_low, atol=0.12 * width.max())
    np.testing.assert_allclose(t["ci_high"], old_high, atol=0.12 * width.max())


def test_same_seed_same_numbers():
    counts = simulate_bt(THETA, 500, shape="arena", seed=4)
    a = leaderboard(counts, rounds=300, seed=5).table
    b = leaderboard(counts, rounds=300, seed=5).table
    np.testing.assert_array_equal(a["ci_low"], b["ci_low"])


@pytest.mark.parametrize("shape", ["arena", "all_pairs"])
def test_sandwich_and_bootstrap_intervals_agree(shape):
    n = 4000 if shape == "arena" else 200
    counts = simulate_bt(THETA, n, shape=shape, effect_sd=0.6, tie_rate=0.2, seed=6)
    boot = leaderboard(counts, rounds=2000, seed=1).table.set_index("model")
    sand = leaderboard(counts, rounds=500, seed=1, interval="sandwich").table.set_index("model")
    wb = boot["ci_high"] - boot["ci_low"]
    ws = sand["ci_high"] - sand["ci_low"]
    np.testing.assert_allclose(ws, wb, rtol=0.15)


def test_delta_method_difference_agrees_with_the_bootstrap():
    counts = simulate_bt(THETA, 150, shape="all_pairs", effect_sd=0.5, seed=8)
    boot = leaderboard(counts, rounds=2000, seed=2)
    sand = leaderboard(counts, rounds=0, interval="sandwich")
    d_boot = boot.difference("m01", "m02")
    d_sand = sand.difference("m01", "m02")
    assert d_boot.value == pytest.approx(d_sand.value)
    assert d_sand.width == pytest.approx(d_boot.width, rel=0.15)
    assert d_sand.method.startswith("delta")


@pytest.mark.slow
@pytest.mark.parametrize("shape,n,effect", [("arena", 1500, 0.0), ("all_pairs", 60, 0.8)])
def test_sandwich_intervals_cover_at_the_nominal_rate(shape, n, effect):
    # The truth is the estimand's population value: the fit on a very large sample of the same
    # process (instruction effects make it differ from THETA by attenuation).
    big = simulate_bt(THETA, 400_000 if shape == "arena" else 20_000, shape=shape, effect_sd=effect, seed=999)
    truth = leaderboard(big, rounds=0).table.set_index("model")["rating"]
    hits, coverages = [], []
    for rep in range(150):
        c = simulate_bt(THETA, n, shape=shape, effect_sd=effect, seed=rep)
        t = leaderboard(c, rounds=0, interval="sandwich").table.set_index("model").loc[truth.index]
        hits.append(((t["ci_low"] <= truth) & (truth <= t["ci_high"])).to_numpy())
        coverages.append(hits[-1].mean())
    coverage = float(np.mean(hits))
    print(f"sandwich coverage ({shape}): {coverage:.3f}")
    # 150 × 6 intervals (correlated within a replicate): nominal 0.95 ± about 0.03.
    assert 0.91 <= coverage <= 0.985, coverage


def test_a_model_absent_from_resamples_is_not_put_at_the_prior_centre():
    # "rare" plays on 3 of 40 instructions and does badly: about 8% of resamples miss it. The old
    # bootstrap gave it the prior centre (1000) in those rounds, stretching its interval to 1000.
    rows = []
    rng = np.random.default_rng(0)
    for i in range(40):
        for a, b in ((0, 1), (1, 2), (0, 2)):
            rows.append((i, a, b, 3 if rng.random() < 0.6 else 1))
    for i, lvl in ((0, 1), (1, 1), (2, 2)):
        rows.append((i, 3, 0, lvl))
    inst, a, b, lvl = (np.array(x) for x in zip(*rows, strict=True))
    n = np.zeros((len(rows), 5), dtype=int)
    n[np.arange(len(rows)), lvl] = 1
    counts = VerdictCounts.from_cells(
        models=("a", "b", "c", "rare"),
        instructions=tuple(str(i) for i in range(40)),
        judge=None,
        inst=inst,
        a=a,
        b=b,
        n=n,
    )
    board = leaderboard(counts, rounds=1000, seed=0)
    # P(no draw of instructions 0–2) = (37/40)^40 ≈ 4.4%: about 44 of 1,000 rounds.
    absent = np.isnan(board.samples[:, 3])
    assert 20 <= absent.sum() <= 75
    # In those rounds the others keep the point estimate's frame (their mean is unchanged) ...
    point = board.ratings[:3]
    np.testing.assert_allclose(board.samples[absent, :3].mean(axis=1), point.mean(), atol=1e-6)
    # ... and rare's interval comes from the rounds where it played, never from a prior centre
    # (on 3 instructions it is widened to at least the model-based width, so it holds them).
    played = board.samples[~absent, 3]
    rare = board.table.set_index("model").loc["rare"]
    assert rare["few_instructions"]
    assert rare["ci_high"] >= np.percentile(played, 97.5) and rare["ci_low"] <= np.percentile(played, 2.5)
    points = leaderboard(counts, rounds=0)
    assert np.isnan(points.table.set_index("model").loc["rare", "ci_high"])  # no rounds, no widening
    assert any("no battle at all in some resamples" in note for note in board.notes)


def test_rounds_are_validated_with_the_argument_named():
    counts = simulate_bt(THETA, 10, shape="arena", seed=0)
    with pytest.raises(ValueError, match="rounds must be"):
        leaderboard(counts, rounds=-5)
    with pytest.raises(ValueError, match="interval must be"):
        leaderboard(counts, interval="jackknife")


def test_patterns_group_instructions_with_identical_cells():
    # An independent statement of what patterns are: instructions whose sets of (a, b, calls per
    # level) cells are equal share a pattern; the representative is the first such instruction.
    rng = np.random.default_rng(5)
    for _ in range(20):
        i, m, k = int(rng.integers(1, 200)), int(rng.integers(2, 6)), int(rng.integers(1, 600))
        a = rng.integers(0, m, k)
        counts = VerdictCounts.from_cells(
            models=[f"m{j}" for j in range(m)],
            instructions=[f"i{j}" for j in range(i)],
            judge=None,
            inst=rng.integers(0, i, k),
            a=a,
            b=(a + rng.integers(1, m, k)) % m,
            n=rng.integers(0, 2, (k, 5)),
        )
        cells: list[frozenset] = [frozenset() for _ in range(i)]
        for r in range(counts.n_cells):
            key = (int(counts.a[r]), int(counts.b[r]), tuple(int(x) for x in counts.n[r]))
            cells[counts.inst[r]] = cells[counts.inst[r]] | {key}
        p = counts.patterns
        assert p.multiplicity.sum() == i and p.n_patterns == len(set(cells))
        for s in range(p.n_patterns):
            members = np.flatnonzero(p.of_instruction == s)
            assert len({cells[j] for j in members}) == 1 and p.multiplicity[s] == members.size
            assert p.representative[s] == members.min()
