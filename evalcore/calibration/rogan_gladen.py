"""Rogan–Gladen: the share of true positives behind an imperfect test's apparent share.

A judge that says "the candidate wins" with sensitivity Se (on pairs a human calls a win) and
specificity Sp (on pairs a human calls a non-win) shows an apparent share AP = P·Se + (1 − P)(1 −
Sp) of wins. Inverting it gives P = (AP + Sp − 1) / (Se + Sp − 1), defined while Youden's
J = Se + Sp − 1 is positive.

References
----------
Rogan, W. J. & Gladen, B. (1978). Estimating prevalence from the results of a screening test.
*American Journal of Epidemiology* 107(1), 71–76.
Youden, W. J. (1950). Index for rating diagnostic tests. *Cancer* 3(1), 32–35.
"""

from __future__ import annotations

import numpy as np

from evalcore.stats.intervals import Z95, wilson_interval

ArrayLike = float | np.ndarray


def rogan_gladen(apparent: ArrayLike, se: ArrayLike, sp: ArrayLike) -> ArrayLike:
    """The Rogan–Gladen estimate P = (AP + Sp − 1) / (Se + Sp − 1), clipped to [0, 1].

    Parameters
    ----------
    apparent : float or array
        The judge's apparent share AP (judge-says-win / judged pairs).
    se, sp : float or array
        The judge's sensitivity and specificity. Arrays broadcast.

    Returns
    -------
    float or array
        NaN where Youden's J = Se + Sp − 1 is not positive: a judge no better than chance cannot
        be inverted.

    References
    ----------
    Rogan & Gladen (1978), "Estimating prevalence from the results of a screening test".

    Examples
    --------
    >>> round(rogan_gladen(0.45, 0.8, 0.8), 4)
    0.4167
    >>> rogan_gladen(0.45, 0.5, 0.5)
    nan
    """
    ap = np.asarray(apparent, dtype=np.float64)
    sp_ = np.asarray(sp, dtype=np.float64)
    j = np.asarray(se, dtype=np.float64) + sp_ - 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(j > 0, np.clip((ap + sp_ - 1.0) / j, 0.0, 1.0), np.nan)
    return float(p) if p.ndim == 0 else p


def naive_interval(
    positives: ArrayLike, n: ArrayLike, se: ArrayLike, sp: ArrayLike, z: float = Z95
) -> tuple[ArrayLike, ArrayLike]:
    """The Wilson interval of the apparent share mapped through Rogan–Gladen.

    Treats Se and Sp as exact constants, so it is too narrow whenever they were measured on a
    small labelled set (it covers 31–53% at 25 labelled pairs while claiming 95%, in "What a
    pairwise win rate is worth"). Shown only for contrast with :func:`lang_reiczigel_interval`.

    Examples
    --------
    >>> low, high = naive_interval(45, 100, 0.8, 0.8)
    >>> round(low, 3), round(high, 3)
    (0.26, 0.579)
    """
    low, high = wilson_interval(positives, n, z)
    return rogan_gladen(low, se, sp), rogan_gladen(high, se, sp)
