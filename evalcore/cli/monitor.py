"""``monitor``: stop judging now, with a guarantee — an anytime-valid confidence sequence for the
rating difference of two models, or for whether the leader is really first, over the verdicts in
the order they were judged (Howard, Ramdas, McAuliffe and Sekhon 2021).

Exit code 0: decided (judging could stop); 1: keep judging; 2: bad input."""

from __future__ import annotations

import argparse

from evalcore.cli.common import (
    SELECTION,
    Command,
    UsageError,
    given,
    opt,
    print_json,
    print_notes,
    select,
    show,
)


def run_monitor(args: argparse.Namespace) -> int:
    from evalcore.power.monitor import monitor_leader, monitor_pair

    if (args.a is None) != (args.b is None):
        raise UsageError("give both --a and --b (a pair), or neither (is the leader really first)")
    chosen = select(args, text=True)  # judged_at is kept with the text; --alpha, --tuned-for: ranges
    store = chosen.store
    options = {"judge": chosen.judge, "category": chosen.category, **given(args, "alpha", "tuned_for")}
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
        return print_json(result.as_dict() | money, code)
    from evalcore.present import monitor as page

    spent = f"The {result.n_verdicts:,} verdicts cost {money['spent_so_far']:,.2f}" if money else ""
    decided = f"; the decision cost {money['cost_to_decision']:,.2f}" if money and result.decided else ""
    show(result.sentence(), page.tiles(result), page.caption(result), spent and spent + decided + ".")
    print_notes(result.notes)
    show(page.curve_display(result))
    return code


COMMANDS = (
    Command(
        "monitor",
        "whether judging can stop: an anytime-valid confidence sequence for the rating "
        "difference of --a over --b (or, without them, for the leader being first); exit 0 decided, "
        "1 keep judging",
        run_monitor,
        (
            *SELECTION,
            opt("a", default=None, help="the first model of the pair"),
            opt("b", default=None, help="the second model of the pair"),
            opt("alpha", help="error allowed over every look (default 0.05)"),
            opt(
                "--tuned-for",
                type=int,
                default=1000,
                metavar="N",
                help="verdicts at which the sequence is narrowest (default 1000; any value keeps the guarantee)",
            ),
            opt(
                "price_per_call",
                help="price of one judge call, to read the verdicts in money (default: the file's cost "
                "column, if any)",
            ),
        ),
    ),
)
