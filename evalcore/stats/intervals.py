"""Interval types and the closed-form intervals used across the library.

:class:`Estimate` is the one interval type: a value with its lower and upper bound, the level and
the method that produced them, so every face can say what an interval is. The Wilson score
interval (Wilson, "Probable inference, the law of succession, and statistical inference",
JASA 1927) is the interval every comparison tool puts on a win rate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import overload

import numpy as np

ArrayLike = float | np.ndarray
#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Estimate:
    """A point estimate and its interval.

    ``method`` says how the interval was made ("bootstrap over instructions", "sandwich",
    "Wilson", …); ``low``/``high`` are NaN where no interval is identified (and the reason is
    then given by the analysis in words). ``one_sided`` marks a bound that only goes one way
    ("lower": the true value is at least ``low``; ``high`` is then +inf).
    """

    value: float
    low: float = math.nan
    high: float = math.nan
    level: float = 0.95
    method: str = ""
    one_sided: str | None = None

    @property
    def has_interval(self) -> bool:
        """A real interval: both bounds finite and not zero-width."""
        return math.isfinite(self.low) and math.isfinite(self.high) and self.high > self.low

    @property
    def width(self) -> float:
        return self.high - self.low

    def scaled(self, factor: float, offset: float = 0.0) -> Estimate:
        lo, hi = self.low * factor + offset, self.high * factor + offset
        if factor < 0:
            lo, hi = hi, lo
        return Estimate(self.value * factor + offset, lo, hi, self.level, self.method, self.one_sided)

    def complement(self) -> Estimate:
        """1 − the estimate (for shares): the bounds swap."""
        return self.scaled(-1.0, 1.0)

    def as_dict(self) -> dict:
        out = {
            "value": _json_number(self.value),
            "low": _json_number(self.low),
            "high": _json_number(self.high),
            "level": self.level,
            "method": self.method,
        }
        if self.one_sided:
            out["one_sided"] = self.one_sided
        return out

    def __repr__(self) -> str:
        if not self.has_interval:
            return f"Estimate({self.value:.4g})"
        return f"Estimate({self.value:.4g} [{self.low:.4g}, {self.high:.4g}])"


def _json_number(x: float) -> float | None:
    return float(x) if x is not None and math.isfinite(x) else None


@overload
def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]: ...
@overload
def wilson_interval(successes: np.ndarray, n: ArrayLike, z: float = Z95) -> tuple[np.ndarray, np.ndarray]: ...
@overload
def wilson_interval(successes: ArrayLike, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, np.ndarray]: ...
def wilson_interval(successes: ArrayLike, n: ArrayLike, z: float = Z95) -> tuple[ArrayLike, ArrayLike]:
    """The Wilson score interval of a binomial share (the documentation's definitions: agreement with humans: the interval every comparison
    tool puts on its printed win rate). ``successes`` may be fractional (ties as halves).

    Vectorised; ``n == 0`` gives NaN bounds.
    """
    k = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(np.maximum(p * (1.0 - p) / m + z2 / (4.0 * m * m), 0.0)) / denom
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high
