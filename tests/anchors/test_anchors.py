"""evalcore.anchors against hand-worked cases, scipy, and simulations with a known truth."""

from __future__ import annotations

import json
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
    starting_anchor,
    win_rate_distribution,
)
from evalcore.errors import EvalcoreDeprecationWarning
from evalcore.ingest.files import read_human_ranking
from evalcore.ranking import fit_bradley_terry
from evalcore.schema import LEVELS
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictCounts, VerdictStore, read_verdicts
from tests.conftest import ROOT, shared_path
from tests.frames import chain_counts


def _counts(models, calls, n_instructions=1):
    """VerdictCounts from (instruction, slot-A model, slot-B model, verdict) tuples."""
    c = np.zeros((n_instructions, len(models), len(models), len(LEVELS)), dtype=np.int32)
    for i, a, b, v in calls:
        c[i, models.index(a), models.index(b), LEVELS.index(v)] += 1
    return VerdictCounts.from_dense(
        models=tuple(models),
        instructions=tuple(f"q{i}" for i in range(n_instructions)),
        judge="hand",
        counts=c,
    )


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
        (0, "m1", "anc", 1),
        (0, "anc", "m2", 1),
        (0, "m3", "anc", 0),
        # instruction 1: m1 +2, m2 +1 (anchor in slot A says -1), m3 +2: 2 of 3 differ
        (1, "m1", "anc", 2),
        (1, "anc", "m2", -1),
        (1, "anc", "m3", -2),
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
        (0, "m1", "anc", 1),
        (0, "anc", "m1", 0),  # m1: +1 and 0 -> 1/2
        (0, "m2", "anc", 1),
        (0, "anc", "m2", -1),  # m2: +1 and +1 -> 1
        (0, "m3", "anc", 0),
        (0, "anc", "m3", -1),  # m3: 0 and +1 -> 1/2, equal to m1
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
    sim = simulate(
        SimulationSpec(
            n_models=n_models,
            n_instructions=40,
            judges=(judge,),
            both_orders=False,
            response_noise=0.0,
            seed=11,
        )
    )
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
    np.testing.assert_allclose(t.loc[middle, "tau_all_pairs"], np.sqrt(expected[middle]))
    assert t.loc[~middle, "tau_all_pairs"].isna().all()


def test_inverted_u_and_informativeness_peak_averaged_over_seeds():
    taus, infos = [], []
    for seed in range(4):
        sim = simulate(SimulationSpec(n_models=12, n_instructions=150, both_orders=False, seed=seed))
        store = _store(sim.verdicts)
        t = anchor_sweep(store.counts()).table.sort_values("position")
        store.close()
        taus.append(t["tau_all_pairs"].to_numpy())
        infos.append(t["informativeness"].to_numpy())
    tau, info = np.mean(taus, axis=0), np.mean(infos, axis=0)
    extremes = tau[[0, -1]].mean()
    middle = tau[3:9].mean()
    assert extremes < middle - 0.05
    assert tau[0] < middle and tau[-1] < middle
    assert 2 <= int(np.argmax(info)) <= 9  # a middle anchor (positions 3..10 of 12)
    assert info[[0, -1]].max() < info[3:9].min()


# -- tau against an independent computation from the rows ---------------------------------------
def test_tau_all_pairs_and_human_from_rows(sim12):
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
        assert row["tau_all_pairs"] == pytest.approx(want_q)
        assert row["tau_human"] == pytest.approx(want_h)
    assert sweep.all_pairs_tau_human == pytest.approx(
        stats.kendalltau(theta, [human[m] for m in models]).statistic
    )


def test_fit_r2_matches_scipy(sim12):
    _, counts = sim12
    sweep = anchor_sweep(counts)
    fit = stats.linregress(sweep.table["informativeness"], sweep.table["tau_all_pairs"])
    assert sweep.fit_r2 == pytest.approx(fit.rvalue**2)
    assert sweep.fit_slope == pytest.approx(fit.slope)


def test_tau_a_option_and_recommended(sim12):
    _, counts = sim12
    a = anchor_sweep(counts, tau="a")
    b = anchor_sweep(counts, tau="b")
    assert (a.table["tau_all_pairs"] <= b.table["tau_all_pairs"] + 1e-12).all()
    best = b.table.sort_values("informativeness", ascending=False).iloc[0]["anchor"]
    assert b.recommended == best
    d = b.as_dict()
    assert d["tau"] == "tau-b" and len(d["anchors"]) == 12


def test_starting_anchor_is_the_tables_own_else_the_most_informative_else_the_middle(sim12):
    _, counts = sim12
    sweep = anchor_sweep(counts)
    ranked = sorted(counts.models)
    # the sweep's most informative anchor, read by hand from its table
    best = sweep.table.sort_values("informativeness", ascending=False).iloc[0]["anchor"]
    assert starting_anchor(ranked, sweep=lambda: sweep) == best

    def refused():
        raise ValueError("one battle per prompt: no anchor to assess")

    def never():
        raise AssertionError("the sweep is not needed when the table names its anchor")

    # an anchor-only table's own anchor wins, without computing the sweep
    assert starting_anchor(ranked, fixed=ranked[-1], sweep=never) == ranked[-1]
    # no anchor can be assessed, or the sweep's anchor is not ranked: the middle-ranked model
    five = ["m1", "m2", "m3", "m4", "m5"]
    assert starting_anchor(five, sweep=refused) == "m3"
    assert starting_anchor(five, fixed="elsewhere", sweep=lambda: sweep) == "m3"
    assert starting_anchor(["a", "b"]) == "b"


def test_anchor_ranking_explorer(sim12):
    _, counts = sim12
    sweep = anchor_sweep(counts)
    r = anchor_ranking(counts, "sim-cedar")
    row = sweep.table.set_index("anchor").loc["sim-cedar"]
    assert r.tau_all_pairs == pytest.approx(row["tau_all_pairs"])
    assert r.informativeness == pytest.approx(row["informativeness"])
    assert len(r.table) == 11 and "sim-cedar" not in set(r.table["model"])
    t = r.table
    assert (t["rank_shift"] == t["all_pairs_rank"] - t["anchor_rank"]).all()
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
    pd.testing.assert_series_equal(
        got.sort_index(), beating.sort_index().astype(got.dtype), check_names=False, check_index_type=False
    )
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
    assert np.isnan(sweep.table["tau_all_pairs"].iloc[0])
    assert 0 < sweep.table["informativeness"].iloc[0] < 1
    assert any("all-pairs" in n for n in sweep.notes)
    assert win_rate_distribution(counts, "sim-birch").n_competitors == 15
    assert len(anchor_ranking(counts, "sim-birch").table) == 15
    with pytest.raises(NeedsAllPairs, match="all-pairs"):
        sample_size_sweep(counts, reference="all_pairs")
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
    assert 0 < info < 1 and np.isnan(sweep.table["tau_all_pairs"].iloc[0])
    # The anchor's ranking: win rate against the anchor, computed from the rows.
    rows = table.frame.dropna(subset=["verdict"])
    rows = rows[rows["model_a"] != rows["model_b"]]
    anchor = "gpt4_1106_preview"
    model_view = np.where(
        rows["model_a"] == anchor, -rows["verdict"].astype(int), rows["verdict"].astype(int)
    )
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
    result = sample_size_sweep(
        counts, sizes=(40, 150), repetitions=5, reference="all_pairs", progress=lambda f, t: seen.append(f)
    )
    assert seen[-1] == 1.0
    full = result.runs[result.runs["size"] == 150]
    assert np.allclose(full.loc[full["ranking"] == "all_pairs", "tau"], 1.0)
    sweep = anchor_sweep(counts)
    for anchor, tau in zip(sweep.table["anchor"], sweep.table["tau_all_pairs"], strict=True):
        assert np.allclose(full.loc[full["ranking"] == anchor, "tau"], tau)
    summary = result.summary
    assert set(summary["ranking"]) == {"all_pairs", "mean over anchors", *counts.models}
    assert (summary["runs"] == 5).all()
    human = sample_size_sweep(counts, sizes=(150,), repetitions=2, human_ranking=sim.human_ranking)
    q = human.runs[human.runs["ranking"] == "all_pairs"]["tau"]
    assert np.allclose(
        q,
        sweep.all_pairs_tau_human
        if np.isfinite(sweep.all_pairs_tau_human)
        else anchor_sweep(counts, human_ranking=sim.human_ranking).all_pairs_tau_human,
    )
    with pytest.raises(ValueError, match="human ranking"):
        sample_size_sweep(counts, reference="human")


def test_the_names_before_0_3_still_work_with_a_warning(sim12):
    """The all-pairs ranking's old names ("quadratic") give the same numbers and warn once each."""
    sim, counts = sim12
    sweep = anchor_sweep(counts, human_ranking=sim.human_ranking)
    assert np.isfinite(sweep.all_pairs_tau_human)
    with pytest.warns(EvalcoreDeprecationWarning, match=r"AnchorSweep\.quadratic is deprecated.*all_pairs"):
        assert sweep.quadratic is sweep.all_pairs
    with pytest.warns(EvalcoreDeprecationWarning, match="all_pairs_tau_human"):
        assert sweep.quadratic_tau_human == sweep.all_pairs_tau_human
    ranking = anchor_ranking(counts, sweep.recommended)
    with pytest.warns(EvalcoreDeprecationWarning, match="tau_all_pairs"):
        assert ranking.tau_quadratic == ranking.tau_all_pairs
    new = sample_size_sweep(counts, sizes=(40,), repetitions=3, reference="all_pairs")
    with pytest.warns(EvalcoreDeprecationWarning, match="removed in evalcore 0.4"):
        old = sample_size_sweep(counts, sizes=(40,), repetitions=3, reference="quadratic")
    pd.testing.assert_frame_equal(old.runs, new.runs)
    assert "quadratic" not in json.dumps(sweep.as_dict(), default=str)


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
    sim = simulate(
        SimulationSpec(
            n_models=8,
            n_instructions=80,
            both_orders=False,
            seed=5,
            judges=(JudgeSpec("j1"), JudgeSpec("j2", noise=1.5)),
        )
    )
    store = _store(sim.verdicts)
    sweeps = {j: anchor_sweep(store.counts(judge=j), human_ranking=sim.human_ranking) for j in store.judges()}
    store.close()
    effect = anchor_vs_judge(sweeps)
    for _, row in effect.table.iterrows():
        t = sweeps[row["judge"]].table
        assert row["best_tau_all_pairs"] == t["tau_all_pairs"].max()
        assert row["gap_all_pairs"] == pytest.approx(t["tau_all_pairs"].max() - t["tau_all_pairs"].min())
        assert row["human_range"] == pytest.approx(t["tau_human"].max() - t["tau_human"].min())
    q = [s.all_pairs_tau_human for s in sweeps.values()]
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
    assert (
        plan_evaluation(22, informativeness=0.54)
        .options.set_index("design")
        .loc["chosen anchor", "instructions_needed"]
        == 1143
    )
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
    counts = _counts(
        MODELS, [(0, "m1", "anc", 1), (0, "m2", "anc", 0), (0, "m3", "anc", -2), (0, "m1", "m2", 0)]
    )
    assert decisive_rate(counts) == pytest.approx(0.5)


def test_demo_human_ranking_is_used(demo_store):
    human = read_human_ranking(ROOT / "data" / "demo_human_ranking.csv")
    sweep = anchor_sweep(demo_store.counts(judge="sim-judge-steady"), human_ranking=human)
    assert sweep.human_models_matched == 20
    assert sweep.table["tau_human"].notna().all()


def test_a_model_that_never_loses_is_explained():
    calls = [
        (i, a, b, v)
        for i in range(3)
        for a, b, v in [
            ("m1", "anc", 2),
            ("m1", "m2", 1),
            ("m1", "m3", 1),
            ("anc", "m2", 1),
            ("m2", "m3", -1),
            ("anc", "m3", 0),
        ]
    ]
    sweep = anchor_sweep(_counts(MODELS, calls, 3))
    assert any("m1 lost no battle" in n for n in sweep.notes)
    assert sweep.all_pairs.iloc[0]["model"] == "m1"
    assert np.isfinite(sweep.table["all_pairs_rating"]).all()


# -- sparse counts on real shapes -------------------------------------------------------------
from evalcore.anchors import anchor_stability  # noqa: E402
from evalcore.errors import DesignError, UsageError  # noqa: E402
from evalcore.stats.against import disagreements_per_instruction, verdicts_against  # noqa: E402


@pytest.fixture
def no_dense(monkeypatch):
    """Fail any analysis that builds the dense instructions × models × models tensor."""

    def boom(self, **_):
        raise AssertionError("a dense (I, M, M, L) tensor was built")

    monkeypatch.setattr(VerdictCounts, "dense", boom)


def _random_counts(seed: int, n_models: int = 5, n_inst: int = 12) -> VerdictCounts:
    """A random small table: some cells missing, some in both orders, some repeated calls."""
    rng = np.random.default_rng(seed)
    c = np.zeros((n_inst, n_models, n_models, len(LEVELS)), dtype=np.int32)
    for i in range(n_inst):
        for a in range(n_models):
            for b in range(n_models):
                if a != b and rng.random() < 0.45:
                    for _ in range(rng.integers(1, 3)):
                        c[i, a, b, rng.integers(len(LEVELS))] += 1
    names = tuple(f"m{k}" for k in range(n_models))
    return VerdictCounts.from_dense(
        models=names, instructions=tuple(f"q{i}" for i in range(n_inst)), judge="r", counts=c
    )


def _old_dense_informativeness(counts: VerdictCounts, anchor: int, per_order: bool) -> float:
    """The old dense computation, written out: v(i, m) from the (I, M, M, L) tensor."""
    c = counts.dense().astype(np.int64)
    lv = np.asarray(LEVELS)
    first_t, first_n = c[:, :, anchor] @ lv, c[:, :, anchor].sum(-1)  # m in slot A
    second_t, second_n = -(c[:, anchor, :] @ lv), c[:, anchor, :].sum(-1)  # m in slot B
    orders = (
        [(first_t, first_n, second_t, second_n), (second_t, second_n, first_t, first_n)]
        if per_order
        else [(first_t + second_t, first_n + second_n, None, None)]
    )
    differ = pairs = 0
    for t, n, t_other, n_other in orders:
        if t_other is not None:  # a model judged in the other order only keeps that verdict
            t = np.where(n > 0, t, t_other)
            n = np.where(n > 0, n, n_other)
        for i in range(c.shape[0]):
            ms = [m for m in range(c.shape[1]) if m != anchor and n[i, m] > 0]
            for x in range(len(ms)):
                for y in range(x + 1, len(ms)):
                    a, b = ms[x], ms[y]
                    pairs += 1
                    differ += t[i, a] * n[i, b] != t[i, b] * n[i, a]
    return differ / pairs if pairs else float("nan")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sparse_results_equal_the_old_dense_computation(seed):
    counts = _random_counts(seed)
    against = verdicts_against(counts)
    dense = counts.dense().astype(np.float64)
    for x in range(counts.n_models):
        for per_order in (True, False):
            d, p = disagreements_per_instruction(against.of(x), per_order=per_order)
            got = d.sum() / p.sum() if p.sum() else float("nan")
            assert got == pytest.approx(_old_dense_informativeness(counts, x, per_order), nan_ok=True)
    sweep = anchor_sweep(counts)
    # Win rates and tau from the dense per-instruction wins, as the old code computed them.
    score = np.array([0.0, 0.0, 0.5, 1.0, 1.0])
    wins = (dense @ score + np.swapaxes(dense @ (1 - score), 1, 2)).sum(axis=0)
    for _, row in sweep.table.iterrows():
        a = counts.index(row["anchor"])
        rank = anchor_ranking(counts, row["anchor"])
        for _, r in rank.table.iterrows():
            m = counts.index(r["model"])
            assert r["win_rate"] == pytest.approx(wins[m, a] / (wins[m, a] + wins[a, m]))
    for x in sweep.table["anchor"]:
        try:
            dist = win_rate_distribution(counts, x)
        except DesignError:
            continue
        xi = counts.index(x)
        lv = np.asarray(LEVELS)
        t = dense[:, :, xi] @ lv - dense[:, xi, :] @ lv
        n = dense[:, :, xi].sum(-1) + dense[:, xi, :].sum(-1)
        beating = ((t > 0) & (n > 0)).sum(axis=1)[(n > 0).any(axis=1)]
        assert dist.per_instruction["models_beating_anchor"].tolist() == beating.tolist()


def _arena(n_models: int = 30, n_battles: int = 4000, seed: int = 0) -> VerdictCounts:
    """Arena shape: every battle its own prompt, a random pair of models each time."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    a = rng.integers(n_models, size=n_battles)
    b = (a + rng.integers(1, n_models, size=n_battles)) % n_models
    y = strength[a] - strength[b] + rng.logistic(size=n_battles)
    level = np.digitize(y, [-2.0, -0.3, 0.3, 2.0])
    n = np.zeros((n_battles, len(LEVELS)), dtype=np.int32)
    n[np.arange(n_battles), level] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"m{k:02d}" for k in range(n_models)),
        instructions=tuple(f"p{i}" for i in range(n_battles)),
        judge="arena",
        inst=np.arange(n_battles),
        a=a,
        b=b,
        n=n,
    )


def test_arena_shape_says_what_does_not_apply(no_dense):
    counts = _arena()
    sweep = anchor_sweep(counts)
    assert sweep.table["informativeness"].isna().all()
    assert any("one battle per prompt" in n for n in sweep.notes)
    assert sweep.table["tau_all_pairs"].notna().any()  # win rates against anchors still rank
    with pytest.raises(DesignError, match="arena"):
        anchor_informativeness(counts, "m00")
    with pytest.raises(DesignError, match="several models"):
        win_rate_distribution(counts, "m00")
    ranking = anchor_ranking(counts, "m00")
    assert np.isnan(ranking.informativeness) and len(ranking.table) > 0
    stab = anchor_stability(counts, rounds=20)
    assert stab.recommended is None and any("cannot be resampled" in n for n in stab.notes)
    with pytest.raises(DesignError, match="one battle"):
        pilot_screening(counts)


def test_anchor_only_table_keeps_what_applies(no_dense):
    sim = simulate(SimulationSpec(n_models=9, n_instructions=60, design="anchor", seed=5))
    store = _store(sim.verdicts)
    counts = store.counts()
    sweep = anchor_sweep(counts, human_ranking=sim.human_ranking)
    assert sweep.design == "anchor-only" and len(sweep.table) == 1
    anchor = sweep.table["anchor"].iloc[0]
    assert sweep.recommended == anchor
    row = sweep.table.iloc[0]
    assert 0 < row["informativeness"] <= 1 and np.isfinite(row["tau_human"])
    assert np.isnan(row["tau_all_pairs"])
    assert "needs an all-pairs table" in sweep.needs_all_pairs
    assert sweep.as_dict()["needs_all_pairs"] == sweep.needs_all_pairs
    assert win_rate_distribution(counts, anchor).n_competitors == 8
    for run in (
        lambda: pilot_screening(counts),
        lambda: anchor_count_sweep(counts),
        lambda: sample_size_sweep(counts, reference="all_pairs"),
    ):
        with pytest.raises(DesignError, match="all-pairs"):
            run()
    stab = anchor_stability(counts, rounds=30)
    assert stab.recommended == anchor and stab.recommended_rate == 1.0
    store.close()


def test_tiny_table_with_models_that_never_meet(no_dense):
    calls = [
        (0, "anc", "m1", 1),
        (0, "m2", "m3", -1),
        (1, "anc", "m1", 0),
        (1, "m2", "m3", 2),
        (2, "m1", "anc", -1),
        (2, "m3", "m2", 1),
    ]
    counts = _counts(MODELS, calls, 3)
    sweep = anchor_sweep(counts)
    assert sweep.design == "partial"
    assert sweep.table.empty and sweep.recommended is None  # nobody met two others
    stab = anchor_stability(counts, rounds=10)
    assert stab.recommended is None


def test_arguments_are_validated_first():
    counts = _counts(MODELS, [(0, "m1", "anc", 1), (0, "m2", "anc", -1)])
    with pytest.raises(UsageError, match="rounds must be"):
        anchor_stability(counts, rounds=-5)
    with pytest.raises(UsageError, match="tau must be"):
        anchor_sweep(counts, tau="c")
    with pytest.raises(UsageError, match="n_models must be"):
        plan_evaluation(1)
    with pytest.raises(UsageError, match="orders must be"):
        plan_evaluation(5, orders=3)
    with pytest.raises(UsageError, match="anchor 'nobody'"):
        anchor_ranking(counts, "nobody")
    with pytest.raises(TypeError):
        anchor_sweep(counts, None)  # options are keyword-only


# -- informativeness per order (issue 10, item 4) ---------------------------------------------
def test_informativeness_compares_within_an_order_and_respects_the_ceiling():
    # Truth: 3-level verdicts (win/loss, no ties) decided per call by strength + position noise,
    # in both orders. Each order splits the models into two groups per instruction, so the
    # informativeness of single calls can never pass ⌊M/2⌋⌈M/2⌉ / C(M, 2). Averaging a model's
    # two calls (the old definition) creates a third level out of position noise and passes it.
    rng = np.random.default_rng(7)
    m_other, n_inst = 11, 200
    models = ["anc"] + [f"x{k}" for k in range(m_other)]
    strength = np.linspace(-1, 1, m_other)
    calls = []
    for i in range(n_inst):
        for k in range(m_other):
            for first in (True, False):
                v = 1 if strength[k] + rng.normal(0, 1.0) > 0 else -1  # the model's side
                calls.append((i, models[k + 1], "anc", v) if first else (i, "anc", models[k + 1], -v))
    counts = _counts(models, calls, n_inst)
    ceiling = informativeness_ceiling(m_other)
    new = anchor_informativeness(counts, "anc")
    old = _old_dense_informativeness(counts, 0, per_order=False)
    assert new <= ceiling + 1e-12
    assert old > ceiling + 0.05
    assert new == pytest.approx(_old_dense_informativeness(counts, 0, per_order=True))
    # The planner's total samples follow: fewer informative cases, more instructions needed.
    assert (
        plan_evaluation(12, informativeness=new)
        .options.set_index("design")
        .loc["chosen anchor", "instructions_needed"]
        > plan_evaluation(12, informativeness=old)
        .options.set_index("design")
        .loc["chosen anchor", "instructions_needed"]
    )
    assert anchor_sweep(counts).table.set_index("anchor").loc["anc", "informativeness"] == new


# -- the recommended anchor's uncertainty and the anchor-count sweep (issue 10, item 8) --------
def test_anchor_count_sweep_at_one_anchor_matches_the_per_anchor_table(sim12):
    _, counts = sim12
    sweep = anchor_sweep(counts).table.set_index("anchor")["tau_all_pairs"]
    runs = anchor_count_sweep(counts, permutations=8, seed=1).runs
    first = runs[runs["n_anchors"] == 1]
    for _, row in first.iterrows():
        assert row["tau"] == pytest.approx(sweep.loc[row["first_anchor"]], abs=1e-12)


def test_stability_intervals_cover_the_truth_and_guard_small_samples():
    strengths = tuple(np.linspace(1.5, -1.5, 10))
    big = simulate(
        SimulationSpec(n_models=10, n_instructions=2500, strengths=strengths, both_orders=False, seed=100)
    )
    small = simulate(
        SimulationSpec(n_models=10, n_instructions=200, strengths=strengths, both_orders=False, seed=101)
    )
    truth = anchor_sweep(_store(big.verdicts).counts()).table.set_index("anchor")
    counts = _store(small.verdicts).counts()
    stab = anchor_stability(counts, rounds=300, seed=3)
    t = stab.table.set_index("anchor")
    covered = (t["informativeness_low"] <= truth["informativeness"]) & (
        truth["informativeness"] <= t["informativeness_high"]
    )
    assert covered.sum() >= 9  # 95% intervals for 10 anchors
    assert (t["tau_low"] <= t["tau_all_pairs"]).all() and (t["tau_all_pairs"] <= t["tau_high"]).all()
    assert t["most_informative_rate"].sum() == pytest.approx(1.0)
    # The extremes (strongest, weakest) are never the most informative; a middle anchor is.
    assert t.loc[[truth.index[0], truth.index[-1]], "most_informative_rate"].max() == 0
    assert stab.recommended in truth.sort_values("informativeness").index[-4:]
    est = stab.estimate(stab.recommended)
    assert est.has_interval and est.low <= est.value <= est.high
    # The R² of Fig. 3's line, with an interval, equals the sweep's point value.
    assert stab.fit_r2.value == pytest.approx(anchor_sweep(counts).fit_r2)
    assert stab.fit_r2.low <= stab.fit_r2.value <= stab.fit_r2.high
    few = anchor_stability(counts.subset(instructions=np.arange(8)), rounds=50)
    assert few.recommended is None and any("no anchor is recommended" in n for n in few.notes)


@pytest.mark.parametrize("variant", ["a", "b"])
def test_an_anchor_row_of_few_models_has_the_tau_of_the_whole_row(variant):
    """The sweep computes a row that scores few models on those models alone (a sparse arena's
    anchor met a handful): the same tau as over the whole row, where the unscored models form no
    pair, for rows of every size, with ties, and with models the reference leaves out."""
    from evalcore.anchors.tau import _tau_rows
    from evalcore.stats.kendall import kendall_tau

    rng = np.random.default_rng(4)
    m = 32
    reference = rng.normal(size=m)
    reference[[3, 17]] = np.nan  # models the reference does not rank
    scores = np.round(rng.normal(size=(m + 1, m)), 1)  # rounded: tied scores in a row
    for row in range(m + 1):
        scores[row, rng.permutation(m)[: m - row]] = np.nan  # row r scores r models
    whole = kendall_tau(scores, reference[None, :], variant=variant)
    rows = _tau_rows(scores, reference, variant)
    np.testing.assert_allclose(rows, whole, rtol=0, atol=1e-12, equal_nan=True)
    assert np.isnan(rows[:2]).all() and np.isfinite(rows[12:]).all()  # both paths exercised


def test_a_sweep_of_too_many_models_is_refused_in_words():
    """The sweep holds several anchor-by-model tables (a minute and gigabytes on 10,000 models):
    above :data:`MAX_MODELS` it is refused with the limit, the selection's size and what to do."""
    from evalcore.anchors import tau

    m = tau.MAX_MODELS + 1
    counts = chain_counts(m)
    with pytest.raises(
        UsageError, match=f"grows with the square.*at most {tau.MAX_MODELS:,} models.*has {m:,}"
    ):
        anchor_sweep(counts)
