"""Level distributions: tie probability Σp², Rényi effective levels D1 and D2, distinct values.

A judge that emits few distinct values ties often. For a distribution p over the values a judge
emits, the tie probability Σp² is the chance that two random outputs share a value; the effective
number of levels D_α = exp(H_α) with Rényi entropy H_α = log(Σ p^α) / (1 − α) counts equally used
levels with the same entropy (D1 = exp(Shannon entropy), D2 = 1 / Σp², and D2 ≤ D1 ≤ distinct).

References
----------
Rényi, A. (1961). On measures of entropy and information. *Proc. Fourth Berkeley Symp. Math.
Statist. Prob.* 1, 547–561.
Hill, M. O. (1973). Diversity and evenness: a unifying notation and its consequences.
*Ecology* 54(2), 427–432.
"The Format is the Filter: Scoring Format Fixes What an LLM Judge Can Express" (2025), §3 and
Appendix D.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.errors import UsageError
from evalcore.schema import LEVELS

#: Decimals kept when deciding whether two scores are equal.
SCORE_DECIMALS = 12
#: How a pairwise call becomes a within-instruction score (see :func:`level_weights`).
SCORE_RULES: tuple[str, ...] = ("soft", "sign")
#: Words for each verdict level (slot A's point of view).
LEVEL_LABELS: dict[int, str] = {
    -2: "B much better",
    -1: "B better",
    0: "tie",
    1: "A better",
    2: "A much better",
}


@dataclass(frozen=True)
class LevelStats:
    """Tie probability Σp², effective levels D1 = exp(H1) and D2 = 1/Σp², and distinct values.

    ``n`` is the total weight behind the distribution (1.0 when probabilities were given).
    """

    tie_probability: float
    d1: float
    d2: float
    distinct: int
    n: float

    def as_dict(self) -> dict:
        return {
            "tie_probability": self.tie_probability,
            "d1": self.d1,
            "d2": self.d2,
            "distinct": self.distinct,
            "n": self.n,
        }

    def __repr__(self) -> str:
        return (
            f"LevelStats(tie_probability={self.tie_probability:.4g}, d1={self.d1:.4g}, "
            f"d2={self.d2:.4g}, distinct={self.distinct})"
        )


def renyi_effective_levels(probabilities: Iterable[float] | np.ndarray, alpha: float) -> float:
    """The number of equally used levels with the same Rényi entropy of order ``alpha``.

    Parameters
    ----------
    probabilities : array_like
        Non-negative weights per level (normalised here); zero-weight levels do not count.
    alpha : float
        The Rényi order: 1 is the Shannon limit, 2 the inverse tie probability, ``inf`` 1 / max p.

    Returns
    -------
    float
        D_α = exp(H_α).

    References
    ----------
    Rényi (1961); Hill (1973), "Diversity and evenness".

    Examples
    --------
    >>> renyi_effective_levels([0.25, 0.25, 0.25, 0.25], 2)
    4.0
    >>> round(renyi_effective_levels([0.75, 0.25], 1), 6)
    1.754765
    """
    p = np.asarray(
        list(probabilities) if not isinstance(probabilities, np.ndarray) else probabilities, dtype=np.float64
    )
    p = p[p > 0]
    if p.size == 0:
        raise UsageError("probabilities must give some level a positive weight")
    p = p / p.sum()
    if alpha == 1:
        return float(np.exp(-(p * np.log(p)).sum()))
    if np.isinf(alpha):
        return float(1.0 / p.max())
    return float(np.exp(np.log((p**alpha).sum()) / (1.0 - alpha)))


def level_stats(values: Iterable[float] | np.ndarray | pd.Series) -> LevelStats:
    """Tie probability, D1, D2 and distinct values of counts (or probabilities) over levels.

    Parameters
    ----------
    values : array_like
        Non-negative weights, one per level; normalised, so counts and probabilities give the same
        statistics. Levels with zero weight are unused and not distinct.

    Returns
    -------
    LevelStats

    Raises
    ------
    UsageError
        For negative or non-finite weights, or an all-zero distribution.

    References
    ----------
    "The Format is the Filter" (2025), Appendix D; Hill (1973).

    Examples
    --------
    >>> s = level_stats([3, 1, 0])
    >>> s.tie_probability, s.d2, s.distinct
    (0.625, 1.6, 2)
    """
    w = np.asarray(values, dtype=np.float64).ravel()
    if w.size == 0 or not np.isfinite(w).all() or (w < 0).any():
        raise UsageError("values: level weights must be finite, non-negative numbers")
    total = float(w.sum())
    if total <= 0:
        raise UsageError("values: the distribution is empty, no level has any weight")
    p = w / total
    tie = float((p**2).sum())
    return LevelStats(
        tie_probability=tie,
        d1=renyi_effective_levels(p, 1.0),
        d2=1.0 / tie,
        distinct=int((w > 0).sum()),
        n=total,
    )


def level_weights(score: str = "soft") -> np.ndarray:
    """Slot A's share of one call at each verdict level −2..+2.

    Parameters
    ----------
    score : {"soft", "sign"}
        ``soft``: σ(v) = 1 / (1 + e^−v), the tournament score of "The Format is the Filter" (§2,
        App. A); ``sign``: 1 / ½ / 0 for a win / tie / loss (the usual win share).

    Returns
    -------
    numpy.ndarray
        Five weights, one per level in ``LEVELS`` order; slot B's share is 1 minus it.

    Examples
    --------
    >>> level_weights("sign").tolist()
    [0.0, 0.0, 0.5, 1.0, 1.0]
    """
    levels = np.asarray(LEVELS, dtype=np.float64)
    if score == "soft":
        return 1.0 / (1.0 + np.exp(-levels))
    if score == "sign":
        return np.where(levels > 0, 1.0, np.where(levels < 0, 0.0, 0.5))
    raise UsageError(f"score must be one of {SCORE_RULES}, not {score!r}")
