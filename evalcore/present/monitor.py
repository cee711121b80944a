"""Words and tiles of the anytime-valid monitor (:mod:`evalcore.power.monitor`): what the Power
page, the report and the command line say about it, written once."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore import quantities as q
from evalcore.power.monitor import MonitorResult, elo_difference
from evalcore.present.display import Metric, catalogue_table, tile

MODES = ("Two models", "Is the leader really first")

INTRO = (
    'Looking at a test after every batch of verdicts and stopping as soon as it says "different" '
    "makes it say so far too often: with 100 looks, a 5% test calls two equal models different "
    "about 40% of the time. A confidence sequence is a range that holds at every number of "
    "verdicts at once, so the table can be looked at as often as wanted and judging stopped the "
    "first time the range leaves out an even match, with the error still at most 5%. Each "
    "head-to-head verdict scores 1 for a win, one half for a tie and 0 for a loss; the range for "
    "the win rate comes from a normal-mixture boundary (Howard, Ramdas, McAuliffe and Sekhon, "
    "2021) and is shown in Elo points. Verdicts are taken in the order they were judged (the "
    "judged_at column), else in row order. For the leader, every pair of models that met gets its "
    "own range at the error divided by the number of pairs, and the leader is first once its "
    "range beats every other model's."
)


def tiles(result: MonitorResult) -> list[Metric]:
    """The monitor's tiles: where it could stop, the range now, the verdicts so far; each with
    its catalogue definition as help."""
    stop = q.format("verdicts_to_decision", result.stopped_at) if result.decided else "not yet"
    shown: list[tuple[str, object]] = [("verdicts_to_decision", stop)]
    if result.mode == "pair":
        lo, hi = (float(elo_difference(v)) for v in (result.lower, result.upper))
        shown.append(("rating_difference_sequence", _elo_range(lo, hi)))
        shown.append(("head_to_head_rating_difference", result.rating_difference))
    else:
        shown.append(("win_rate_sequence", result.lower))
    shown.append(("verdicts_judged_so_far", result.n_verdicts))
    return [tile(qid, value, None) for qid, value in shown]


def caption(result: MonitorResult) -> str:
    order = (
        "the judging time (judged_at)" if result.ordered_by == "judged_at" else "row order (no judging times)"
    )
    return (
        f"Verdicts in {order}; {100 * (1 - result.alpha):g}% anytime-valid range. A bound beyond "
        "1,000 Elo points either way, or not drawn, means too few verdicts to bound it yet."
    )


def _elo(v: float) -> str:
    if not np.isfinite(v):
        return "no bound" if np.isnan(v) else "none"  # an infinite bound: none yet
    return f"{v:+,.0f}"


def _elo_range(lo: float, hi: float) -> str:
    """A range of rating differences in words: "-40 to +120", "at least -40", "at most +120"."""
    if np.isfinite(lo) and np.isfinite(hi):
        return f"{_elo(lo)} to {_elo(hi)}"
    if np.isfinite(lo):
        return f"at least {_elo(lo)}"
    if np.isfinite(hi):
        return f"at most {_elo(hi)}"
    return "no bound yet"


def curve_display(result: MonitorResult, rows: int = 10) -> pd.DataFrame:
    """About ``rows`` points of the drawn sequence, evenly spaced, the last always among them:
    the verdicts so far, the win rate and its anytime-valid range, in Elo points too."""
    curve = result.curve
    step = max(1, len(curve) // rows)
    shown = curve.iloc[sorted({*range(0, len(curve), step), len(curve) - 1})]
    elo = lambda v: _elo(float(v))  # noqa: E731
    return catalogue_table(
        shown,
        [
            ("verdicts", "Verdicts", "int"),
            ("leader", "Leader", None),
            ("win_rate", "Win rate", "pct1"),
            ("lower", "Win rate, lower bound", "pct1"),
            ("upper", "Win rate, upper bound", "pct1"),
            ("rating_difference", "head_to_head_rating_difference"),
            ("rating_lower", "Rating difference, lower bound (Elo points)", elo),
            ("rating_upper", "Rating difference, upper bound (Elo points)", elo),
        ],
    )
