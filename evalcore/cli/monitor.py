"""``monitor``: stop judging now, with a guarantee — an anytime-valid confidence sequence for the
rating difference of two models, or for whether the leader is really first, over the verdicts in
the order they were judged (Howard, Ramdas, McAuliffe and Sekhon 2021).

Exit code 0: decided (judging could stop); 1: keep judging; 2: bad input."""

from __future__ import annotations

import argparse
import sys

from evalcore.cli.common import (
    add_file_argument,
    add_json_flag,
    add_judge_argument,
    load_store,
    pick_category,
    pick_judge,
    print_json,
    print_table,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "monitor",
        help="whether judging can stop: an anytime-valid confidence sequence for the rating "
        "difference of --a over --b (or, without them, for the leader being first); exit 0 decided, "
        "1 keep judging",
    )
    add_file_argument(p)
    add_judge_argument(p)
    p.add_argument("--category", default=None, help="only rows of this category")
    p.add_argument("--a", default=None, metavar="MODEL", help="the first model of the pair")
    p.add_argument("--b", default=None, metavar="MODEL", help="the second model of the pair")
    p.add_argument("--alpha", type=float, default=0.05, help="error allowed over every look (default 0.05)")
    p.add_argument(
        "--tuned-for",
        type=int,
        default=1000,
        metavar="N",
        help="verdicts at which the sequence is narrowest (default 1000; any value keeps the guarantee)",
    )
    p.add_argument(
        "--price-per-call",
        type=float,
        default=None,
        help="price of one judge call, to read the verdicts in money (default: the file's cost column, if any)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_monitor)


def run_monitor(args: argparse.Namespace) -> int:
    from evalcore.cli import UsageError
    from evalcore.power.monitor import monitor_leader, monitor_pair

    if (args.a is None) != (args.b is None):
        raise UsageError("give both --a and --b (a pair), or neither (is the leader really first)")
    if not 0 < args.alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1 (got {args.alpha})")
    if args.tuned_for < 1:
        raise UsageError(f"--tuned-for must be 1 or more (got {args.tuned_for})")
    store = load_store(args.file, text=True)  # judged_at is kept with the text
    judge = pick_judge(store, args.judge)
    options = {
        "judge": judge,
        "category": pick_category(store, args.category),
        "alpha": args.alpha,
        "tuned_for": args.tuned_for,
    }
    if args.a is not None:
        result = monitor_pair(store, model_a=args.a, model_b=args.b, **options)
    else:
        result = monitor_leader(store, **options)
    code = 0 if result.decided else 1
    from evalcore.power.budget import Prices, file_prices

    prices = (
        Prices(per_call=args.price_per_call)
        if args.price_per_call is not None
        else file_prices(args.file, per_label=0.0, price_in=None, price_out=None)
    )
    money = {}
    if prices is not None:  # the sizes read in money: what the verdicts so far and to a decision cost
        money = {
            "spent_so_far": prices.money(calls=result.n_verdicts),
            "cost_to_decision": None if result.stopped_at is None else prices.money(calls=result.stopped_at),
        }
    if args.json:
        print_json(result.as_dict() | money)
        return code
    print(result.sentence())
    if money:
        decided = f"; the decision cost {money['cost_to_decision']:,.2f}" if result.decided else ""
        print(f"the {result.n_verdicts:,} verdicts cost {money['spent_so_far']:,.2f}{decided}")
    print(f"verdicts ordered by {result.ordered_by}; {result.n_verdicts:,} head-to-head verdicts")
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    step = max(1, len(result.curve) // 10)
    print_table(result.curve.iloc[::step], floatfmt="{:.3f}")
    return code
