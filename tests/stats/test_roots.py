"""Brent's root finder of :mod:`evalcore.stats.roots` is SciPy's ``brentq``, step for step."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq as scipy_brentq

from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.stats.roots import brentq


def test_the_same_roots_as_scipy_bit_for_bit():
    """The one-sided bounds' equation (log-probability of a sweep minus log tail) on random
    opponents and battles, and a smooth cubic: every root equal to SciPy's exactly."""
    rng = np.random.default_rng(0)
    checked = 0
    for t in range(400):
        r = rng.normal(0.0, 300.0, rng.integers(1, 6))
        n = rng.integers(1, 5, r.size).astype(float)
        log_tail = np.log(rng.uniform(0.001, 0.5))

        def excess(x, r=r, n=n, log_tail=log_tail):
            return float(-(n * np.logaddexp(0.0, (r - x) / ELO_SCALE)).sum() - log_tail)

        low, high = r.min() - 3000.0, r.max() + 400.0
        if excess(low) > 0 or excess(high) < 0:
            continue
        assert brentq(excess, low, high, xtol=1e-6) == scipy_brentq(excess, low, high, xtol=1e-6)

        def cubic(x, c=t / 400):
            return float(np.tanh(x - 0.3) + 0.1 * x**3 - c)

        assert brentq(cubic, -5.0, 7.0) == scipy_brentq(cubic, -5.0, 7.0)
        checked += 1
    assert checked > 300


def test_a_bracket_without_a_sign_change_is_refused():
    with pytest.raises(ValueError):
        brentq(lambda x: x * x + 1.0, -1.0, 1.0)
    assert brentq(lambda x: x - 2.0, 2.0, 5.0) == 2.0  # a root at an end is returned as is
