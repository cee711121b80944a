"""Several judges, one ranking: the judge-aware Bradley–Terry fit, its guard and its comparisons.

Independent numbers: a hand-worked two-model case (closed form), the plain Bradley–Terry fit
(identical judges), simulations with judges of known noise and slot lean (the reliability order),
and built one-sided judges (the guard).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.ranking import leaderboard
from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.ranking.judges import judge_pooling
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.stats.kendall import kendall_tau
from evalcore.store.store import VerdictStore

THREE = (
    JudgeSpec("sharp", noise=0.2),
    JudgeSpec("middling", noise=1.0),
    JudgeSpec("noisy", noise=3.0, slot_bias=0.8),
)


def _counts(frame: pd.DataFrame) -> dict[str, VerdictCounts]:
    store = VerdictStore.from_frame(frame)
    return {j: store.counts(judge=j) for j in store.judges()}


@pytest.fixture(scope="module")
def three_judges():
    sim = simulate(SimulationSpec(n_models=8, n_instructions=80, seed=1, judges=THREE))
    return sim, _counts(sim.verdicts)


def _two_models(x_wins_as_a: int, x_wins_as_b: int, judge: str) -> VerdictCounts:
    """Ten calls with X in slot A and ten with X in slot B, on one instruction, no ties."""
    n = np.zeros((2, 5), dtype=np.int64)
    n[0, 3], n[0, 1] = x_wins_as_a, 10 - x_wins_as_a  # X in slot A: "A better" is level +1
    n[1, 1], n[1, 3] = x_wins_as_b, 10 - x_wins_as_b  # Y in slot A: X wins when slot B wins
    return VerdictCounts.from_cells(
        models=("X", "Y"), instructions=("q1",), judge=judge, inst=[0, 0], a=[0, 1], b=[1, 0], n=n
    )


def test_hand_worked_two_models_two_judges():
    # Without the lean each judge's log-odds for X is s_j·Δ: judge 1 saw 15 of 20 (log 3), judge 2
    # 12 of 20 (log 1.5). With mean s = 1: Δ = (log 3 + log 1.5) / 2, s_j = log-odds_j / Δ.
    res = judge_pooling(
        {"one": _two_models(8, 7, "one"), "two": _two_models(6, 6, "two")}, rounds=0, lean=False
    )
    delta = (math.log(3) + math.log(1.5)) / 2
    w = res.judge_weights
    assert w["one"] == pytest.approx(math.log(3) / delta, abs=1e-7)
    assert w["two"] == pytest.approx(math.log(1.5) / delta, abs=1e-7)
    ratings = dict(zip(res.columns["model"], res.columns["rating"], strict=True))
    assert ratings["X"] == pytest.approx(1000 + ELO_SCALE * delta / 2, abs=1e-5)
    assert ratings["Y"] == pytest.approx(1000 - ELO_SCALE * delta / 2, abs=1e-5)
    # plain pooling: 27 of 40, one log-odds for both judges
    plain = dict(zip(res.columns["model"], res.columns["plain_rating"], strict=True))
    assert plain["X"] - plain["Y"] == pytest.approx(ELO_SCALE * math.log(27 / 13), abs=1e-5)


def test_hand_worked_lean_is_the_slot_log_odds():
    # With the lean, each judge's two cells are fitted exactly: judge "one" gives slot A 8 + 3 of
    # 20 (X as A wins 8, Y as A wins 3): γ = (logit 0.8 + logit 0.3) / 2, its s·Δ the half-difference.
    res = judge_pooling({"one": _two_models(8, 7, "one"), "two": _two_models(6, 6, "two")}, rounds=0)
    lean = {j.judge: j.lean for j in res.judges}
    gamma = (math.log(0.8 / 0.2) + math.log(0.3 / 0.7)) / 2
    assert lean["one"] == pytest.approx(1 / (1 + math.exp(-gamma)), abs=1e-6)
    assert lean["two"] == pytest.approx(0.5, abs=1e-6)  # 6 of 10 in each slot: no lean


def test_identical_judges_give_the_plain_bradley_terry_ratings(three_judges):
    sim, _ = three_judges
    one = sim.verdicts[sim.verdicts["judge"] == "middling"]
    copy = one.assign(judge="copy")
    counts = _counts(pd.concat([one, copy], ignore_index=True))
    plain = leaderboard(counts["middling"], rounds=0)
    by_model = dict(zip(plain.models, plain.ratings, strict=True))
    for lean in (False, True):
        res = judge_pooling(counts, rounds=0, lean=lean)
        assert res.judge_weights == pytest.approx({"middling": 1.0, "copy": 1.0}, abs=1e-8)
        if not lean:  # the lean term moves the ratings slightly (a logistic model is not collapsible)
            got = dict(zip(res.columns["model"], res.columns["rating"], strict=True))
            assert got == pytest.approx(by_model, abs=1e-6)
            assert res.tau_plain == 1.0 and res.moves == ()


def test_recovers_the_known_reliability_order_and_lean(three_judges):
    _, counts = three_judges
    res = judge_pooling(counts, rounds=50, seed=3)
    w = res.judge_weights
    assert w["sharp"] > w["middling"] > w["noisy"] > 0
    assert np.mean(list(w.values())) == pytest.approx(1.0)
    lean = {j.judge: j.lean for j in res.judges}
    assert lean["noisy"] > 0.55 and abs(lean["sharp"] - 0.5) < 0.03
    by = {j.judge: j for j in res.judges}
    assert by["sharp"].weight_low <= by["sharp"].weight <= by["sharp"].weight_high
    assert by["noisy"].weight_high < by["middling"].weight_low  # intervals separate them
    assert (res.columns["ci_low"] <= res.columns["rating"]).all()
    assert (res.columns["rating"] <= res.columns["ci_high"]).all()
    # the pooled ranking follows the true strengths
    truth = dict(zip(three_judges[0].strengths["model"], three_judges[0].strengths["strength"], strict=True))
    got = dict(zip(res.columns["model"], res.columns["rating"], strict=True))
    assert kendall_tau(np.array([got[m] for m in truth]), np.array(list(truth.values()))) >= 0.85


def test_a_judge_that_always_picks_slot_a_is_left_out(three_judges):
    sim, counts = three_judges
    rogue = sim.verdicts[sim.verdicts["judge"] == "sharp"].assign(judge="slot-a", verdict=2)
    with_rogue = _counts(pd.concat([sim.verdicts, rogue], ignore_index=True))
    res = judge_pooling(with_rogue, rounds=0)
    by = {j.judge: j for j in res.judges}
    assert by["slot-a"].status == "left out" and "slot A" in by["slot-a"].reason
    assert by["slot-a"].weight == 0.0
    alone = judge_pooling(counts, rounds=0)
    assert res.columns["rating"] == pytest.approx(alone.columns["rating"], abs=1e-9)
    assert any("slot-a left out" in n for n in res.notes)


def test_a_judge_that_always_picks_one_model_cannot_take_over():
    sim = simulate(SimulationSpec(n_models=8, n_instructions=60, seed=4, judges=THREE[:2]))
    v = sim.verdicts
    worst = str(sim.strengths["model"].iloc[-1])
    # a judge with three times the calls that always picks the worst model, and flips coins elsewhere
    rogue = pd.concat([v[v["judge"] == "sharp"]] * 3, ignore_index=True).assign(judge="fan")
    rng = np.random.default_rng(0)
    coin = rng.choice([-2, 2], len(rogue))
    rogue["verdict"] = np.where(
        rogue["model_a"] == worst, 2, np.where(rogue["model_b"] == worst, -2, coin)
    ).astype("int8")
    res = judge_pooling(_counts(pd.concat([v, rogue], ignore_index=True)), rounds=0)
    by = {j.judge: j for j in res.judges}
    assert by["fan"].weight < 0.1 * by["sharp"].weight
    rank = dict(zip(res.columns["model"], res.columns["rank"], strict=True))
    plain = dict(zip(res.columns["model"], res.columns["plain_rank"], strict=True))
    assert rank[worst] == 8  # weighted: still last
    assert plain[worst] < 8  # equal weights: the fan lifts it
    assert res.moves and res.moves[0][0] == worst


def test_weight_is_bounded_for_a_judge_the_ratings_separate_perfectly(three_judges):
    sim, _ = three_judges
    v = sim.verdicts
    strength = dict(zip(sim.strengths["model"], sim.strengths["strength"], strict=True))
    perfect = v[v["judge"] == "middling"].assign(judge="perfect")
    better = perfect["model_a"].map(strength) > perfect["model_b"].map(strength)
    perfect["verdict"] = np.where(better, 2, -2).astype("int8")
    two = v[v["judge"].isin(["middling", "noisy"])]
    res = judge_pooling(_counts(pd.concat([two, perfect], ignore_index=True)), rounds=0, max_weight=3.0)
    by = {j.judge: j for j in res.judges}
    assert by["perfect"].status == "capped"
    median_others = np.median([by["middling"].weight, by["noisy"].weight])
    assert by["perfect"].weight == pytest.approx(3.0 * median_others, rel=1e-6)
    assert np.isfinite(res.columns["rating"]).all()


def test_one_judge_is_refused_in_words(three_judges):
    _, counts = three_judges
    with pytest.raises(UsageError, match="at least two judges"):
        judge_pooling({"sharp": counts["sharp"]})


def test_as_dict_carries_judge_weights(three_judges):
    _, counts = three_judges
    d = judge_pooling(counts, rounds=20).as_dict()
    assert {w["judge"] for w in d["judge_weights"]} == {"sharp", "middling", "noisy"}
    assert d["models"][0]["rank"] == 1 and len(d["judges"]) == 3 and "pooled_rating" in d["models"][0]


def test_dataset_call_equals_the_function(three_judges):
    from evalcore.dataset import Dataset

    sim, counts = three_judges
    ds = Dataset(VerdictStore.from_frame(sim.verdicts))
    got = ds.judge_pooling(rounds=0)
    assert got.judge_weights == pytest.approx(judge_pooling(counts, rounds=0).judge_weights)
    assert all(j.certified is None for j in got.judges)  # no human labels: nothing beside the weight
    with pytest.raises(UsageError, match="category"):
        ds.judge_pooling(category="nope")


def _undefeated(frame: pd.DataFrame) -> pd.DataFrame:
    """The strongest model wins every call (no finite maximum: the fits use the weak prior)."""
    top = frame["model_a"].max()
    out = frame.copy()
    out.loc[out["model_a"] == top, "verdict"] = 2
    out.loc[out["model_b"] == top, "verdict"] = -2
    return out


def _pooling_shapes() -> dict[str, pd.DataFrame]:
    base = dict(n_models=7, n_instructions=40, judges=THREE)
    all_pairs = simulate(SimulationSpec(**base, seed=11)).verdicts
    anchor = simulate(SimulationSpec(**base, seed=12, design="anchor")).verdicts
    # an arena-like table: one random pair per instruction and judge call, one order only
    arena = simulate(SimulationSpec(**{**base, "n_instructions": 300}, seed=13, both_orders=False)).verdicts
    arena = arena.groupby(["instruction_id", "judge"]).sample(1, random_state=0)
    return {
        "all pairs": all_pairs,
        "anchor-only": anchor,
        "arena": arena,
        "undefeated": _undefeated(all_pairs),
    }


@pytest.mark.parametrize("shape", ["all pairs", "anchor-only", "arena", "undefeated"])
def test_pooled_ranking_is_the_same_with_either_solver(shape):
    # The direct M x M solve of each Newton step (below SPARSE_FROM_MODELS models) against the
    # conjugate gradients over the pairs it replaced there: ratings, intervals and every
    # bootstrap round to 1e-6 Elo, the judges' weights and leans to 1e-9.
    counts = _counts(_pooling_shapes()[shape])
    got = {s: judge_pooling(counts, rounds=40, seed=3, solver=s) for s in ("dense", "sparse")}
    for key in ("rating", "ci_low", "ci_high"):
        np.testing.assert_allclose(
            got["dense"].columns[key], got["sparse"].columns[key], atol=1e-6, rtol=0, err_msg=key
        )
    for dense, sparse in zip(got["dense"].judges, got["sparse"].judges, strict=True):
        for key in ("weight", "weight_low", "weight_high", "lean"):
            assert getattr(dense, key) == pytest.approx(getattr(sparse, key), abs=1e-9, nan_ok=True), key
    np.testing.assert_array_equal(got["dense"].columns["rank"], got["sparse"].columns["rank"])
    assert got["dense"].notes == got["sparse"].notes


def test_weights_are_bounded_by_the_median_of_the_others_hand_worked():
    from evalcore.ranking.judges_fit import bound_weights

    # Weights 10, 1, 2, 30 and -1 (read as 0) of judges with rows, 5 of one without. Judge 0's
    # others are 1, 2, 30, 0 (median 1.5): min(10, 4 x 1.5) = 6; judge 3's are 10, 1, 2, 0
    # (median 1.5): 6; judges 1 and 2 stay below four times their others' medians (6 and 5.5);
    # the judge without rows keeps its 5 and is nobody's "other".
    s = np.array([10.0, 1.0, 2.0, 30.0, 5.0, -1.0])
    present = np.array([True, True, True, True, False, True])
    np.testing.assert_array_equal(bound_weights(s, present, 4.0), np.array([6.0, 1.0, 2.0, 6.0, 5.0, 0.0]))


def test_bootstrap_rounds_are_refits_on_resampled_instructions(three_judges):
    # Independent construction of the bootstrap: each round's table is built row by row, every
    # instruction repeated as often as the round drew it (renamed so copies stay apart), and
    # fitted from scratch. The intervals are the percentiles of those fits; the pooled ranking's
    # intervals (sums from one product per chunk, refits started at the full fit) must equal them.
    from evalcore.stats.bootstrap import bootstrap_weights, percentile_interval

    sim, counts = three_judges
    frame = sim.verdicts
    rounds, seed = 12, 5
    got = judge_pooling(counts, rounds=rounds, seed=seed)
    instructions = sorted(frame["instruction_id"].unique())
    fits = []
    for _, _, w in bootstrap_weights(len(instructions), rounds, seed):
        for wr in w:
            parts = [
                frame[frame["instruction_id"] == x].assign(instruction_id=f"{x}#{copy}")
                for x, times in zip(instructions, wr.astype(int), strict=True)
                for copy in range(times)
            ]
            one = judge_pooling(_counts(pd.concat(parts, ignore_index=True)), rounds=0)
            fits.append(dict(zip(one.columns["model"], one.columns["rating"], strict=True)))
    models = list(got.columns["model"])
    low, high = percentile_interval(np.array([[f[m] for m in models] for f in fits]))
    np.testing.assert_allclose(got.columns["ci_low"], low, atol=1e-4, rtol=0)
    np.testing.assert_allclose(got.columns["ci_high"], high, atol=1e-4, rtol=0)
