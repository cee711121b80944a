"""Calibrating a judge's win rate against human labels: printed, corrected, and when to refuse.

A judge's printed win rate is compressed toward 50/50; only a labelled comparison recovers the
human number. From the rows that carry a ``human`` label, :func:`calibrate` measures the judge's
sensitivity and specificity for "candidate wins", corrects the judge's share of candidate wins
with Rogan–Gladen and carries the calibration uncertainty into the Lang–Reiczigel interval. It
also corrects both arms (wins and losses) to estimate the human win rate with ties as half a win,
the quantity the printed rate stands for, which is what a corrected gate tests.

Three numbers, stated with their estimand:

- **printed**: (wins + ties/2) / n, the tool convention, with a Wilson interval;
- **corrected** (win arm): the share of units a human calls a candidate win (a tie is not a win);
- **corrected win rate** (both arms): P(human win) + P(human tie)/2.

Every interval is clustered by instruction (a candidate's many opponents on one prompt are not
independent): binomial intervals use the effective sample n / deff, the both-arms interval is a
bootstrap over instructions.

Why this module is longer than 500 lines: it holds one concept, :func:`calibrate` and the
:class:`Calibration` it fills, with the refusal rules that decide which of its fields are
numbers; the statistics themselves (Rogan–Gladen, Lang–Reiczigel, clustering, the counts) are in
the sibling modules it imports.

References
----------
Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
*American Journal of Epidemiology* 107(1), 71–76.
Lang, Z. & Reiczigel, J. (2014). Confidence limits for prevalence of disease adjusted for
estimated sensitivity and specificity. *Preventive Veterinary Medicine* 113(1), 13–22.
Rao, J. N. K. & Scott, A. J. (1992). A simple method for the analysis of clustered binary data.
*Biometrics* 48(2), 577–585.
"What a pairwise win rate is worth: six judges against expert and crowd labels" (2025), §5–§8.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from evalcore import quantities
from evalcore.calibration.clustering import (
    WIN_RATE_ESTIMAND,
    corrected_win_rate,
    design_effect,
)
from evalcore.calibration.counts import (
    SAME_SLICE,
    CalibrationCounts,
    _SameSlice,
    calibration_counts,
    resolve_slice,
)
from evalcore.calibration.lang_reiczigel import floor_from, lang_reiczigel_interval
from evalcore.calibration.rogan_gladen import naive_interval, rogan_gladen
from evalcore.calibration.transfer import design_warnings, transfer_warning
from evalcore.errors import UsageError, check_int
from evalcore.stats.intervals import Z95, Estimate, wilson_interval

#: Refuse to correct when the floor at the available labelled set is wider than this (±20 points).
DEFAULT_MAX_FLOOR = 0.20
#: Refuse to correct when the labelled rows hold fewer human wins (or non-wins) than this.
MIN_PER_CLASS = 5
#: What each number estimates, in words (shown beside it on every face).
ESTIMANDS: dict[str, str] = {
    "printed": "the judge's win rate, wins plus half the ties, over the units",
    "corrected": "the share of units a human calls a candidate win (ties are not wins)",
    "corrected_win_rate": WIN_RATE_ESTIMAND,
}


@dataclass(frozen=True)
class Calibration:
    """One judge's calibrated win rate for one candidate.

    ``printed`` = (wins + ties/2)/n with its Wilson interval; ``apparent`` = the judge's share of
    candidate wins, the number Rogan–Gladen corrects; ``corrected`` with ``lr_low``/``lr_high``
    (Lang–Reiczigel) and ``naive_low``/``naive_high`` (Se/Sp treated as exact) estimate the share a
    human would call a candidate win. ``win_rate`` is the corrected win rate on both arms (ties
    half, the printed rate's estimand) with a bootstrap interval over instructions;
    ``corrected_loss`` the corrected loss arm. ``floor`` is the half-width the labelled set allows
    even with unlimited judged pairs. ``design_effects`` are the clustering factors the binomial
    intervals used (1 = independent units). When ``refused``, the corrected numbers are NaN and
    ``refusal_reason`` says why; ``win_rate_refusal`` likewise for the both-arms number.
    """

    judge: str | None
    candidate: str | None
    baseline: str | None
    category: str | None
    labelled_category: str | None
    counts: CalibrationCounts
    z: float
    printed: float
    printed_low: float
    printed_high: float
    apparent: float
    se: float
    se_low: float
    se_high: float
    sp: float
    sp_low: float
    sp_high: float
    youden_j: float
    youden_j_adjusted: float
    corrected: float
    lr_low: float
    lr_high: float
    naive_low: float
    naive_high: float
    floor: float
    max_floor: float
    refused: bool
    refusal_reason: str
    transfer_warning: str
    win_rate: Estimate = Estimate(math.nan)
    corrected_loss: float = math.nan
    win_rate_refusal: str = ""
    design_effects: tuple[tuple[str, float], ...] = ()
    design_warnings: tuple[str, ...] = ()

    @property
    def lr_half_width(self) -> float:
        return (self.lr_high - self.lr_low) / 2.0

    @property
    def unit(self) -> str:
        return self.counts.unit

    @property
    def candidate_label(self) -> str:
        if self.candidate is None:
            return "slot A"
        return self.candidate + (f" vs {self.baseline}" if self.baseline else " vs all opponents")

    def __repr__(self) -> str:
        value = "refused" if self.refused else f"{self.corrected:.3f}"
        return (
            f"Calibration({self.candidate_label}, printed={self.printed:.3f}, "
            f"corrected={value}, unit={self.unit!r})"
        )

    def as_dict(self) -> dict:
        c = self.counts
        return {
            "judge": self.judge,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "category": self.category,
            "labelled_category": self.labelled_category,
            "unit": self.unit,
            "both_orders": c.both_orders,
            "both_orders_share": c.both_orders_share,
            "unpaired_calls": c.unpaired_calls,
            "n_judged": c.n_judged,
            "wins": c.wins,
            "ties": c.ties,
            "losses": c.losses,
            "n_labelled": c.n_labelled,
            "n_human_wins": c.n_se,
            "n_human_not_wins": c.n_sp,
            "estimands": dict(ESTIMANDS),
            "printed": self.printed,
            "printed_low": self.printed_low,
            "printed_high": self.printed_high,
            "apparent": self.apparent,
            "se": self.se,
            "se_low": self.se_low,
            "se_high": self.se_high,
            "sp": self.sp,
            "sp_low": self.sp_low,
            "sp_high": self.sp_high,
            "youden_j": self.youden_j,
            "youden_j_adjusted": self.youden_j_adjusted,
            "corrected": self.corrected,
            "lr_low": self.lr_low,
            "lr_high": self.lr_high,
            "naive_low": self.naive_low,
            "naive_high": self.naive_high,
            "corrected_win_rate": self.win_rate.as_dict(),
            "corrected_loss": self.corrected_loss,
            "win_rate_refusal": self.win_rate_refusal,
            "floor": self.floor,
            "max_floor": self.max_floor,
            "refused": self.refused,
            "refusal_reason": self.refusal_reason,
            "transfer_warning": self.transfer_warning,
            "design_effects": dict(self.design_effects),
            "design_warnings": list(self.design_warnings),
            "confidence": _confidence(self.z),
        }

    def summary_frame(self) -> pd.DataFrame:
        """The numbers of the page as a tidy table: quantity, estimate, low, high, definition."""
        nan = math.nan
        w = self.win_rate
        rows = [
            (
                quantities.name("printed_win_rate"),
                self.printed,
                self.printed_low,
                self.printed_high,
                "wins plus half the ties, over the units; Wilson interval clustered by instruction",
            ),
            (
                "judge's share of candidate wins",
                self.apparent,
                nan,
                nan,
                "the judge's wins divided by the units; ties are not wins (what Rogan–Gladen corrects)",
            ),
            (
                quantities.name("sensitivity"),
                self.se,
                self.se_low,
                self.se_high,
                "P(judge says win | human says win), Wilson interval",
            ),
            (
                quantities.name("specificity"),
                self.sp,
                self.sp_low,
                self.sp_high,
                "P(judge says not-win | human says not-win), Wilson interval",
            ),
            (quantities.name("youden_j"), self.youden_j, nan, nan, "sensitivity plus specificity minus one"),
            (
                quantities.name("corrected_win_share"),
                self.corrected,
                self.lr_low,
                self.lr_high,
                "Rogan–Gladen, Lang–Reiczigel interval; share of human-called wins (ties not wins)",
            ),
            (
                quantities.name("corrected_win_share") + ", naive interval",
                self.corrected,
                self.naive_low,
                self.naive_high,
                "Wilson interval of the judge's share through Rogan–Gladen (sensitivity and specificity taken as exact)",
            ),
            (
                quantities.name("corrected_win_rate"),
                w.value,
                w.low,
                w.high,
                "P(human win) + P(human tie)/2, wins and losses each corrected; bootstrap over instructions",
            ),
            (
                quantities.name("correction_floor"),
                self.floor,
                nan,
                nan,
                "Lang–Reiczigel half-width with unlimited judged pairs at this labelled set",
            ),
        ]
        return pd.DataFrame(rows, columns=["quantity", "estimate", "low", "high", "definition"])


def _confidence(z: float) -> float:
    return float(math.erf(z / math.sqrt(2.0)))


def _slice_name(category: str | None) -> str:
    return "all categories" if category is None else f"category {category!r}"


def _effects(c: CalibrationCounts) -> dict[str, float]:
    """Design effects of the printed rate, the apparent share, Se and Sp (1 without patterns)."""
    if c.patterns is None or c.multiplicity is None or not len(c.multiplicity):
        return {"printed": 1.0, "apparent": 1.0, "se": 1.0, "sp": 1.0}
    p = c.patterns.astype(np.float64)
    m = c.multiplicity
    n = p[:, 0] + p[:, 1] + p[:, 2]
    conf = p[:, 3:].reshape(-1, 3, 3)
    return {
        "printed": design_effect(p[:, 0] + 0.5 * p[:, 1], n, m),
        "apparent": design_effect(p[:, 0], n, m),
        "se": design_effect(conf[:, 0, 0], conf[:, 0].sum(1), m),
        "sp": design_effect(conf[:, 1:, 1:].sum((1, 2)), conf[:, 1:].sum((1, 2)), m),
    }


def _refusal(
    c: CalibrationCounts,
    who: str,
    lab: str | None,
    j: float,
    j_adj: float,
    floor: float,
    max_floor: float,
    min_per_class: int,
) -> str:
    if c.n_labelled == 0:
        return (
            f"no labelled rows: none of the judged rows of {who} in {_slice_name(lab)} carries a "
            "'human' label, so there is nothing to measure the judge against"
        )
    if c.n_se < min_per_class:
        return (
            f"only {c.n_se} of the {c.n_labelled:,} labelled units are human-called wins for {who} "
            f"(at least {min_per_class} are needed): the judge's sensitivity cannot be measured"
        )
    if c.n_sp < min_per_class:
        return (
            f"only {c.n_sp} of the {c.n_labelled:,} labelled units are human-called non-wins for "
            f"{who} (at least {min_per_class} are needed): the judge's specificity cannot be measured"
        )
    if j <= 0 or j_adj <= 0:
        return (
            f"Youden's J is {j:.2f} (J' = {j_adj:.2f} after the pseudo-counts): on these labelled "
            "units the judge is no better than chance, so its verdicts cannot be inverted"
        )
    if floor > max_floor:
        return (
            f"with {c.n_labelled:,} labelled units ({c.n_se:,} human wins, {c.n_sp:,} non-wins) and "
            f"Youden's J = {j:.2f}, the corrected rate cannot be tighter than ±{100 * floor:.1f} "
            f"percentage points however many pairs are judged, wider than the ±{100 * max_floor:.0f} "
            "allowed; "
            "label more pairs or use a judge with a higher J"
        )
    return ""


def _loss_arm_refusal(c: CalibrationCounts, min_per_class: int) -> str:
    arm = c.loss_arm()
    if arm is None:
        return (
            "the both-arms win rate needs the labelled confusion matrix (human win, tie, loss × "
            "judge win, tie, loss), which these hand-made counts do not carry"
        )
    tp, n_se, tn, n_sp = arm
    if n_se < min_per_class:
        return (
            f"only {n_se} labelled units are human-called losses (at least {min_per_class} are "
            "needed): the loss arm cannot be corrected"
        )
    if n_sp < min_per_class:
        return (
            f"only {n_sp} labelled units are human-called non-losses (at least {min_per_class} "
            "are needed): the loss arm cannot be corrected"
        )
    if tp / n_se + tn / n_sp - 1.0 <= 0:
        return "on the loss arm the judge is no better than chance, so it cannot be inverted"
    return ""


def calibrate(
    data,
    *,
    judge: str | None = None,
    candidate: str | None = None,
    baseline: str | None = None,
    category: str | None = None,
    labelled_category: str | None | _SameSlice = SAME_SLICE,
    both_orders: bool | None = None,
    max_floor: float = DEFAULT_MAX_FLOOR,
    min_per_class: int = MIN_PER_CLASS,
    z: float = Z95,
    rounds: int = 2000,
    seed: int = 0,
) -> Calibration:
    """Calibrate a judge's win rate for a candidate against the human labels.

    Parameters
    ----------
    data : VerdictStore, DataFrame or CalibrationCounts
        The verdict table, or already-counted :class:`CalibrationCounts`.
    judge, candidate, baseline, category, labelled_category, both_orders
        The selection and the unit, as in :func:`calibration_counts`. The candidate is a model
        (against ``baseline`` or every opponent) or, by default, slot A. ``both_orders=None``
        uses the table's own unit: the both-orders verdict on a table judged in both orders, so
        each human label counts once.
    max_floor : float
        Refuse to correct when the floor is wider than this half-width (default ±20 points).
    min_per_class : int
        Refuse when the labelled units hold fewer human wins or non-wins than this.
    z : float
        Normal quantile of the intervals (1.96 for 95%).
    rounds, seed : int
        Bootstrap draws over instructions for the both-arms win rate, and their seed.

    Returns
    -------
    Calibration

    Notes
    -----
    The refusal rule: the correction is refused, with the reason in words, when the labelled units
    hold fewer than ``min_per_class`` human wins or non-wins (Se or Sp would be a guess), when
    J ≤ 0 or J' ≤ 0 (no better than chance), or when the floor exceeds ``max_floor`` (more judged
    pairs could not make the number usable). Se, Sp, J and the printed rate are reported either way.

    References
    ----------
    Rogan & Gladen (1978); Lang & Reiczigel (2014); Rao & Scott (1992).

    Examples
    --------
    >>> c = CalibrationCounts(wins=170, ties=20, losses=110, tp=90, n_se=100, tn=90, n_sp=100)
    >>> cal = calibrate(c)
    >>> round(cal.printed, 3), round(cal.corrected, 3), cal.refused
    (0.6, 0.583, False)
    """
    min_per_class = check_int("min_per_class", min_per_class, low=1)
    if not 0.0 < max_floor <= 0.5:
        raise UsageError(
            f"max_floor is a half-width between 0 and 0.5 (e.g. 0.20 for ±20 points); got {max_floor!r}"
        )
    rounds = check_int("rounds", rounds, low=1)
    lab = resolve_slice(category, labelled_category)
    c = (
        data
        if isinstance(data, CalibrationCounts)
        else calibration_counts(
            data,
            judge=judge,
            candidate=candidate,
            baseline=baseline,
            category=category,
            labelled_category=labelled_category,
            both_orders=both_orders,
        )
    )
    who = "slot A" if candidate is None else candidate + (f" vs {baseline}" if baseline else "")
    if c.n_judged == 0:
        raise UsageError(
            f"no judged rows for {who} with judge {judge!r} in {_slice_name(category)}: nothing to calibrate"
        )
    nan = math.nan
    n = c.n_judged
    deff = _effects(c)
    printed = (c.wins + 0.5 * c.ties) / n
    printed_low, printed_high = wilson_interval(
        (c.wins + 0.5 * c.ties) / deff["printed"], n / deff["printed"], z
    )
    apparent = c.wins / n
    se = c.tp / c.n_se if c.n_se else nan
    sp = c.tn / c.n_sp if c.n_sp else nan
    se_low, se_high = wilson_interval(c.tp / deff["se"], c.n_se / deff["se"], z) if c.n_se else (nan, nan)
    sp_low, sp_high = wilson_interval(c.tn / deff["sp"], c.n_sp / deff["sp"], z) if c.n_sp else (nan, nan)
    j = se + sp - 1.0
    j_adj = (c.tp + 1) / (c.n_se + 2) + (c.tn + 1) / (c.n_sp + 2) - 1.0
    floor = (
        floor_from(se, sp, c.n_se / deff["se"], c.n_sp / deff["sp"], apparent, z)
        if c.n_se and c.n_sp
        else 0.5
    )
    reason = _refusal(c, who, lab, j, j_adj, float(floor), max_floor, min_per_class)
    corrected = lr_low = lr_high = naive_low = naive_high = nan
    if not reason:
        corrected = float(rogan_gladen(apparent, se, sp))
        # scalar inputs give float bounds (the functions are vectorised, typed for both)
        lr_low, lr_high = cast(
            "tuple[float, float]",
            lang_reiczigel_interval(
                c.wins / deff["apparent"],
                n / deff["apparent"],
                c.tp / deff["se"],
                c.n_se / deff["se"],
                c.tn / deff["sp"],
                c.n_sp / deff["sp"],
                z,
            ),
        )
        naive_low, naive_high = cast(
            "tuple[float, float]", naive_interval(c.wins / deff["apparent"], n / deff["apparent"], se, sp, z)
        )
    win_reason = reason or _loss_arm_refusal(c, min_per_class)
    win_rate, loss = Estimate(nan), nan
    if not win_reason:
        units = c.unit_patterns()
        assert units is not None  # no refusal: the confusion matrix is there (_loss_arm_refusal)
        patterns, multiplicity = units
        win_rate, _, loss = corrected_win_rate(
            patterns, multiplicity, rounds=rounds, seed=seed, level=_confidence(z)
        )
    return Calibration(
        judge=judge,
        candidate=candidate,
        baseline=baseline,
        category=category,
        labelled_category=lab,
        counts=c,
        z=z,
        printed=printed,
        printed_low=printed_low,
        printed_high=printed_high,
        apparent=apparent,
        se=se,
        se_low=se_low,
        se_high=se_high,
        sp=sp,
        sp_low=sp_low,
        sp_high=sp_high,
        youden_j=j,
        youden_j_adjusted=j_adj,
        corrected=corrected,
        lr_low=lr_low,
        lr_high=lr_high,
        naive_low=naive_low,
        naive_high=naive_high,
        floor=float(floor),
        max_floor=max_floor,
        refused=bool(reason),
        refusal_reason=reason,
        transfer_warning=transfer_warning(c, category, lab),
        win_rate=win_rate,
        corrected_loss=float(loss),
        win_rate_refusal=win_reason,
        design_effects=tuple(deff.items()),
        design_warnings=design_warnings(c, candidate=candidate, deff=deff),
    )
