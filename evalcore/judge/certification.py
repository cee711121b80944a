"""Judge certification: is the judge's agreement with humans good enough, on both classes?

A judge is **certified** for a task when the lower 95% Wilson bound of its agreement with humans
passes a threshold (default 0.80) on both classes of the calibration's units:

- on **human wins** (the human label says the candidate, or slot A, wins): the share where the
  judge also says win, the sensitivity Se of :mod:`evalcore.calibration`;
- on **human non-wins** (the human says tie or loss): the share where the judge says tie or loss,
  the specificity Sp.

Each class is checked on its own so that a judge that calls everything a win (perfect on human
wins, useless on non-wins) is not certified by a good average. When a class fails, the labels it
still needs are those at which the Wilson lower bound, at the observed agreement, reaches the
threshold. The Wilson interval inverts the score test, so the bound at share p̂ reaches t exactly
when p̂ − t ≥ z·√(t(1 − t)/n), that is n ≥ z²·t(1 − t)/(p̂ − t)²; at an observed agreement at or
below the threshold no number of labels suffices.

The Wilson bounds treat the labelled units as independent draws. Units on one instruction (several
pairs, or both orders of a pair) may be correlated, and then the bounds are too narrow; the
certification says so in its sentence and in ``as_dict()["independence"]`` rather than adjusting
for clustering (the labelled set is usually a few hundred units over as many instructions).

References
----------
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference.
JASA 22(158), 209–212.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from evalcore.errors import UsageError
from evalcore.stats.intervals import Z95, Estimate, wilson_interval

__all__ = ["DEFAULT_THRESHOLD", "Certification", "ClassAgreement", "certify", "labels_needed"]

#: The default threshold on each class's lower bound.
DEFAULT_THRESHOLD = 0.80
CLASSES = {"wins": "human wins", "non_wins": "human non-wins (ties and losses)"}
#: What the Wilson bounds assume, in words (every face shows it).
INDEPENDENCE = (
    "The bounds treat the labelled units as independent; units that share an instruction may be "
    "correlated, which would make them too narrow (no adjustment for clustering by instruction)."
)


def labels_needed(agreed: float, n: int, threshold: float, *, z: float = Z95) -> int | None:
    """Labels in the class at which the Wilson lower bound, at the observed agreement, reaches
    ``threshold``: the smallest n with n ≥ z²·t(1 − t)/(p̂ − t)². None when p̂ ≤ t (cannot pass)
    or nothing is labelled.

    Examples
    --------
    >>> labels_needed(45, 50, 0.8)  # p̂ = 0.9: 1.96² · 0.16 / 0.01 = 61.5
    62
    """
    if n <= 0:
        return None
    p = agreed / n
    if p <= threshold:
        return None
    return max(1, math.ceil(z * z * threshold * (1.0 - threshold) / (p - threshold) ** 2 - 1e-9))


@dataclass(frozen=True)
class ClassAgreement:
    """Agreement on one class: ``agreed`` of ``n`` labelled units, its Wilson interval, whether the
    lower bound passes and how many labels the class needs in all (``needed``, None: cannot pass)."""

    name: str
    agreed: int
    n: int
    estimate: Estimate
    passed: bool
    needed: int | None

    @property
    def more(self) -> int | None:
        """Labels still to add to this class (0 when it passes; None when it cannot)."""
        if self.passed:
            return 0
        return None if self.needed is None else max(self.needed - self.n, 0)

    def as_dict(self) -> dict[str, Any]:
        return {
            "class": self.name,
            "agreed": self.agreed,
            "labelled": self.n,
            "agreement": self.estimate.as_dict(),
            "passed": self.passed,
            "labels_needed": self.needed,
            "more_labels": self.more,
        }


@dataclass(frozen=True)
class Certification:
    """Whether a judge is certified, with each class's agreement and the labels still needed."""

    judge: str | None
    threshold: float
    wins: ClassAgreement
    non_wins: ClassAgreement
    unit: str
    subject: str
    note: str = ""

    @property
    def certified(self) -> bool:
        return self.wins.passed and self.non_wins.passed

    def __repr__(self) -> str:
        return f"Certification(judge={self.judge!r}, certified={self.certified})"

    def sentence(self) -> str:
        """The spec-sheet line in plain words (user text not escaped: escape before Markdown)."""
        t = f"{100 * self.threshold:.0f}%"

        def part(c: ClassAgreement) -> str:
            e = c.estimate
            if c.n == 0:
                return f"no labelled {CLASSES[c.name]}"
            head = (
                f"{CLASSES[c.name]}: {c.agreed:,} of {c.n:,} agree ({100 * e.value:.1f}%, lower 95% "
                f"bound {100 * e.low:.1f}%)"
            )
            if c.passed:
                return head
            if c.more is None:
                return head + f", cannot pass: the observed agreement is not above {t}"
            return head + f", needs {c.more:,} more labels at this agreement"

        # Say which certification this is: the pair's (a candidate's labelled verdicts, the release
        # gate's) and the judge's (every labelled call) count different units and differ in size.
        scope = "this pair" if self.subject.endswith("'s wins") else "the judge, on all labelled calls"
        lead = ("Certified" if self.certified else "Not certified") + f" ({scope}): "
        failing = [c for c in (self.wins, self.non_wins) if not c.passed]
        what = (
            f"both classes' lower 95% Wilson bounds reach {t}"
            if self.certified
            else f"the lower 95% Wilson bound{'s' if len(failing) == 2 else ''} on "
            + " and on ".join(CLASSES[c.name] for c in failing)
            + f" {'is' if len(failing) == 1 else 'are'} below {t}"
        )
        return (
            f"{lead}{what} — {part(self.wins)}; {part(self.non_wins)} (units: {self.unit}s, "
            f"{self.subject}). {INDEPENDENCE}"
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "subject": self.subject,
            "threshold": self.threshold,
            "certified": self.certified,
            "unit": self.unit,
            "interval": "Wilson 95%",
            "wins": self.wins.as_dict(),
            "non_wins": self.non_wins.as_dict(),
            "sentence": self.sentence(),
            "independence": INDEPENDENCE,
            "note": self.note,
        }


def _class(name: str, agreed: int, n: int, threshold: float) -> ClassAgreement:
    low, high = wilson_interval(agreed, n)
    est = Estimate(agreed / n if n else math.nan, low, high, 0.95, "Wilson")
    passed = bool(n > 0 and low >= threshold)
    return ClassAgreement(name, int(agreed), int(n), est, passed, labels_needed(agreed, n, threshold))


def certify(
    counts,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    judge: str | None = None,
    candidate: str | None = None,
) -> Certification:
    """Certify a judge from its labelled confusion counts.

    Parameters
    ----------
    counts : CalibrationCounts
        From :func:`evalcore.calibration.calibration_counts`: ``tp`` of ``n_se`` human wins the
        judge also called a win, ``tn`` of ``n_sp`` human non-wins it called a tie or a loss.
    threshold : float, default 0.80
        Each class's lower 95% Wilson bound must reach it.
    judge : str, optional
        Shown in the dictionary.
    candidate : str, optional
        The model whose wins the counts read (None: slot A's point of view).

    Returns
    -------
    Certification

    Examples
    --------
    >>> from evalcore.calibration import CalibrationCounts
    >>> c = certify(CalibrationCounts(wins=0, ties=0, losses=0, tp=95, n_se=100, tn=80, n_sp=100))
    >>> c.certified, c.wins.passed, c.non_wins.more
    (False, True, None)
    """
    if not (isinstance(threshold, int | float) and 0.0 < threshold < 1.0):
        raise UsageError(f"threshold is a share between 0 and 1, e.g. 0.8; got {threshold!r}")
    subject = f"{candidate}'s wins" if candidate else "read from slot A's point of view"
    note = ""
    if candidate is None and not counts.both_orders and counts.both_orders_share >= 0.5:
        note = (
            "The table is judged in both orders but each call is a unit here: a human win or loss "
            "shared by both order rows falls once in each class, a shared tie twice among the "
            "non-wins. Name a candidate to count each label once (the both-orders verdict)."
        )
    return Certification(
        judge=judge,
        threshold=float(threshold),
        wins=_class("wins", counts.tp, counts.n_se, threshold),
        non_wins=_class("non_wins", counts.tn, counts.n_sp, threshold),
        unit=counts.unit,
        subject=subject,
        note=note,
    )


def certify_judge(
    source,
    judge: str | None = None,
    *,
    candidate: str | None = None,
    category: str | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> Certification:
    """:func:`certify` on the labelled rows of a store or frame (counted by
    :func:`evalcore.calibration.calibration_counts`, the table's own unit)."""
    from evalcore.calibration.counts import calibration_counts

    counts = calibration_counts(source, judge=judge, candidate=candidate, category=category)
    return certify(counts, threshold=threshold, judge=judge, candidate=candidate)
