"""``heterogeneity``: does one ranking fit every category? The test, its drivers, reversals.

References: Wilks (1938) for the likelihood-ratio test; Holm (1979); DerSimonian & Laird (1986)
and Efron & Morris (1973) for the shrunk per-category ratings; Simpson (1951).
"""

from __future__ import annotations

import argparse

import pandas as pd

from evalcore.cli.common import (
    add_file_argument,
    add_json_flag,
    add_judge_argument,
    load_store,
    pick_judge,
    print_json,
    print_table,
)
from evalcore.ranking.heterogeneity import store_heterogeneity


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "heterogeneity",
        help="does one ranking fit every category: a likelihood-ratio test (p), the categories "
        "driving it, pairs whose order reverses in a category, shrunk per-category ratings",
    )
    add_file_argument(p)
    add_judge_argument(p)
    p.add_argument("--alpha", type=float, default=0.05, help="level of the test (default 0.05)")
    p.add_argument(
        "--min-verdicts",
        type=int,
        default=30,
        help="leave out categories with fewer verdicts (default 30)",
    )
    add_json_flag(p)
    p.set_defaults(handler=run_heterogeneity)


def run_heterogeneity(args: argparse.Namespace) -> int:
    store = load_store(args.file)
    judge = pick_judge(store, args.judge)
    result = store_heterogeneity(store, judge=judge, alpha=args.alpha, min_verdicts=args.min_verdicts)
    if args.json:
        print_json({"judge": judge, **result.as_dict()})
        return 0
    print(result.sentence())
    print(
        f"likelihood-ratio statistic {result.statistic:,.1f} on {result.df:,} degrees of freedom, "
        f"{result.verdicts:,} verdicts in {len(result.categories):,} categories"
    )
    print_table(pd.DataFrame([t.as_dict() for t in result.per_category]))
    if result.reversals:
        print("\nreversals (Elo gaps, the better model overall first):")
        print_table(pd.DataFrame([r.as_dict() for r in result.reversals[:20]]), floatfmt="{:.0f}")
    for note in result.notes:
        print(f"note: {note}")
    return 0
