"""Judge drift on repeated items: did the judge's verdicts on the same items shift between early
and late calls?

Where the same item (instruction, slot-A model, slot-B model) was judged more than once at
different times (the optional ``judged_at`` column), the answers are the same; only the judge can
have changed. For each such item the earliest and the latest call give a paired difference of two
scores: slot A's score (1, 1/2, 0) and whether the call was a tie. With no drift the early and
late calls of an item are exchangeable, so each pair's difference is as likely to have either
sign; the test refers Hotelling's statistic on the mean difference (with the sign-invariant second
moment, so the reference is exact) to its distribution over random sign flips of whole pairs (a
permutation test: Good, "Permutation, Parametric, and Bootstrap Tests of Hypotheses", 2005;
Fisher, "The Design of Experiments", 1935, for the paired sign-flip reference). Its size is the
chosen level whatever the number of pairs (7% of 100 simulated tables without drift at the 5%
level, 90% rejected with a planted drift of the slot preference: ``tests/ranking/test_over_time.py``);
without a repeated item the drift is not identified, and the result says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evalcore.errors import UsageError, check_int
from evalcore.ranking.judging_times import judging_times

if TYPE_CHECKING:
    from evalcore.counts import CountSource

#: Sign flips of the drift test by default.
PERMUTATIONS = 1999


def _num(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


# -- judge drift on repeated items ---------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeDrift:
    """Whether the judge's verdicts on the same items shifted between early and late calls.

    ``pairs`` items judged at two or more different times; ``slot_shift`` the mean change of slot
    A's score (late minus early: 1 win, 1/2 tie, 0 loss) and ``tie_shift`` of the tie share, both
    in percentage points; ``p_value`` from ``permutations`` sign flips (Good 2005). Without a repeated item
    nothing is identified (``pairs == 0``, NaN figures).
    """

    pairs: int
    statistic: float
    p_value: float
    slot_shift: float
    tie_shift: float
    alpha: float
    permutations: int

    @property
    def identified(self) -> bool:
        return self.pairs > 0

    @property
    def detected(self) -> bool:
        return self.identified and self.p_value <= self.alpha

    def sentence(self) -> str:
        if not self.identified:
            return (
                "Judge drift is not identified: no item (instruction and the two models in the same "
                "slots) was judged more than once at different times."
            )
        shifts = (
            f"later calls give slot A {self.slot_shift:+.1f} percentage points of score and "
            f"{self.tie_shift:+.1f} points of ties"
        )
        if self.detected:
            return (
                f"The judge drifted: on {self.pairs:,} items judged twice, {shifts} compared with the "
                f"earlier calls (p = {self.p_value:.3g})."
            )
        return (
            f"No judge drift detected on {self.pairs:,} items judged twice: {shifts} compared with "
            f"the earlier calls, within what chance allows (p = {self.p_value:.3g})."
        )

    def as_dict(self) -> dict:
        return {
            "repeated_items": self.pairs,
            "statistic": _num(self.statistic),
            "drift_p": _num(self.p_value),
            "slot_shift": _num(self.slot_shift),
            "tie_shift": _num(self.tie_shift),
            "drift_detected": self.detected,
            "alpha": self.alpha,
            "permutations": self.permutations,
            "sentence": self.sentence(),
        }


def _hotelling(d_mean: np.ndarray, inverse: np.ndarray, n: int) -> np.ndarray:
    return n * np.einsum("...i,ij,...j->...", d_mean, inverse, d_mean)


def paired_drift_test(
    early: np.ndarray,
    late: np.ndarray,
    *,
    alpha: float = 0.05,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> JudgeDrift:
    """Sign-flip permutation test of a shift between early and late verdicts on the same items.

    Parameters
    ----------
    early, late : array of int
        Each repeated item's earliest and latest verdict (levels −2..+2, slot A's view).
    alpha : float, default 0.05
        Level of the test.
    permutations : int, default 1999
        Random sign flips of whole pairs (with 12 pairs or fewer every flip is enumerated).
    seed : int, default 0
        Seed of the flips.

    Returns
    -------
    JudgeDrift

    Notes
    -----
    Each pair gives ``d = (Δ slot-A score, Δ tie)``; the statistic is
    ``n · d̄ᵀ S⁺ d̄`` with ``S = Σ d dᵀ / n`` (unchanged by flipping signs), and the p-value is
    ``(1 + #{flips at least as large}) / (1 + flips)``. Under no drift the pairs' signs are
    exchangeable, so the test has its nominal size exactly (Good 2005, chapter 3).

    References
    ----------
    Good, "Permutation, Parametric, and Bootstrap Tests of Hypotheses", Springer 2005.
    Fisher, "The Design of Experiments", 1935.
    """
    if not 0 < alpha < 1:
        raise UsageError(f"alpha must lie between 0 and 1, not {alpha}")
    permutations = check_int("permutations", permutations, low=1, high=1_000_000)
    early, late = np.asarray(early, dtype=float), np.asarray(late, dtype=float)
    n = int(early.size)
    if n == 0:
        return JudgeDrift(0, math.nan, math.nan, math.nan, math.nan, float(alpha), permutations)

    def scores(v: np.ndarray) -> np.ndarray:
        return np.stack([(np.sign(v) + 1) / 2, (v == 0).astype(float)], axis=1)

    d = scores(late) - scores(early)
    inverse = np.linalg.pinv(d.T @ d / n)
    observed = float(_hotelling(d.mean(axis=0), inverse, n))
    rng = np.random.default_rng(seed)
    if n <= 12:
        signs = 1 - 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1)
        flipped = _hotelling(signs @ d / n, inverse, n)
        p = float(np.mean(flipped >= observed - 1e-12))
        permutations = int(2**n)
    else:
        exceed, done, chunk = 0, 0, max(1, min(permutations, 4_000_000 // n))
        while done < permutations:
            k = min(chunk, permutations - done)
            signs = rng.integers(0, 2, size=(k, n), dtype=np.int8) * 2 - 1
            exceed += int(np.sum(_hotelling(signs @ d / n, inverse, n) >= observed - 1e-12))
            done += k
        p = (1 + exceed) / (1 + permutations)
    mean = d.mean(axis=0)
    return JudgeDrift(n, observed, p, 100 * float(mean[0]), 100 * float(mean[1]), float(alpha), permutations)


def judge_drift(
    source: CountSource,
    *,
    judge: str | None = None,
    category: str | None = None,
    alpha: float = 0.05,
    permutations: int = PERMUTATIONS,
    seed: int = 0,
) -> JudgeDrift:
    """Did the judge's verdicts on repeated items shift between early and late calls?

    Parameters
    ----------
    source : CountSource
        A store of verdicts whose table has ``judged_at``.
    judge, category : str, optional
        The selection.
    alpha, permutations, seed
        As for :func:`paired_drift_test`.

    Returns
    -------
    JudgeDrift
        The test on each repeated item's earliest and latest call (items whose calls share one
        time are left out); not identified when no item was judged twice at different times.

    Raises
    ------
    NoTimesError
        Without judging times.

    References
    ----------
    Good, "Permutation, Parametric, and Bootstrap Tests of Hypotheses", Springer 2005.
    """
    times = judging_times(source)
    calls = source.query("repeated_calls", judge=judge, category=category, times=times)
    key = calls["key"].to_numpy()
    if key.size:
        start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        stop = np.r_[start[1:], key.size] - 1
        t = calls["t"].to_numpy(dtype=float)
        keep = t[stop] > t[start]
        v = calls["verdict"].to_numpy(dtype=float)
        early, late = v[start[keep]], v[stop[keep]]
    else:
        early = late = np.zeros(0)
    return paired_drift_test(early, late, alpha=alpha, permutations=permutations, seed=seed)
