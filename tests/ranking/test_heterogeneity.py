"""Category heterogeneity: the likelihood-ratio test against a written-out likelihood, its size
under one ranking and its power, reversal flags and shrinkage on a planted category swap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize
from scipy.stats import chi2

from evalcore.counts import VerdictCounts
from evalcore.ranking.heterogeneity import HeterogeneityError, category_heterogeneity, store_heterogeneity
from evalcore.simulate.arena import ARENA_LANGUAGES, arena_verdict_frame, simulate_arena
from evalcore.simulate.tables import SimulationSpec, simulate
from evalcore.store.store import VerdictStore

WIN, LOSS, TIE = 3, 1, 2  # indices into LEVELS (-2, -1, 0, 1, 2)


def _counts(models, cells):
    """cells: (a, b, wins of a, wins of b, ties), one instruction each."""
    inst, a, b, n = [], [], [], []
    for k, (i, j, wi, wj, t) in enumerate(cells):
        row = np.zeros(5, dtype=np.int32)
        row[WIN], row[LOSS], row[TIE] = wi, wj, t
        inst.append(k)
        a.append(i)
        b.append(j)
        n.append(row)
    return VerdictCounts.from_cells(
        models=models,
        instructions=tuple(f"i{k}" for k in range(len(cells))),
        judge="j",
        inst=np.array(inst),
        a=np.array(a),
        b=np.array(b),
        n=np.array(n),
    )


def _written_out_lr(groups):
    """2·(Σ max ℓ_c − max ℓ_pooled) for 3 models by Nelder–Mead on the written-out likelihood."""

    def nll(theta, wins):
        t = np.concatenate([[0.0], theta])
        return -sum(
            wins[i][j] * np.log(1 / (1 + np.exp(t[j] - t[i]))) for i in range(3) for j in range(3) if i != j
        )

    def best(wins):
        return optimize.minimize(
            nll, np.zeros(2), args=(wins,), method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-12}
        ).fun

    total = sum(groups)
    return 2 * (best(total) - sum(best(w) for w in groups))


def test_statistic_matches_the_written_out_likelihood():
    models = ("a", "b", "c")
    # category x: a > b > c; category y: c > b > a (ties are left out of the test)
    x = [(0, 1, 30, 10, 5), (1, 2, 25, 15, 0), (0, 2, 35, 8, 3)]
    y = [(0, 1, 12, 28, 2), (1, 2, 14, 26, 0), (0, 2, 9, 31, 4)]
    wx = np.array([[0, 30, 35], [10, 0, 25], [8, 15, 0]], float)
    wy = np.array([[0, 12, 9], [28, 0, 14], [31, 26, 0]], float)
    h = category_heterogeneity({"x": _counts(models, x), "y": _counts(models, y)}, min_verdicts=1)
    assert h.df == 2
    assert h.statistic == pytest.approx(_written_out_lr([wx, wy]), rel=2e-3)


def _arena_table(effects, seed, n=12_000, m=6):
    sim = simulate_arena(n_battles=n, n_models=m, n_voters=300, seed=seed, category_effects=effects)
    return sim, VerdictStore.from_frame(arena_verdict_frame(sim, with_category=True))


def _swap(m=6, size=1.5):
    eff = np.zeros((len(ARENA_LANGUAGES), m))
    eff[1, 0], eff[1, 1] = -size, +size  # Chinese: the two best models change places
    return eff


def test_size_under_one_ranking():
    """Under one ranking the test rejects at about its level (12 fixed seeds: at most 3
    rejections at 5%, a chance of 0.2% for a correct test; benchmarks/bench_heterogeneity.py
    measures the size over many more)."""
    rejections = sum(
        store_heterogeneity(_arena_table(None, s, n=6_000)[1], judge="arena", permutations=49).rejects
        for s in range(12)
    )
    assert rejections <= 3


def test_planted_swap_is_found_flagged_and_shrunk():
    sim, store = _arena_table(_swap(), seed=7)
    h = store_heterogeneity(store, judge="arena")
    assert h.p_value < 1e-6
    assert "Chinese" in h.drivers
    top, second = sim.models[0], sim.models[1]
    flagged = [r for r in h.reversals if {r.better_overall, r.worse_overall} == {top, second}]
    assert flagged and all(r.category == "Chinese" for r in flagged)
    assert "hides a reversal" in h.sentence()
    r = h.ratings.set_index(["category", "model"])
    # shrinkage: between the raw category rating and the overall one, and the interval holds it
    for model in (top, second):
        row = r.loc[("Chinese", model)]
        lo, hi = sorted([row["raw"], row["overall"]])
        assert lo - 1e-9 <= row["shrunk"] <= hi + 1e-9
        assert row["lower"] < row["shrunk"] < row["upper"]
    # a category without a planted change keeps (nearly) the overall ratings and flags nothing
    assert not [x for x in h.reversals if x.category == "English"]


def test_one_category_is_refused():
    _, store = _arena_table(None, 0, n=2_000)
    counts = store.counts(judge="arena")
    with pytest.raises(HeterogeneityError, match="two or more"):
        category_heterogeneity({"only": counts})


def test_correlated_verdicts_on_an_instruction_do_not_fake_a_difference():
    """All pairs on every instruction, instruction-level effects, random category labels: the
    chi-squared reference (verdicts counted as independent) rejects one ranking; the test here,
    which keeps each instruction's verdicts together, does not."""
    spec = SimulationSpec(n_models=8, n_instructions=120, categories=("a", "b", "c"), seed=4)
    store = VerdictStore.from_frame(simulate(spec).verdicts)
    judge = store.judges()[0]
    h = store_heterogeneity(store, judge=judge, permutations=99)
    assert chi2.sf(h.statistic, h.df) < 0.05  # the naive reference would call it different
    assert not h.rejects
    assert not h.reversals


def test_one_verdict_per_instruction_takes_the_chi_squared_reference_without_permutations():
    """An arena (one prompt per battle): the verdicts are independent, so the p-values are the
    chi-squared tails of the statistic (hand-worked degrees of freedom: 6 models all met in every
    category, 5 free strengths per fit) and the permutations' number and seed change nothing."""
    _, store = _arena_table(None, seed=3, n=6_000)
    h = store_heterogeneity(store, judge="arena", permutations=49, seed=1)
    n_cats = len(h.per_category)
    assert n_cats >= 2 and h.df == 5 * (n_cats - 1)
    assert h.p_value == pytest.approx(chi2.sf(h.statistic, h.df), rel=1e-12)
    for t in h.per_category:  # each category against all the others: 5 + 5 − 5 free strengths
        assert t.p_value == pytest.approx(chi2.sf(t.statistic, 5), rel=1e-12)
    again = store_heterogeneity(store, judge="arena", permutations=199, seed=9)
    assert again.p_value == h.p_value


def test_batched_permutations_equal_one_table_at_a_time(monkeypatch):
    """The permuted tables fitted together in small batches (a batch limit that splits the 49
    permutations unevenly) give every permutation's statistics of one table fitted at a time,
    with the same seeded label draws: the test's statistic, p-values and Holm p-values agree."""
    from evalcore.ranking import category_permutation
    from evalcore.ranking import heterogeneity as het
    from evalcore.ranking.category_permutation import cells_of, permuted_labels

    _, store = _arena_table(_swap(), 3, n=4_000)
    per = {c: store.counts(judge="arena", category=c) for c in store.categories()}
    models = tuple(sorted({m for k in per.values() for m in k.models}))
    cats = tuple(sorted(per))
    cells = cells_of(per, cats, models)
    m, n_cats = len(models), len(cats)
    total = cells.decisive(cells.label, n_cats, m).sum(axis=0)
    null = float(het._loglik(total, het._fit(total)))
    strata = cells.strata()
    rng = np.random.default_rng(7)
    one = [
        het._statistics(cells.decisive(permuted_labels(rng, cells.label, strata), n_cats, m), null)
        for _ in range(49)
    ]
    # each instruction's wins summed by matrix product, then (a batch limit below the
    # instructions' matrices) the cells counted per table, in batches of ten tables
    for limit in (category_permutation.BATCH_NUMBERS, 10 * n_cats * m * m):
        monkeypatch.setattr(category_permutation, "BATCH_NUMBERS", limit)
        stats, per_cat = category_permutation._null_statistics(
            cells, strata, np.random.default_rng(7), 49, n_cats, m, null
        )
        np.testing.assert_allclose(stats, [s for s, _ in one], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(per_cat, np.array([p for _, p in one]), rtol=1e-9, atol=1e-9)
