"""evalcore.anchors against hand-worked cases, scipy, and simulations with a known truth."""

from __future__ import annotations

from math import comb, sqrt

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from evalcore.anchors import (
    NeedsAllPairs,
    anchor_count_sweep,
    anchor_informativeness,
    anchor_ranking,
    anchor_sweep,
    anchor_vs_judge,
    decisive_rate,
    informativeness_ceiling,
    kendall_tau,
    pilot_screening,
    plan_evaluation,
    sample_size_sweep,
    win_rate_distribution,
)
from evalcore.io import read_human_ranking, read_verdicts
from evalcore.ranking import fit_bradley_terry
from evalcore.schema import LEVELS
from evalcore.simulate import JudgeSpec, SimulationSpec, simulate
from evalcore.store import VerdictCounts, VerdictStore
from tests.conftest import ROOT, shared_path


def _counts(models, calls, n_instructions=1):
    """VerdictCounts from (instruction, slot-A model, slot-B model, verdict) tuples."""
    c = np.zeros((n_instructions, len(models), len(models), len(LEVELS)), dtype=np.int32)
    for i, a, b, v in calls:
        c[i, models.index(a), models.index(b), LEVELS.index(v)] += 1
    return VerdictCounts.from_dense(models=tuple(models), instructions=tuple(f"q{i}" for i in range(n_instructions)),
                         judge="hand", counts=c)


def _store(frame: pd.DataFrame) -> VerdictStore:
    store = VerdictStore()
    store.load(frame)
    return store


@pytest.fixture(scope="module")
def sim12():
    sim = simulate(SimulationSpec(n_models=12, n_instructions=150, both_orders=False, seed=3))
    store = _store(sim.verdicts)
    yield sim, store.counts()
    store.close()


# -- Kendall's tau ----------------------------------------------------------------------------
def test_tau_seed_002_hand_case():
    # Reference a > b > c; a binary judge accepts a and b (DEFINITIONS.md): 2/3 and 2/√6.
    judge, reference = np.array([1.0, 1.0, 0.0]), np.array([3.0, 2.0, 1.0])
    assert kendall_tau(judge, reference, variant="a") == pytest.approx(2 / 3)
    assert kendall_tau(judge, reference, variant="b") == pytest.approx(2 / sqrt(6))


def test_tau_b_matches_scipy_batched_with_ties_and_nan():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 4, size=(50, 9)).astype(float)
    y = rng.normal(size=9)
    y[2] = y[5]  # a tie in the reference too
    x[:, 7] = np.where(rng.random(50) < 0.3, np.nan, x[:, 7])
    got = kendall_tau(x, y)
    for row, value in zip(x, got, strict=True):
        keep = np.isfinite(row)
        want = stats.kendalltau(row[keep], y[keep]).statistic
        assert value == pytest.approx(want, abs=1e-12)


def test_tau_a_by_hand_with_ties():
    x = np.array([1, 2, 2, 4.0])
    y = np.array([1, 3, 2, 4.0])
    # pairs: (0,1)+ (0,2)+ (0,3)+ (1,2) x tied -> 0, (1,3)+ (2,3)+ : 5 / 6
    assert kendall_tau(x, y, variant="a") == pytest.approx(5 / 6)


# -- informativeness --------------------------------------------------------------------------
MODELS = ["anc", "m1", "m2", "m3"]


def test_informativeness_hand_case_single_calls():
    calls = [
        # instruction 0: m1 wins (+1), m2 loses (anchor in slot A says +1), m3 ties: 3 of 3 differ
        (0, "m1", "anc", 1), (0, "anc", "m2", 1), (0, "m3", "anc", 0),
        # instruction 1: m1 +2, m2 +1 (anchor in slot A says -1), m3 +2: 2 of 3 differ
        (1, "m1", "anc", 2), (1, "anc", "m2", -1), (1, "anc", "m3", -2),
    ]
    counts = _counts(MODELS, calls, 2)
    assert anchor_informativeness(counts, "anc") == pytest.approx(5 / 6)
    sweep = anchor_sweep(counts)
    row = sweep.table.set_index("anchor").loc["anc"]
    assert row["informativeness"] == pytest.approx(5 / 6)
    dist = win_rate_distribution(counts, "anc")
    assert list(dist.per_instruction["models_beating_anchor"]) == [1, 3]
    assert dist.anchor_beats_all == 0 and dist.all_beat_anchor == 1 and dist.no_signal == 0


def test_informativeness_both_orders_uses_the_mean_of_the_calls():
    calls = [
        (0, "m1", "anc", 1), (0, "anc", "m1", 0),    # m1: +1 and 0 -> 1/2
        (0, "m2", "anc", 1), (0, "anc", "m2", -1),   # m2: +1 and +1 -> 1
        (0, "m3", "anc", 0), (0, "anc", "m3", -1),   # m3: 0 and +1 -> 1/2, equal to m1
    ]
    counts = _counts(MODELS, calls)
    assert anchor_informativeness(counts, "anc") == pytest.approx(2 / 3)


def test_pairs_without_a_verdict_are_not_counted():
    calls = [(0, "m1", "anc", 1), (0, "m2", "anc", -1)]  # m3 never met the anchor
    assert anchor_informativeness(_counts(MODELS, calls), "anc") == pytest.approx(1.0)


def test_ceiling_values():
    assert informativeness_ceiling(21) == pytest.approx(110 / 210)  # 0.524 (DEFINITIONS.md)
    assert informativeness_ceiling(20) == pytest.approx(100 / 190)
    assert informativeness_ceiling(21, ties=True) == pytest.approx(147 / 210)
    # Ties with the anchor make a third group: win / tie / loss for three models -> every pair
    # differs, above the two-group ceiling of 2/3.
    counts = _counts(MODELS, [(0, "m1", "anc", 1), (0, "m2", "anc", 0), (0, "m3", "anc", -1)])
    assert anchor_informativeness(counts, "anc") == pytest.approx(1.0)
    assert informativeness_ceiling(3) == pytest.approx(2 / 3)
    assert informativeness_ceiling(3, ties=True) == pytest.approx(1.0)


@pytest.mark.parametrize("n_models", [9, 12])
def test_three_level_transitive_verdicts_never_exceed_the_bound(n_models):
    # Every verdict follows the strength order: no response noise, a tiny judge noise, a tie band
    # far narrower than any strength gap, win/tie/loss only, one order per pair.
    judge = JudgeSpec("transitive", noise=1e-9, tie_width=1e-9, levels=3)
    sim = simulate(SimulationSpec(n_models=n_models, n_instructions=40, judges=(judge,),
                                  both_orders=False, response_noise=0.0, seed=11))
    store = _store(sim.verdicts)
    sweep = anchor_sweep(store.counts())
    store.close()
    m = n_models - 1
    bound = (m // 2) * (m - m // 2) / comb(m, 2)
    assert sweep.ceiling_3_level == pytest.approx(bound)
    t = sweep.table
    assert (t["informativeness"] <= bound + 1e-12).all()
    # Exact truth: the anchor at position p splits the others into p - 1 above, m - p + 1 below.
    expected = (t["position"] - 1) * (m - t["position"] + 1) / comb(m, 2)
    np.testing.assert_allclose(t["informativeness"], expected, atol=1e-12)
    assert t["informativeness"].max() == pytest.approx(bound)  # reached by a middle anchor
    # The anchor ranks the others in two tied blocks: tau-b = √(discordant-free pairs / all
    # pairs) = √I; an extreme anchor ties every model, so its tau-b is undefined.
    middle = t["position"].between(2, n_models - 1)
    np.testing.assert_allclose(t.loc[middle, "tau_quadratic"], np.sqrt(expected[middle]))
    assert t.loc[~middle, "tau_quadratic"].isna().all()


def test_inverted_u_and_informativeness_peak_averaged_over_seeds():
    taus, infos = [], []
    for seed in range(4):
        sim = simulate(SimulationSpec(n_models=12, n_instructions=150, both_orders=False, seed=seed))
        store = _store(sim.verdicts)
        t = anchor_sweep(store.counts()).table.sort_values("position")
        store.close()
        taus.append(t["tau_quadratic"].to_numpy())
        infos.append(t["informativeness"].to_numpy())
    tau, info = np.mean(taus, axis=0), np.mean(infos, axis=0)
    extremes = tau[[0, -1]].mean()
    middle = tau[3:9].mean()
    assert extremes < middle - 0.05
    assert tau[0] < middle and tau[-1] < middle
    assert 2 <= int(np.argmax(info)) <= 9  # a middle anchor (positions 3..10 of 12)
    assert info[[0, -1]].max() < info[3:9].min()


# -- tau against an independent computation from the rows ---------------------------------------
def test_tau_quadratic_and_human_from_rows(sim12):
    sim, counts = sim12
    sweep = anchor_sweep(counts, human_ranking=sim.human_ranking)
    rows = sim.verdicts.dropna(subset=["verdict"])
    rows = rows.assign(v=rows["verdict"].astype(int))
    # Bradley–Terry on the pooled wins, built from the rows with pandas.
    models = list(counts.models)
    idx = {m: k for k, m in enumerate(models)}
    wins = np.zeros((len(models), len(models)))
    for a, b, v in zip(rows["model_a"], rows["model_b"], rows["v"], strict=True):
        score = 1.0 if v > 0 else 0.5 if v == 0 else 0.0
        wins[idx[a], idx[b]] += score
        wins[idx[b], idx[a]] += 1.0 - score
    theta, _ = fit_bradley_terry(wins)
    human = sim.human_ranking.set_index("model")["score"]
    for anchor in ("sim-alder", "sim-fir", models[-1]):
        a = idx[anchor]
        others = [m for m in models if m != anchor]
        rate = [wins[idx[m], a] / (wins[idx[m], a] + wins[a, idx[m]]) for m in others]
        want_q = stats.kendalltau(rate, [theta[idx[m]] for m in others]).statistic
        want_h = stats.kendalltau(rate, [human[m] for m in others]).statistic
        row = sweep.table.set_index("anchor").loc[anchor]
        assert row["tau_quadratic"] == pytest.approx(want_q)
        assert row["tau_human"] == pytest.approx(want_h)
    assert sweep.quadratic_tau_human == pytest.approx(
        stats.kendalltau(theta, [human[m] for m in models]).statistic)


def test_fit_r2_matches_scipy(sim12):
    _, counts = sim12
    sweep = anchor_sweep(counts)
    fit = stats.linregress(sweep.table["informativeness"], sweep.table["tau_quadratic"])
    assert sweep.fit_r2 == pytest.approx(fit.rvalue ** 2)
    assert sweep.fit_slope == pytest.approx(fit.slope)


def test_tau_a_option_and_recommended(sim12):
    _, counts = sim12
    a = anchor_sweep(counts, tau="a")
    b = anchor_sweep(counts, tau="b")
    assert (a.table["tau_quadratic"] <= b.table["tau_quadratic"] + 1e-12).all()
    best = b.table.sort_values("informativeness", ascending=False).iloc[0]["anchor"]
    assert b.recommended == best
    d = b.as_dict()
    assert d["tau"] == "tau-b" and len(d["anchors"]) == 12


def test_anchor_ranking_explorer(sim12):
    _, counts = sim12
    sweep = anchor_sweep(counts)
    r = anchor_ranking(counts, "sim-cedar")
    row = sweep.table.set_index("anchor").loc["sim-cedar"]
    assert r.tau_quadratic == pytest.approx(row["tau_quadratic"])
    assert r.informativeness == pytest.approx(row["informativeness"])
    assert len(r.table) == 11 and "sim-cedar" not in set(r.table["model"])
    t = r.table
    assert (t["rank_shift"] == t["quadratic_rank"] - t["anchor_rank"]).all()
    assert r.design_calls_anchor == 11 and r.design_calls_all_pairs == comb(12, 2)
    assert r.calls_anchor == 11 * 150


def test_win_rate_distribution_counts_wins(sim12):
    sim, counts = sim12
    anchor = "sim-alder"  # the strongest model
    d = win_rate_distribution(counts, anchor)
    assert d.histogram["instructions"].sum() == 150
    rows = sim.verdicts.dropna(subset=["verdict"])
    rows = rows[(rows["model_a"] == anchor) | (rows["model_b"] == anchor)]
    view = np.where(rows["model_a"] == anchor, -rows["verdict"].astype(int), rows["verdict"].astype(int))
    frame = pd.DataFrame({"i": rows["instruction_id"].to_numpy(), "v": view})
    beating = frame.assign(w=frame["v"] > 0).groupby("i")["w"].sum()
    all_lost = frame.assign(lost=frame["v"] < 0).groupby("i")["lost"].all()
    got = d.per_instruction.set_index("instruction_id")["models_beating_anchor"]
    pd.testing.assert_series_equal(got.sort_index(), beating.sort_index().astype(got.dtype),
                                   check_names=False, check_index_type=False)
    assert d.anchor_beats_all == int(all_lost.sum())
    assert d.histogram.iloc[0]["instructions"] > d.histogram.iloc[-1]["instructions"]
    assert f"beats every model on {d.anchor_beats_all:,} of 150" in d.sentence


# -- anchor-only tables -----------------------------------------------------------------------
def test_anchor_only_demo():
    store = _store(read_verdicts(ROOT / "data" / "demo_anchor_only.csv.gz").frame)
    counts = store.counts()
    store.close()
    sweep = anchor_sweep(counts)
    assert sweep.design == "anchor-only"
    assert list(sweep.table["anchor"]) == ["sim-birch"]
    assert np.isnan(sweep.table["tau_quadratic"].iloc[0])
    assert 0 < sweep.table["informativeness"].iloc[0] < 1
    assert any("all-pairs" in n for n in sweep.notes)
    assert win_rate_distribution(counts, "sim-birch").n_competitors == 15
    assert len(anchor_ranking(counts, "sim-birch").table) == 15
    with pytest.raises(NeedsAllPairs, match="all-pairs"):
        sample_size_sweep(counts, reference="quadratic")
    with pytest.raises(NeedsAllPairs):
        anchor_count_sweep(counts)
    with pytest.raises(NeedsAllPairs):
        pilot_screening(counts)


def test_anchor_only_real_alpacaeval():
    path = shared_path("data", "real", "alpacaeval2_weighted", "alpacaeval2_weighted.csv")
    table = read_verdicts(path)
    store = _store(table.frame)
    counts = store.counts()
    store.close()
    sweep = anchor_sweep(counts)
    assert sweep.design == "anchor-only"
    assert list(sweep.table["anchor"]) == ["gpt4_1106_preview"]
    info = sweep.table["informativeness"].iloc[0]
    assert 0 < info < 1 and np.isnan(sweep.table["tau_quadratic"].iloc[0])
    # The anchor's ranking: win rate against the anchor, computed from the rows.
    rows = table.frame.dropna(subset=["verdict"])
    rows = rows[rows["model_a"] != rows["model_b"]]
    anchor = "gpt4_1106_preview"
    model_view = np.where(rows["model_a"] == anchor, -rows["verdict"].astype(int),
                          rows["verdict"].astype(int))
    model = np.where(rows["model_a"] == anchor, rows["model_b"], rows["model_a"])
    score = pd.Series(np.where(model_view > 0, 1.0, np.where(model_view == 0, 0.5, 0.0)))
    want = score.groupby(model).mean()
    got = anchor_ranking(counts, anchor).table.set_index("model")["win_rate"]
    pd.testing.assert_series_equal(got.sort_index(), want.sort_index(), check_names=False)
    d = win_rate_distribution(counts, anchor)
    assert d.n_instructions == 805


# -- sweeps -----------------------------------------------------------------------------------
def test_sample_size_sweep_at_full_size_reproduces_the_full_data(sim12):
    sim, counts = sim12
    seen = []
    result = sample_size_sweep(counts, sizes=(40, 150), repetitions=5, reference="quadratic",
                               progress=lambda f, t: seen.append(f))
    assert seen[-1] == 1.0
    full = result.runs[result.runs["size"] == 150]
    assert np.allclose(full.loc[full["ranking"] == "quadratic", "tau"], 1.0)
    sweep = anchor_sweep(counts)
    for anchor, tau in zip(sweep.table["anchor"], sweep.table["tau_quadratic"], strict=True):
        assert np.allclose(full.loc[full["ranking"] == anchor, "tau"], tau)
    summary = result.summary
    assert set(summary["ranking"]) == {"quadratic", "mean over anchors", *counts.models}
    assert (summary["runs"] == 5).all()
    human = sample_size_sweep(counts, sizes=(150,), repetitions=2, human_ranking=sim.human_ranking)
    q = human.runs[human.runs["ranking"] == "quadratic"]["tau"]
    assert np.allclose(q, sweep.quadratic_tau_human if np.isfinite(sweep.quadratic_tau_human)
                       else anchor_sweep(counts, human_ranking=sim.human_ranking).quadratic_tau_human)
    with pytest.raises(ValueError, match="human ranking"):
        sample_size_sweep(counts, reference="human")


def test_anchor_count_sweep_reaches_one_with_every_anchor(sim12):
    _, counts = sim12
    result = anchor_count_sweep(counts, permutations=6, seed=2)
    last = result.runs[result.runs["n_anchors"] == 12]["tau_all_models"]
    assert np.allclose(last, 1.0)
    s = result.summary.set_index("n_anchors")["mean"]
    assert s.index.max() == 12 - 3  # tau over the non-anchors needs three of them
    assert s.loc[9] >= s.loc[1]
    assert len(result.runs) == 6 * 12


# -- pilot screening --------------------------------------------------------------------------
def test_pilot_on_every_instruction_equals_the_full_data(sim12):
    _, counts = sim12
    pilot = pilot_screening(counts, k=150, repetitions=3)
    np.testing.assert_allclose(pilot.table["pilot_mean"], pilot.table["full"])
    assert pilot.pearson_r == pytest.approx(1.0)
    sweep = anchor_sweep(counts)
    merged = pilot.table.merge(sweep.table, on="anchor")
    np.testing.assert_allclose(merged["full"], merged["informativeness"])
    assert pilot.recommended == sweep.recommended


def test_pilot_with_ten_instructions_flags_the_extremes(sim12):
    _, counts = sim12
    pilot = pilot_screening(counts, k=10, repetitions=30, seed=1)
    assert pilot.pearson_r > 0.6
    assert min(pilot.extremes.values()) >= 0.5
    assert pilot.pilot_calls == 10 * comb(12, 2)
    small = pilot_screening(counts, k=10, n_models=5, repetitions=10, seed=1)
    assert small.n_models == 5 and np.isfinite(small.pearson_r_reps).any()
    with pytest.raises(ValueError):
        pilot_screening(counts, n_models=2)


# -- anchor vs judge --------------------------------------------------------------------------
def test_anchor_vs_judge_table():
    sim = simulate(SimulationSpec(n_models=8, n_instructions=80, both_orders=False, seed=5,
                                  judges=(JudgeSpec("j1"), JudgeSpec("j2", noise=1.5))))
    store = _store(sim.verdicts)
    sweeps = {j: anchor_sweep(store.counts(judge=j), human_ranking=sim.human_ranking)
              for j in store.judges()}
    store.close()
    effect = anchor_vs_judge(sweeps)
    for _, row in effect.table.iterrows():
        t = sweeps[row["judge"]].table
        assert row["best_tau_quadratic"] == t["tau_quadratic"].max()
        assert row["gap_quadratic"] == pytest.approx(t["tau_quadratic"].max() - t["tau_quadratic"].min())
        assert row["human_range"] == pytest.approx(t["tau_human"].max() - t["tau_human"].min())
    q = [s.quadratic_tau_human for s in sweeps.values()]
    assert effect.judge_spread == pytest.approx(max(q) - min(q))


# -- planner ----------------------------------------------------------------------------------
def test_planner_follows_the_decision_tree_and_the_paper_numbers():
    plan = plan_evaluation(22, informativeness=0.45, anchor="o3", n_instructions=750)
    assert plan.recommendation == "chosen anchor"
    assert plan.discordant == 617
    row = plan.options.set_index("design").loc["chosen anchor"]
    assert row["instructions_needed"] == 1372  # 617 / 0.45 (seed 000 §4.3)
    assert row["calls_per_instruction"] == 21 and row["calls_planned"] == 21 * 750
    assert plan.options.set_index("design").loc["all pairs", "calls_per_instruction"] == 231
    assert "informativeness 45.0%" in plan.sentence and "o3" in plan.sentence
    assert any("1,372" in w for w in plan.warnings)  # 750 < 1,372
    assert plan_evaluation(22, informativeness=0.54).options.set_index("design").loc[
        "chosen anchor", "instructions_needed"] == 1143
    assert plan_evaluation(3).recommendation == "all pairs"
    assert plan_evaluation(8, natural_anchor=True).recommendation == "natural anchor"
    assert plan_evaluation(8, full_ranking=False, pairs_of_interest=3).recommendation == "pairs of interest"
    rich = plan_evaluation(8, budget=10**9, informativeness=0.5)
    assert rich.recommendation == "all pairs"
    poor = plan_evaluation(8, budget=15_000, informativeness=0.5)
    assert poor.recommendation == "chosen anchor"  # all pairs: 28 × 617 = 17,276 > 15,000
    assert poor.options.set_index("design").loc["chosen anchor", "calls_needed"] == 7 * 1234
    assert not poor.warnings  # 7 × 1,234 = 8,638 calls fit the budget
    both = plan_evaluation(8, orders=2, informativeness=0.5)
    assert both.options.set_index("design").loc["chosen anchor", "calls_per_instruction"] == 14
    plus10 = plan_evaluation(22, informativeness=0.45, edge=0.10)
    assert plus10.options.set_index("design").loc["chosen anchor", "instructions_needed"] == 340


def test_decisive_rate_by_hand():
    counts = _counts(MODELS, [(0, "m1", "anc", 1), (0, "m2", "anc", 0), (0, "m3", "anc", -2),
                              (0, "m1", "m2", 0)])
    assert decisive_rate(counts) == pytest.approx(0.5)


def test_demo_human_ranking_is_used():
    store = _store(read_verdicts(ROOT / "data" / "demo_all_pairs.parquet").frame)
    human = read_human_ranking(ROOT / "data" / "demo_human_ranking.csv")
    sweep = anchor_sweep(store.counts(judge="sim-judge-steady"), human_ranking=human)
    store.close()
    assert sweep.human_models_matched == 20
    assert sweep.table["tau_human"].notna().all()


def test_a_model_that_never_loses_is_explained():
    calls = [(i, a, b, v) for i in range(3) for a, b, v in
             [("m1", "anc", 2), ("m1", "m2", 1), ("m1", "m3", 1), ("anc", "m2", 1),
              ("m2", "m3", -1), ("anc", "m3", 0)]]
    sweep = anchor_sweep(_counts(MODELS, calls, 3))
    assert any("m1 lost no battle" in n for n in sweep.notes)
    assert sweep.quadratic.iloc[0]["model"] == "m1"
    assert np.isfinite(sweep.table["quadratic_rating"]).all()
