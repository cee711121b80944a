"""Clustering by instruction: design effects for shares, and the corrected win rate on both arms.

A candidate judged against many opponents on one instruction gives correlated units (the same
prompt is easy or hard for it against everyone), and a human label shared by two order rows is one
judgement. Intervals that treat every unit as independent are then too narrow. Two remedies, both
computed on instruction patterns (:class:`~evalcore.calibration.counts.CalibrationCounts`):

- the **design effect** of a share Σy/Σn over instruction clusters (the ratio of its
  cluster-robust variance to the binomial one): a binomial interval is computed on the effective
  sample n / deff (Rao & Scott 1992);
- the **bootstrap over instructions** for the corrected win rate on both arms, which re-estimates
  Se and Sp in every draw, so the interval carries the test's and the calibration's uncertainty.

**Both arms.** The printed win rate counts a tie as half a win, so the human quantity it estimates
is θ = P(human win) + P(human tie)/2 = (1 + P_win − P_loss)/2. Each arm is corrected by
Rogan–Gladen with its own sensitivity and specificity: the win arm (judge-says-win against
human-says-win) and the loss arm (judge-says-loss against human-says-loss).

References
----------
Rao, J. N. K. & Scott, A. J. (1992). A simple method for the analysis of clustered binary data.
*Biometrics* 48(2), 577–585.
Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
*American Journal of Epidemiology* 107(1), 71–76.
Efron, B. & Tibshirani, R. J. (1993). *An Introduction to the Bootstrap*. Chapman & Hall, ch. 13.
"""

from __future__ import annotations

import numpy as np

from evalcore.calibration.rogan_gladen import rogan_gladen
from evalcore.errors import UsageError, check_int
from evalcore.stats.bootstrap import resampled_sums
from evalcore.stats.intervals import Estimate

#: The human quantity the printed win rate stands for, in words.
WIN_RATE_ESTIMAND = (
    "the human win rate with ties as half a win, P(human win) + P(human tie)/2, "
    "both arms (wins and losses) corrected by Rogan–Gladen"
)
#: How its interval is made.
WIN_RATE_METHOD = "bootstrap over instructions (sensitivity and specificity re-estimated in every draw)"


def design_effect(y: np.ndarray, n: np.ndarray, multiplicity: np.ndarray) -> float:
    """The design effect of the share Σy / Σn over instruction clusters (at least 1).

    Parameters
    ----------
    y, n : array
        Per cluster (pattern): successes and units.
    multiplicity : array
        How many instructions share each pattern.

    Returns
    -------
    float
        Cluster-robust variance over binomial variance, floored at 1 (independent units); 1 when
        fewer than two clusters have units or the share is 0 or 1.

    References
    ----------
    Rao & Scott (1992), "A simple method for the analysis of clustered binary data".

    Examples
    --------
    Ten instructions whose units all agree within each instruction: each instruction of four
    units is worth one, so the design effect is close to 4.

    >>> y = np.array([4.0, 0.0]); n = np.array([4.0, 4.0]); m = np.array([5, 5])
    >>> round(design_effect(y, n, m), 2)
    4.44
    """
    y = np.asarray(y, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    m = np.asarray(multiplicity, dtype=np.float64)
    total = float(m @ n)
    clusters = float(m[n > 0].sum())
    if clusters < 2 or total <= 0:
        return 1.0
    p = float(m @ y) / total
    binomial = p * (1.0 - p) / total
    if binomial <= 0:
        return 1.0
    robust = clusters / (clusters - 1.0) * float(m @ (y - p * n) ** 2) / total**2
    return max(1.0, robust / binomial)


def _both_arms(totals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """θ, P_win and P_loss from (…, 12) totals in pattern-column order (NaN where an arm's J ≤ 0)."""
    t = np.asarray(totals, dtype=np.float64)
    n = t[..., 0] + t[..., 1] + t[..., 2]
    c = t[..., 3:].reshape(t.shape[:-1] + (3, 3))
    with np.errstate(invalid="ignore", divide="ignore"):
        se_w = c[..., 0, 0] / c[..., 0, :].sum(-1)
        sp_w = c[..., 1:, 1:].sum((-1, -2)) / c[..., 1:, :].sum((-1, -2))
        se_l = c[..., 2, 2] / c[..., 2, :].sum(-1)
        sp_l = c[..., :2, :2].sum((-1, -2)) / c[..., :2, :].sum((-1, -2))
        p_win = np.asarray(rogan_gladen(t[..., 0] / n, se_w, sp_w), dtype=np.float64)
        p_loss = np.asarray(rogan_gladen(t[..., 2] / n, se_l, sp_l), dtype=np.float64)
    return (1.0 + p_win - p_loss) / 2.0, p_win, p_loss


def corrected_win_rate(
    patterns: np.ndarray, multiplicity: np.ndarray, *, rounds: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[Estimate, float, float]:
    """The corrected win rate on both arms with a bootstrap interval over instructions.

    Parameters
    ----------
    patterns : (S, 12) array
        Instruction patterns (judged wins, ties, losses; labelled 3 × 3 confusion matrix).
    multiplicity : (S,) array
        Instructions per pattern.
    rounds : int
        Bootstrap draws (each resamples instructions with replacement).
    seed : int
        Seed of the draws.
    level : float
        Two-sided level of the percentile interval.

    Returns
    -------
    (Estimate, float, float)
        θ with its interval, and the corrected P(human win) and P(human loss). A draw in which an
        arm cannot be inverted (J ≤ 0) counts as 0 for the lower bound and 1 for the upper one,
        so an unstable calibration widens the interval instead of vanishing from it.

    References
    ----------
    Rogan & Gladen (1978); Efron & Tibshirani (1993), ch. 13.

    Examples
    --------
    A judge that is always right, 40 wins, 20 ties and 40 losses, every pair labelled:

    >>> row = [[1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
    ...        [0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1]]
    >>> est, p_win, p_loss = corrected_win_rate(np.array(row), np.array([40, 20, 40]), rounds=200)
    >>> round(est.value, 6), round(p_win, 6), round(p_loss, 6)
    (0.5, 0.4, 0.4)
    """
    rounds = check_int("rounds", rounds, low=1)
    if not 0.0 < level < 1.0:
        raise UsageError(f"level must lie strictly between 0 and 1; got {level!r}")
    p = np.asarray(patterns, dtype=np.float64)
    m = np.asarray(multiplicity, dtype=np.int64)
    theta, p_win, p_loss = (float(x) for x in _both_arms(m @ p if len(m) else np.zeros(12)))
    if not np.isfinite(theta):
        return Estimate(theta, method=WIN_RATE_METHOD), p_win, p_loss
    draws = _both_arms(resampled_sums(p, m, rounds, seed))[0]
    tail = 100.0 * (1.0 - level) / 2.0
    low = float(np.percentile(np.where(np.isnan(draws), 0.0, draws), tail))
    high = float(np.percentile(np.where(np.isnan(draws), 1.0, draws), 100.0 - tail))
    return Estimate(theta, low, high, level=level, method=WIN_RATE_METHOD), p_win, p_loss
