"""Money: the budget planner's predicted interval width against the width achieved when the plan
is carried out.

    python benchmarks/bench_budget.py [--runs 400]

A pilot table (two simulated models, both orders, human labels on a share of the calls) gives the
planner its variances; the plan is then carried out many times on a large fresh population from
the same simulator (drawing its calls and labelling its share) and the spread of the estimates
gives the achieved 95% width. Prints, per budget and price, the plan, its predicted width, the
achieved width and their ratio (within 10% is the issue's bar).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.power.budget import Prices, achieved_width, plan_budget  # noqa: E402
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate  # noqa: E402
from evalcore.store.store import VerdictStore  # noqa: E402


def scores(frame, a):
    f = (np.sign(frame["verdict"].to_numpy(float)) + 1) / 2
    h = (np.sign(frame["human"].to_numpy(float)) + 1) / 2
    mine = frame["model_a"].to_numpy() == a
    return np.where(mine, f, 1 - f), np.where(mine, h, 1 - h)


def spec(n: int, seed: int, fraction: float, noise: float = 0.8, bias: float = 0.3) -> SimulationSpec:
    return SimulationSpec(
        n_models=2,
        n_instructions=n,
        strengths=(0.4, 0.0),
        human_fraction=fraction,
        judges=(JudgeSpec("sim-judge", noise=noise, slot_bias=bias),),
        seed=seed,
    )


def case(budget: float, prices: Prices, quantity: str, runs: int, seed: int = 0, noise: float = 0.8) -> tuple:
    pilot = simulate(spec(400, seed, 0.5, noise, 0.3 if noise > 0.5 else 0.0)).verdicts
    store = VerdictStore.from_frame(pilot)
    a, b = store.models()
    plan = plan_budget(store, model_a=a, model_b=b, budget=budget, prices=prices, quantity=quantity)
    population = simulate(spec(20_000, seed + 1, 1.0, noise, 0.3 if noise > 0.5 else 0.0)).verdicts
    f, h = scores(population, a)
    return plan, achieved_width(plan, f, h, runs=runs, seed=seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}")
    print("judge noise 0.8 with a slot bias (a weak judge), then 0.1 without (a close one)")
    print("noise  quantity             budget  call  label   calls  labels  predicted  achieved  ratio")
    for noise, quantity, budget, prices in (
        (0.8, "win_rate", 50.0, Prices(per_call=0.02)),
        (0.8, "corrected_win_rate", 100.0, Prices(per_call=0.02, per_label=0.5)),
        (0.8, "corrected_win_rate", 300.0, Prices(per_call=0.01, per_label=1.0)),
        (0.8, "corrected_win_rate", 60.0, Prices(per_call=0.005, per_label=0.2)),
        (0.1, "corrected_win_rate", 100.0, Prices(per_call=0.002, per_label=1.0)),
        (0.1, "corrected_win_rate", 300.0, Prices(per_call=0.001, per_label=2.0)),
    ):
        plan, achieved = case(budget, prices, quantity, args.runs, noise=noise)
        print(
            f"{noise:5.1f}  {quantity:19}  {budget:6.0f}  {prices.per_call:4.3f}  {prices.per_label:5.2f}  {plan.calls:6,}  "
            f"{plan.labels:6,}  {100 * plan.predicted_width:8.2f}pp  {100 * achieved:7.2f}pp  "
            f"{plan.predicted_width / achieved:5.3f}"
        )


if __name__ == "__main__":
    main()
