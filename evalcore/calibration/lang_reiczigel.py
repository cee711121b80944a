"""The Lang–Reiczigel interval: a corrected share with the calibration uncertainty carried in.

With the apparent share measured on n judged pairs and Se, Sp measured on n_se human wins and n_sp
human non-wins, Lang & Reiczigel adjust each share with pseudo-counts, AP' = (k + z²/2)/(n + z²),
Se' = (tp + 1)/(n_se + 2), Sp' = (tn + 1)/(n_sp + 2), J' = Se' + Sp' − 1, P' = (AP' + Sp' − 1)/J',
and take

    Var = [AP'(1−AP')/n' + P'²Se'(1−Se')/n_se' + (1−P')²Sp'(1−Sp')/n_sp'] / J'²,
    dP  = 2z²[P'Se'(1−Se')/n_se' − (1−P')Sp'(1−Sp')/n_sp'],

giving P' + dP ∓ z√Var clipped to [0, 1]. The **floor** is its half-width as n → ∞: what the
labelled set alone allows, however many pairs the judge reads.

References
----------
Lang, Z. & Reiczigel, J. (2014). Confidence limits for prevalence of disease adjusted for
estimated sensitivity and specificity. *Preventive Veterinary Medicine* 113(1), 13–22.
"""

from __future__ import annotations

import numpy as np

from evalcore.stats.intervals import Z95

ArrayLike = float | np.ndarray


def _adjusted(positives, n, tp, n_se, tn, n_sp, z):
    """Lang–Reiczigel's adjusted quantities: AP', n', Se', n_se', Sp', n_sp', J', P'."""
    z2 = z * z
    n_ = np.asarray(n, dtype=np.float64) + z2
    ap_ = (np.asarray(positives, dtype=np.float64) + z2 / 2.0) / n_
    n_se_ = np.asarray(n_se, dtype=np.float64) + 2.0
    se_ = (np.asarray(tp, dtype=np.float64) + 1.0) / n_se_
    n_sp_ = np.asarray(n_sp, dtype=np.float64) + 2.0
    sp_ = (np.asarray(tn, dtype=np.float64) + 1.0) / n_sp_
    j_ = se_ + sp_ - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        p_ = (ap_ + sp_ - 1.0) / j_
    return ap_, n_, se_, n_se_, sp_, n_sp_, j_, p_


def lang_reiczigel_interval(
    positives: ArrayLike,
    n: ArrayLike,
    tp: ArrayLike,
    n_se: ArrayLike,
    tn: ArrayLike,
    n_sp: ArrayLike,
    z: float = Z95,
) -> tuple[ArrayLike, ArrayLike]:
    """The Lang–Reiczigel interval for a Rogan–Gladen corrected share.

    Parameters
    ----------
    positives, n : float or array
        Judge-says-win among the judged pairs, and the judged pairs. Counts may be fractional
        (effective counts after a design-effect adjustment for clustering).
    tp, n_se : float or array
        Judge-says-win among the labelled human wins, and the labelled human wins.
    tn, n_sp : float or array
        Judge-says-not-win among the labelled human non-wins, and those non-wins.
    z : float
        The normal quantile (1.96 for 95%).

    Returns
    -------
    (low, high)
        NaN where J' ≤ 0. Vectorised over every argument.

    References
    ----------
    Lang & Reiczigel (2014), "Confidence limits for prevalence of disease adjusted for estimated
    sensitivity and specificity".

    Examples
    --------
    >>> low, high = lang_reiczigel_interval(45, 100, 40, 50, 40, 50)
    >>> round(low, 3), round(high, 3)
    (0.197, 0.628)
    """
    ap_, n_, se_, n_se_, sp_, n_sp_, j_, p_ = _adjusted(positives, n, tp, n_se, tn, n_sp, z)
    vse = se_ * (1.0 - se_) / n_se_
    vsp = sp_ * (1.0 - sp_) / n_sp_
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (ap_ * (1.0 - ap_) / n_ + p_**2 * vse + (1.0 - p_) ** 2 * vsp) / j_**2
        shift = 2.0 * z * z * (p_ * vse - (1.0 - p_) * vsp)
        half = z * np.sqrt(var)
        ok = j_ > 0
        low = np.where(ok, np.clip(p_ + shift - half, 0.0, 1.0), np.nan)
        high = np.where(ok, np.clip(p_ + shift + half, 0.0, 1.0), np.nan)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def floor_from(
    se: ArrayLike, sp: ArrayLike, n_se: ArrayLike, n_sp: ArrayLike, apparent: ArrayLike, z: float = Z95
) -> ArrayLike:
    """The Lang–Reiczigel half-width as n → ∞ (the AP term vanishes), capped at 0.5.

    Examples
    --------
    >>> round(floor_from(0.785, 0.785, 12.5, 12.5, 0.375 * 0.785 + 0.625 * 0.215), 3)
    0.336
    """
    n_se_ = np.asarray(n_se, dtype=np.float64) + 2.0
    n_sp_ = np.asarray(n_sp, dtype=np.float64) + 2.0
    se_ = (np.asarray(n_se, dtype=np.float64) * se + 1.0) / n_se_
    sp_ = (np.asarray(n_sp, dtype=np.float64) * sp + 1.0) / n_sp_
    j_ = se_ + sp_ - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        p_ = (np.asarray(apparent, dtype=np.float64) + sp_ - 1.0) / j_
        var = (p_**2 * se_ * (1.0 - se_) / n_se_ + (1.0 - p_) ** 2 * sp_ * (1.0 - sp_) / n_sp_) / j_**2
        half = np.where(j_ > 0, np.minimum(z * np.sqrt(var), 0.5), 0.5)
    return float(half) if np.ndim(half) == 0 else half
