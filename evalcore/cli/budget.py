"""``budget``: how to spend a budget on judge calls and human labels so that the 95% interval on
a head-to-head win rate (as judged, or corrected by human labels) is narrowest (prediction-powered
variance, Angelopoulos et al. 2023; Neyman allocation), and, judging every model against anchors,
how many anchors, instructions and labelled instructions give the narrowest interval."""

from __future__ import annotations

import argparse
import sys

from evalcore.cli.common import (
    add_file_argument,
    add_json_flag,
    add_judge_argument,
    load_store,
    pick_judge,
    print_json,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "budget",
        help="for a budget, the judge calls and human labels of --a against --b giving the narrowest "
        "interval on their (corrected) win rate, in money",
    )
    add_file_argument(p)
    add_judge_argument(p)
    p.add_argument("--a", required=True, metavar="MODEL", help="the first model")
    p.add_argument("--b", required=True, metavar="MODEL", help="the second model")
    p.add_argument("--budget", type=float, required=True, metavar="AMOUNT", help="money to spend")
    p.add_argument(
        "--quantity",
        choices=("corrected_win_rate", "win_rate", "rating_difference"),
        default="corrected_win_rate",
        help="the human-corrected win rate (default), the judge's own, or the rating difference in Elo "
        "points (from the corrected win rate when labels have a price)",
    )
    p.add_argument(
        "--price-per-call",
        type=float,
        default=None,
        help="price of one judge call (else the file's cost column)",
    )
    p.add_argument("--price-per-label", type=float, default=0.0, help="price of one human label")
    p.add_argument(
        "--price-in", type=float, default=None, help="price per million input tokens (with tokens_in)"
    )
    p.add_argument(
        "--price-out", type=float, default=None, help="price per million output tokens (with tokens_out)"
    )
    p.add_argument(
        "--max-anchors",
        type=int,
        default=None,
        metavar="K",
        help="compare at most K anchors (the most informative first; default: every model that can be one)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_budget)


def run_budget(args: argparse.Namespace) -> int:
    from evalcore.cli import UsageError
    from evalcore.errors import DesignError
    from evalcore.power.anchor_budget import plan_anchor_budget
    from evalcore.power.budget import Prices, file_prices, plan_budget

    for flag in ("budget", "price_per_call", "price_per_label", "price_in", "price_out"):
        value = getattr(args, flag)
        if value is not None and not value >= 0:  # also refuses nan
            raise UsageError(f"--{flag.replace('_', '-')} must be 0 or more (got {value})")
    store = load_store(args.file)
    judge = pick_judge(store, args.judge)
    if args.price_per_call is not None:
        prices = Prices(per_call=args.price_per_call, per_label=args.price_per_label)
    else:
        found = file_prices(
            args.file, per_label=args.price_per_label, price_in=args.price_in, price_out=args.price_out
        )
        if found is None:
            raise UsageError(
                "no price per judge call: pass --price-per-call, or give the file a cost column, or "
                "tokens_in/tokens_out columns with --price-in and --price-out (per million tokens)"
            )
        prices = found
    plan = plan_budget(
        store,
        model_a=args.a,
        model_b=args.b,
        budget=args.budget,
        prices=prices,
        quantity=args.quantity,
        judge=judge,
    )
    anchor_plan, refused = None, ""
    try:
        anchor_plan = plan_anchor_budget(
            store,
            model_a=args.a,
            model_b=args.b,
            budget=args.budget,
            prices=prices,
            quantity=args.quantity,
            judge=judge,
            max_anchors=args.max_anchors,
        )
    except DesignError as exc:
        refused = f"The number of anchors is not planned: {exc}"
    if args.json:
        out = plan.as_dict()
        out["anchor_plan"] = anchor_plan.as_dict() if anchor_plan is not None else None
        if refused:
            out["notes"].append(refused)
        print_json(out)
        return 0
    print(plan.sentence())
    if anchor_plan is not None:
        print(anchor_plan.sentence())
        width = "Elo points" if args.quantity == "rating_difference" else "percentage points"
        print(
            f"anchors  instructions affordable  judge calls  instructions to label  planned width ({width})"
        )
        for row in anchor_plan.options.itertuples():
            value = (
                row.predicted_width_elo if args.quantity == "rating_difference" else 100 * row.predicted_width
            )
            mark = "  (chosen)" if row.anchors == anchor_plan.chosen else ""
            print(
                f"{row.anchors:7d}  {row.instructions:22,}  {row.judge_calls:11,}  "
                f"{row.labelled_instructions:21,}  {value:.1f}{mark}"
            )
        for note in anchor_plan.notes:
            print(f"note: {note}", file=sys.stderr)
    elif refused:
        print(f"note: {refused}", file=sys.stderr)
    for row in plan.label_orders.itertuples():
        print(f"labels: {row.order}: {100 * row.label_share:.0f}% of them ({row.labelled:,} labelled so far)")
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0
