"""Brent's root finder without importing SciPy's optimisation package.

``scipy.optimize`` costs a fifth of a second of CPU to import (it imports most of SciPy's
linear algebra and its documentation parser), more than a many-model leaderboard's one-sided
bounds take to compute. :func:`brentq` is the same algorithm as SciPy's ``brentq`` (Brent,
*Algorithms for Minimization without Derivatives*, 1973, chapter 4, as SciPy's C code writes
it: inverse quadratic interpolation or the secant, else bisection), step for step, so it returns
the same number; the tests compare the two bit for bit.
"""

from __future__ import annotations

from collections.abc import Callable

#: SciPy's default relative tolerance (four machine epsilons) and iteration cap.
RTOL = 4 * 2.220446049250313e-16
MAX_ITER = 100


def brentq(
    f: Callable[[float], float],
    a: float,
    b: float,
    *,
    xtol: float = 2e-12,
    rtol: float = RTOL,
    maxiter: int = MAX_ITER,
) -> float:
    """A root of ``f`` in [a, b], where f(a) and f(b) have opposite signs (ValueError otherwise);
    within ``xtol + rtol·|x|``, as ``scipy.optimize.brentq``. RuntimeError when ``maxiter``
    steps do not converge."""
    xpre, xcur = float(a), float(b)
    xblk = fblk = spre = scur = 0.0
    fpre, fcur = float(f(xpre)), float(f(xcur))
    if fpre == 0:
        return xpre
    if fcur == 0:
        return xcur
    if (fpre < 0) == (fcur < 0):
        raise ValueError("f(a) and f(b) must have different signs")
    for _ in range(maxiter):
        if fpre != 0 and fcur != 0 and (fpre < 0) != (fcur < 0):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (xtol + rtol * abs(xcur)) / 2
        sbis = (xblk - xcur) / 2
        if fcur == 0 or abs(sbis) < delta:
            return xcur
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate (secant)
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate (inverse quadratic)
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2 * abs(stry) < min(abs(spre), 3 * abs(sbis) - delta):  # a good short step
                spre, scur = scur, stry
            else:
                spre = scur = sbis
        else:
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur = float(f(xcur))
    raise RuntimeError(f"no root found within {maxiter} steps")
