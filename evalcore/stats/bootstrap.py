"""The bootstrap over instructions, on instruction patterns and in bounded chunks.

Every interval labelled "bootstrap" in Verdict Lab resamples instructions (the benchmark's unit)
with replacement, refits, and reports the 2.5 and 97.5 percentiles (Efron & Tibshirani, *An
Introduction to the Bootstrap*, 1993, ch. 13). Instructions with identical cells are exchangeable,
so the draw is a multinomial over the distinct patterns of :class:`~evalcore.counts.VerdictCounts`
(see :attr:`~evalcore.counts.VerdictCounts.patterns`), which keeps arena-sized tables cheap.
Weights come in chunks of rounds so memory stays bounded whatever ``rounds`` is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from evalcore.errors import check_int

if TYPE_CHECKING:
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

#: Bytes one chunk of weights (and the analysis' per-round arrays) may take.
CHUNK_BYTES = 64 * 1024**2
#: The most rounds any bootstrap accepts (memory is chunked, but time is not free).
MAX_ROUNDS = 100_000
#: Largest per-pattern matrix (patterns × quantities) the bootstrap holds as a dense array (bytes).
DENSE_PATTERN_BYTES = 128 * 1024**2
#: Share of non-zero entries from which a per-pattern matrix is multiplied densely. Measured on
#: two cores (``benchmarks/bench_bootstrap_product.py``): a sparse product costs about ten times a
#: BLAS product per stored entry, so a dense product wins from a density of about 0.1.
DENSE_PATTERN_DENSITY = 0.15


def bootstrap_weights(
    multiplicity: np.ndarray | int,
    rounds: int,
    seed: int,
    *,
    chunk_rounds: int | None = None,
    row_bytes: int = 0,
) -> Iterator[tuple[int, int, np.ndarray]]:
    """Yield ``(start, stop, weights)`` with ``weights[r, s]`` how often pattern ``s`` is drawn.

    ``multiplicity`` is the number of instructions per pattern (an int ``I`` means ``I``
    patterns of one instruction each, the plain bootstrap). Each round draws ``sum(multiplicity)``
    instructions uniformly with replacement, which is a multinomial over patterns with
    probabilities proportional to their multiplicity. ``row_bytes`` is the memory an analysis
    needs per round beyond the weights, so the chunk is sized for both.

    The stream is the same for the same seed whatever the chunk size.
    """
    rounds = check_int("rounds", rounds, low=0, high=MAX_ROUNDS)
    if isinstance(multiplicity, int | np.integer):
        multiplicity = np.ones(int(multiplicity), dtype=np.int64)
    mult = np.asarray(multiplicity, dtype=np.int64)
    total = int(mult.sum())
    if rounds == 0 or total == 0:
        return
    p = mult / total
    per_round = mult.size * 8 + int(row_bytes)
    step = chunk_rounds or max(1, min(rounds, CHUNK_BYTES // max(per_round, 1)))
    rng = np.random.default_rng(seed)
    for start in range(0, rounds, step):
        stop = min(start + step, rounds)
        yield start, stop, rng.multinomial(total, p, size=stop - start).astype(np.float64)


def pattern_operand(per_pattern: sparse.spmatrix | np.ndarray) -> np.ndarray | sparse.csr_matrix:
    """A per-pattern matrix (S, F) prepared for :func:`weighted_totals`, dense or sparse.

    All-pairs tables have a few hundred patterns that touch nearly every quantity: one dense BLAS
    product per chunk is then several times faster than a sparse one. Arena tables have tens of
    thousands of patterns, each touching a handful of the M² pairs: kept sparse, transposed
    (F, S) so that the product runs over the stored entries only.
    """
    if isinstance(per_pattern, np.ndarray):
        return per_pattern
    s, f = per_pattern.shape
    dense = s * f * 8 <= DENSE_PATTERN_BYTES and per_pattern.nnz >= DENSE_PATTERN_DENSITY * s * f
    return per_pattern.toarray() if dense else sparse.csr_matrix(per_pattern.T)


def entries_operand(
    rows: np.ndarray, cols: np.ndarray, vals: np.ndarray, shape: tuple[int, int], *, exact_sums: bool
) -> np.ndarray | sparse.csr_matrix:
    """:func:`pattern_operand` of the (S, F) matrix holding ``vals`` at ``(rows, cols)`` (repeated
    positions summed), the same choice of dense or sparse. ``exact_sums``: every sum of repeated
    entries is exact in any order (whole and half battles); then a dense operand is built with
    numpy alone, the same numbers as scipy's, and a table of few models never imports scipy's
    sparse matrices (a third of a second of CPU)."""
    s, f = shape
    if exact_sums and s * f * 8 <= DENSE_PATTERN_BYTES:
        flat = np.asarray(rows, dtype=np.int64) * f + np.asarray(cols, dtype=np.int64)
        stored = np.zeros(s * f, dtype=bool)
        stored[flat] = True  # the positions a sparse matrix would store (its nnz)
        if np.count_nonzero(stored) >= DENSE_PATTERN_DENSITY * s * f:
            return np.bincount(flat, weights=vals, minlength=s * f).reshape(s, f)
    return pattern_operand(sparse.csr_matrix((vals, (rows, cols)), shape=shape))


def weighted_totals(weights: np.ndarray, operand: np.ndarray | sparse.csr_matrix) -> np.ndarray:
    """``weights @ per_pattern``: (r, F) totals for bootstrap weights (r, S) and an operand from
    :func:`pattern_operand`."""
    if isinstance(operand, np.ndarray):
        return weights @ operand
    return np.asarray(operand @ weights.T).T


def resampled_sums(
    per_pattern: np.ndarray,
    multiplicity: np.ndarray | int,
    rounds: int,
    seed: int,
) -> np.ndarray:
    """(rounds, …) bootstrap totals of a per-pattern quantity ``per_pattern`` (S, …).

    For quantities small enough to hold for every round (a few numbers per round); larger ones
    should loop over :func:`bootstrap_weights` themselves.
    """
    per_pattern = np.asarray(per_pattern, dtype=np.float64)
    flat = per_pattern.reshape(per_pattern.shape[0], -1)
    out = np.empty((rounds, flat.shape[1]))
    for start, stop, w in bootstrap_weights(multiplicity, rounds, seed, row_bytes=flat.shape[1] * 8):
        out[start:stop] = w @ flat
    return out.reshape((rounds,) + per_pattern.shape[1:])


def percentile_interval(
    samples: np.ndarray, *, level: float = 0.95, axis: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """The equal-tailed percentile interval of bootstrap samples, ignoring non-finite draws."""
    tail = 100 * (1 - level) / 2
    s = np.asarray(samples, dtype=np.float64)
    s = np.where(np.isfinite(s), s, np.nan)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns stay NaN
        low, high = np.nanpercentile(s, [tail, 100 - tail], axis=axis)
    return low, high
