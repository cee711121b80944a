"""The bootstrap's shared product (``pattern_operand`` / ``weighted_totals``) against a plain
dense product, on the two shapes it chooses between."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from evalcore.stats import bootstrap
from evalcore.stats.bootstrap import bootstrap_weights, pattern_operand, weighted_totals


def _weights(s: int, rounds: int = 40) -> np.ndarray:
    return next(bootstrap_weights(np.ones(s, dtype=np.int64), rounds, 3))[2]


@pytest.mark.parametrize(
    ("s", "f", "density", "dense"),
    [
        (30, 120, 0.9, True),  # all pairs: a few patterns touching nearly every pair
        (30, 120, 0.3, True),
        (400, 900, 0.005, False),  # arena: many patterns, a handful of pairs each
    ],
)
def test_both_products_equal_the_plain_product(s, f, density, dense):
    x = sparse.random(s, f, density=density, format="csr", random_state=7)
    w = _weights(s)
    operand = pattern_operand(x)
    assert isinstance(operand, np.ndarray) is dense
    np.testing.assert_allclose(weighted_totals(w, operand), w @ x.toarray(), rtol=1e-12, atol=1e-9)


def test_a_dense_array_is_used_as_it_is():
    x = np.arange(12.0).reshape(4, 3)
    assert pattern_operand(x) is x
    np.testing.assert_array_equal(weighted_totals(np.eye(4), x), x)


def test_a_full_matrix_past_the_size_limit_stays_sparse(monkeypatch):
    # full, but a dense copy would pass the size limit: never made
    x = sparse.csr_matrix(np.ones((50, 8)))
    assert isinstance(pattern_operand(x), np.ndarray)
    monkeypatch.setattr(bootstrap, "DENSE_PATTERN_BYTES", 50 * 8 * 8 - 1)
    assert sparse.issparse(pattern_operand(x))
