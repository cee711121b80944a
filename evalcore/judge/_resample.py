"""Bootstrap helpers of the spec sheet, on instruction patterns and in bounded chunks.

Two shapes of statistic occur: ratios of sums over instructions (ties, swap consistency),
resampled as a few numbers per instruction pattern; and statistics of per-pair totals pooled over instructions (the balanced position
bias, the order-swap decomposition), resampled chunk by chunk with a pattern × pair matrix
(:func:`~evalcore.stats.bootstrap.pattern_operand`: sparse for arena tables, dense where it is
small and nearly full) so that no (rounds × instructions) array is ever built.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from evalcore.counts import VerdictCounts
from evalcore.stats.bootstrap import bootstrap_weights, pattern_operand, percentile_interval, weighted_totals
from evalcore.stats.intervals import Estimate

#: How the spec sheet's intervals are made (shown with every interval).
METHOD = "bootstrap over instructions (2.5 and 97.5 percentiles)"


def ratios(
    total: np.ndarray, boot: np.ndarray | None, pairs: list[tuple[int, int]], *, scale: float = 1.0
) -> list[Estimate]:
    """Σnum/Σden over instructions for each (num column, den column) of the totals (C,), with
    percentile intervals from the bootstrap totals (R, C) (NaN bounds when ``boot`` is None or
    no draw is finite)."""
    out = []
    for num, den in pairs:
        value = total[num] / total[den] if total[den] > 0 else float("nan")
        low = high = float("nan")
        if boot is not None and total[den] > 0:
            with np.errstate(invalid="ignore", divide="ignore"):
                draws = boot[:, num] / boot[:, den]
            low, high = (float(x) for x in percentile_interval(draws))
        out.append(
            Estimate(
                float(value) * scale, low * scale, high * scale, method=METHOD if boot is not None else ""
            )
        )
    return out


def pair_matrix(rep: VerdictCounts, values: np.ndarray) -> sparse.csr_matrix:
    """Sparse (patterns, C·M·M): column ``c·M² + a·M + b`` holds pattern s's total of value c over
    its cells with a in slot A and b in slot B (``values`` is (K, C) per cell of ``rep``)."""
    m = rep.n_models
    k, c = values.shape
    cols = np.arange(c)[None, :] * (m * m) + (rep.a.astype(np.int64) * m + rep.b)[:, None]
    rows = np.broadcast_to(rep.inst.astype(np.int64)[:, None], (k, c))
    return sparse.csr_matrix(
        (values.ravel(), (rows.ravel(), cols.ravel())), shape=(rep.n_instructions, c * m * m)
    )


def resampled_pair_totals(
    rep: VerdictCounts, multiplicity: np.ndarray, values: np.ndarray, *, rounds: int, seed: int
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield ``(start, stop, totals)`` with ``totals[r, c, a, b]`` the bootstrap total of value c
    over the cells (a, b) in round r. Chunks are sized so a chunk's totals stay near 64 MB."""
    m = rep.n_models
    c = values.shape[1]
    x = pattern_operand(pair_matrix(rep, values))
    per_round = c * m * m * 8 * 4  # the totals and the caller's working copies
    for start, stop, w in bootstrap_weights(multiplicity, rounds, seed, row_bytes=per_round):
        totals = weighted_totals(w, x)  # (r, C·M²)
        yield start, stop, totals.reshape(stop - start, c, m, m)


@dataclass(frozen=True)
class BalancedPairs:
    """The unordered model pairs (``first[p] < second[p]``) seen in both slot orders, pooled over
    instructions: the only pairs that carry position bias or the order-swap decomposition. A
    bootstrap round can only lose pairs, never gain one, so per-round work is over these P pairs
    instead of all M² ordered pairs."""

    n_models: int
    first: np.ndarray
    second: np.ndarray

    @classmethod
    def of(cls, counts: VerdictCounts) -> BalancedPairs:
        # From the cells' ordered-pair keys, never an (M, M) matrix: a 10,000-model arena's
        # pooled counts would take 4 GB for the 200,000 pairs that met.
        m = counts.n_models
        met = counts.n.sum(axis=1) > 0
        key = np.unique(counts.a[met].astype(np.int64) * m + counts.b[met])
        first, second = key // m, key % m
        reverse = second * m + first
        at = np.minimum(np.searchsorted(key, reverse), max(key.size - 1, 0))
        both = (first < second) & (key[at] == reverse) if key.size else np.zeros(0, dtype=bool)
        # the keys ascend, so the pairs come first model first, then second (as row-major order)
        return cls(m, first[both], second[both])

    @property
    def size(self) -> int:
        return int(self.first.size)

    def slot(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Per cell (a in slot A, b in slot B): 2p for pair p in its first order (first in slot
        A), 2p + 1 in the reverse order, −1 for a pair not seen in both orders."""
        # a binary search in the pairs' sorted keys, not a lookup table of every ordered pair of models
        # (800 MB for 10,000 models)
        m = self.n_models
        a, b = a.astype(np.int64), b.astype(np.int64)
        keys = self.first * m + self.second  # ascending (see :meth:`of`)
        wanted = np.minimum(a, b) * m + np.maximum(a, b)
        p = np.minimum(np.searchsorted(keys, wanted), max(self.size - 1, 0))
        found = (keys[p] == wanted) & (a != b) if self.size else np.zeros(a.shape, dtype=bool)
        return np.where(found, 2 * p + (a > b), -1)

    def matrix(self, rep: VerdictCounts, values: np.ndarray) -> sparse.csr_matrix:
        """Sparse (patterns, C·2P): column ``c·2P + slot`` holds a pattern's total of value c."""
        slot = self.slot(rep.a, rep.b)
        keep = slot >= 0
        c = values.shape[1]
        width = 2 * self.size
        cols = np.arange(c)[None, :] * width + slot[keep][:, None]
        rows = np.broadcast_to(rep.inst.astype(np.int64)[keep][:, None], cols.shape)
        return sparse.csr_matrix(
            (values[keep].ravel(), (rows.ravel(), cols.ravel())), shape=(rep.n_instructions, c * width)
        )

    def totals(self, rep: VerdictCounts, multiplicity: np.ndarray, values: np.ndarray) -> np.ndarray:
        """(C, P, 2) totals over all instructions: ``[c, p, 0]`` first in slot A, ``[c, p, 1]``
        second in slot A."""
        slot = self.slot(rep.a, rep.b)
        keep = slot >= 0
        return _weighted_columns(
            slot[keep], values[keep], multiplicity[rep.inst[keep]], 2 * self.size
        ).reshape(values.shape[1], self.size, 2)

    def incidence(self) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """(P, M) one-hot matrices of each pair's first and second model."""
        p = np.arange(self.size)
        ones = np.ones(self.size)
        shape = (self.size, self.n_models)
        return (
            sparse.csr_matrix((ones, (p, self.first)), shape=shape),
            sparse.csr_matrix((ones, (p, self.second)), shape=shape),
        )


def resampled(
    rep: VerdictCounts,
    multiplicity: np.ndarray,
    pairs: BalancedPairs,
    pair_values: np.ndarray,
    per_pattern: np.ndarray,
    *,
    rounds: int,
    seed: int,
) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
    """One pass of bootstrap weights for both shapes: yield ``(start, stop, pair_totals, sums)``
    with ``pair_totals`` (r, C, P, 2) as :meth:`BalancedPairs.totals` per round and ``sums``
    (r, D) the bootstrap totals of ``per_pattern`` (S, D). Drawing the weights is the costly part
    on a large table, so the analyses that share them draw them once."""
    c = pair_values.shape[1]
    x = pattern_operand(pairs.matrix(rep, pair_values))
    per_round = c * 2 * pairs.size * 8 * 6 + per_pattern.shape[1] * 8
    for start, stop, w in bootstrap_weights(multiplicity, rounds, seed, row_bytes=per_round):
        totals = weighted_totals(w, x).reshape(stop - start, c, pairs.size, 2)
        yield start, stop, totals, w @ per_pattern


def pair_totals(rep: VerdictCounts, multiplicity: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(C, M, M) totals of per-cell ``values`` (K, C) over all instructions."""
    m = rep.n_models
    cell = rep.a.astype(np.int64) * m + rep.b
    return _weighted_columns(cell, values, multiplicity[rep.inst], m * m).reshape(values.shape[1], m, m)


def _weighted_columns(column: np.ndarray, values: np.ndarray, weight: np.ndarray, width: int) -> np.ndarray:
    """(C, width): per value c, the sum of ``values[:, c] · weight`` over the cells of each
    column: the product of a pattern × column matrix with the multiplicities, without building
    it (weighted counts, so the sums are exact and equal the product's)."""
    w = weight.astype(np.float64)
    if values.shape[1] == 0:
        return np.zeros((0, width))
    return np.stack(
        [np.bincount(column, values[:, c] * w, minlength=width) for c in range(values.shape[1])]
    ).reshape(values.shape[1], width)


def interval_from_draws(draws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bounds along axis 0; NaN when there are no rounds."""
    if draws.shape[0] == 0:
        nan = np.full(draws.shape[1:], np.nan)
        return nan, nan
    return percentile_interval(draws)
