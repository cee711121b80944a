"""Release gates on a win rate: superiority and non-inferiority, saying which number they rest on.

A superiority gate promotes when the lower bound of the 95% interval clears 50%; a
non-inferiority gate passes when it clears 50% − margin. When the candidate's pairs are not seen
in both slot orders in balance (the candidate always first, say), the printed rate mixes the
judge's slot preference with strength and the printed gate is undetermined (``determined`` False,
``passed`` False), with the reason in words; the compression note does not apply there. On the **printed** rate (ties half a
win, Wilson interval clustered by instruction) compression toward 50/50 makes a superiority gate
conservative and a non-inferiority gate blind to real regressions. On the **corrected** rate the
gate tests the same estimand the printed gate means, the human win rate with ties as half a win,
with both arms (wins and losses) corrected by Rogan–Gladen and an interval (a bootstrap over
instructions) that carries both the test's and the calibration's uncertainty.

References
----------
"What a pairwise win rate is worth: six judges against expert and crowd labels" (2025), §5.
Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
*American Journal of Epidemiology* 107(1), 71–76.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from evalcore.calibration.clustering import WIN_RATE_ESTIMAND, WIN_RATE_METHOD
from evalcore.calibration.correction import ESTIMANDS, Calibration, _confidence
from evalcore.errors import UsageError


@dataclass(frozen=True)
class GateResult:
    """A release gate's verdict, the number it rested on and what that number estimates.

    ``bound`` is the lower bound used (of the clustered Wilson interval on the printed rate, or of
    the bootstrap interval of the corrected win rate on both arms); ``threshold`` = 0.5 −
    ``margin`` (margin 0 for superiority); ``estimand`` says in words what was tested;
    ``unit`` the unit counted; ``design_warnings`` the calibration's conditions.
    """

    kind: str  # "superiority" | "noninferiority"
    gated_on: str  # "printed" | "corrected"
    passed: bool
    estimate: float
    bound: float
    threshold: float
    margin: float
    explanation: str
    warning: str
    estimand: str = ""
    interval: str = ""
    unit: str = ""
    design_warnings: tuple[str, ...] = ()
    #: False when the design cannot decide the gate (a printed rate whose pair is not seen in both
    #: slot orders in balance): ``passed`` is then False and ``explanation`` says why
    determined: bool = True

    @property
    def verdict(self) -> str:
        """``"PASS"``, ``"FAIL"`` or ``"UNDETERMINED"``."""
        return "UNDETERMINED" if not self.determined else "PASS" if self.passed else "FAIL"

    def as_dict(self) -> dict:
        out = asdict(self)
        out["design_warnings"] = list(self.design_warnings)
        out["verdict"] = self.verdict
        return out


_NONINF_WARNING = (
    "This non-inferiority gate rests on the printed number. Compression pulls every reading toward "
    "50/50, so a real loss looks smaller than it is: a candidate that truly loses 35/65 prints "
    "39-40/60 on expert-grade labels and 45-46/55 on crowd-grade ones; a 15-point regression reads "
    "as 10, or as 5, and a judge at the human ceiling will pass it. Gate on the corrected rate "
    "(needs labelled pairs) before a model migration."
)
_SUP_NOTE = (
    "Gated on the printed number, which is compressed toward 50%: with the pair judged in both "
    "slot orders in balance, a superiority gate on it is conservative and under-calls real wins."
)
_CORRECTED_NOTE = (
    "Gated on the human win rate with ties as half a win (the printed rate's own estimand), both "
    "arms corrected; its interval resamples instructions and re-measures the sensitivity and specificity in every draw."
)


def _gate(cal: Calibration, kind: str, margin: float, corrected: bool) -> GateResult:
    if not 0.0 <= margin < 0.5:
        raise UsageError(f"margin is a share between 0 and 0.5 (e.g. 0.05 for 5 points); got {margin!r}")
    threshold = 0.5 - margin
    what = (
        "superiority (lower bound above 50%)"
        if kind == "superiority"
        else f"non-inferiority with a {100 * margin:.1f}-point margin (lower bound above "
        f"{100 * threshold:.1f}%)"
    )
    subject = cal.candidate_label
    if corrected:
        if cal.win_rate_refusal:
            return GateResult(
                kind,
                "corrected",
                False,
                math.nan,
                math.nan,
                threshold,
                margin,
                f"Failed {what} for {subject}: the gate rests on the corrected win rate and "
                f"the correction is refused: {cal.win_rate_refusal}.",
                "",
                estimand=WIN_RATE_ESTIMAND,
                interval=WIN_RATE_METHOD,
                unit=cal.unit,
                design_warnings=cal.design_warnings,
            )
        estimate, bound = cal.win_rate.value, cal.win_rate.low
        interval, estimand, number = WIN_RATE_METHOD, WIN_RATE_ESTIMAND, "corrected win rate"
        warning = _CORRECTED_NOTE
    else:
        estimate, bound = cal.printed, cal.printed_low
        interval, estimand, number = (
            "Wilson, clustered by instruction",
            ESTIMANDS["printed"],
            "printed win rate",
        )
        warning = _NONINF_WARNING if kind == "noninferiority" else _SUP_NOTE
        if cal.counts.slot_confounded:
            # The printed rate mixes the judge's slot preference with strength: neither a pass nor
            # a fail is evidence, and "conservative" would be false (a slot-A judge inflates it).
            in_a, in_b = cal.counts.slot_calls
            return GateResult(
                kind,
                "printed",
                False,
                estimate,
                bound,
                threshold,
                margin,
                f"Undetermined {what} for {subject}: the printed win rate "
                f"{100 * estimate:.1f}% (lower bound {100 * bound:.1f}%) cannot separate the "
                "judge's slot preference from the models' strengths, because the pair is not "
                f"seen in both slot orders in balance (the candidate in slot A in {in_a:,} calls, "
                f"in slot B in {in_b:,}).",
                "",
                estimand=estimand,
                interval=interval,
                unit=cal.unit,
                design_warnings=cal.design_warnings,
                determined=False,
            )
    passed = bool(bound > threshold)
    verdict = "Passed" if passed else "Failed"
    relation = "above" if passed else "not above"
    explanation = (
        f"{verdict} {what} for {subject}, gated on the {number} {100 * estimate:.1f}% "
        f"({estimand}; unit: {cal.unit}): the lower bound of its "
        f"{100 * _confidence(cal.z):.0f}% interval ({interval}), {100 * bound:.1f}%, is "
        f"{relation} {100 * threshold:.1f}%."
    )
    return GateResult(
        kind,
        "corrected" if corrected else "printed",
        passed,
        estimate,
        bound,
        threshold,
        margin,
        explanation,
        warning,
        estimand=estimand,
        interval=interval,
        unit=cal.unit,
        design_warnings=cal.design_warnings,
    )


PPI_ESTIMAND = (
    "the Bradley–Terry probability that a human prefers the candidate to the baseline, from "
    "prediction-powered ratings (judge verdicts on every pair debiased by the human labels)"
)


def ppi_gate(
    ratings, candidate: str, baseline: str, *, kind: str = "superiority", margin: float = 0.0
) -> GateResult:
    """A superiority or non-inferiority gate on prediction-powered ratings.

    The number gated on is P(human prefers ``candidate`` to ``baseline``) = 1/(1 + 10^(−Δ/400))
    with Δ their PPI rating difference (:func:`evalcore.calibration.ppi.ppi_ratings`); its lower
    bound is the same function at the lower bound of Δ's delta-method interval. Passes when that
    bound is above 50% − ``margin`` (``margin`` 0 for superiority).

    Parameters
    ----------
    ratings : PPIRatings
    candidate, baseline : str
    kind : {"superiority", "noninferiority"}
    margin : float
        The non-inferiority margin as a share.

    Returns
    -------
    GateResult
    """
    from evalcore.ranking.bradley_terry import win_probability

    if kind not in ("superiority", "noninferiority"):
        raise UsageError(f"kind is 'superiority' or 'noninferiority'; got {kind!r}")
    if not 0.0 <= margin < 0.5 or (kind == "superiority" and margin):
        raise UsageError(f"margin is a share from 0 to under 0.5, and 0 for superiority; got {margin!r}")
    diff = ratings.difference(candidate, baseline)
    estimate, bound = float(win_probability(diff.value, 0.0)), float(win_probability(diff.low, 0.0))
    threshold = 0.5 - margin
    passed = bool(bound > threshold)
    what = (
        "superiority (lower bound above 50%)"
        if kind == "superiority"
        else f"non-inferiority with a {100 * margin:.1f}-point margin (lower bound above {100 * threshold:.1f}%)"
    )
    explanation = (
        f"{'Passed' if passed else 'Failed'} {what} for {candidate} against {baseline}, gated on the "
        f"prediction-powered win probability {100 * estimate:.1f}% (rating gap {diff.value:+.0f} Elo "
        f"points, 95% {diff.low:+.0f} to {diff.high:+.0f}): its lower bound, {100 * bound:.1f}%, is "
        f"{'above' if passed else 'not above'} {100 * threshold:.1f}%."
    )
    return GateResult(
        kind,
        "prediction-powered",
        passed,
        estimate,
        bound,
        threshold,
        margin,
        explanation,
        "",
        estimand=PPI_ESTIMAND,
        interval="PPI++ sandwich clustered by instruction, delta method",
        unit="judge call (every pair), human label (labelled pairs)",
        design_warnings=tuple(ratings.notes),
    )


def superiority_gate(cal: Calibration, *, corrected: bool = False) -> GateResult:
    """Promote when the lower 95% bound clears 50%.

    Parameters
    ----------
    cal : Calibration
    corrected : bool
        Gate on the corrected win rate on both arms instead of the printed rate.

    Returns
    -------
    GateResult

    Examples
    --------
    >>> from evalcore.calibration import CalibrationCounts, calibrate
    >>> cal = calibrate(CalibrationCounts(wins=170, ties=20, losses=110, tp=90, n_se=100, tn=90,
    ...                                   n_sp=100))
    >>> superiority_gate(cal).passed
    True
    """
    return _gate(cal, "superiority", 0.0, corrected)


def noninferiority_gate(cal: Calibration, *, margin: float = 0.05, corrected: bool = False) -> GateResult:
    """Pass when the lower 95% bound clears 50% − ``margin``.

    Warns when it rests on the printed number, which compression makes blind to real regressions.

    Parameters
    ----------
    cal : Calibration
    margin : float
        The non-inferiority margin as a share (0.05 for 5 points).
    corrected : bool
        Gate on the corrected win rate on both arms instead of the printed rate.

    Returns
    -------
    GateResult

    Examples
    --------
    >>> from evalcore.calibration import CalibrationCounts, calibrate
    >>> cal = calibrate(CalibrationCounts(wins=125, ties=20, losses=155, tp=90, n_se=100, tn=90,
    ...                                   n_sp=100))
    >>> noninferiority_gate(cal, margin=0.12).passed, noninferiority_gate(cal, margin=0.05).passed
    (True, False)
    """
    return _gate(cal, "noninferiority", margin, corrected)
