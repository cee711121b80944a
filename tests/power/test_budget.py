"""The budget planner: the allocation against a hand-worked case, the predicted width against
the width achieved when the plan is carried out (fixed seed), prices from the file, the CLI."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.errors import UsageError
from evalcore.power.budget import Prices, achieved_width, allocate, plan_budget, predicted_width
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore


def test_allocation_against_a_hand_worked_case():
    # calls' sd 0.4 at 0.01, gap sd 0.3 at 1.00 per label, budget 100: N ∝ 0.4/0.1 = 4,
    # n ∝ 0.3/1 = 0.3; k = 100 / (4·0.01 + 0.3·1) = 294.1; N = 1,176, n = 88.
    calls, labels = allocate(budget=100, prices=Prices(0.01, 1.0), judge_sd=0.4, gap_sd=0.3)
    assert (calls, labels) == (1176, 88)
    assert calls * 0.01 + labels * 1.0 <= 100
    # the Lagrange point beats its neighbours on the same budget
    best = predicted_width(calls=calls, labels=labels, judge_sd=0.4, gap_sd=0.3)
    for n in (60, 120):
        other = predicted_width(calls=int((100 - n) / 0.01), labels=n, judge_sd=0.4, gap_sd=0.3)
        assert other > best
    assert best == pytest.approx(2 * 1.959964 * math.sqrt(0.16 / 1176 + 0.09 / 88), rel=1e-6)
    assert allocate(budget=10, prices=Prices(0.02), judge_sd=0.5, gap_sd=None) == (500, 0)
    with pytest.raises(UsageError):
        allocate(budget=10, prices=Prices(0.02), judge_sd=0.5, gap_sd=0.3)  # labels cost nothing


def _spec(n, seed, fraction, noise=0.8):
    judge = JudgeSpec("sim-judge", noise=noise, slot_bias=0.3 if noise > 0.5 else 0.0)
    return SimulationSpec(
        n_models=2,
        n_instructions=n,
        strengths=(0.4, 0.0),
        human_fraction=fraction,
        judges=(judge,),
        seed=seed,
    )


def _scores(frame, a):
    f = (np.sign(frame["verdict"].to_numpy(float)) + 1) / 2
    h = (np.sign(frame["human"].to_numpy(float)) + 1) / 2
    mine = frame["model_a"].to_numpy() == a
    return np.where(mine, f, 1 - f), np.where(mine, h, 1 - h)


@pytest.mark.parametrize(
    "quantity,budget,prices,noise",
    [
        ("win_rate", 50.0, Prices(0.02), 0.8),
        ("corrected_win_rate", 300.0, Prices(0.01, 1.0), 0.8),  # a weak judge: label every call
        ("corrected_win_rate", 100.0, Prices(0.002, 1.0), 0.1),  # a close judge: few labels
    ],
)
def test_predicted_width_is_within_ten_percent_of_the_achieved(quantity, budget, prices, noise):
    store = VerdictStore.from_frame(simulate(_spec(400, 0, 0.5, noise)).verdicts)
    a, b = store.models()
    plan = plan_budget(store, model_a=a, model_b=b, budget=budget, prices=prices, quantity=quantity)
    assert plan.spent <= budget
    f, h = _scores(simulate(_spec(20_000, 1, 1.0, noise)).verdicts, a)
    achieved = achieved_width(plan, f, h, runs=300, seed=0)
    assert plan.predicted_width == pytest.approx(achieved, rel=0.10)
    if noise < 0.5:
        assert plan.calls > 10 * plan.labels > 0  # the close judge's calls are worth buying


def test_cli_reads_the_cost_column_and_tokens(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame(
        {
            "instruction_id": range(n),
            "model_a": "x",
            "model_b": "y",
            "verdict": rng.choice(["A>B", "B>A", "A=B"], n),
            "human": rng.choice(["A>B", "B>A"], n),
            "cost": 0.02,
            "tokens_in": 1000,
            "tokens_out": 500,
        }
    )
    path = tmp_path / "costs.csv"
    frame.to_csv(path, index=False)
    argv = [
        "budget",
        str(path),
        "--a",
        "x",
        "--b",
        "y",
        "--budget",
        "50",
        "--price-per-label",
        "0.5",
        "--json",
    ]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["price_per_call"] == pytest.approx(0.02) and out["spent"] <= 50
    frame.drop(columns=["cost"]).to_csv(path, index=False)
    assert main([*argv, "--price-in", "3", "--price-out", "15"]) == 0
    # 1,000 × 3 / 1e6 + 500 × 15 / 1e6 = 0.0105 per call
    assert json.loads(capsys.readouterr().out)["price_per_call"] == pytest.approx(0.0105)
    assert main(argv) == 2  # tokens without a price list: no price per call
    assert "price" in capsys.readouterr().err
    assert (
        main(["budget", str(path), "--a", "x", "--b", "nobody", "--budget", "5", "--price-per-call", "0.1"])
        == 2
    )


@pytest.mark.parametrize(
    "budget,prices,noise",
    [
        (50.0, Prices(0.02), 0.8),  # no price per label: the judge's own win rate
        (300.0, Prices(0.01, 1.0), 0.8),  # labels have a price: the corrected win rate
        (100.0, Prices(0.002, 1.0), 0.1),
    ],
)
def test_rating_difference_width_is_within_ten_percent_of_the_achieved(budget, prices, noise):
    # the delta method's Elo width against the spread of 400·log10(w/(1−w)) over the plan carried out
    store = VerdictStore.from_frame(simulate(_spec(400, 0, 0.5, noise)).verdicts)
    a, b = store.models()
    plan = plan_budget(
        store, model_a=a, model_b=b, budget=budget, prices=prices, quantity="rating_difference"
    )
    assert (plan.labels > 0) == (prices.per_label > 0)
    f, h = _scores(simulate(_spec(20_000, 1, 1.0, noise)).verdicts, a)
    achieved = achieved_width(plan, f, h, runs=300, seed=0)
    assert plan.predicted_width_elo == pytest.approx(achieved, rel=0.10)
    assert achieved > 20 * achieved_width(  # Elo points, not a share: the scale is right
        dataclasses.replace(plan, quantity="win_rate"), f, h, runs=300, seed=0
    )
    assert "Elo points wide" in plan.sentence()


def test_cli_plans_the_rating_difference(tmp_path, capsys):
    store_frame = simulate(_spec(200, 0, 0.5)).verdicts
    path = tmp_path / "sim.parquet"
    store_frame.to_parquet(path)
    a, b = sorted(set(store_frame["model_a"]) | set(store_frame["model_b"]))
    argv = ["budget", str(path), "--a", a, "--b", b, "--budget", "100", "--price-per-call", "0.01"]
    assert main([*argv, "--price-per-label", "0.5", "--quantity", "rating_difference", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["quantity"] == "rating_difference" and out["labels_to_buy"] > 0
    assert "Elo points wide" in out["sentence"]


def test_a_planned_win_rate_width_is_written_in_percentage_points():
    """A width between two win rates is a distance on the percent scale: "6.2 pp", not "6.2%"."""
    from evalcore import quantities as q

    assert q.format("planned_width", 0.062) == "6.2 pp"
    assert q.quantity("planned_width").unit == "percentage points"


def test_the_example_prices_a_plan_starts_on_are_one_policy():
    """The budget section's starting prices: those the sidebar gives, else a hundredth per call
    and a half per label; a zero call price is not a price (a plan needs calls to cost)."""
    assert Prices.example() == Prices(0.01, 0.5)
    assert Prices.example(0.002, 0.0) == Prices(0.002, 0.0)  # a free label is a given price
    assert Prices.example(0.0, None) == Prices(0.01, 0.5)
    assert Prices.example(None, 3) == Prices(0.01, 3.0)
