"""``budget``: how to spend a budget on judge calls and human labels so that the 95% interval on
a head-to-head win rate (as judged, or corrected by human labels) is narrowest (prediction-powered
variance, Angelopoulos et al. 2023; Neyman allocation)."""

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
    add_json_flag(p)
    p.set_defaults(handler=run_budget)


def run_budget(args: argparse.Namespace) -> int:
    from evalcore.cli import UsageError
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
    if args.json:
        print_json(plan.as_dict())
        return 0
    print(plan.sentence())
    for row in plan.label_orders.itertuples():
        print(f"labels: {row.order}: {100 * row.label_share:.0f}% of them ({row.labelled:,} labelled so far)")
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0
