"""What the Calibration page's pickers choose, in the terms of :func:`~evalcore.calibration.calibrate`.

The page reads its widgets into a :class:`Selection` (judge, candidate, opponent, category,
labelled slice, unit). The policies (the default pair, the unit rule, the gate) are the analyses'
keyword options in :mod:`evalcore.calibration.selection`; here the widgets' labels map to them. The page's sentences and
tables are in :mod:`evalcore.present.calibration`, which re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalcore.calibration.correction import Calibration
from evalcore.calibration.counts import SAME_SLICE
from evalcore.calibration.gate import GateResult
from evalcore.calibration.ppi import PPIRatings
from evalcore.calibration.selection import (
    CalibrationSelection,
    calibration_selection,
    default_pair,
    release_gate,
)
from evalcore.errors import UsageError
from evalcore.present.calibration_words import (
    ALL_CATEGORIES,
    ALL_OPPONENTS,
    NEEDS_CANDIDATE,
    SAME,
    SLOT_A,
    UNITS,
)

__all__ = [
    "Selection",
    "candidate_of",
    "disagreement_count",
    "disagreement_filter",
    "default_pair",
    "floor_sizes",
    "gate_for",
    "judge_profile",
    "selection",
]


@dataclass(frozen=True)
class Selection(CalibrationSelection):
    """What the page's pickers chose, in :func:`~evalcore.calibration.calibrate`'s terms
    (:class:`~evalcore.calibration.selection.CalibrationSelection`: ``kwargs``, a hashable
    ``key``), with ``note``: app text to show when the chosen unit had to change (the
    both-orders verdict needs a candidate)."""

    note: str = ""

    @property
    def disagreements(self):
        """The cases behind the correction: where the judge and the human disagree, for this
        judge, category, candidate and opponent (a :class:`~evalcore.verdicts.VerdictFilter`)."""
        from evalcore.verdicts import VerdictFilter

        return VerdictFilter(
            judge=self.judge,
            category=self.category,
            model_a=self.candidate,
            model_b=self.baseline,
            disagrees_with_human=True,
        )


def disagreement_filter(cal: Calibration):
    """The cases behind the correction's disagreements, in its own units: the labelled units
    (calls, or both-orders verdicts) where the judge and the human disagree on whether the
    candidate won, in the labelled slice (a :class:`~evalcore.verdicts.VerdictFilter`; with the
    both-orders verdict, one case per unit). None without a candidate (slot A's side has no
    model to name)."""
    from evalcore.verdicts import VerdictFilter

    if cal.candidate is None:
        return None
    return VerdictFilter(
        judge=cal.judge,
        category=cal.labelled_category,
        model_a=cal.candidate,
        model_b=cal.baseline,
        win_disagrees=cal.candidate,
        unit="both" if cal.counts.both_orders else "call",
    )


def disagreement_count(cal: Calibration) -> int:
    """Labelled units where the judge and the human disagree on a candidate win: human wins the
    judge did not call a win and human non-wins it did (n_se − tp + n_sp − tn)."""
    c = cal.counts
    return int(c.n_se - c.tp + c.n_sp - c.tn)


def judge_profile(cal: Calibration, **sizes: int) -> dict:
    """This judge's Se, Sp and tie rates (and the study ``sizes`` given) as keyword arguments of
    :func:`~evalcore.calibration.coverage_simulation`."""
    c = cal.counts
    profile = {
        "se": cal.se,
        "sp": cal.sp,
        "tie_given_win": c.tie_given_win,
        "tie_given_not_win": c.tie_given_not_win,
    }
    return {**profile, **sizes}


def candidate_of(choice: str) -> str | None:
    """The "Candidate" choice → a model name, None for slot A."""
    return None if choice == SLOT_A else choice


def selection(
    judge: str | None, candidate: str | None, against: str, category: str | None, labelled: str, unit: str
) -> Selection:
    """The pickers' choices (candidate already read by :func:`candidate_of`) as a :class:`Selection`:
    labels to values here, the rule in :func:`~evalcore.calibration.selection.calibration_selection`."""
    lab: object = SAME_SLICE if labelled == SAME else (None if labelled == ALL_CATEGORIES else labelled)
    chosen = calibration_selection(
        judge=judge,
        candidate=candidate,
        baseline=None if against == ALL_OPPONENTS else against,
        category=category,
        labelled_category=lab,
        both_orders=UNITS[unit],
    )
    return Selection(**vars(chosen), note=NEEDS_CANDIDATE if chosen.unit_changed else "")


def floor_sizes(picked: list[int], custom: int) -> list[int]:
    """The picked labelled-set sizes and the custom one (0: none), sorted, without duplicates."""
    return sorted({int(s) for s in picked} | ({int(custom)} if custom else set()))


def gate_for(
    cal: Calibration, *, kind: str, margin_points: int, on: str, ppi: PPIRatings | None
) -> GateResult | str:
    """:func:`~evalcore.calibration.selection.release_gate` with the page's margin in percentage
    points, or why it cannot be run (app text, safe Markdown)."""
    try:
        return release_gate(cal, kind=kind, margin=margin_points / 100.0, basis=on, ppi=ppi)  # type: ignore[arg-type]
    except UsageError as exc:
        return str(exc)
