"""Money: the budget planner's predicted interval width against the width achieved when the plan
is carried out.

    python benchmarks/bench_budget.py [--runs 400]

A pilot table (two simulated models, both orders, human labels on a share of the calls) gives the
planner its variances; the plan is then carried out many times on a large fresh population from
the same simulator (drawing its calls and labelling its share) and the spread of the estimates
gives the achieved 95% width. Prints, per budget and price, the plan, its predicted width, the
achieved width and their ratio (within 10% is the issue's bar).

The anchors' part (``--tables`` pilot tables per scenario, 100 by default): eight simulated models
judged in all pairs; each pilot table (300 instructions, a share with human labels) is planned for
every number of anchors; each option is carried out on a fresh population of 20,000 instructions
from the same truth (``--anchor-runs`` times) and its achieved width measured. Prints per scenario
the median ratio of predicted to achieved width (all options, and the chosen one), the share of
options within 10%, and how often the chosen number of anchors is the one with the narrowest
achieved width (and within 5% of it).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from evalcore.power.anchor_budget import carry_out, instruction_scores, plan_anchor_budget  # noqa: E402
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


STRENGTHS = tuple(float(x) for x in np.linspace(1.5, -1.5, 8))


def anchor_spec(n: int, seed: int, fraction: float, response: float, noise: float) -> SimulationSpec:
    return SimulationSpec(
        n_models=len(STRENGTHS),
        n_instructions=n,
        strengths=STRENGTHS,
        response_noise=response,
        human_fraction=fraction,
        both_orders=False,
        judges=(JudgeSpec("sim-judge", noise=noise, slot_bias=0.3),),
        seed=seed,
    )


def anchors_scenario(
    response: float, noise: float, quantity: str, budget: float, prices: Prices, tables: int, runs: int
) -> dict:
    population = VerdictStore.from_frame(simulate(anchor_spec(20_000, 10_000, 1.0, response, noise)).verdicts)
    models = population.models()
    a, b = models[2], models[4]
    others = [m for m in models if m not in (a, b)]
    frame = population.query("anchor_scores", judge=None, models=[a, b], anchors=others)
    scores: dict[tuple, object] = {}
    ratios, chosen_ratios, best, near, chosen_k = [], [], 0, 0, []
    for seed in range(tables):
        pilot = VerdictStore.from_frame(simulate(anchor_spec(300, seed, 0.3, response, noise)).verdicts)
        plan = plan_anchor_budget(
            pilot, model_a=a, model_b=b, budget=budget, prices=prices, quantity=quantity
        )
        for anchors in plan.options["anchor_models"]:
            if anchors not in scores:
                scores[anchors] = instruction_scores(frame, a, b, list(anchors))
        population_k = {len(m): scores[m] for m in plan.options["anchor_models"]}
        achieved = carry_out(plan, population_k, runs=runs, seed=seed)  # type: ignore[arg-type]
        predicted = plan.options.set_index("anchors")[plan.width_column]
        ratio = predicted / achieved
        ratios += list(ratio)
        chosen_ratios.append(ratio[plan.chosen])
        best += int(achieved.idxmin() == plan.chosen)
        near += int(achieved[plan.chosen] <= 1.05 * achieved.min())
        chosen_k.append(plan.chosen)
    r = np.asarray(ratios)
    return {
        "median_ratio": float(np.median(r)),
        "chosen_median_ratio": float(np.median(chosen_ratios)),
        "within_10": float(np.mean(np.abs(r - 1) <= 0.10)),
        "best": best / tables,
        "near": near / tables,
        "chosen": np.bincount(chosen_k, minlength=7)[1:],
    }


def anchors_part(tables: int, runs: int) -> None:
    if tables < 1:
        return
    print(
        f"\nanchors: 8 models, {tables} pilot tables of 300 instructions per scenario, each option carried "
        f"out {runs} times"
    )
    print(
        "response noise  judge noise  quantity            budget  call   label  median ratio  chosen's  "
        "within 10%  chosen is narrowest  within 5% of it  times each k chosen (1..6)"
    )
    for response, noise, quantity, budget, prices in (
        (1.5, 0.3, "rating_difference", 50.0, Prices(per_call=0.01)),
        (0.2, 1.5, "rating_difference", 50.0, Prices(per_call=0.01)),
        (0.6, 0.8, "win_rate", 50.0, Prices(per_call=0.01)),
        (0.6, 0.8, "corrected_win_rate", 100.0, Prices(per_call=0.01, per_label=0.05)),
    ):
        f = anchors_scenario(response, noise, quantity, budget, prices, tables, runs)
        print(
            f"{response:14.1f}  {noise:11.1f}  {quantity:18}  {budget:6.0f}  {prices.per_call:4.2f}  "
            f"{prices.per_label:5.2f}  {f['median_ratio']:12.3f}  {f['chosen_median_ratio']:8.3f}  "
            f"{100 * f['within_10']:9.0f}%  {100 * f['best']:18.0f}%  {100 * f['near']:14.0f}%  "
            f"{' '.join(str(int(c)) for c in f['chosen'])}"
        )


def demo_timing() -> None:
    """Seconds to plan the number of anchors on the demo (20 models, all pairs), median of 3."""
    import time

    store = VerdictStore.from_frame(
        pd.read_parquet(Path(__file__).resolve().parents[1] / "data" / "demo_all_pairs.parquet")
    )
    a, b = store.models()[:2]
    seconds = []
    for _ in range(3):
        start = time.perf_counter()
        plan = plan_anchor_budget(
            store, model_a=a, model_b=b, budget=100.0, prices=Prices(0.01, 0.5), judge=store.judges()[0]
        )
        seconds.append(time.perf_counter() - start)
    print(
        f"\nplanning the number of anchors on the demo (20 models, {len(plan.options)} options): "
        f"{float(np.median(seconds)):.2f} s (median of 3)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--tables", type=int, default=100, help="pilot tables per anchors scenario")
    parser.add_argument("--anchor-runs", type=int, default=1000, help="carry-outs per anchors option")
    parser.add_argument("--anchors-only", action="store_true")
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f}")
    if args.anchors_only:
        demo_timing()
        anchors_part(args.tables, args.anchor_runs)
        print(f"load average: {os.getloadavg()[0]:.2f}")
        return
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
    demo_timing()
    anchors_part(args.tables, args.anchor_runs)
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
