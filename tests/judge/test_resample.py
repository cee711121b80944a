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


def test_pairs_seen_in_both_orders_and_their_slots_equal_the_pooled_matrix():
    """The pairs and each cell's slot come from the cells' keys (no M × M table, which a
    10,000-model arena cannot hold): the same pairs, in the same order, as the pooled matrix's
    upper triangle, and the same slot per cell as a lookup table over every ordered pair; the
    order-swap decomposition's per-model columns equal the pooled matrix's sums."""
    from evalcore.counts import VerdictCounts
    from evalcore.judge.both_orders import LEVEL_VALUES
    from evalcore.judge.order_swap import order_swap

    rng = np.random.default_rng(4)
    m, k = 30, 400
    a, b = rng.integers(0, m, k), rng.integers(0, m, k)
    a[:5] = b[:5]  # a few calls of a model against itself
    counts = VerdictCounts.from_cells(
        models=[f"x{i}" for i in range(m)],
        instructions=[f"q{i}" for i in range(50)],
        judge="j",
        inst=rng.integers(0, 50, k),
        a=a,
        b=b,
        n=rng.multinomial(2, [0.3, 0.1, 0.2, 0.1, 0.3], size=k),
    )
    n = counts.pooled().sum(axis=-1)
    first, second = np.nonzero(np.triu((n > 0) & (n.T > 0), k=1))
    pairs = BalancedPairs.of(counts)
    assert 0 < pairs.size < m * (m - 1) // 2
    np.testing.assert_array_equal(pairs.first, first)
    np.testing.assert_array_equal(pairs.second, second)
    lookup = np.full(m * m, -1)
    lookup[first * m + second] = 2 * np.arange(first.size)
    lookup[second * m + first] = 2 * np.arange(first.size) + 1
    np.testing.assert_array_equal(pairs.slot(counts.a, counts.b), lookup[counts.a * m + counts.b])

    pooled = counts.pooled().astype(float)
    calls, verdicts = pooled.sum(axis=-1), pooled @ LEVEL_VALUES
    both = (calls > 0) & (calls.T > 0)
    table = order_swap(counts, rounds=0).by_anchor.set_index("anchor")
    seen = both.sum(axis=0) > 0
    assert list(table.index) == [f"x{i}" for i in np.flatnonzero(seen)]
    np.testing.assert_array_equal(table["opponents"], both.sum(axis=0)[seen])
    np.testing.assert_array_equal(table["calls_fwd"], calls.sum(axis=0)[seen])
    np.testing.assert_array_equal(table["calls_rev"], calls.sum(axis=1)[seen])
    np.testing.assert_allclose(table["v_fwd"], (verdicts.sum(axis=0) / calls.sum(axis=0))[seen], rtol=1e-15)
    np.testing.assert_allclose(table["v_rev"], (verdicts.sum(axis=1) / calls.sum(axis=1))[seen], rtol=1e-15)
