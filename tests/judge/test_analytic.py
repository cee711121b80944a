"""The judge sheet's analytic intervals: a hand-worked share, kappa against the published
large-sample variance, each delta-method gradient against the statistic's own code, coverage on
simulations with a known truth, refusals, and one default on every face."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from evalcore.judge import DEFAULT_INTERVAL, human_agreement, judge_sheet, position_and_order_swap
from evalcore.judge import _analytic as analytic
from evalcore.judge._resample import BalancedPairs
from evalcore.judge.order_swap import decompose, pair_values
from evalcore.judge.position import balanced_position_bias
from evalcore.judge.self_preference import self_preference
from evalcore.schema import LEVELS
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.stats.intervals import Z95
from evalcore.store.store import VerdictStore
from tests.judge_interval_sim import FIGURES, coverage, labelled, table


def test_a_share_worked_by_hand():
    # 5 instructions, 2 calls each, 2 / 0 / 2 / 0 / 2 ties: p = 6/10. Influences (num − p·den)/10
    # = .08, −.12, .08, −.12, .08; variance 5/4 · (3·.0064 + 2·.0144) = .06; effective size
    # .6·.4/.06 = 4 calls; Wilson on 2.4 of 4: centre (.6 + 1.96²/8)/(1 + 1.96²/4) = .5510,
    # half-width 1.96·sqrt(.06 + 1.96²/64)/(1 + 1.96²/4) = .3464.
    est = analytic.share(np.array([2.0, 0, 2, 0, 2]), np.full(5, 2.0), np.ones(5))
    assert est.value == pytest.approx(0.6)
    assert est.low == pytest.approx(0.5510 - 0.3464, abs=2e-4)
    assert est.high == pytest.approx(0.5510 + 0.3464, abs=2e-4)
    # independent calls (no spread beyond the binomial's) keep the nominal size: plain Wilson
    flat = analytic.share(np.array([1.0, 1, 1, 1, 1]), np.full(5, 2.0), np.ones(5))
    assert (flat.low, flat.high) == pytest.approx((0.2366, 0.7634), abs=2e-4)


def test_position_bias_worked_by_hand():
    # one pair x, y judged once in each order on 5 instructions: slot A minus slot B wins
    # d0 = 1, 1, 1, 0, 1 (x in slot A) and d1 = −1, 1, 0, 1, 1 (y in slot A). Each order has 5
    # calls, so the bias is the mean over instructions of s/2 with s = d0 + d1 = 0, 2, 1, 1, 2:
    # 0.6, that is 60 points; its standard error is that of a mean, sd(s/2)/sqrt(5) with
    # sd(s)² = 2.8/4: 0.18708, so the interval is 60 ± 1.96·18.708 = 23.33 to 96.67 points.
    from evalcore.counts import VerdictCounts

    d0, d1 = [1, 1, 1, 0, 1], [-1, 1, 0, 1, 1]
    level = {1: 3, 0: 2, -1: 1}  # +1, tie, −1 on the five-level scale
    n = np.zeros((10, 5), dtype=np.int64)
    for i, (f, r) in enumerate(zip(d0, d1, strict=True)):
        n[2 * i, level[f]] = 1
        n[2 * i + 1, level[r]] = 1
    counts = VerdictCounts.from_cells(
        models=("x", "y"),
        instructions=tuple(f"q{i}" for i in range(5)),
        judge="j",
        inst=np.repeat(np.arange(5), 2),
        a=[0, 1] * 5,
        b=[1, 0] * 5,
        n=n,
    )
    bias = position_and_order_swap(counts)[0].position_bias_points
    assert bias.value == pytest.approx(60.0)
    assert (bias.low, bias.high) == pytest.approx((23.33, 96.67), abs=0.01)


def _fleiss_cohen_everitt(conf: np.ndarray) -> float:
    """The large-sample variance of kappa (Fleiss, Cohen & Everitt 1969, their equation 13)."""
    p = conf / conf.sum()
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po, pe = np.trace(p), rows @ cols
    a = sum(p[i, i] * ((1 - pe) - (rows[i] + cols[i]) * (1 - po)) ** 2 for i in range(3))
    b = (1 - po) ** 2 * sum(p[i, j] * (cols[i] + rows[j]) ** 2 for i in range(3) for j in range(3) if i != j)
    c = (po * pe - 2 * pe + po) ** 2
    return (a + b - c) / (conf.sum() * (1 - pe) ** 4)


def test_kappa_with_one_call_per_instruction_is_the_published_large_sample_variance():
    rng = np.random.default_rng(3)
    human = rng.integers(0, 3, 400)
    judge = np.where(rng.random(400) < 0.6, human, rng.integers(0, 3, 400))
    per = np.zeros((400, 9))
    per[np.arange(400), human * 3 + judge] = 1.0
    kappa, u = analytic.kappa_influence(per)
    var = analytic.clustered_variance(u, np.ones(400)) * 399 / 400  # without the S/(S − 1) factor
    assert var == pytest.approx(_fleiss_cohen_everitt(per.sum(axis=0).reshape(3, 3)), rel=1e-9)


def _numeric_se(statistic, mult: np.ndarray, step: float = 1e-6) -> float:
    """The cluster-robust standard error from each pattern's influence taken by finite
    differences of the statistic in that pattern's weight (independent of the gradient algebra)."""
    base = statistic(mult)
    u = np.array([(statistic(mult + step * np.eye(mult.size)[s]) - base) / step for s in range(mult.size)])
    return float(np.sqrt(analytic.clustered_variance(u, mult)))


def test_every_delta_method_gradient_matches_finite_differences_of_the_statistic():
    counts = table(40, seed=5)
    rep, mult = counts.pattern_counts()
    mult = mult.astype(np.float64)
    pairs = BalancedPairs.of(counts)
    cell = rep.n.astype(np.float64)
    values = np.column_stack(
        [pair_values(rep), cell[:, np.array(LEVELS) > 0].sum(1) - cell[:, np.array(LEVELS) < 0].sum(1)]
    )

    def totals(w):
        return pairs.totals(rep, w, values)

    position, order = position_and_order_swap(counts)
    se = (position.position_bias_points.high - position.position_bias_points.low) / (2 * Z95) / 100
    assert se == pytest.approx(
        _numeric_se(lambda w: float(balanced_position_bias(totals(w)[1], totals(w)[2])), mult), rel=1e-4
    )
    se_b = (order.b.high - order.b.low) / (2 * Z95)
    assert se_b == pytest.approx(
        _numeric_se(lambda w: float(decompose(totals(w)[0], totals(w)[1], pairs)[0]), mult), rel=1e-4
    )
    row = order.by_anchor.set_index("anchor").loc["m2"]
    for column, part in (("q", 1), ("b", 2)):
        se_anchor = (row[f"{column}_high"] - row[f"{column}_low"]) / (2 * Z95)
        numeric = _numeric_se(
            lambda w, part=part: float(decompose(totals(w)[0], totals(w)[1], pairs)[part][2]), mult
        )
        assert se_anchor == pytest.approx(numeric, rel=1e-4)


def test_self_preference_analytic_interval_is_close_to_the_bootstrap():
    sim = simulate(
        SimulationSpec(
            n_models=6,
            n_instructions=120,
            seed=4,
            judges=(JudgeSpec("fam-a-judge"), JudgeSpec("neutral-1"), JudgeSpec("neutral-2")),
        )
    )
    store = VerdictStore.from_frame(sim.verdicts)
    models = sorted(set(sim.verdicts["model_a"]))
    families = {models[0]: "a", models[1]: "a", "fam-a-judge": "a"}
    exact = self_preference(store, families).set_index("judge").loc["fam-a-judge"]
    boot = (
        self_preference(store, families, rounds=1000, interval="bootstrap")
        .set_index("judge")
        .loc["fam-a-judge"]
    )
    assert exact["delta"] == boot["delta"]
    width, boot_width = exact["delta_high"] - exact["delta_low"], boot["delta_high"] - boot["delta_low"]
    assert width == pytest.approx(boot_width, rel=0.2)


def test_coverage_on_simulations_with_a_known_truth():
    # 200 tables of 40 instructions: a 95% interval covers 190 ± 3 standard errors (±9.2)
    found = coverage(200, 40)
    assert set(found) == set(FIGURES)
    for key, share in found.items():
        assert 0.90 <= share <= 0.995, (key, share)


def test_few_instructions_give_no_interval_and_say_why():
    counts = table(3, seed=1)
    position, order = position_and_order_swap(counts)
    assert np.isfinite(position.position_bias_points.value)
    assert np.isnan(position.position_bias_points.low) and np.isnan(order.b.low)
    assert np.isnan(position.tie_rate.low)
    rows = labelled(3, seed=2)
    ag = human_agreement(rows)
    assert np.isnan(ag.kappa.low) and np.isnan(ag.agreement.low)
    frame = pd.DataFrame(
        {
            "instruction_id": np.repeat(["q0", "q1", "q2"], 2),
            "model_a": ["x", "y"] * 3,
            "model_b": ["y", "x"] * 3,
            "verdict": [2, -1, 1, 0, 2, 1],
        }
    )
    sheet = judge_sheet(VerdictStore.from_frame(frame), None, length_control=False)
    assert analytic.FEW_INSTRUCTIONS_NOTE in sheet.notes


def test_one_slot_only_is_refused_in_words_on_the_analytic_path():
    frame = pd.DataFrame(
        {
            "instruction_id": [f"q{i}" for i in range(20)],
            "model_a": ["x"] * 20,
            "model_b": ["y"] * 20,
            "verdict": [1, -1, 0, 2] * 5,
        }
    )
    sheet = judge_sheet(VerdictStore.from_frame(frame), None, length_control=False)
    assert np.isnan(sheet.position.position_bias_points.value) and np.isnan(sheet.order.b.low)
    assert any("No model pair was judged in both slot orders" in w for w in sheet.design_warnings)


def test_every_face_chooses_the_same_intervals(tmp_path, capsys):
    import json

    from evalcore.cli import main
    from evalcore.findings import run_analyses
    from ui.judge_view import interval_sentence

    sim = simulate(SimulationSpec(n_models=4, n_instructions=30, seed=1, judges=(JudgeSpec("j"),)))
    path = tmp_path / "t.csv"
    sim.verdicts.to_csv(path, index=False)
    store = VerdictStore.from_frame(sim.verdicts)
    library = judge_sheet(store, "j", length_control=False)
    assert library.interval == DEFAULT_INTERVAL == "analytic"
    # the command: the same choice, the same bounds
    assert main(["judge", str(path), "--judge", "j", "--no-length", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["interval_kind"] == library.interval
    assert printed["interval"] == library.interval_method
    assert printed["swap_consistency_low"] == pytest.approx(library.position.swap_consistency.low)
    # the page: the library's default unless resampling is switched on
    assert library.interval_method in interval_sentence({"category": None, "rounds": 1000, "seed": 0})
    # the report: the library's default sheet
    found = run_analyses(store, judge="j", rounds=50, seed=0)
    assert found.judge_sheet is not None and found.judge_sheet.interval == library.interval
    assert found.judge_sheet.position.swap_consistency == library.position.swap_consistency


def test_the_sparse_influences_of_a_large_table_equal_the_dense_ones(monkeypatch):
    counts = table(30, seed=8)
    dense = position_and_order_swap(counts)
    monkeypatch.setattr(analytic, "DENSE_INFLUENCE", 0)
    sparse_path = position_and_order_swap(counts)
    assert sparse_path[0].position_bias_points.low == pytest.approx(
        dense[0].position_bias_points.low, rel=1e-12
    )
    pd.testing.assert_frame_equal(sparse_path[1].by_anchor, dense[1].by_anchor, rtol=1e-12)
