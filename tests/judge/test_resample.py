"""The spec sheet's pooled totals (weighted counts) against the product they stand for."""

from __future__ import annotations

import numpy as np
from scipy import sparse

from evalcore.judge._resample import BalancedPairs, pair_totals
from evalcore.simulate.tables import JudgeSpec, SimulationSpec, simulate
from evalcore.store.store import VerdictStore


def _reps():
    sim = simulate(
        SimulationSpec(n_models=6, n_instructions=40, judges=(JudgeSpec("j", slot_bias=0.4),), seed=3)
    )
    store = VerdictStore()
    store.load(sim.verdicts.iloc[::3])  # sparse: some pairs seen in one order only
    return store.counts(judge="j").pattern_counts()


def test_pooled_totals_equal_the_pattern_matrix_times_the_multiplicities():
    """Every total is Σ over instructions: the (patterns × columns) matrix built explicitly and
    multiplied by how often each pattern occurs gives the same numbers, exactly."""
    rep, mult = _reps()
    rng = np.random.default_rng(0)
    values = rng.integers(0, 7, (rep.a.size, 3)).astype(float)
    m = rep.n_models

    cols = np.arange(3)[None, :] * (m * m) + (rep.a.astype(np.int64) * m + rep.b)[:, None]
    rows = np.broadcast_to(rep.inst[:, None], cols.shape)
    x = sparse.csr_matrix(
        (values.ravel(), (rows.ravel(), cols.ravel())), shape=(rep.n_instructions, 3 * m * m)
    )
    expected = np.asarray(x.T @ mult.astype(float)).reshape(3, m, m)
    assert np.array_equal(pair_totals(rep, mult, values), expected)

    pairs = BalancedPairs.of(rep)
    assert 0 < pairs.size < m * (m - 1) // 2  # some pairs seen in one order only are left out
    by_pair = np.zeros((3, pairs.size, 2))
    for p, (i, j) in enumerate(zip(pairs.first, pairs.second, strict=True)):
        by_pair[:, p, 0] = expected[:, i, j]
        by_pair[:, p, 1] = expected[:, j, i]
    assert np.array_equal(pairs.totals(rep, mult, values), by_pair)
