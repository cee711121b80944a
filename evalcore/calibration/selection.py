"""Which pair, which unit and which gate the Calibration views start on: the policies, as keyword
options of the analyses (no widget labels; the faces map their pickers to these values).

- :func:`default_pair`: the judge's leader against its runner-up (a point Bradley–Terry fit), the
  pair the Overview's "Can the win rate be corrected?" finding calibrates, so both show one number.
- :func:`calibration_selection`: the options of :func:`~evalcore.calibration.calibrate`, with the
  one rule a choice can break: the both-orders verdict needs a candidate (slot A changes sides
  between the two orders), so without one the unit is the judge call.
- :func:`release_gate`: the superiority or non-inferiority gate on the printed, corrected or
  prediction-powered number (Angelopoulos, Duchi & Zrnic 2023, "PPI++: Efficient
  prediction-powered inference", for the last).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalcore.calibration.correction import Calibration
from evalcore.calibration.counts import SAME_SLICE
from evalcore.calibration.gate import GateResult, noninferiority_gate, ppi_gate, superiority_gate
from evalcore.calibration.ppi import PPIRatings
from evalcore.errors import UsageError

__all__ = [
    "GATE_BASES",
    "GATE_KINDS",
    "CalibrationSelection",
    "calibration_pair",
    "calibration_selection",
    "default_pair",
    "release_gate",
    "top_pair",
]

GATE_KINDS = ("superiority", "non-inferiority")
GATE_BASES = ("printed", "corrected", "prediction-powered")


def top_pair(board) -> tuple[str, str] | None:
    """The leader and the runner-up: the first two models of the leaderboard's first connected
    piece (models in different pieces have no common scale), or None with fewer than two. Models
    whose ratings are not comparable with the others' (one slot only) are left out, unless fewer
    than two are comparable.

    The one definition of "the top two" shared by the Overview's findings and the Calibration
    page's default candidate and opponent, so both show the same pair.
    """
    table = board.comparable_only().table  # a one-slot model's rating carries the slot preference
    if len(table) < 2:  # too few are comparable (two models, each in one slot): the fit's order
        table = board.table
    if table.empty:
        return None
    top = table[table["piece"] == table["piece"].iloc[0]]
    if len(top) < 2:
        return None
    return str(top.iloc[0]["model"]), str(top.iloc[1]["model"])


def calibration_pair(board, counts) -> tuple[str, str | None] | None:
    """The pair whose win rate the Overview and the Calibration page calibrate by default: the
    leader against the runner-up (:func:`top_pair`), or the leader against all opponents when
    the two never met in ``counts`` (a sparse or anchor-only table), so the default view is never
    an empty page.

    Examples
    --------
    >>> import numpy as np
    >>> from evalcore.counts import VerdictCounts
    >>> from evalcore.ranking import leaderboard
    >>> n = np.array([[0, 0, 0, 3, 1], [0, 0, 0, 2, 2], [0, 0, 0, 1, 3]], dtype=np.int32)
    >>> counts = VerdictCounts(models=("a", "b", "c"), instructions=("q",), judge="j",
    ...     inst=np.zeros(3, np.int32), a=np.array([0, 1, 0], np.int32),
    ...     b=np.array([2, 2, 1], np.int32), n=n)
    >>> calibration_pair(leaderboard(counts, rounds=0), counts)
    ('a', 'b')
    """
    pair = top_pair(board)
    if pair is None:
        return None
    leader, runner_up = pair
    i, j = counts.models.index(leader), counts.models.index(runner_up)
    met = bool(np.any(((counts.a == i) & (counts.b == j)) | ((counts.a == j) & (counts.b == i))))
    return leader, runner_up if met else None


def default_pair(counts) -> tuple[str | None, str | None]:
    """The candidate and opponent a calibration starts with: the judge's leader and runner-up (a
    point Bradley–Terry fit, no intervals; all opponents when the two never met). With fewer than
    two models, or a design the fit refuses, the first model against all opponents; ``(None,
    None)`` without models.
    """
    from evalcore.ranking import leaderboard  # ranking does not import calibration: no cycle

    if counts.n_models < 2:
        return (counts.models[0] if counts.n_models else None), None
    try:
        pair = calibration_pair(leaderboard(counts, rounds=0, interval="bootstrap"), counts)  # ratings only
    except (ValueError, ArithmeticError):  # a design the fit refuses: any model will do
        pair = None
    return pair if pair is not None else (counts.models[0], None)


@dataclass(frozen=True)
class CalibrationSelection:
    """The options of :func:`~evalcore.calibration.calibrate` a view chose, after
    :func:`calibration_selection`'s rule. ``unit_changed``: the both-orders verdict was asked
    for without a candidate, so the unit is the judge call."""

    judge: str | None
    candidate: str | None
    baseline: str | None
    category: str | None
    labelled_category: object
    both_orders: bool | None
    unit_changed: bool = False

    @property
    def kwargs(self) -> dict:
        names = ("judge", "candidate", "baseline", "category", "labelled_category", "both_orders")
        return {k: getattr(self, k) for k in names}

    @property
    def key(self) -> tuple:
        """A hashable cache key. The same slice as the corrected rows is a tuple, so that no
        category name can stand for it."""
        lab = ("same slice",) if self.labelled_category is SAME_SLICE else self.labelled_category
        return (self.judge, self.candidate, self.baseline, self.category, lab, self.both_orders)

    def as_dict(self) -> dict:
        same = self.labelled_category is SAME_SLICE
        return {
            **self.kwargs,
            "labelled_category": "same" if same else self.labelled_category,
            "unit_changed": self.unit_changed,
        }


def calibration_selection(
    *,
    judge: str | None,
    candidate: str | None = None,
    baseline: str | None = None,
    category: str | None = None,
    labelled_category: object = SAME_SLICE,
    both_orders: bool | None = None,
) -> CalibrationSelection:
    """The calibration's options with the selection policy applied: no opponent without a
    candidate (slot A's side has no model to name), and the judge call as the unit when the
    both-orders verdict is asked for without a candidate.

    >>> s = calibration_selection(judge="j", baseline="b", both_orders=True)
    >>> s.baseline, s.both_orders, s.unit_changed
    (None, False, True)
    """
    baseline = None if candidate is None else baseline
    changed = bool(both_orders) and candidate is None
    return CalibrationSelection(
        judge, candidate, baseline, category, labelled_category, False if changed else both_orders, changed
    )


def release_gate(
    cal: Calibration,
    *,
    kind: Literal["superiority", "non-inferiority"] = "superiority",
    margin: float = 0.0,
    basis: Literal["printed", "corrected", "prediction-powered"] = "printed",
    ppi: PPIRatings | None = None,
) -> GateResult:
    """The release gate on ``basis``: superiority, or non-inferiority within ``margin`` (a share;
    ignored for superiority). The prediction-powered gate needs ``ppi`` and a calibration of a
    named candidate against a named opponent; otherwise :class:`UsageError` says what is missing.
    """
    if kind not in GATE_KINDS:
        raise UsageError(f"kind must be one of {', '.join(GATE_KINDS)}; got {kind!r}")
    if basis not in GATE_BASES:
        raise UsageError(f"basis must be one of {', '.join(GATE_BASES)}; got {basis!r}")
    margin = float(margin) if kind == "non-inferiority" else 0.0
    if basis == "prediction-powered":
        if ppi is None:
            raise UsageError("The prediction-powered gate needs prediction-powered ratings (see that tab).")
        if cal.baseline is None or cal.candidate is None:
            raise UsageError("The prediction-powered gate compares two models: pick one under 'Against'.")
        kind_key = "superiority" if kind == "superiority" else "noninferiority"
        return ppi_gate(ppi, cal.candidate, cal.baseline, kind=kind_key, margin=margin)
    if kind == "superiority":
        return superiority_gate(cal, corrected=basis == "corrected")
    return noninferiority_gate(cal, margin=margin, corrected=basis == "corrected")
