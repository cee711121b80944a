"""``heterogeneity``: does one ranking fit every category? The test, its drivers, reversals.

References: Wilks (1938) for the likelihood-ratio test; Holm (1979); DerSimonian & Laird (1986)
and Efron & Morris (1973) for the shrunk per-category ratings; Simpson (1951).
"""

from __future__ import annotations

import argparse

import pandas as pd

from evalcore.cli.common import Command, opt, print_json, print_notes, print_table, select
from evalcore.ranking.heterogeneity import store_heterogeneity


def run_heterogeneity(args: argparse.Namespace) -> int:
    chosen = select(args)
    judge = chosen.judge
    result = store_heterogeneity(chosen.store, judge=judge, alpha=args.alpha, min_verdicts=args.min_verdicts)
    if args.json:
        return print_json({"judge": judge, **result.as_dict()})
    print(result.sentence())
    print(
        f"likelihood-ratio statistic {result.statistic:,.1f} on {result.df:,} degrees of freedom, "
        f"{result.verdicts:,} verdicts in {len(result.categories):,} categories"
    )
    print_table(pd.DataFrame([t.as_dict() for t in result.per_category]))
    if result.reversals:
        print("\nreversals (Elo gaps, the better model overall first):")
        print_table(pd.DataFrame([r.as_dict() for r in result.reversals[:20]]), floatfmt="{:.0f}")
    print_notes(result.notes)
    return 0


COMMANDS = (
    Command(
        "heterogeneity",
        "does one ranking fit every category: a likelihood-ratio test (p), the categories "
        "driving it, pairs whose order reverses in a category, shrunk per-category ratings",
        run_heterogeneity,
        (
            "file",
            "judge",
            opt("alpha", help="level of the test (default 0.05)"),
            opt(
                "--min-verdicts",
                type=int,
                default=30,
                help="leave out categories with fewer verdicts (default 30)",
            ),
        ),
    ),
)
