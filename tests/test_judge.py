"""The judge's spec sheet: hand-worked cases, a simulated judge with a known truth, real data."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from evalcore.cli.common import _plain
from evalcore.io import read_verdicts
from evalcore.judge import (
    best_marks,
    both_orders_counts,
    both_orders_summary,
    compare_judges,
    coverage,
    judge_sheet,
    order_swap,
    position_stats,
    self_comparison,
)
from evalcore.schema import LEVELS
from evalcore.simulate import JudgeSpec, SimulationSpec, simulate
from evalcore.store import VerdictCounts, VerdictStore

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
ALPACA = SHARED / "data" / "real" / "alpacaeval2_weighted" / "alpacaeval2_weighted.csv"


def _counts(calls: list[tuple[str, str, str, int]]) -> VerdictCounts:
    """A count tensor from (instruction, slot A, slot B, verdict) calls."""
    models = tuple(sorted({c[1] for c in calls} | {c[2] for c in calls}))
    inst = tuple(sorted({c[0] for c in calls}))
    out = np.zeros((len(inst), len(models), len(models), len(LEVELS)), dtype=np.int32)
    for i, a, b, v in calls:
        out[inst.index(i), models.index(a), models.index(b), LEVELS.index(v)] += 1
    return VerdictCounts.from_dense(models=models, instructions=inst, judge="j", counts=out)


# The hand-worked table (verdicts from slot A's point of view):
#   q1: x–y: (x,y) +2, (y,x) −1  → from x's view +2 and +1 → both-orders +1
#       x–z: (x,z) +1, (z,x) +1  → x's view +1 and −1      → tie
#       y–z: (y,z)  0, (z,y) −2  → y's view 0 and +2       → tie
#   q2: x–y: (x,y) −2, (y,x) +2  → x's view −2 and −2      → −2
#       y–z: (y,z) +1 only       → single order, dropped
HAND = [
    ("q1", "x", "y", 2), ("q1", "y", "x", -1),
    ("q1", "x", "z", 1), ("q1", "z", "x", 1),
    ("q1", "y", "z", 0), ("q1", "z", "y", -2),
    ("q2", "x", "y", -2), ("q2", "y", "x", 2),
    ("q2", "y", "z", 1),
]


def test_both_orders_counts_hand_worked():
    c = _counts(HAND)
    bo = both_orders_counts(c)
    x, y, z = (c.index(m) for m in "xyz")
    q1, q2 = 0, 1
    assert bo.counts[q1, x, y, LEVELS.index(1)] == 1
    assert bo.counts[q1, x, z, LEVELS.index(0)] == 1
    assert bo.counts[q1, y, z, LEVELS.index(0)] == 1
    assert bo.counts[q2, x, y, LEVELS.index(-2)] == 1
    assert bo.counts.sum() == 4  # the single-order y–z call on q2 is dropped
    assert bo.counts[:, [y, z, z], [x, x, y]].sum() == 0  # lower index always in slot A
    summary = both_orders_summary(c)
    assert (summary.calls, summary.pairings, summary.unpaired_calls) == (9, 4, 1)


def test_both_orders_three_level_is_seed_rule():
    # A/A → A; A/tie → tie; A/B (disagree) → tie; B/B → B, on every instruction
    calls = [("q1", "x", "y", 1), ("q1", "y", "x", -1),
             ("q2", "x", "y", 1), ("q2", "y", "x", 0),
             ("q3", "x", "y", 1), ("q3", "y", "x", 1),
             ("q4", "x", "y", -1), ("q4", "y", "x", 1)]
    bo = both_orders_counts(_counts(calls))
    got = [LEVELS[int(np.argmax(bo.counts[i, 0, 1]))] for i in range(4)]
    assert got == [1, 0, 0, -1]


def test_repeated_calls_are_paired_in_verdict_order():
    # forward calls {+2, −1}; reverse calls (y in slot A) {−1, +2, −1} = x's view {+1, −2, +1}
    calls = [("q1", "x", "y", 2), ("q1", "x", "y", -1), ("q1", "y", "x", -1),
             ("q1", "y", "x", 2), ("q1", "y", "x", -1)]
    c = _counts(calls)
    bo = both_orders_counts(c)
    # sorted from x's view: (−1, +2) with (−2, +1, +1): (−1, −2) → −1, (+2, +1) → +1; one left
    assert bo.counts[0, 0, 1, LEVELS.index(-1)] == 1
    assert bo.counts[0, 0, 1, LEVELS.index(1)] == 1
    assert bo.counts.sum() == 2
    assert both_orders_summary(c).unpaired_calls == 1


def test_position_stats_hand_worked():
    p = position_stats(_counts(HAND), rounds=0)
    # slot-A wins: +2, +1, +1, +2, +1 = 5; slot-B wins: −1, −2, −2 = 3; one tie; 9 calls
    assert p.position_bias_points.value == pytest.approx(100 * (5 - 3) / 9)
    assert p.tie_rate.value == pytest.approx(1 / 9)
    assert p.pairings == 4 and p.unpaired_calls == 1
    # same outcome from x's view: (+2,+1) yes, (+1,−1) no, (0,+2) no, (−2,−2) yes
    assert p.swap_consistency.value == pytest.approx(0.5)
    assert p.flip_rate.value == pytest.approx(0.5)
    assert p.swap_consistency_exact.value == pytest.approx(0.25)
    assert p.reversal_rate.value == pytest.approx(0.25)
    assert p.both_orders_tie_rate.value == pytest.approx(0.5)


def test_order_swap_hand_worked():
    o = order_swap(_counts(HAND), rounds=0)
    # per pair: x–y b = 0.25 (4 calls), x–z b = 1 (2 calls), y–z b = −0.75 (3 calls)
    assert o.b.value == pytest.approx((4 * 0.25 + 2 * 1.0 + 3 * -0.75) / 9)
    assert o.pairs_both_orders == 3
    row = o.by_anchor.set_index("anchor").loc["x"]
    # opponents of x: y (q = +0.25, b = 0.25, 4 calls) and z (q = 0, b = 1, 2 calls)
    assert row["q"] == pytest.approx(1 / 6)
    assert row["b"] == pytest.approx(0.5)
    assert row["v_fwd"] == pytest.approx((-1 + 2 + 1) / 3)  # opponent in slot A
    assert row["v_rev"] == pytest.approx((2 - 2 + 1) / 3)  # x in slot A
    z = o.by_anchor.set_index("anchor").loc["z"]
    # opponents of z: x (q(x over z) = 0, 2 calls), y (q(y over z) = 1.25, 3 calls)
    assert z["q"] == pytest.approx(3 * 1.25 / 5)


# -- a simulated judge against its analytic truth ----------------------------------------------

def _expected(mu: np.ndarray, sigma: float, tie_width: float, much: float) -> dict[str, np.ndarray]:
    """P(win), P(tie), P(loss) and E[verdict] of a 5-level cut of N(mu, sigma²)."""
    p_win = norm.cdf((mu - tie_width / 2) / sigma)
    p_loss = norm.cdf((-tie_width / 2 - mu) / sigma)
    p_much = norm.cdf((mu - much) / sigma)
    p_much_loss = norm.cdf((-much - mu) / sigma)
    return {"win": p_win, "loss": p_loss, "tie": 1 - p_win - p_loss,
            "mean": p_win + p_much - p_loss - p_much_loss}


def _truth(sim, spec: SimulationSpec, judge: JudgeSpec) -> dict[str, float]:
    """The simulator's expected b, position bias and tie rate given its strengths, integrating
    over instruction discrimination (log-normal) and the noise (normal), all pairs, both orders."""
    s = sim.strengths["strength"].to_numpy()
    nodes, wts = np.polynomial.hermite_e.hermegauss(60)
    wts = wts / wts.sum()
    d = np.exp(spec.discrimination_sd * nodes)
    sigma = np.sqrt(2 * spec.response_noise ** 2 + judge.noise ** 2)
    a, b = np.triu_indices(len(s), k=1)
    gap = s[a] - s[b]
    fwd = _expected(d[:, None] * gap[None] + judge.slot_bias, sigma, judge.tie_width, judge.much)
    rev = _expected(-d[:, None] * gap[None] + judge.slot_bias, sigma, judge.tie_width, judge.much)

    def avg(x: np.ndarray) -> float:
        return float((wts @ x).mean())

    return {
        "b": avg(0.5 * (fwd["mean"] + rev["mean"])),
        "points": 100 * avg(0.5 * (fwd["win"] - fwd["loss"] + rev["win"] - rev["loss"])),
        "tie": avg(0.5 * (fwd["tie"] + rev["tie"])),
    }


@pytest.mark.parametrize("slot_bias, tie_width", [(0.4, 0.8), (0.0, 1.6), (-0.25, 0.3)])
def test_simulated_judge_recovered_within_intervals(slot_bias, tie_width):
    judge = JudgeSpec("sim-j", slot_bias=slot_bias, tie_width=tie_width, much=1.5, noise=0.5)
    spec = SimulationSpec(n_models=8, n_instructions=150, judges=(judge,), seed=11)
    sim = simulate(spec)
    store = VerdictStore()
    store.load(sim.verdicts)
    counts = store.counts(judge="sim-j")
    truth = _truth(sim, spec, judge)
    p = position_stats(counts, rounds=1000, seed=1)
    o = order_swap(counts, rounds=1000, seed=1)
    assert o.b.low <= truth["b"] <= o.b.high
    pb = p.position_bias_points
    assert pb.low <= truth["points"] <= pb.high
    assert p.tie_rate.low <= truth["tie"] <= p.tie_rate.high
    # the intervals are informative: a biased judge's b excludes 0
    if slot_bias:
        assert not (o.b.low <= 0 <= o.b.high)
        assert np.sign(o.b.value) == np.sign(slot_bias)


def test_both_orders_tie_rate_exceeds_single_order_for_a_slot_biased_judge():
    # seed 003 §1: a judge that rarely says tie produces ties by preferring the first slot
    judge = JudgeSpec("first", slot_bias=0.8, tie_width=0.1, noise=0.4)
    sim = simulate(SimulationSpec(n_models=6, n_instructions=80, judges=(judge,), seed=3))
    store = VerdictStore()
    store.load(sim.verdicts)
    p = position_stats(store.counts(judge="first"), rounds=200)
    assert p.tie_rate.value < 0.05
    assert p.both_orders_tie_rate.low > 3 * p.tie_rate.high
    assert p.position_bias_points.value > 10


# -- coverage and self-comparisons from the store -------------------------------------------------

def _store(rows: list[dict]) -> VerdictStore:
    frame = pd.DataFrame(rows)
    frame.insert(0, "row", np.arange(1, len(frame) + 1))
    for col in ("human",):
        frame[col] = pd.array(frame.get(col, [pd.NA] * len(frame)), dtype="Int8")
    frame["verdict"] = pd.array(frame["verdict"], dtype="Int8")
    frame["category"] = pd.Series([pd.NA] * len(frame), dtype="string")
    store = VerdictStore()
    store.load(frame)
    return store


def test_coverage_and_self_comparison_hand_worked():
    rows = [
        {"instruction_id": "q1", "model_a": "x", "model_b": "y", "verdict": 1, "judge": "J",
         "length_a": 10.0, "length_b": 10.0},
        {"instruction_id": "q1", "model_a": "y", "model_b": "x", "verdict": pd.NA, "judge": "J",
         "length_a": 10.0, "length_b": 10.0},
        {"instruction_id": "q2", "model_a": "x", "model_b": "z", "verdict": pd.NA, "judge": "J",
         "length_a": 500.0, "length_b": 600.0},
        {"instruction_id": "q2", "model_a": "z", "model_b": "x", "verdict": -1, "judge": "J",
         "length_a": 600.0, "length_b": 500.0},
        {"instruction_id": "q3", "model_a": "x", "model_b": "x", "verdict": 0, "judge": "J",
         "length_a": 50.0, "length_b": 50.0},
        {"instruction_id": "q4", "model_a": "y", "model_b": "y", "verdict": 2, "judge": "J",
         "length_a": 50.0, "length_b": 50.0},
        {"instruction_id": "q1", "model_a": "x", "model_b": "y", "verdict": pd.NA, "judge": "K",
         "length_a": 10.0, "length_b": 10.0},
    ]
    store = _store(rows)
    cov = coverage(store, "J", length_bins=2)
    assert (cov.calls, cov.no_verdict) == (6, 2)
    assert cov.no_verdict_rate == pytest.approx(2 / 6)
    by_model = cov.by_model.set_index("model")
    # x appears in 5 calls (the self-comparison counts once), 2 without a verdict
    assert by_model.loc["x", "calls"] == 5 and by_model.loc["x", "no_verdict"] == 2
    assert by_model.loc["z", "no_verdict_rate"] == pytest.approx(0.5)
    # two equal-count bins of length_a + length_b: {20, 20, 100} and {100, 1100, 1100}
    by_len = cov.by_length.set_index("length_bin")
    assert by_len.loc[1, "no_verdict"] == 1 and by_len.loc[2, "no_verdict"] == 1
    assert by_len.loc[2, "length_max"] == 1100
    sc = self_comparison(store, "J")
    assert (sc.calls, sc.ties) == (2, 1)
    assert sc.tie_rate == pytest.approx(0.5)
    assert sc.mean_verdict == pytest.approx(1.0)
    assert coverage(store, "K").no_verdict_rate == 1.0


# -- the sheet ----------------------------------------------------------------------------------

REQUIRED = ("position_bias_points", "swap_consistency", "flip_rate", "tie_rate",
            "both_orders_tie_rate", "no_verdict_rate", "slot_bias_b", "slot_bias_b_low",
            "slot_bias_b_high", "agreement", "kappa", "order_swap_by_anchor")


@pytest.fixture(scope="module")
def labelled_store() -> VerdictStore:
    judges = (JudgeSpec("steady", slot_bias=0.05, no_verdict_rate=0.01, family="conifer"),
              JudgeSpec("biased", slot_bias=0.6, tie_width=0.2, no_verdict_rate=0.05,
                        family="broadleaf"),
              JudgeSpec("neutral", tie_width=1.0))
    spec = SimulationSpec(n_models=6, n_instructions=60, judges=judges, human_fraction=0.3,
                          seed=5)
    store = VerdictStore()
    store.load(simulate(spec).verdicts)
    return store


def test_judge_sheet_has_every_field_and_is_json(labelled_store):
    sheet = judge_sheet(labelled_store, "biased", rounds=200)
    d = sheet.as_dict()
    for key in REQUIRED:
        assert key in d, key
    json.dumps(_plain(d))
    assert d["no_verdict_rate"] == pytest.approx(
        labelled_store.con.execute("SELECT avg((verdict IS NULL)::INT) FROM verdicts "
                                   "WHERE judge = 'biased'").fetchone()[0])
    assert d["slot_bias_b_low"] <= d["slot_bias_b"] <= d["slot_bias_b_high"]
    assert d["slot_bias_b"] > 0.2 and d["labelled_calls"] > 0
    table = sheet.table()
    assert {"metric", "value", "low", "high", "definition"} <= set(table.columns)
    assert table.set_index("metric").loc["kappa", "value"] == pytest.approx(d["kappa"])


def test_judge_sheet_from_a_frame_and_from_counts(labelled_store):
    frame = labelled_store.frame()
    from_frame = judge_sheet(frame, "steady", rounds=0, length_control=False)
    from_counts = judge_sheet(labelled_store.counts(judge="steady"), "steady", rounds=0)
    assert from_frame.position.position_bias_points.value == pytest.approx(
        from_counts.position.position_bias_points.value)
    assert from_counts.coverage is None and from_counts.agreement is None
    with pytest.raises(ValueError, match="not in the data"):
        judge_sheet(labelled_store, "nobody")
    with pytest.raises(ValueError, match="several judges"):
        judge_sheet(labelled_store, None)


def test_compare_judges_and_best_marks(labelled_store):
    families = {"sim-alder": "broadleaf", "sim-birch": "conifer", "sim-cedar": "conifer",
                "sim-dogwood": "broadleaf", "sim-elm": "broadleaf", "sim-fir": "conifer",
                "steady": "conifer", "biased": "broadleaf"}
    table = compare_judges(labelled_store, rounds=100, families=families)
    assert list(table["judge"]) == ["biased", "neutral", "steady"]
    marks = best_marks(table)
    # the slot-biased judge never has the smallest position bias or |b|
    for column in ("position_bias_points", "slot_bias_b"):
        assert marks[column].sum() == 1
        assert not marks.loc[table["judge"] == "biased", column].item()
    assert "self_preference_elo" in table.columns


def test_best_marks_hand_worked():
    table = pd.DataFrame({"judge": ["a", "b", "c"], "position_bias_points": [-3.0, 5.0, 3.0],
                          "kappa": [0.4, np.nan, 0.5], "flip_rate": [0.2, 0.2, 0.3]})
    marks = best_marks(table)
    assert marks["position_bias_points"].tolist() == [True, False, True]  # |−3| = |3|
    assert marks["kappa"].tolist() == [False, False, True]
    assert marks["flip_rate"].tolist() == [True, True, False]
    assert not marks["judge"].any()


# -- real data ----------------------------------------------------------------------------------

@pytest.mark.skipif(not ALPACA.exists(), reason="shared AlpacaEval data absent")
def test_alpacaeval_smoke():
    store = VerdictStore()
    store.load(read_verdicts(ALPACA))
    sheet = judge_sheet(store, None, rounds=300, length_control=False)
    p = sheet.position
    # README sanity numbers: slot-A win 44.17 %, tie 3.15 %, slot-B win 52.68 %
    assert p.slot_a_win_rate == pytest.approx(0.4417, abs=5e-5)
    assert p.tie_rate.value == pytest.approx(0.0315, abs=5e-5)
    assert p.slot_b_win_rate == pytest.approx(0.5268, abs=5e-5)
    assert p.position_bias_points.value == pytest.approx(44.17 - 52.68, abs=0.01)
    # the judge favours the second slot; no instruction has both orders of a pair
    assert sheet.order.b.high < 0
    assert p.pairings == 0 and np.isnan(p.swap_consistency.value)
    anchor = sheet.order.by_anchor.set_index("anchor").loc["gpt4_1106_preview"]
    assert anchor["q"] < 0  # the opponents lose to the anchor
    assert sheet.agreement is None  # no human labels in this table
