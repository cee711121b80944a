"""``budget``: how to spend a budget on judge calls and human labels so that the 95% interval on
a head-to-head win rate (as judged, or corrected by human labels) is narrowest (prediction-powered
variance, Angelopoulos et al. 2023; Neyman allocation), and, judging every model against anchors,
how many anchors, instructions and labelled instructions give the narrowest interval."""

from __future__ import annotations

import argparse

from evalcore.cli.common import Command, UsageError, opt, print_json, print_notes, select, show


def run_budget(args: argparse.Namespace) -> int:
    from evalcore.errors import DesignError
    from evalcore.power.anchor_budget import plan_anchor_budget
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
    # the same question for both plans: head to head, and through the anchors
    question = {"model_a": args.a, "model_b": args.b, "budget": args.budget, "prices": prices}
    question.update(quantity=args.quantity, judge=chosen.judge)
    plan = plan_budget(chosen.store, **question)
    anchor_plan, refused = None, ""
    try:
        anchor_plan = plan_anchor_budget(chosen.store, max_anchors=args.max_anchors, **question)
    except DesignError as exc:
        refused = f"The number of anchors is not planned: {exc}"
    if args.json:
        out = plan.as_dict()
        out["anchor_plan"] = anchor_plan.as_dict() if anchor_plan is not None else None
        if refused:
            out["notes"].append(refused)
        return print_json(out)
    from evalcore.present.power import anchor_budget_display, label_orders_display

    show(plan.sentence(), anchor_plan and [anchor_plan.sentence(), anchor_budget_display(anchor_plan)])
    print_notes([*(anchor_plan.notes if anchor_plan else [refused] if refused else []), *plan.notes])
    show(label_orders_display(plan))
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
            opt(
                "--max-anchors",
                type=int,
                default=None,
                metavar="K",
                help="compare at most K anchors (the most informative first; default: every model that "
                "can be one)",
            ),
        ),
    ),
)
