"""``drift``: the ranking in time — ratings per time window, who moved between the first and the
last window, and a test of judge drift on items judged more than once (Bradley & Terry 1952;
Good, "Permutation, Parametric, and Bootstrap Tests of Hypotheses", 2005). Needs the optional
``judged_at`` column; ``rank --as-of DATE`` gives the leaderboard as of a date."""

from __future__ import annotations

import argparse

from evalcore.cli.common import SELECTION, Command, given, opt, print_json, select, show
from evalcore.errors import DesignError
from evalcore.text import fmt_count


def run_drift(args: argparse.Namespace) -> int:
    from evalcore.ranking.judge_drift import judge_drift
    from evalcore.ranking.judging_times import NoTimesError
    from evalcore.ranking.over_time import rating_windows

    sel = select(args, text=True)  # judged_at is kept with the text
    try:
        windows = rating_windows(
            sel.store,
            judge=sel.judge,
            category=sel.category,
            rounds=args.bootstrap,
            **given(args, "windows", "split", "min_verdicts", "seed"),
        )
        refused = None
    except NoTimesError:
        raise
    except DesignError as exc:  # too few verdicts per window: said in words, the drift test still runs
        windows, refused = None, f"No ratings per time window: {exc}."
    drift = judge_drift(
        sel.store, judge=sel.judge, category=sel.category, **given(args, "alpha", "permutations", "seed")
    )
    sel.store.close()
    if args.json:
        times = windows.as_dict() if windows is not None else {"sentence": refused}
        return print_json({"judge": sel.judge, "time_windows": times, "judge_drift": drift.as_dict()})
    from evalcore.present.ranking import windows_display

    untimed = windows.untimed if windows else 0
    left_out = (
        f"Note: {fmt_count(untimed, 'verdict')} without a judging time {'is' if untimed == 1 else 'are'} left out."
        if untimed
        else None
    )
    show(
        f"Judge {sel.judge}.",
        [windows.sentence(), windows_display(windows), left_out] if windows is not None else refused,
        drift.sentence(),
    )
    return 0


COMMANDS = (
    Command(
        "drift",
        "the ranking in time (needs judged_at): ratings per time window, who moved between the "
        "first and the last window, and a test of judge drift on items judged more than once",
        run_drift,
        (
            *SELECTION,
            opt("--windows", type=int, default=3, help="time windows (default 3; 2 to 12)"),
            opt(
                "--split",
                choices=("count", "calendar"),
                default="count",
                help="windows of equal numbers of verdicts (default) or of equal calendar length",
            ),
            opt("--min-verdicts", type=int, default=100, help="verdicts each window needs (default 100)"),
            opt("bootstrap", default=200, help="bootstrap rounds of each window's intervals (default 200)"),
            opt("alpha", help="level of the drift test (default 0.05)"),
            opt("--permutations", type=int, default=1999, help="sign flips of the drift test (default 1999)"),
            opt("seed", help="seed of the bootstrap and the flips (default 0)"),
        ),
    ),
)
