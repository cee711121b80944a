"""Every size in money: the design's judge calls per instruction and a size's calls and cost,
against hand-worked conversions; the faces that print them (the power CLI, the Power page's table,
the planner, the size picker, the report's sentence)."""

from __future__ import annotations

import json
import types

import pandas as pd
import pytest

from evalcore.anchors import plan_evaluation
from evalcore.cli import main
from evalcore.errors import UsageError
from evalcore.power import sample_size_plan
from evalcore.power.budget import Prices, calls_per_instruction, cost_text, size_cost
from evalcore.present import anchors as av
from evalcore.present import power as pv
from evalcore.present.calibration import size_plan_cost


def test_calls_per_instruction_by_hand():
    assert calls_per_instruction(20) == 19  # each of 19 models against the anchor
    assert calls_per_instruction(20, orders=2) == 38
    assert calls_per_instruction(4, design="all pairs") == 6  # 4·3/2
    assert calls_per_instruction(4, design="all pairs", orders=2) == 12
    assert calls_per_instruction(2, design="all pairs") == 1
    for bad in ({"n_models": 1}, {"n_models": 3, "orders": 3}, {"n_models": 3, "design": "arena"}):
        with pytest.raises(UsageError):
            calls_per_instruction(**bad)


def test_a_size_in_calls_and_money_by_hand():
    # 935 instructions × 19 calls = 17,765 calls; × 0.01 = 177.65
    cost = size_cost(935, per_instruction=19, prices=Prices(0.01, 0.5))
    assert (cost.calls, cost.labels, cost.money) == (17_765, 0, pytest.approx(177.65))
    assert cost.sentence() == "935 instructions, that is 17,765 judge calls, costing 177.65"
    # 40 labels × 0.50 = 20.00; 1,200 calls × 0.002 = 2.40
    assert size_cost(40, unit="human labels", prices=Prices(0.01, 0.5)).money == pytest.approx(20.0)
    calls = size_cost(1200, unit="judge calls", prices=Prices(0.002))
    assert calls.money == pytest.approx(2.4) and calls.sentence() == "1,200 judge calls, costing 2.40"
    # a fractional size is rounded up (a size to collect); no prices: no money
    assert size_cost(10.2, per_instruction=3).as_dict() == {
        "size": 11,
        "unit": "instructions",
        "judge_calls": 33,
        "cost": None,
    }
    with pytest.raises(UsageError):
        size_cost(-1)


def test_missing_prices_leave_the_money_out():
    assert cost_text(935, per_instruction=19) == ""
    assert cost_text(935, per_instruction=19, per_label=0.5) == "935 instructions, that is 17,765 judge calls"
    assert cost_text(40, unit="human labels", per_call=0.01) == "40 human labels"
    assert cost_text(float("nan"), per_call=0.01) == ""


def test_power_cli_json_gains_calls_and_cost(capsys):
    argv = ["power", "--edge", "0.05", "0.1", "--informativeness", "0.5", "--models", "20"]
    assert main([*argv, "--price-per-call", "0.01", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["plans"]
    # +5%: 617 discordant / 0.5 = 1,234 instructions × 19 = 23,446 calls ≈ 234.46
    assert (rows[0]["total"], rows[0]["judge_calls"], rows[0]["cost"]) == (
        1234,
        23_446,
        pytest.approx(234.46),
    )
    assert rows[1]["judge_calls"] == rows[1]["total"] * 19
    assert main([*argv, "--design", "all-pairs", "--orders", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["plans"]
    assert rows[0]["judge_calls"] == 1234 * 380 and rows[0]["cost"] is None  # 20·19/2 × 2
    assert main([*argv, "--price-per-call", "-1"]) == 2


def test_power_table_and_planner_show_the_cost():
    plan = sample_size_plan([0.05], informativeness=0.5)
    view = pv.sample_size_table(plan, per_instruction=19, prices=Prices(0.01))
    assert view["Judge calls for the size"].tolist() == [23_446]
    assert view["Cost"].tolist() == ["234.46"]
    assert "Cost" not in pv.sample_size_table(plan, per_instruction=19).columns
    evaluation = plan_evaluation(3)  # all pairs of 3 models: 3 calls per instruction
    table = av.plan_table(evaluation, per_call=0.01)
    need = evaluation.options.set_index("design").loc["all pairs", "calls_needed"]
    row = table[table["Design"] == "all pairs"].iloc[0]
    assert row["Cost"] == f"{need * 0.01:,.2f}"
    sentence = av.plan_cost_sentence(evaluation, per_call=0.01, per_label=None)
    instructions = evaluation.options.set_index("design").loc["all pairs", "instructions_needed"]
    assert (
        f"{instructions:,} instructions, that is {instructions * 3:,} judge calls, costing {instructions * 0.03:,.2f}"
        in sentence
    )
    assert av.plan_cost_sentence(evaluation, per_call=None, per_label=0.5) == ""


def test_size_picker_in_money():
    plan = types.SimpleNamespace(reachable=True, n_labelled=400, n_judged=750)
    # 400 × 0.50 = 200.00; 750 × 0.01 = 7.50; together 207.50
    text = size_plan_cost(plan, per_call=0.01, per_label=0.5)
    assert (
        text == "In money: 400 human labels, costing 200.00; 750 judge calls, costing 7.50; together 207.50."
    )
    assert size_plan_cost(plan, per_call=None, per_label=None) == ""
    assert (
        size_plan_cost(
            types.SimpleNamespace(reachable=False, n_labelled=None, n_judged=None), per_call=1, per_label=1
        )
        == ""
    )


def test_report_names_the_judge_calls_of_the_plan():
    plan = sample_size_plan([0.05, 0.1], informativeness=0.5)
    text = pv.plan_calls_sentence(plan, 6)
    # 1,234 instructions × 5 other models = 6,170 judge calls
    assert "1,234 instructions" in text and "6,170 judge calls" in text
    # the Power page's sentence is the report's, with the money at the prices given
    priced = pv.plan_calls_sentence(plan, 6, prices=Prices(0.01))
    assert priced.startswith("For a +5% edge") and "6,170 judge calls, costing 61.70" in priced
    assert pv.plan_calls_sentence(sample_size_plan([0.05]), 6) == ""  # no informativeness: no total
    assert isinstance(plan.table, pd.DataFrame)


def test_size_picker_ladder_in_money():
    from evalcore.calibration import size_plan
    from evalcore.present.calibration import ladder_display

    plan = size_plan(0.10, youden_j=0.57, max_labelled=1600)
    view = ladder_display(plan, per_call=0.01, per_label=0.5).set_index("Labelled pairs")
    judged = plan.ladder.set_index("n_labelled")["n_judged"]
    for n, j in judged.items():
        # labelled pairs × 0.50 + judged pairs × 0.01, "—" where no judged count suffices
        assert view.loc[n, "Cost"] == (f"{n * 0.5 + j * 0.01:,.2f}" if j == j else "—"), n
    assert "Cost" not in ladder_display(plan, per_call=0.01).columns
