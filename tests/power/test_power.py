"""evalcore.power against the published numbers (seed 000 §4.3, Table 2; seed 001), hand-worked
cases, scipy's own Wilcoxon test, and simulations with a known answer."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.power import (
    DifferenceDistributions,
    anchor_verdicts,
    detectable_edges,
    difference_distributions,
    minimum_detectable_edge,
    sample_size_plan,
    sign_test_power,
    sign_test_sample_size,
    sign_z,
    signed_rank_z,
    total_samples,
    verdict_differences,
    wilcoxon_power,
)
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore, counts_from_aggregate


# -- the sign test: published numbers -------------------------------------------------------
def test_table2_discordant_samples_normal_approximation():
    # Seed 000 §4.3 / seed 001: +5% needs 617 discordant samples; DEFINITIONS.md: +10% → 153.
    assert sign_test_sample_size(0.05) == 617
    assert sign_test_sample_size(0.10) == 153
    assert sign_test_sample_size(0.05, alpha=0.05, power=0.8, two_sided=False, method="normal") == 617


def test_exact_binomial_option():
    # DEFINITIONS.md: the exact binomial test gives 620 and 158.
    assert sign_test_sample_size(0.05, method="exact") == 620
    assert sign_test_sample_size(0.10, method="exact") == 158


def _exact_power_by_binomtest(n: int, p: float, alpha: float = 0.05) -> float:
    """Independent: the rejection region from scipy.stats.binomtest p-values, then its mass."""
    k = np.arange(n + 1)
    reject = np.array([stats.binomtest(int(x), n, 0.5, alternative="greater").pvalue <= alpha for x in k])
    return float(stats.binom.pmf(k[reject], n, p).sum())


def test_exact_sample_size_against_binomtest():
    assert _exact_power_by_binomtest(158, 0.6) >= 0.8
    assert all(_exact_power_by_binomtest(n, 0.6) < 0.8 for n in range(150, 158))
    assert sign_test_power(0.10, 158, method="exact") == pytest.approx(_exact_power_by_binomtest(158, 0.6))


def test_total_samples_published_and_the_341():
    # Seed 001: 617 discordant → 1,372 total at I = 0.45 (o3); seed 000: 1,143 at I = 0.54.
    assert total_samples(617, 0.45) == 1372
    assert total_samples(617, 0.54) == 1143
    # DEFINITIONS.md: 153 / 0.45 = 340 exactly; 341 is floating-point noise in 1 − 0.55.
    assert total_samples(153, 0.45) == 340
    assert total_samples(153, 1 - 0.55) == 340
    assert math.ceil(153 / (1 - (1 - 0.45))) == 341  # the artefact itself
    plan = sample_size_plan([0.05, 0.10], informativeness=0.45)
    assert plan.table["discordant"].tolist() == [617, 153]
    assert plan.table["total"].tolist() == [1372, 340]
    assert any("341" in note for note in plan.notes)
    d = plan.as_dict()
    assert d["plans"][0]["discordant"] == 617 and d["plans"][0]["total"] == 1372


def test_two_sided_hand_worked():
    # z_0.975 = 1.959964, z_0.8 = 0.841621 (tables): ((0.979982 + 0.841621·√0.2475) / 0.05)² = 782.5
    n = ((1.959964 * 0.5 + 0.841621 * math.sqrt(0.55 * 0.45)) / 0.05) ** 2
    assert sign_test_sample_size(0.05, two_sided=True) == math.ceil(n) == 783


def test_power_and_detectable_edge_invert_the_sample_size():
    assert sign_test_power(0.05, 617) >= 0.8 > sign_test_power(0.05, 616)
    assert minimum_detectable_edge(617) <= 0.05 < minimum_detectable_edge(616)
    assert minimum_detectable_edge(153) <= 0.10 < minimum_detectable_edge(152)
    assert minimum_detectable_edge(620, method="exact") <= 0.05
    assert math.isnan(minimum_detectable_edge(0))
    assert math.isnan(minimum_detectable_edge(2))  # even 2 wins of 2 cannot reach α = 0.05


@pytest.mark.parametrize(
    "kwargs",
    [
        {"edge": 0.0},
        {"edge": 0.6},
        {"edge": -0.1},
        {"edge": 0.05, "alpha": 1.0},
        {"edge": 0.05, "power": 0.04},
        {"edge": 0.05, "method": "magic"},
    ],
)
def test_bad_design_is_refused(kwargs):
    with pytest.raises(ValueError):
        sign_test_sample_size(**kwargs)


def test_bad_informativeness_is_refused():
    for bad in (0.0, -0.2, 1.5):
        with pytest.raises(ValueError, match="informativeness"):
            total_samples(617, bad)


# -- verdict differences ---------------------------------------------------------------------
def _counts(rows: list[tuple[str, str, str, int]]):
    agg = pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])
    agg = agg.groupby(list(agg.columns)).size().rename("n").reset_index()
    return counts_from_aggregate(agg, judge="j")


def test_anchor_verdicts_read_from_the_models_point_of_view():
    c = _counts(
        [
            ("q1", "A", "X", 2),  # A in slot A: +2 for A
            ("q1", "X", "A", -1),  # X in slot A says −1: +1 for A → A's mean on q1 = 1.5
            ("q1", "X", "B", 1),  # −1 for B
            ("q2", "B", "X", 0),
        ]
    )
    v = anchor_verdicts(c, "X")
    a, b, x = c.index("A"), c.index("B"), c.index("X")
    assert v[0, a] == 1.5 and v[0, b] == -1.0 and v[0, x] == 0.0
    assert np.isnan(v[1, a]) and v[1, b] == 0.0
    # d_i = v(i, A) − v(i, B) only where both are defined: q1 only.
    assert verdict_differences(c, "A", "B", anchor="X").tolist() == [2.5]
    # Head-to-head: the verdict itself (A never met B here).
    assert verdict_differences(c, "A", "X").tolist() == [1.5]
    with pytest.raises(ValueError):
        anchor_verdicts(c, "nobody")


def test_difference_distributions_count_and_orientation():
    # All pairs, M models: M anchors × C(M − 1, 2) pairs (seed 000 App. C: 22·C(21, 2) = 4,620).
    sim = simulate(SimulationSpec(n_models=6, n_instructions=40, seed=3))
    store = VerdictStore()
    store.load(sim.verdicts)
    c = store.counts()
    dists = difference_distributions(c)
    assert len(dists) == 6 * math.comb(5, 2)
    assert np.allclose(dists.probs.sum(axis=1), 1.0)
    # One distribution by hand: anchor = the 3rd model, pair (1st, 2nd).
    x, a, b = c.models[2], c.models[0], c.models[1]
    d = verdict_differences(c, a, b, anchor=x)
    one = dists.pair(a, b, anchor=x)
    assert len(one) == 1
    row = one.table.iloc[0]
    wins, losses = (d > 0).sum(), (d < 0).sum()
    assert row["informativeness"] == pytest.approx((wins + losses) / d.size)
    assert row["edge"] == pytest.approx(max(wins, losses) / (wins + losses) - 0.5)
    better = a if wins >= losses else b
    assert row["model_a"] == better
    # An anchor-only table has distributions only for its anchor.
    sim = simulate(SimulationSpec(n_models=6, n_instructions=40, design="anchor", seed=4))
    store.load(sim.verdicts)
    dists = difference_distributions(store.counts())
    assert len(dists) == math.comb(5, 2)
    assert dists.table["anchor"].nunique() == 1


def test_with_edge_is_listings_effect_size_interval():
    dists = DifferenceDistributions.from_samples([[1, 1, -1, 0]] * 1 + [[1, -1]] + [[1, 1, 1, -1, 0, 0]])
    # Edges: 2/3 − .5 = .1667, 0, 3/4 − .5 = .25
    assert dists.table["edge"].round(4).tolist() == [0.1667, 0.0, 0.25]
    assert len(dists.with_edge(0.16, 0.17)) == 1
    assert len(dists.with_edge(0.0, 0.01)) == 1


# -- the Wilcoxon signed-rank statistic against scipy -----------------------------------------
@pytest.mark.parametrize("n", [20, 57, 300])
def test_signed_rank_z_matches_scipy_pratt(n):
    rng = np.random.default_rng(n)
    support = np.array([-4, -2.5, -1, -0.5, 0, 0.5, 1, 2.5, 4.0])
    p = np.array([1, 2, 4, 3, 6, 4, 5, 3, 2], dtype=float)
    samples = rng.choice(support, size=(40, n), p=p / p.sum())
    counts = np.stack([(samples == s).sum(axis=1) for s in support], axis=1)
    z = signed_rank_z(support, counts)
    for alt, mine in (("greater", stats.norm.sf(z)), ("two-sided", 2 * stats.norm.sf(np.abs(z)))):
        ref = stats.wilcoxon(samples, zero_method="pratt", alternative=alt, method="asymptotic", axis=1)
        assert np.allclose(mine, ref.pvalue, rtol=1e-9, atol=1e-12)
    if n > 50:  # Listing 1's exact call (method "auto" is the normal approximation here)
        ref = stats.wilcoxon(samples, zero_method="pratt", alternative="greater", axis=1)
        assert np.allclose(stats.norm.sf(z), ref.pvalue, rtol=1e-9)


def test_on_plus_minus_one_data_wilcoxon_is_the_sign_test():
    # With |d| ∈ {0, 1}, Pratt's signed-rank z reduces algebraically to the sign test's z.
    rng = np.random.default_rng(1)
    counts = rng.multinomial(200, [0.2, 0.45, 0.35], size=100)  # over (−1, 0, +1)
    support = np.array([-1.0, 0.0, 1.0])
    assert np.allclose(signed_rank_z(support, counts), sign_z(support, counts))


# -- the simulation: known answers -----------------------------------------------------------
def test_no_effect_gives_power_near_alpha():
    dists = DifferenceDistributions.from_samples([[-2, -1, -1, 0, 0, 1, 1, 2]])
    curve = wilcoxon_power(dists, [100, 400], simulations=6000, seed=11)
    for test in (curve.WILCOXON, curve.SIGN):
        power = curve.frame.loc[curve.frame["test"] == test, "power"].to_numpy()
        assert np.all(np.abs(power - 0.05) < 0.015), (test, power)


def test_large_effect_gives_power_near_one():
    dists = DifferenceDistributions.from_samples([[2, 1, 1, 1, 0, -1]])
    curve = wilcoxon_power(dists, [100], simulations=2000, seed=2)
    w = curve.frame.query("test == @curve.WILCOXON")["power"].iloc[0]
    assert w > 0.99
    assert curve.wilcoxon_n == 100


def test_plus_minus_one_distribution_matches_the_sign_test_formula():
    # P(+1) = 0.30, P(−1) = 0.20, P(0) = 0.5: edge 0.10, informativeness 0.5.
    dists = DifferenceDistributions.from_samples([[1] * 3 + [-1] * 2 + [0] * 5])
    grid = [150, 300, 450, 600]
    curve = wilcoxon_power(dists, grid, simulations=4000, seed=5, edge=0.10)
    f = curve.frame.pivot(index="n", columns="test", values="power")
    assert np.array_equal(f[curve.WILCOXON], f[curve.SIGN])  # same draws, same test here
    formula = sign_test_power(0.10, np.array(grid) * 0.5)
    assert np.allclose(f[curve.WILCOXON].to_numpy(), formula, atol=0.03)
    assert curve.planned_sign_total == total_samples(153, 0.5) == 306


def test_wilcoxon_beats_the_sign_test_when_magnitude_carries_signal():
    # Wins are big, losses small: the signed-rank test uses the margin the sign test throws away.
    dists = DifferenceDistributions.from_samples([[2] * 5 + [-1] * 5 + [0] * 4])
    curve = wilcoxon_power(dists, [60, 120], simulations=3000, seed=9)
    f = curve.frame.pivot(index="n", columns="test", values="power")
    assert (f[curve.WILCOXON] > f[curve.SIGN] + 0.2).all()


def test_simulation_is_seeded_and_reports_progress():
    dists = DifferenceDistributions.from_samples([[1, 1, 0, -1, 2, -2, 1]])
    seen = []
    a = wilcoxon_power(dists, [50, 100], simulations=500, seed=3, progress=lambda f, m: seen.append(f))
    b = wilcoxon_power(dists, [50, 100], simulations=500, seed=3)
    c = wilcoxon_power(dists, [50, 100], simulations=500, seed=4)
    assert a.frame.equals(b.frame) and not a.frame.equals(c.frame)
    assert seen == [0.5, 1.0]
    with pytest.raises(ValueError, match="edge window"):
        wilcoxon_power(dists.with_edge(0.4, 0.41), [50])


def test_on_simulated_data_the_sign_test_follows_table2_formula():
    # Known truth for the pooled sign test: with the window's mean edge and informativeness,
    # the simulated sign-test power follows the normal-approximation formula at N × I.
    sim = simulate(
        SimulationSpec(
            n_models=14, n_instructions=200, strength_sd=0.3, seed=21, judges=(JudgeSpec("j", tie_width=0.6),)
        )
    )
    store = VerdictStore()
    store.load(sim.verdicts)
    window = difference_distributions(store.counts()).with_edge(0.05, 0.06)
    assert len(window) > 10
    assert window.table["edge"].between(0.05, 0.06).all()
    curve = wilcoxon_power(window, range(100, 1601, 100), simulations=3000, seed=0)
    f = curve.frame.pivot(index="n", columns="test", values="power")
    assert (f[curve.SIGN] - f[curve.SIGN_APPROXIMATION]).abs().max() < 0.04
    assert curve.wilcoxon_n is not None and curve.sign_n is not None
    labelled = wilcoxon_power(window, [100], simulations=10, seed=0, edge=0.05)
    assert labelled.planned_sign_total == total_samples(617, labelled.mean_informativeness)


# -- what this dataset can detect -----------------------------------------------------------
def test_detectable_edges_hand_built_pair():
    # 100 instructions; A beats B on 60, loses 40 (head-to-head, one call each).
    rows = [(f"q{i}", "A", "B", 1 if i < 60 else -1) for i in range(100)]
    rows += [(f"q{i}", "B", "C", 2) for i in range(100)]
    c = _counts(rows)
    result = detectable_edges(c, alpha=0.05, power=0.8)
    top = result.table.iloc[0]
    assert (top["upper"], top["lower"]) == ("A", "B")
    assert top["discordant"] == 100 and top["upper_wins"] == 60
    assert top["observed_edge"] == pytest.approx(0.10)
    # Two-sided exact sign test, Holm-adjusted over the two adjacent pairs: 60 of 100 gives
    # p = 0.0569 (scipy), above 0.05 before any adjustment, so A and B are not resolved.
    assert top["p_value"] == pytest.approx(stats.binomtest(60, 100, 0.5).pvalue)
    assert top["p_value"] == pytest.approx(0.056887, abs=1e-6)
    # Holm: the larger of two p-values is multiplied by 1, after the smaller one (×2) is below it.
    other = result.table.iloc[1]["p_value"]
    assert other < top["p_value"] / 2
    assert top["p_holm"] == pytest.approx(max(top["p_value"], 2 * other))
    assert not top["resolved"]
    # Detectable edge and instructions needed: the test used, two-sided at Holm's first step
    # (0.05 / 2 pairs), not the one-sided formula at 0.05 (+12.4% and 153 discordant).
    level = {"alpha": 0.025, "two_sided": True}
    assert result.level == 0.025 and result.pairs_tested == 2
    assert top["detectable_edge"] == pytest.approx(minimum_detectable_edge(100, **level))
    assert top["detectable_edge"] > minimum_detectable_edge(100) + 0.02
    assert top["instructions_needed"] == total_samples(sign_test_sample_size(0.1, **level), 1.0)
    assert result.table.iloc[1]["resolved"]  # B beat C every time
    assert result.top_pair_resolved is False
    assert result.as_dict()["resolution_test"] == (
        "two-sided sign test, Holm-adjusted across the 2 adjacent pairs"
    )
    # The headline uses N × I with the informativeness given.
    r2 = detectable_edges(c, informativeness=0.45)
    assert r2.detectable_edge == pytest.approx(minimum_detectable_edge(math.floor(100 * 0.45), **level))
    assert r2.as_dict()["n_pairs"] == 2


def test_detectable_edges_known_truth():
    # Strengths (seed 8): −1.05, −4.01, −4.08, −5.21, −6.94. Pairs a full unit or more apart are
    # resolved; the 2nd and 3rd (0.07 apart) are not: their edge is below the detectable edge.
    sim = simulate(SimulationSpec(n_models=5, n_instructions=150, strength_sd=3.0, seed=8))
    store = VerdictStore()
    store.load(sim.verdicts)
    c = store.counts()
    truth = sim.strengths.sort_values("strength", ascending=False)
    gaps = -np.diff(truth["strength"].to_numpy())
    assert gaps[1] < 0.1 and (np.delete(gaps, 1) > 1.0).all()
    for anchor in (None, c.models[2]):
        t = detectable_edges(c, anchor=anchor).table
        assert t["upper"].tolist() == truth["model"].tolist()[:-1]
        assert t["resolved"].tolist() == [True, False, True, True]
        assert t.loc[1, "observed_edge"] < t.loc[1, "detectable_edge"]
        assert (t.loc[[0, 2, 3], "observed_edge"] > t.loc[[0, 2, 3], "detectable_edge"]).all()
    assert sign_test_sample_size(0.5) == 3  # a model that wins every discordant sample


def _equal_models_counts(rng, n_models: int, n_instructions: int):
    # All pairs head-to-head, one call each, a fair coin for the winner: every model is as good
    # as every other, so any "resolved" adjacent pair is a false claim.
    from evalcore.counts import VerdictCounts

    a, b = np.triu_indices(n_models, 1)
    inst = np.repeat(np.arange(n_instructions), a.size)
    aa, bb = np.tile(a, n_instructions), np.tile(b, n_instructions)
    n = np.zeros((inst.size, 5), dtype=np.int64)
    n[np.arange(inst.size), np.where(rng.random(inst.size) < 0.5, 3, 1)] = 1
    return VerdictCounts.from_cells(
        models=[f"m{k}" for k in range(n_models)],
        instructions=[f"q{i}" for i in range(n_instructions)],
        judge="j",
        inst=inst,
        a=aa,
        b=bb,
        n=n,
    )


@pytest.mark.slow  # 400 replications: the family-wise rate needs them (see the tolerance)
def test_equal_models_are_resolved_at_most_alpha_of_the_time_family_wise():
    # Known truth: six equal models, so five adjacent pairs that are all ties in truth. The
    # leaderboard orders them by the same data, so a one-sided test in the chosen direction
    # without correction calls some pair "resolved" far more often than α; the two-sided, Holm-
    # adjusted test keeps the chance of any false "resolved" at or below α = 5%.
    rng = np.random.default_rng(20261201)
    reps, any_resolved, any_old = 400, 0, 0
    for _ in range(reps):
        t = detectable_edges(_equal_models_counts(rng, 6, 60)).table
        any_resolved += bool(t["resolved"].any())
        one_sided = stats.binom.sf(t["upper_wins"] - 1, t["discordant"], 0.5)
        any_old += bool((one_sided < 0.05).any())
    rate, old = any_resolved / reps, any_old / reps
    # 400 replications: a binomial standard error of 1.1 points at 5%; 0.075 is 2.3 errors above.
    assert rate <= 0.075, rate
    # The simulation can tell the rules apart: the old rule's family-wise rate is far above α.
    assert old > 0.15, old


def test_detectable_edge_shrinks_with_more_instructions():
    small = detectable_edges(_counts([(f"q{i}", "A", "B", 1 if i % 3 else -1) for i in range(90)]))
    large = detectable_edges(_counts([(f"q{i}", "A", "B", 1 if i % 3 else -1) for i in range(360)]))
    # The detectable edge scales like 1/√n: four times the samples, about half the edge.
    ratio = large.detectable_edge / small.detectable_edge
    assert 0.45 < ratio < 0.55


def test_difference_distributions_on_a_sparse_table_are_each_pair_written_out():
    """Each anchor's pairs are built over the models that met it (never all M × M pairs, 800 MB
    per anchor on 10,000 models): on a table where each anchor meets only some models on some
    instructions, every pair that shares an instruction is there, in order, with the
    distribution of its differences written out one pair at a time."""
    sim = simulate(SimulationSpec(n_models=12, n_instructions=60, seed=4))
    store = VerdictStore()
    store.load(sim.verdicts.sample(frac=0.03, random_state=1))
    c = store.counts()
    dists = difference_distributions(c)
    expected = []
    for x in c.models:
        for i, a in enumerate(c.models):
            for b in c.models[i + 1 :]:
                if x in (a, b):
                    continue
                d = verdict_differences(c, a, b, anchor=x)
                if d.size:
                    expected.append((x, a, b, d))
    assert 0 < len(expected) < 12 * math.comb(11, 2)  # some pairs never shared an instruction
    assert len(dists) == len(expected)
    for (x, a, b, d), row in zip(expected, dists.table.itertuples(index=False), strict=True):
        assert row.anchor == x and {row.model_a, row.model_b} == {a, b} and row.n == d.size
        wins, losses = (d > 0).sum(), (d < 0).sum()
        assert row.informativeness == pytest.approx((wins + losses) / d.size)
        sign = 1.0 if row.model_a == a else -1.0
        assert row.mean_difference == pytest.approx(sign * d.mean())


def test_pair_informativeness_agrees_with_the_anchor_module():
    # Same v(i, m) as evalcore.anchors: with every pair judged on every instruction in one order,
    # the mean of the per-pair shares d ≠ 0 is the anchor's informativeness I(p, A) (§4.3).
    from evalcore.anchors import anchor_informativeness

    sim = simulate(SimulationSpec(n_models=7, n_instructions=50, both_orders=False, seed=30))
    store = VerdictStore()
    store.load(sim.verdicts)
    c = store.counts()
    dists = difference_distributions(c)
    for anchor in c.models[:3]:
        mine = dists.table.loc[dists.table["anchor"] == anchor, "informativeness"].mean()
        assert mine == pytest.approx(anchor_informativeness(c, anchor))


def test_both_orders_differences_use_the_both_orders_verdict():
    # On a both-orders table d_i compares each model's mean over its two calls (the both-orders
    # verdict); the anchor module compares within one order, so its informativeness is lower.
    from evalcore.anchors import anchor_informativeness
    from evalcore.stats.against import disagreements_per_instruction, verdicts_against

    sim = simulate(SimulationSpec(n_models=7, n_instructions=50, seed=30))
    store = VerdictStore()
    store.load(sim.verdicts)
    c = store.counts()
    dists = difference_distributions(c)
    anchor = c.models[0]
    mine = dists.table.loc[dists.table["anchor"] == anchor, "informativeness"].mean()
    d, p = disagreements_per_instruction(verdicts_against(c).of(0), per_order=False)
    assert mine == pytest.approx(d.sum() / p.sum())
    assert anchor_informativeness(c, anchor) < mine


def test_a_pair_ranked_against_its_own_head_to_head_is_not_resolved():
    # A is ranked above B (it crushes C) but loses to B head-to-head 30:70. A two-sided test
    # rejects equality, yet the data do not support the leaderboard's order: not resolved.
    rows = [(f"q{i}", "A", "B", 1 if i < 30 else -1) for i in range(100)]
    rows += [(f"q{i}", "A", "C", 2) for i in range(100)]
    rows += [(f"q{i}", "B", "C", 1 if i < 50 else -1) for i in range(100)]
    c = _counts(rows)
    t = detectable_edges(c).table
    top = t.iloc[0]
    assert (top["upper"], top["lower"]) == ("A", "B")
    assert top["observed_edge"] == pytest.approx(-0.2)
    assert top["p_value"] == pytest.approx(stats.binomtest(30, 100, 0.5).pvalue)
    assert top["p_value"] < 0.05 and not top["resolved"]


def test_paper_table_reproduces_seed_000_table_2():
    from evalcore.power import paper_table

    t = paper_table().set_index("edge")
    assert t.loc[0.05, "discordant"] == 617 and t.loc[0.10, "discordant"] == 153
    assert t.loc[0.05, "exact_binomial"] == 620 and t.loc[0.10, "exact_binomial"] == 158
    assert t.loc[0.05, "total_I_0.45 (o3)"] == 1372 and t.loc[0.05, "total_I_0.54 (mean)"] == 1143
    assert t.loc[0.10, "total_I_0.45 (o3)"] == 340  # the paper's 341 is a floating-point artefact


# -- sparse counts on real shapes -------------------------------------------------------------
def _arena_counts(n_models: int = 12, n_battles: int = 1500, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.integers(n_models, size=n_battles)
    b = (a + rng.integers(1, n_models, size=n_battles)) % n_models
    rows = [
        (f"p{i}", f"m{x:02d}", f"m{y:02d}", int(v))
        for i, (x, y, v) in enumerate(zip(a, b, rng.integers(-2, 3, size=n_battles), strict=True))
    ]
    return _counts(rows)


def test_arena_shape_has_no_difference_distribution_and_says_why(monkeypatch):
    from evalcore.counts import VerdictCounts
    from evalcore.errors import DesignError

    monkeypatch.setattr(VerdictCounts, "dense", lambda self, **_: pytest.fail("dense built"))
    c = _arena_counts()
    with pytest.raises(DesignError, match="arena"):
        difference_distributions(c)
    # Head-to-head differences still exist wherever two models met.
    d = verdict_differences(c, c.models[0], c.models[1])
    assert d.size >= 1


@pytest.mark.parametrize("seed", [0, 1])
def test_sparse_differences_equal_the_old_dense_computation(seed):
    # The old code: v[i, m, x] = mean verdict of m against x from the dense tensor.
    sim = simulate(SimulationSpec(n_models=5, n_instructions=30, seed=seed))
    store = VerdictStore()
    store.load(sim.verdicts.sample(frac=0.7, random_state=seed))  # some cells missing
    c = store.counts()
    dense = c.dense().astype(np.float64)
    lv = np.array([-2, -1, 0, 1, 2.0])
    total = dense @ lv - np.swapaxes(dense @ lv, 1, 2)
    calls = dense.sum(-1) + np.swapaxes(dense.sum(-1), 1, 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(calls > 0, total / np.maximum(calls, 1), np.nan)
    dists = difference_distributions(c)
    for x in range(c.n_models):
        v = mean[:, :, x].copy()
        v[:, x] = 0.0
        np.testing.assert_allclose(anchor_verdicts(c, c.models[x]), v)
        for a in range(c.n_models):
            for b in range(a + 1, c.n_models):
                old = v[:, a] - v[:, b]
                old = np.round(old[~np.isnan(old)], 6)
                new = verdict_differences(c, c.models[a], c.models[b], anchor=c.models[x])
                np.testing.assert_allclose(new, old)
                if x not in (a, b) and old.size:
                    row = dists.pair(c.models[a], c.models[b], anchor=c.models[x]).table.iloc[0]
                    assert row["n"] == old.size
                    assert row["informativeness"] == pytest.approx((old != 0).mean())
        h = mean[:, 0, x]
        if x:
            np.testing.assert_allclose(
                verdict_differences(c, c.models[0], c.models[x]), np.round(h[~np.isnan(h)], 6)
            )


def test_power_arguments_are_validated_first():
    from evalcore.errors import UsageError

    dists = DifferenceDistributions.from_samples([[1, -1, 0, 1]])
    with pytest.raises(UsageError, match="simulations must be"):
        wilcoxon_power(dists, [10], simulations=-5)
    with pytest.raises(UsageError, match="seed must be"):
        wilcoxon_power(dists, [10], seed=-1)
    with pytest.raises(UsageError, match="alpha must be"):
        sign_test_sample_size(0.05, alpha=2)
    with pytest.raises(TypeError):
        sign_test_sample_size(0.05, 0.05)  # options are keyword-only


@pytest.mark.parametrize("two_sided", [False, True])
@pytest.mark.parametrize(
    "edge,alpha,power", [(0.05, 0.05, 0.8), (0.2, 0.01, 0.95), (0.3, 0.2, 0.3), (0.1, 0.001, 0.99)]
)
def test_exact_sample_size_is_the_first_n_of_a_scan_from_one(edge, alpha, power, two_sided):
    # The search starts above 1 (below a bound no n can reach the power) and scans in blocks; the
    # exact power saw-tooths in n, so check against the definition: the first n from n = 1 on.
    from evalcore.power import sign_test_power

    got = sign_test_sample_size(edge, alpha=alpha, power=power, two_sided=two_sided, method="exact")
    n = np.arange(1, got + 1)
    reached = np.asarray(sign_test_power(edge, n, alpha=alpha, two_sided=two_sided, method="exact")) >= power
    assert reached[-1] and not reached[:-1].any()
