"""``budget``: how to spend a budget on judge calls and human labels so that the 95% interval on
a head-to-head win rate (as judged, or corrected by human labels) is narrowest (prediction-powered
variance, Angelopoulos et al. 2023; Neyman allocation)."""

from __future__ import annotations

import argparse

from evalcore.cli.common import Command, UsageError, opt, print_json, print_notes, select


def run_budget(args: argparse.Namespace) -> int:
    from evalcore.power.budget import Prices, file_prices, plan_budget

    chosen = select(args)  # the prices are checked by their ranges
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
        chosen.store,
        model_a=args.a,
        model_b=args.b,
        budget=args.budget,
        prices=prices,
        quantity=args.quantity,
        judge=chosen.judge,
    )
    if args.json:
        return print_json(plan.as_dict())
    print(plan.sentence())
    for row in plan.label_orders.itertuples():
        print(f"labels: {row.order}: {100 * row.label_share:.0f}% of them ({row.labelled:,} labelled so far)")
    print_notes(plan.notes, err=True)
    return 0


COMMANDS = (
    Command(
        "budget",
        "for a budget, the judge calls and human labels of --a against --b giving the narrowest "
        "interval on their (corrected) win rate, in money",
        run_budget,
        (
            "file",
            "judge",
            opt("a", required=True),
            opt("b", required=True),
            opt("--budget", type=float, required=True, metavar="AMOUNT", help="money to spend"),
            opt(
                "--quantity",
                choices=("corrected_win_rate", "win_rate", "rating_difference"),
                default="corrected_win_rate",
                help="the human-corrected win rate (default), the judge's own, or the rating difference "
                "in Elo points (from the corrected win rate when labels have a price)",
            ),
            opt("price_per_call", help="price of one judge call (else the file's cost column)"),
            opt("--price-per-label", type=float, default=0.0, help="price of one human label"),
            opt(
                "--price-in", type=float, default=None, help="price per million input tokens (with tokens_in)"
            ),
            opt(
                "--price-out",
                type=float,
                default=None,
                help="price per million output tokens (with tokens_out)",
            ),
        ),
    ),
)
