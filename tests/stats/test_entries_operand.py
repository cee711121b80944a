"""The bootstrap's per-pattern operand built with numpy alone equals scipy's, number for number,
where it is dense (few models), and the choice of dense or sparse is the same."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from evalcore.ranking.bradley_terry import win_entries
from evalcore.stats.bootstrap import entries_operand, pattern_operand
from evalcore.store.store import VerdictStore


def _scipy_operand(rows, cols, vals, shape):
    return pattern_operand(sparse.csr_matrix((vals, (rows, cols)), shape=shape))


def test_dense_operand_equals_scipys_exactly(small_sim):
    counts = VerdictStore.from_frame(small_sim.verdicts).counts(judge="j1")
    reps, mult = counts.pattern_counts()
    rows, cols, vals = win_entries(reps)
    m = counts.n_models
    shape = (int(mult.size), m * m)
    ours = entries_operand(rows, cols, vals, shape, exact_sums=True)
    theirs = _scipy_operand(rows, cols, vals, shape)
    assert isinstance(ours, np.ndarray) and isinstance(theirs, np.ndarray)
    assert ours.dtype == theirs.dtype and np.array_equal(ours, theirs)
    # repeated positions (both slot orders of a pair) are summed, as scipy sums them
    assert np.unique(rows * shape[1] + cols).size < rows.size


def test_sparse_choice_is_kept():
    """Few entries over many positions (an arena's patterns): sparse, as before."""
    rng = np.random.default_rng(1)
    shape = (400, 2_500)
    rows = rng.integers(0, shape[0], 600)
    cols = rng.integers(0, shape[1], 600)
    vals = rng.integers(1, 3, 600) / 2.0
    ours = entries_operand(rows, cols, vals, shape, exact_sums=True)
    theirs = _scipy_operand(rows, cols, vals, shape)
    assert sparse.issparse(ours) and sparse.issparse(theirs)
    assert np.array_equal(ours.toarray(), theirs.toarray())


def test_density_threshold_counts_positions_not_entries():
    """A position written twice is one stored entry for scipy: the density rule counts
    positions, so the two builds choose alike right at the threshold."""
    shape = (10, 10)
    # 15 distinct positions (density 0.15, dense) written twice each
    pos = np.arange(15)
    rows, cols = np.concatenate([pos, pos]) // 10, np.concatenate([pos, pos]) % 10
    vals = np.ones(30)
    assert isinstance(entries_operand(rows, cols, vals, shape, exact_sums=True), np.ndarray)
    assert isinstance(_scipy_operand(rows, cols, vals, shape), np.ndarray)
    # 14 distinct positions: below the threshold, sparse for both
    keep = np.concatenate([pos[:14], pos[:14]])
    r2, c2 = keep // 10, keep % 10
    assert sparse.issparse(entries_operand(r2, c2, np.ones(28), shape, exact_sums=True))
    assert sparse.issparse(_scipy_operand(r2, c2, np.ones(28), shape))
