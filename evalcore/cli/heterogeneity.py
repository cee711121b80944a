"""``heterogeneity``: does one ranking fit every category? The test, its drivers, reversals.

References: Wilks (1938) for the likelihood-ratio test; Holm (1979); DerSimonian & Laird (1986)
and Efron & Morris (1973) for the shrunk per-category ratings; Simpson (1951).
"""

from __future__ import annotations

import argparse

from evalcore.cli.common import Command, opt, print_json, select, show
from evalcore.ranking.heterogeneity import store_heterogeneity


def run_heterogeneity(args: argparse.Namespace) -> int:
    chosen = select(args)
    judge = chosen.judge
    result = store_heterogeneity(chosen.store, judge=judge, alpha=args.alpha, min_verdicts=args.min_verdicts)
    if args.json:
        return print_json({"judge": judge, **result.as_dict()})
    from evalcore.present import ranking as page

    overall = f"Likelihood-ratio statistic {result.statistic:,.1f} on {result.df:,} degrees of freedom, {result.verdicts:,} verdicts."
    show(result.sentence(), overall, page.category_tests_display(result), page.reversals_display(result))
    show([f"Note: {note}" for note in result.notes])
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
