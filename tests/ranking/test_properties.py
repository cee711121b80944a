"""Property tests of the leaderboard's invariances (Hypothesis): relabelling models, swapping the
slots with the verdict's sign, and duplicating every instruction."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evalcore.counts import VerdictCounts
from evalcore.ranking import leaderboard


@st.composite
def tables(draw):
    """Small random verdict tables with every model in a strongly connected design."""
    m = draw(st.integers(3, 6))
    n_inst = draw(st.integers(3, 12))
    pairs = [(a, b) for a in range(m) for b in range(m) if a != b]
    rows = []
    for i in range(n_inst):
        # Two draws per instruction (which ordered pairs were judged, and their levels in base 5)
        # instead of two per cell: the same tables, generated (and shrunk) several times faster.
        judged = draw(st.integers(0, 2 ** len(pairs) - 1))
        levels = draw(st.integers(0, 5 ** len(pairs) - 1))
        for j, (a, b) in enumerate(pairs):
            if judged >> j & 1:  # rotated, so that a small draw still spreads over the five levels
                rows.append((i, a, b, (levels // 5**j + i + j) % 5))
    # A ring of split results keeps the maximum-likelihood estimate finite.
    for k in range(m):
        rows += [(0, k, (k + 1) % m, 4), (0, (k + 1) % m, k, 4)]
    inst, a, b, level = (np.array(x) for x in zip(*rows, strict=True))
    n = np.zeros((len(rows), 5), dtype=int)
    n[np.arange(len(rows)), level] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"m{k}" for k in range(m)),
        instructions=tuple(f"q{i}" for i in range(n_inst)),
        judge=None,
        inst=inst,
        a=a,
        b=b,
        n=n,
    )


def _ratings(counts):
    t = leaderboard(counts, rounds=0).table
    return dict(zip(t["model"], t["rating"], strict=True))


@settings(max_examples=40, deadline=None)
@given(tables(), st.randoms(use_true_random=False))
def test_relabelling_models_relabels_the_ratings(counts, rnd):
    perm = list(range(counts.n_models))
    rnd.shuffle(perm)
    names = tuple(f"x{k}" for k in perm)  # model k is now called x{perm[k]}
    renamed = VerdictCounts.from_cells(
        models=names,
        instructions=counts.instructions,
        judge=None,
        inst=counts.inst,
        a=counts.a,
        b=counts.b,
        n=counts.n,
    )
    before, after = _ratings(counts), _ratings(renamed)
    for k, name in enumerate(counts.models):
        assert abs(before[name] - after[names[k]]) < 1e-6


@settings(max_examples=40, deadline=None)
@given(tables())
def test_swapping_slots_with_the_verdicts_sign_changes_nothing(counts):
    swapped = counts.with_cells(counts.inst, counts.b, counts.a, counts.n[:, ::-1])
    before, after = _ratings(counts), _ratings(swapped)
    for name in counts.models:
        assert abs(before[name] - after[name]) < 1e-6


#: Found by Hypothesis: the reference model's rating is pinned, its "interval" a width of 1e-6.
PINNED = VerdictCounts.from_cells(
    models=("m0", "m1", "m2"),
    instructions=("q0", "q1", "q2"),
    judge=None,
    inst=np.array([0, 0, 0, 0, 0, 0, 2]),
    a=np.array([0, 0, 1, 1, 2, 2, 0]),
    b=np.array([1, 2, 0, 2, 0, 1, 1]),
    n=np.array([[0, 0, 0, 0, 1]] * 2 + [[0, 0, 1, 0, 1]] + [[0, 0, 0, 0, 1]] * 3 + [[0, 0, 0, 1, 0]]),
)


@settings(max_examples=25, deadline=None)
@given(tables())
@example(PINNED)
def test_duplicating_every_instruction_keeps_ratings_and_narrows_intervals(counts):
    i = counts.n_instructions
    doubled = VerdictCounts.from_cells(
        models=counts.models,
        instructions=counts.instructions + tuple(f"{q}'" for q in counts.instructions),
        judge=None,
        inst=np.r_[counts.inst, counts.inst + i],
        a=np.r_[counts.a, counts.a],
        b=np.r_[counts.b, counts.b],
        n=np.r_[counts.n, counts.n],
    )
    one = leaderboard(counts, rounds=0, interval="sandwich").table.set_index("model")
    two = leaderboard(doubled, rounds=0, interval="sandwich").table.set_index("model")
    np.testing.assert_allclose(one["rating"], two["rating"], atol=1e-6)
    w1 = (one["ci_high"] - one["ci_low"]).to_numpy()
    w2 = (two["ci_high"] - two["ci_low"]).to_numpy()
    # A width of a millionth of an Elo point is rounding noise around zero (a rating the design
    # pins), not an interval: its ratio means nothing; real widths here are tens of points.
    ok = np.isfinite(w1) & np.isfinite(w2) & (w1 > 1e-3)
    # Twice the clusters: information and meat both double, so the covariance halves; with the
    # small-sample factor I/(I − 1) the width ratio is exactly √(½ · (2I/(2I−1)) / (I/(I−1))).
    factor = np.sqrt(0.5 * (2 * i / (2 * i - 1)) / (i / (i - 1)))
    np.testing.assert_allclose(w2[ok], w1[ok] * factor, rtol=1e-6)
