"""The budget planner's number of anchors: a hand-worked four-model case, the predicted width
against the width achieved when each option is carried out on a simulated population (fixed
seed), and the budget command's --json."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from evalcore.cli import main
from evalcore.errors import DesignError
from evalcore.power.anchor_budget import (
    anchor_order,
    carry_out,
    instruction_scores,
    plan_anchor_budget,
)
from evalcore.power.budget import Prices, calls_per_instruction
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore

# Four instructions, models A, B, X, Y judged in every pair (one order, no ties). Scores from the
# first-named model's side: A against X, B against X, A against Y, B against Y, Y against X.
HAND = {
    1: (1, 0, 1, 1, 0),
    2: (1, 1, 0, 0, 1),
    3: (0, 0, 1, 0, 1),
    4: (1, 0, 1, 1, 0),
}


def _hand_table() -> pd.DataFrame:
    rows = []
    for inst, (ax, bx, ay, by, yx) in HAND.items():
        for first, second, score in (
            ("A", "X", ax),
            ("B", "X", bx),
            ("A", "Y", ay),
            ("B", "Y", by),
            ("Y", "X", yx),
        ):
            rows.append((inst, first, second, 2 if score else -2))
        rows.append((inst, "A", "B", 2))
    return pd.DataFrame(rows, columns=["instruction_id", "model_a", "model_b", "verdict"])


def test_calls_per_instruction_with_anchors():
    assert calls_per_instruction(4, anchors=1) == 3  # M − 1
    assert calls_per_instruction(4, anchors=2) == 5  # 6 pairs less the one without an anchor
    assert calls_per_instruction(4, anchors=3) == 6 == calls_per_instruction(4, design="all pairs")
    assert calls_per_instruction(20, anchors=2, orders=2) == 2 * (190 - 153)


def test_the_plan_against_a_hand_worked_case():
    store = VerdictStore.from_frame(_hand_table())
    # Informativeness: against X the pairs of (A, B, Y) differ on 2 + 0 + 2 + 2 of 12 cases; against
    # Y (A, B, X) on 0 + 0 + 2 + 0 of 12: X is the first anchor.
    assert anchor_order(store, None, ("A", "B")) == ["X", "Y"]
    plan = plan_anchor_budget(
        store, model_a="A", model_b="B", budget=3.0, prices=Prices(0.01), quantity="rating_difference"
    )
    elo = 400 / math.log(10)
    # k = 1 (X): s_A = 1, 1, 0, 1 and s_B = 0, 1, 0, 0; w_A = 0.75, w_B = 0.25, both slopes
    # elo / 0.1875; t = (elo / 0.1875)·(1, 0, 0, 1), variance (elo / 0.1875)² / 3. An instruction
    # costs 3 calls = 0.03: 100 instructions.
    width_1 = 2 * 1.959964 * (elo / 0.1875) / math.sqrt(3) / math.sqrt(100)
    # k = 2 (X, Y): s_A = 1, ½, ½, 1 and s_B = ½, ½, 0, ½; w_A = 0.75, w_B = 0.375; t = 555.90,
    # 92.65, 463.25, 555.90 (A's slope elo / 0.1875, B's elo / 0.234375). 5 calls = 0.05: 60.
    t = np.array(
        [elo / 0.1875 * a - elo / 0.234375 * b for a, b in ((1, 0.5), (0.5, 0.5), (0.5, 0), (1, 0.5))]
    )
    assert t[0] == pytest.approx(555.90, abs=0.01) and t[1] == pytest.approx(92.65, abs=0.01)
    width_2 = 2 * 1.959964 * t.std(ddof=1) / math.sqrt(60)
    o = plan.options.set_index("anchors")
    assert list(o["instructions"]) == [100, 60]
    assert list(o["judge_calls"]) == [300, 300]
    assert o.loc[1, "predicted_width_elo"] == pytest.approx(width_1, rel=1e-5)  # about 210
    assert o.loc[2, "predicted_width_elo"] == pytest.approx(width_2, rel=1e-5)  # about 112
    assert plan.chosen == 2 and o.loc[2, "anchor_models"] == ("X", "Y")
    # the win rate the rating difference implies: the same choice, the width times w(1 − w)/elo
    wr = plan_anchor_budget(
        store, model_a="A", model_b="B", budget=3.0, prices=Prices(0.01), quantity="win_rate"
    )
    delta = elo * (math.log(0.75 / 0.25) - math.log(0.375 / 0.625))
    w = 1 / (1 + 10 ** (-delta / 400))
    assert wr.options.set_index("anchors").loc[2, "predicted_width"] == pytest.approx(
        width_2 * w * (1 - w) / elo
    )
    assert wr.chosen == 2
    assert "2 anchors (X, Y) give the narrowest interval" in plan.sentence()


def test_a_table_without_shared_anchors_is_refused():
    frame = _hand_table()
    frame = frame[(frame["model_a"] == "A") & (frame["model_b"] == "B")]
    frame = pd.concat([frame, frame.assign(instruction_id=frame["instruction_id"] + 10)])
    with pytest.raises(DesignError):
        plan_anchor_budget(
            VerdictStore.from_frame(frame), model_a="A", model_b="B", budget=3, prices=Prices(0.01)
        )


def _spec(n, seed, fraction, response, noise):
    return SimulationSpec(
        n_models=6,
        n_instructions=n,
        strengths=(1.2, 0.6, 0.3, 0.0, -0.6, -1.2),
        response_noise=response,
        human_fraction=fraction,
        both_orders=False,
        judges=(JudgeSpec("sim-judge", noise=noise, slot_bias=0.3),),
        seed=seed,
    )


@pytest.mark.parametrize(
    "response,noise,quantity,prices,best",
    [
        (1.5, 0.3, "rating_difference", Prices(0.01), 1),  # shared difficulty: one anchor
        (0.2, 1.5, "rating_difference", Prices(0.01), 4),  # a noisy judge: every anchor
        (0.6, 0.8, "corrected_win_rate", Prices(0.01, 0.05), None),
    ],
)
def test_predicted_width_is_within_ten_percent_of_the_achieved(response, noise, quantity, prices, best):
    pilot = VerdictStore.from_frame(simulate(_spec(400, 1, 0.4, response, noise)).verdicts)
    models = pilot.models()
    a, b = models[1], models[3]
    plan = plan_anchor_budget(pilot, model_a=a, model_b=b, budget=40.0, prices=prices, quantity=quantity)
    population = VerdictStore.from_frame(simulate(_spec(8000, 2, 1.0, response, noise)).verdicts)
    frame = population.query(
        "anchor_scores", judge=None, models=[a, b], anchors=[m for m in models if m not in (a, b)]
    )
    scores = {len(m): instruction_scores(frame, a, b, list(m)) for m in plan.options["anchor_models"]}
    achieved = carry_out(plan, scores, runs=600, seed=0)
    ratio = plan.options.set_index("anchors")[plan.width_column] / achieved
    assert np.median(ratio) == pytest.approx(1.0, abs=0.10)
    assert ratio[plan.chosen] == pytest.approx(1.0, abs=0.15)
    if best is not None:
        assert plan.chosen == best == achieved.idxmin()


def test_budget_json_shows_the_anchors_chosen_and_the_alternatives(tmp_path, capsys):
    path = tmp_path / "hand.csv"
    _hand_table().to_csv(path, index=False)
    argv = ["budget", str(path), "--a", "A", "--b", "B", "--budget", "3", "--price-per-call", "0.01"]
    assert main([*argv, "--quantity", "rating_difference", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["anchor_plan"]
    assert out["anchors_chosen"] == 2
    assert [o["anchors"] for o in out["anchor_options"]] == [1, 2]
    assert [o["instructions_affordable"] for o in out["anchor_options"]] == [100, 60]
    assert out["anchor_options"][1]["anchor_models"] == ["X", "Y"]
    assert main([*argv, "--quantity", "rating_difference", "--max-anchors", "1"]) == 0
    text = capsys.readouterr().out
    assert "1 anchor (X) gives the narrowest interval" in text and "(chosen)" in text
