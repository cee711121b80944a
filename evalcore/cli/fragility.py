"""``fragility``: the fewest verdicts whose removal (``--flip``: reversal) flips the leader, or each
adjacent pair."""

from __future__ import annotations

import argparse
from typing import Literal

from evalcore.cli.common import SELECTION, Command, opt, print_json, print_notes, select, show
from evalcore.ranking.fragility import ranking_fragility


def run_fragility(args: argparse.Namespace) -> int:
    chosen = select(args)  # --max-drop and --exhaustive are checked by their ranges
    judge, counts = chosen.judge, chosen.counts()
    kind: Literal["remove", "flip"] = "flip" if args.flip else "remove"
    result = ranking_fragility(
        counts, pairs=args.pairs, kind=kind, max_drop=args.max_drop, exhaustive=args.exhaustive
    )
    if args.json:
        return print_json(result.as_dict())
    from evalcore.present.ranking import fragility_calls_display, fragility_display

    done = "flipped" if args.flip else "removed"
    show(
        f"Judge {judge}: {result.n_calls:,} verdicts; at most {result.max_drop:,} {done} per pair.",
        result.headline(),
    )
    print_notes(result.notes)
    if chosen.store.is_counts_table:
        from evalcore.ingest.counts_table import CALL_LIST_NOTE

        print_notes([CALL_LIST_NOTE])
    lead = result.lead
    what = "verdicts whose reversal flips" if args.flip else "verdicts behind"
    calls = lead is not None and lead.calls and f"The {what} the lead of {lead.ahead} over {lead.behind}:"
    show(fragility_display(result), calls and [calls, fragility_calls_display(lead)])
    return 0


COMMANDS = (
    Command(
        "fragility",
        "the fewest verdicts whose removal (or, with --flip, reversal) flips the leader "
        "(or each adjacent pair), and which verdicts they are",
        run_fragility,
        (
            *SELECTION,
            opt(
                "--pairs",
                choices=("leader", "adjacent"),
                default="leader",
                help="the leader against every rival (default), or each model against the next "
                "one down the leaderboard",
            ),
            opt(
                "--flip",
                action="store_true",
                help="reverse verdicts instead of removing them (a win becomes a win for the other "
                "model, a tie a win for either), as a judge error or an adversarial judge would",
            ),
            opt(
                "--max-drop",
                type=int,
                default=None,
                metavar="N",
                help="the most verdicts removed (or flipped) per pair (default: 1%% of them, at least 10)",
            ),
            opt(
                "--exhaustive",
                type=int,
                default=2000,
                metavar="N",
                help="refits spent proving that no smaller set flips the order (default 2000; 0 for none)",
            ),
        ),
    ),
)
