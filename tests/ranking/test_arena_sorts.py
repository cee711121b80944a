"""Sorts of the arena's Overview made in fewer passes give the order of the sorts they replace:
every model's verdicts against every reference (a merge sort of nearly sorted entries, or none
where each instruction holds one cell, then a radix sort by reference) and the fragility search's cells grouped by pair (a radix sort)."""

from __future__ import annotations

import numpy as np
import pytest

from evalcore.counts import VerdictCounts
from evalcore.ranking.fragility.outcomes import CellIndex
from evalcore.stats.against import verdicts_against


def _counts(seed: int, *, models: int, instructions: int, per_instruction: int) -> VerdictCounts:
    """Random cells: up to ``per_instruction`` ordered pairs an instruction, repeats merged."""
    rng = np.random.default_rng(seed)
    k = instructions * per_instruction
    a = rng.integers(0, models, k)
    b = (a + rng.integers(1, models, k)) % models  # never a model against itself
    return VerdictCounts.from_cells(
        models=tuple(f"m{i:03d}" for i in range(models)),
        instructions=tuple(f"q{i}" for i in range(instructions)),
        judge="j",
        inst=np.repeat(np.arange(instructions), per_instruction),
        a=a,
        b=b,
        n=rng.integers(0, 3, (k, 5)),
    )


SHAPES = [
    {"models": 5, "instructions": 40, "per_instruction": 20},  # all pairs, nearly
    {"models": 129, "instructions": 3000, "per_instruction": 1},  # an arena
    {"models": 30, "instructions": 500, "per_instruction": 3},
    {"models": 300, "instructions": 400, "per_instruction": 2},  # pairs beyond 16 bits
    {"models": 300, "instructions": 2000, "per_instruction": 1},  # one cell each: no merge sort
]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("seed", [0, 1])
def test_verdicts_against_are_sorted_by_the_whole_key(shape, seed):
    counts = _counts(seed, **shape)
    e = verdicts_against(counts)
    m, n = counts.n_models, counts.n_instructions
    key = ((e.opponent * n + e.inst) * m + e.model) * 2 + e.order
    assert np.all(np.diff(key) > 0)  # the unique keys in increasing order: the old sort's order
    assert e.opponent.size == 2 * counts.n_cells
    # each cell's two sides, as the old code made them before sorting
    score = counts.n.astype(np.int64) @ np.arange(-2, 3)
    sides = sorted(
        [
            (int(b), int(i), int(a), 0, int(s))
            for i, a, b, s in zip(counts.inst, counts.a, counts.b, score, strict=True)
        ]
        + [
            (int(a), int(i), int(b), 1, -int(s))
            for i, a, b, s in zip(counts.inst, counts.a, counts.b, score, strict=True)
        ]
    )
    got = list(
        zip(
            e.opponent.tolist(),
            e.inst.tolist(),
            e.model.tolist(),
            e.order.tolist(),
            e.total.tolist(),
            strict=True,
        )
    )
    assert got == sides
    for x in (0, counts.n_models - 1):  # against one reference only: that reference's entries
        one = verdicts_against(counts, only=x)
        mine = e.opponent == x
        for name in ("opponent", "inst", "model", "order", "total", "calls"):
            assert np.array_equal(getattr(one, name), getattr(e, name)[mine]), name


@pytest.mark.parametrize("shape", SHAPES)
def test_cells_grouped_by_pair_in_the_stable_order(shape):
    counts = _counts(2, **shape)
    index = CellIndex(counts)
    key = counts.a.astype(np.int64) * counts.n_models + counts.b
    assert np.array_equal(index.order, np.argsort(key, kind="stable"))
    x, y = int(counts.a[0]), int(counts.b[0])
    assert np.array_equal(index.of_pair(x, y), np.flatnonzero((counts.a == x) & (counts.b == y)))
