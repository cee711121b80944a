"""Leaderboards of many models over the compared pairs only: no models × models matrix.

Why this module is longer than 500 lines: the sandwich over the pairs is one object
(:class:`PairSandwich`) whose variances come by three routes that share its factors (through
the meat for few models, over the clusters, from draws for a large piece), next to the pooled wins
and the graph checks they are built from.

From :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models the leaderboard keeps the
pooled wins as one number per direction of each pair that met (:class:`PairWins`), so its memory
and time follow the battles, not the square (or the cube) of the models: 10,000 models with
200,000 battles need about 200,000 pairs, where a models × models matrix of them is 800 MB.

The sandwich covariance Cov = P X B X P (X the inverse information, or its pseudo-inverse with
the location fixed, B the clustered meat, P the centring; see
:func:`evalcore.ranking.intervals.sandwich_covariance`) is kept as the pieces it is made of
(:class:`PairSandwich`): the information as the pairs' weights, the meat as a sparse matrix. An
interval needs only the diagonal of Cov; a rating difference one entry (two solves); the rank
ranges draws with covariance Cov, made without forming it: with ε_k a random sign per cluster,
s = Σ_k ε_k g_k over the clusters' scores g_k has covariance B exactly, and X s then has
covariance X B X (the score wild bootstrap: Kline & Santos, "A score based approach to wild
bootstrap inference", 2012). Each draw sums many clusters' scores, so it is close to normal: the
sandwich's normal approximation, with random signs a tenth of the cost of normal numbers.

The diagonal is exact where the comparison graph is in pieces of at most
:data:`EXACT_PIECE_MODELS` models: each piece's information is inverted as a small dense matrix
(the pieces never met, so X is block diagonal). In a larger piece (an arena of thousands of
models all linked) the exact diagonal needs thousands of solves; there it is the variance of
:data:`DIAGONAL_DRAWS` (or more) of the draws above, with the Jacobi approximation of X as a
control variate whose exact variance is known (Hammersley & Handscomb, *Monte Carlo Methods*,
1964): a standard error within about one percent of the exact one, said in a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import sparse_fit
from evalcore.ranking.bradley_terry import SLOT_A_SCORE, ComparisonGraph, _sigmoid, win_entries
from evalcore.ranking.intervals import normal_draws, score_residuals

if TYPE_CHECKING:
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

#: The largest piece of the comparison graph whose information is inverted exactly (a dense
#: matrix of this many models: 8 × 2,500² bytes = 50 MB, under a second).
EXACT_PIECE_MODELS = 2_500
#: The fewest draws the diagonal of a larger piece is estimated from.
DIAGONAL_DRAWS = 1_000
#: Draws the model-based variances of a larger piece are estimated from (only the models judged
#: on few instructions use them, as a floor under their intervals).
MODEL_DRAWS = 300
#: How exactly a draw is solved (relative residual): its error is a hundred-thousandth of the draw, far
#: below the draws' own Monte Carlo error.
DRAW_RTOL = 1e-5


@dataclass(frozen=True)
class PairWins:
    """The pooled wins of the pairs that met: ``w_ij`` of ``pairs.i`` over ``pairs.j``, ``w_ji``
    back (ties half a win each), one number per direction of each pair."""

    pairs: sparse_fit.Pairs
    w_ij: np.ndarray
    w_ji: np.ndarray

    @property
    def battles(self) -> np.ndarray:
        return self.w_ij + self.w_ji

    def weighted(self, weight: np.ndarray | None) -> PairWins:
        if weight is None:
            return self
        return PairWins(self.pairs, self.w_ij * weight, self.w_ji * weight)

    def matrix(self, values_ij: np.ndarray, values_ji: np.ndarray) -> sparse.csr_matrix:
        """(M, M) sparse: ``values_ij`` at (i, j) and ``values_ji`` at (j, i)."""
        p = self.pairs
        return sparse.csr_matrix(
            (
                np.concatenate([values_ij, values_ji]),
                (np.concatenate([p.i, p.j]), np.concatenate([p.j, p.i])),
            ),
            shape=(p.n_models, p.n_models),
        )

    def per_model(self, at_i: np.ndarray, at_j: np.ndarray) -> np.ndarray:
        """(M,): per model, Σ of ``at_i`` where it is the pair's first model plus ``at_j`` where
        second."""
        m = self.pairs.n_models
        return np.bincount(self.pairs.i, at_i, minlength=m) + np.bincount(self.pairs.j, at_j, minlength=m)


def pooled_pair_wins(counts: VerdictCounts) -> PairWins:
    """The pooled wins of :func:`~evalcore.ranking.bradley_terry.pooled_wins`, pair by pair
    (self-comparisons left out: they add nothing to the likelihood).

    With few models for the cells (an arena: 129 models, 1.8 M battles) each cell's scores are
    summed straight into a slot per ordered pair of models (one pass, no sort); with many models
    for the cells (10,000 models, 200,000 battles) the pairs that met are sorted out of the cells
    instead, never a models × models array. Either way the sums are of whole and half battles,
    exact in any order: the same wins."""
    m = counts.n_models
    if m * m <= DIRECT_PAIR_SLOTS_PER_CELL * max(counts.n_cells, 1):
        return _pair_wins_by_slots(counts)
    _, cols, vals = win_entries(counts)
    first, second = cols // m, cols % m
    keep = first != second
    first, second, vals = first[keep], second[keep], vals[keep]
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    keys, pair = np.unique(lo * m + hi, return_inverse=True)
    pairs = sparse_fit.Pairs.from_arrays(keys // m, keys % m, m)
    forward = first < second
    k = pairs.n_pairs
    w_ij = np.bincount(pair[forward], vals[forward], minlength=k)
    w_ji = np.bincount(pair[~forward], vals[~forward], minlength=k)
    return PairWins(pairs, w_ij, w_ji)


#: Below this many models × models slots per verdict cell the pooled wins are summed into a slot
#: per ordered pair (:func:`pooled_pair_wins`): a pass over the cells and an array of the slots,
#: cheaper than sorting the cells' pairs while the slots are not many more than the cells.
DIRECT_PAIR_SLOTS_PER_CELL = 8


def _pair_wins_by_slots(counts: VerdictCounts) -> PairWins:
    """:func:`pooled_pair_wins` summed into a slot per ordered pair (slot A's model first)."""
    m = counts.n_models
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    slot = a * m + b
    keep = a != b
    if not keep.all():
        slot = slot[keep]
    # slot A's wins over slot B per ordered pair, and slot B's wins back over the same cells
    as_a = np.bincount(slot, counts.cell_scores(SLOT_A_SCORE)[keep], minlength=m * m).reshape(m, m)
    as_b = np.bincount(slot, counts.cell_scores(1.0 - SLOT_A_SCORE)[keep], minlength=m * m).reshape(m, m)
    met = np.bincount(slot, minlength=m * m).reshape(m, m)
    wins = as_a + as_b.T  # wins[x, y]: x's wins over y, both slots
    i, j = np.nonzero(np.triu(met + met.T, k=1))  # row-major: sorted by i, then j, as np.unique
    return PairWins(sparse_fit.Pairs.from_arrays(i, j, m), wins[i, j], wins[j, i])


def pair_graph(pw: PairWins, models: tuple[str, ...]) -> ComparisonGraph:
    """:func:`~evalcore.ranking.bradley_terry.comparison_graph` from the pairs: the same pieces,
    undefeated and winless models and existence check, by graph traversals."""
    pieces = sparse_fit.weak_pieces(pw.pairs)
    n_strong = sparse_fit.strong_pieces(pw.pairs, pw.w_ij, pw.w_ji)
    played = pw.per_model(pw.battles, pw.battles) > 0
    scored = pw.per_model(pw.w_ij, pw.w_ji) > 0
    lost = pw.per_model(pw.w_ji, pw.w_ij) > 0
    return ComparisonGraph(
        pieces=pieces,
        undefeated=tuple(m for m, p, lo in zip(models, played, lost, strict=True) if p and not lo),
        winless=tuple(m for m, p, s in zip(models, played, scored, strict=True) if p and not s),
        mle_exists=bool(n_strong == 1 and len(models) > 1),
    )


def inverse_pair_weight(pw: PairWins) -> np.ndarray:
    """Per pair, :func:`evalcore.ranking.units.inverse_pair_weights`: mean battles per pair that
    met ÷ the pair's battles."""
    battles = pw.battles
    met = battles > 0
    if not met.any():
        return np.zeros_like(battles)
    return np.where(met, battles[met].mean() / np.where(met, battles, 1.0), 0.0)


def laplacian(
    pairs: sparse_fit.Pairs, weight: np.ndarray, diagonal: np.ndarray | float = 0.0
) -> sparse.csr_matrix:
    """The weighted graph Laplacian of the pairs (M × M, sparse) plus a diagonal."""
    m = pairs.n_models
    deg = np.bincount(pairs.i, weight, minlength=m) + np.bincount(pairs.j, weight, minlength=m)
    deg = deg + np.broadcast_to(np.asarray(diagonal, dtype=np.float64), (m,))
    rows = np.concatenate([pairs.i, pairs.j, np.arange(m)])
    cols = np.concatenate([pairs.j, pairs.i, np.arange(m)])
    return sparse.csr_matrix((np.concatenate([-weight, -weight, deg]), (rows, cols)), shape=(m, m))


@dataclass
class PairSandwich:
    """The sandwich covariance P X B X P of the strengths, kept as its factors (see the module
    docstring), times ``scale`` (ELO_SCALE² for Elo points).

    ``cov[i, j]`` is one entry, :meth:`diagonal` the variances, ``numpy.asarray(cov)`` the whole
    matrix (only for a few models: M solves and M² numbers).
    """

    info: sparse.csr_matrix  # the information H (Laplacian of the pairs + the prior's diagonal)
    rank_one: bool  # H is singular along the constant (no prior): solved with 11ᵀ/M added
    meat: sparse.csr_matrix  # B (M × M), clusters' score outer products, small-sample factor in
    #: the clusters' scores as cells: (slot A's model, slot B's model, cluster, root score)
    #: arrays; Gᵀ is built from them only when asked for (:attr:`scores_t`)
    score_cells: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    n_clusters: int  # the clusters (instructions or units)
    #: the rows of ``score_cells`` (Gᵀ's columns): the clusters, or their patterns
    n_score_rows: int
    pieces: np.ndarray
    seed: int
    scale: float = 1.0
    #: diag(P X B X P), natural scale; exact unless a piece is over EXACT_PIECE_MODELS models
    variances: np.ndarray = field(default_factory=lambda: np.zeros(0))
    row_sums: np.ndarray = field(default_factory=lambda: np.zeros(0))  # X B X 1
    exact: bool = True
    #: centred solutions P X s of the draws s ~ N(0, B) the diagonal was estimated from
    drawn: np.ndarray | None = None
    _scores_t: sparse.csr_matrix | None = None

    @property
    def scores_t(self) -> sparse.csr_matrix:
        """Gᵀ (M × clusters): columns g_k √w_k √(C/(C−1)), B = GᵀG (built on first use: an
        arena's variances and draws need only B, never this matrix of every cluster)."""
        if self._scores_t is None:
            a, b, inst, root = self.score_cells
            g = sparse.csr_matrix(
                (np.concatenate([root, -root]), (np.concatenate([a, b]), np.concatenate([inst, inst]))),
                shape=(self.n_models, self.n_score_rows),
            )
            g.sum_duplicates()
            self._scores_t = g
        return self._scores_t

    @property
    def n_models(self) -> int:
        return int(self.info.shape[0])

    def solve(self, rhs: np.ndarray, rtol: float = 1e-12) -> np.ndarray:
        """X rhs for (M, R) right-hand sides, by Jacobi-preconditioned conjugate gradients (in
        single precision for the draws' looser tolerance)."""
        dtype = np.float32 if rtol >= DRAW_RTOL else np.float64
        return _cg(self.info, rhs, rank_one=self.rank_one, rtol=rtol, dtype=dtype)

    def diagonal(self) -> np.ndarray:
        return self.scale * self.variances

    def __getitem__(self, index: tuple[int, int]) -> float:
        i, j = (int(k) for k in index)
        m = self.n_models
        e = np.zeros((m, 2))
        e[i, 0] = e[j, 1] = 1.0
        x = self.solve(e)
        cij = float(x[:, 0] @ (self.meat @ x[:, 1]))
        total = self.row_sums.sum()
        return self.scale * (cij - (self.row_sums[i] + self.row_sums[j]) / m + total / m**2)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        from evalcore.limits import check_bytes

        m = self.n_models
        check_bytes(f"the sandwich covariance of {m:,} models", 4 * 8.0 * m * m)
        x = self.solve(np.eye(m))
        x = x - x.mean(axis=1, keepdims=True)  # X P
        cov = x.T @ np.asarray(self.meat @ x)
        cov = self.scale * 0.5 * (cov + cov.T)
        return cov if dtype is None else cov.astype(dtype)

    def draws(self, theta: np.ndarray, *, draws: int) -> np.ndarray:
        """(draws, M) strengths from N(θ̂, P X B X P) (natural scale): the draws the diagonal was
        estimated from when there are enough of them; from the covariance's factor when it is
        exact and its models squared are at most the clusters (:func:`normal_draws`, as the
        table-sized leaderboard draws); else from drawn scores, without forming it."""
        if self.drawn is not None and self.drawn.shape[0] >= draws:
            return theta + self.drawn[:draws]
        if self.exact and self.n_models**2 <= self.n_clusters:
            # Few models, many clusters (an arena: a cluster per battle): a drawn score passes
            # over every cluster, while the covariance (models × models) is cheap here. Its
            # factor draws as the table-sized path does (the same draws, the same rank ranges).
            return normal_draws(theta, np.asarray(self) / self.scale, draws=draws, seed=self.seed)
        return theta + _draw_solutions(self, draws, np.random.default_rng(self.seed))[0]

    def model_variances(self) -> np.ndarray:
        """The diagonal of X (the model-based variances, calls taken as independent; X the
        pseudo-inverse without the prior): exact by pieces, by control-variated draws in a piece
        over :data:`EXACT_PIECE_MODELS` models."""
        out = np.zeros(self.n_models)
        big = []
        for idx in _pieces(self.pieces):
            if idx.size > EXACT_PIECE_MODELS:
                big.append(idx)
                continue
            by_factor = None
            if not self.rank_one and idx.size >= FACTOR_PIECE_MODELS:
                by_factor = _inverse_diagonal_by_factor(self, idx)
            out[idx] = np.diag(_piece_inverse(self, idx)) if by_factor is None else by_factor
        if big:
            est = _drawn_model_diagonal(self, MODEL_DRAWS)
            for idx in big:
                out[idx] = est[idx]
        return np.clip(out, 0.0, None)


def pair_sandwich(
    counts: VerdictCounts,
    theta: np.ndarray,
    pw: PairWins,
    pieces: np.ndarray,
    *,
    prior_games: float = 0.0,
    pair_weight: np.ndarray | None = None,
    seed: int = 0,
    draws: int = 0,
) -> PairSandwich:
    """:func:`evalcore.ranking.intervals.sandwich_covariance` over the pairs (``pw`` the wins the
    fit used, weighted if it was; ``pair_weight`` the per-pair weights of each call). ``draws``:
    how many normal draws the caller will ask for (a diagonal estimated from draws uses them)."""
    m = counts.n_models
    pairs = pw.pairs
    p = _sigmoid(theta[pairs.i] - theta[pairs.j])
    q = _sigmoid(theta)
    prior_diag = prior_games * q * (1.0 - q) if prior_games else np.zeros(m)
    info = laplacian(pairs, pw.battles * p * (1.0 - p), prior_diag)
    reps, mult, resid = score_residuals(counts, theta)
    a, b = reps.a.astype(np.int64), reps.b.astype(np.int64)
    if pair_weight is not None:
        key = np.minimum(a, b) * m + np.maximum(a, b)
        keys = pairs.i * m + pairs.j
        at = np.searchsorted(keys, key).clip(0, max(keys.size - 1, 0))
        resid = resid * np.where(keys[at] == key, pair_weight[at], 0.0)
    inst = np.asarray(reps.inst, dtype=np.int64)
    n_rows = int(inst.max()) + 1 if inst.size else 0
    factor = np.ones(n_rows) if mult is None else np.asarray(mult, dtype=np.float64)[:n_rows]
    n_clusters = counts.n_instructions
    if n_clusters > 1:
        factor = factor * n_clusters / (n_clusters - 1)
    root = np.sqrt(factor)[inst] * resid
    s = PairSandwich(
        info=info,
        rank_one=not prior_games,
        meat=sparse.csr_matrix((m, m)),
        score_cells=(a, b, inst, root),
        n_clusters=n_clusters,
        n_score_rows=n_rows,
        pieces=pieces,
        seed=seed,
    )
    one_cell = inst.size == n_rows and not (inst[1:] == inst[:-1]).any()
    # A cluster of one cell (an arena's battle) scores +g for slot A's model and −g for slot B's:
    # its outer product is g² on their diagonal entries and −g² between them, so B is summed per
    # ordered pair of models, never through the models × clusters matrix Gᵀ.
    s.meat = _one_cell_meat(a, b, root, m) if one_cell else sparse.csr_matrix(s.scores_t @ s.scores_t.T)
    _fill_diagonal(s, draws)
    return s


def _one_cell_meat(a: np.ndarray, b: np.ndarray, root: np.ndarray, m: int) -> sparse.csr_matrix:
    """B = Σ_k g_k g_kᵀ for clusters of one cell each (g_k = root_k (e_a − e_b))."""
    sq = root * root
    if m * m <= DIRECT_PAIR_SLOTS_PER_CELL * max(sq.size, 1):
        per_pair = sparse.csr_matrix(np.bincount(a * m + b, sq, minlength=m * m).reshape(m, m))
    else:
        per_pair = sparse.csr_matrix((sq, (a, b)), shape=(m, m))  # duplicates summed
    per_pair.eliminate_zeros()
    both = per_pair + per_pair.T
    degree = np.asarray(both.sum(axis=1)).ravel()
    return sparse.csr_matrix(sparse.diags(degree) - both)


def _pieces(pieces: np.ndarray) -> list[np.ndarray]:
    order = np.argsort(pieces, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(pieces[order])) + 1)


#: Up to this many models a piece's information is inverted by numpy (:func:`_piece_inverse`);
#: above, by scipy's in-place Cholesky inverse (half the work and one matrix of memory).
SMALL_PIECE_MODELS = 512


def _piece_inverse(s: PairSandwich, idx: np.ndarray) -> np.ndarray:
    """The dense X of one piece: H⁻¹ with the prior; without it (one piece, every model) the
    pseudo-inverse (H + 11ᵀ/M)⁻¹ − 11ᵀ/M."""
    h = s.info[idx][:, idx].toarray().T  # symmetric: its transpose is the Fortran-ordered copy
    shift = 1.0 / s.n_models if s.rank_one else 0.0
    if shift:
        h += shift
    if idx.size <= SMALL_PIECE_MODELS:
        # numpy's own LAPACK: the same Cholesky, without importing scipy's linear algebra (a
        # twentieth of a second at start-up, more than the inverse of an arena's 129 models)
        try:
            low_inverse = np.linalg.inv(np.linalg.cholesky(h))
        except np.linalg.LinAlgError:
            return np.linalg.pinv(s.info[idx][:, idx].toarray(), hermitian=True)
        inverse = low_inverse.T @ low_inverse
        inverse = 0.5 * (inverse + inverse.T)
        return inverse - shift if shift else inverse
    from scipy.linalg import lapack

    # Cholesky, then the inverse from it, in place (half the work of a general inverse, one
    # matrix of memory); the lower triangle is mirrored into the (zero) upper one.
    factor, info = lapack.dpotrf(h, lower=True, clean=True, overwrite_a=True)
    if info == 0:
        inverse, info = lapack.dpotri(factor, lower=True, overwrite_c=True)
    if info != 0:
        return np.linalg.pinv(s.info[idx][:, idx].toarray(), hermitian=True)
    n = inverse.shape[0]
    for lo in range(0, n, 256):  # mirror the lower triangle up, a block at a time
        hi = min(lo + 256, n)
        inverse[:lo, lo:hi] = inverse[lo:hi, :lo].T
        block = inverse[lo:hi, lo:hi]
        block[np.triu_indices(hi - lo, 1)] = block.T[np.triu_indices(hi - lo, 1)]
    if shift:
        inverse -= shift
    return inverse


def _variances_from_meat(x: np.ndarray, meat: np.ndarray) -> np.ndarray:
    """diag(X B X) for a dense symmetric X and the meat B (both models × models): per model,
    Σ_j (X B)_ij X_ij. For a piece of few models and many clusters (an arena: 129 models, 1.8 M
    battles) one product of two small matrices, where a pass over the clusters
    (:func:`_variances_over_clusters`) multiplies every cluster's scores."""
    return np.einsum("ij,ij->i", x @ meat, x)


def _variances_over_clusters(x: np.ndarray, g: sparse.csr_matrix) -> np.ndarray:
    """diag(X G Gᵀ X) for a dense symmetric X and the sparse scores G (models × clusters, B = G
    Gᵀ): per model, the sum over clusters of (X g)², a chunk of clusters at a time. Each cluster
    scores a pair or a few, so a chunk's X g is one sparse-times-dense product (the entries of B
    gathered column by column cost three times as long on the 2,000-model arena)."""
    gt = sparse.csr_matrix(g.T)
    gt = gt[np.flatnonzero(np.diff(gt.indptr))]  # the clusters that score a model of the piece
    out = np.zeros(x.shape[0])
    step = max(1, 500_000 // max(x.shape[0], 1))
    for lo in range(0, gt.shape[0], step):
        y = np.asarray(gt[lo : lo + step] @ x)
        out += np.einsum("ij,ij->j", y, y)
    return out


#: From this many models a piece of a sparse comparison graph (with the prior, so that its
#: information is positive definite) gets its variances from a sparse factorisation of the
#: information instead of its dense inverse (:func:`_variances_by_factor`).
FACTOR_PIECE_MODELS = 256


def _sparse_factor(s: PairSandwich, idx: np.ndarray) -> Any:
    """SuperLU's factor of one piece's information (a minimum-degree order of its symmetric
    pattern, no pivoting: it is positive definite with the prior), or None when it fills in past
    an eighth of the dense matrix (a densely compared piece: the dense inverse is as cheap)."""
    from scipy.sparse.linalg import splu

    n = idx.size
    piece = sparse.csc_matrix(s.info[idx][:, idx])
    factor = splu(piece, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    return None if factor.L.nnz + factor.U.nnz > n * n // 8 else factor


def _inverse_diagonal_by_factor(s: PairSandwich, idx: np.ndarray) -> np.ndarray | None:
    """diag(H⁻¹) of one piece from its sparse factor (:func:`_sparse_factor`), a block of unit
    columns at a time; None where the factor fills in."""
    factor = _sparse_factor(s, idx)
    if factor is None:
        return None
    n = idx.size
    out = np.empty(n)
    step = max(1, 500_000 // n)
    for lo in range(0, n, step):
        hi = min(lo + step, n)
        cols = np.arange(hi - lo)
        unit = np.zeros((n, hi - lo), order="F")
        unit[lo + cols, cols] = 1.0
        out[lo:hi] = factor.solve(unit)[lo + cols, cols]
    return out


def _variances_by_factor(s: PairSandwich, idx: np.ndarray) -> np.ndarray | None:
    """diag(X G Gᵀ X) of one piece (the prior on: X = H⁻¹), each cluster's X g from a sparse LU
    factorisation of the piece's information with a fill-reducing order of its symmetric
    pattern, where :func:`_variances_over_clusters` first inverts H as a dense matrix: on the
    2,000-model arena (2,000 battles; one piece of about 1,500 models, two or three opponents
    each) the factor has a few entries per model and the inverse two million. None when the
    factor fills in (a densely compared piece): then the dense inverse is as cheap."""
    n = idx.size
    factor = _sparse_factor(s, idx)
    if factor is None:
        return None
    gt = sparse.csr_matrix(s.scores_t[idx].T)
    gt = gt[np.flatnonzero(np.diff(gt.indptr))]  # the clusters that score a model of the piece
    out = np.zeros(n)
    step = max(1, 500_000 // max(n, 1))
    for lo in range(0, gt.shape[0], step):
        y = factor.solve(np.asarray(gt[lo : lo + step].toarray().T, order="F"))
        out += np.einsum("ij,ij->i", y, y)
    return out


def _fill_diagonal(s: PairSandwich, draws: int) -> None:
    """diag(P X B X P) and X B X 1: exact piece by piece up to :data:`EXACT_PIECE_MODELS` models,
    from control-variated draws above."""
    m = s.n_models
    s.row_sums = s.solve(np.asarray(s.meat @ s.solve(np.ones((m, 1)))))[:, 0]
    raw = np.zeros(m)
    big = []
    for idx in _pieces(s.pieces):
        if idx.size > EXACT_PIECE_MODELS:
            big.append(idx)
            continue
        if idx.size**2 > s.n_score_rows and not s.rank_one and idx.size >= FACTOR_PIECE_MODELS:
            by_factor = _variances_by_factor(s, idx)
            if by_factor is not None:
                raw[idx] = by_factor
                continue
        xp = _piece_inverse(s, idx)
        if idx.size**2 <= s.n_score_rows:  # few models for the clusters: through B (models²)
            raw[idx] = _variances_from_meat(xp, s.meat[idx][:, idx].toarray())
        else:
            raw[idx] = _variances_over_clusters(xp, s.scores_t[idx])
    if big:
        s.exact = False
        drawn, est = _draw_solutions(s, max(draws, DIAGONAL_DRAWS), np.random.default_rng(s.seed))
        s.drawn = drawn
        for idx in big:
            raw[idx] = est[idx]
    s.variances = np.clip(raw - 2.0 * s.row_sums / m + s.row_sums.sum() / m**2, 0.0, None)


def _cg(
    a: sparse.csr_matrix, rhs: np.ndarray, *, rank_one: bool, rtol: float, dtype: type = np.float64
) -> np.ndarray:
    """Solve (A [+ 11ᵀ/M]) x = rhs column by column (rhs (M, R)), Jacobi-preconditioned CG; the
    rank-one term (no prior) leaves the pseudo-inverse's answer plus a multiple of 1, which the
    meat and the centring do not see."""
    m = a.shape[0]
    extra = 1.0 / m if rank_one else 0.0
    diag = a.diagonal() + extra
    inv: np.ndarray = np.where(diag > 0, 1.0 / np.where(diag > 0, diag, 1.0), 0.0)[:, None].astype(dtype)
    a = a.astype(dtype)
    x: np.ndarray = np.zeros(rhs.shape, dtype=dtype)
    r: np.ndarray = np.array(rhs, dtype=dtype)
    z = inv * r
    p = z.copy()
    rz = np.einsum("ij,ij->j", r, z)
    target = (rtol**2) * np.einsum("ij,ij->j", r, r)
    for _ in range(max(10 * m, 1000)):
        active = np.einsum("ij,ij->j", r, r) > target
        if not active.any():
            break
        q = np.asarray(a @ p)
        if rank_one:
            q += extra * p.sum(axis=0, keepdims=True)
        pq = np.einsum("ij,ij->j", p, q)
        alpha = np.where(active & (pq > 0), rz / np.where(pq > 0, pq, 1.0), 0.0)
        x += alpha * p
        r -= alpha * q
        np.multiply(inv, r, out=z)
        rz_new = np.einsum("ij,ij->j", r, z)
        p *= np.where(rz > 0, rz_new / np.where(rz > 0, rz, 1.0), 0.0)
        p += z
        rz = rz_new
    return x


def _chunk(n_signs: int) -> int:
    """Draws solved at once: their random signs (n_signs each) in about 64 MB."""
    return int(np.clip(16_000_000 // max(n_signs, 1), 8, 256))


_SIGN = np.array([-1.0, 1.0], dtype=np.float32)


def _signs(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """(n, k) independent random signs ±1 (float32), from random bytes: a tenth of the time of
    normal numbers, and the same mean and covariance (zero and the identity)."""
    bits = np.unpackbits(np.frombuffer(rng.bytes((n * k + 7) // 8), dtype=np.uint8))[: n * k]
    return _SIGN[bits].reshape(n, k)


def _draw_solutions(s: PairSandwich, draws: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``draws`` centred solutions P X s with s = Gᵀz ~ N(0, B) ((draws, M)), and the
    diagonal of X B X they estimate, with the Jacobi approximation D⁻¹ of X as a control
    variate (its exact second moment is B_ii / D_ii²)."""
    m = s.n_models
    n_c = s.scores_t.shape[1]
    d = s.info.diagonal() + (1.0 / m if s.rank_one else 0.0)
    inv = 1.0 / np.where(d > 0, d, 1.0)
    out = np.empty((draws, m))
    acc = np.zeros(m)
    step = _chunk(n_c)
    g32 = s.scores_t.astype(np.float32)
    for lo in range(0, draws, step):
        hi = min(lo + step, draws)
        rhs = np.asarray(g32 @ _signs(rng, n_c, hi - lo))
        x = s.solve(rhs, rtol=DRAW_RTOL).astype(np.float64)
        rhs = rhs.astype(np.float64)
        acc += (x * x).sum(axis=1) - ((inv[:, None] * rhs) ** 2).sum(axis=1)
        out[lo:hi] = (x - x.mean(axis=0, keepdims=True)).T
    return out, acc / max(draws, 1) + s.meat.diagonal() * inv**2


def _drawn_model_diagonal(s: PairSandwich, draws: int) -> np.ndarray:
    """diag(X) from draws s ~ N(0, H) (the pairs' weights and the prior's diagonal), with the
    Jacobi control variate (exact second moment H_ii / D_ii²)."""
    m = s.n_models
    rng = np.random.default_rng([s.seed, 1])
    h_diag = s.info.diagonal()
    d = h_diag + (1.0 / m if s.rank_one else 0.0)
    inv = 1.0 / np.where(d > 0, d, 1.0)
    upper = sparse.triu(s.info, k=1).tocoo()
    root = np.sqrt(np.clip(-upper.data, 0.0, None))
    k = root.size
    prior = np.asarray(s.info.sum(axis=1)).ravel()  # a Laplacian's rows sum to 0
    inc = sparse.csr_matrix(
        (
            np.concatenate([root, -root, np.sqrt(np.clip(prior, 0.0, None))]),
            (
                np.concatenate([upper.row, upper.col, np.arange(m)]),
                np.concatenate([np.arange(k), np.arange(k), k + np.arange(m)]),
            ),
        ),
        shape=(m, k + m),
        dtype=np.float32,
    )
    acc = np.zeros(m)
    step = _chunk(k + m)
    for lo in range(0, draws, step):
        hi = min(lo + step, draws)
        rhs = np.asarray(inc @ _signs(rng, k + m, hi - lo))
        x = s.solve(rhs, rtol=DRAW_RTOL).astype(np.float64)
        rhs = rhs.astype(np.float64)
        acc += (x * x).sum(axis=1) - ((inv[:, None] * rhs) ** 2).sum(axis=1)
    return acc / max(draws, 1) + h_diag * inv**2


def drawn_note(draws: int) -> str:
    """Words for standard errors estimated from draws (a piece too large to invert exactly)."""
    return (
        f"The comparison graph links more than {EXACT_PIECE_MODELS:,} models in one piece: "
        f"their interval widths are estimated from {draws:,} random draws of the sandwich "
        "instead of inverting the information exactly, to within about one percent."
    )


def pair_cluster_widening(
    counts: VerdictCounts,
    theta: np.ndarray,
    pw: PairWins,
    pieces: np.ndarray,
    *,
    prior_games: float,
    pair_weight: np.ndarray | None,
    seed: int,
) -> float:
    """:func:`evalcore.ranking.units.cluster_widening` over the pairs: the median ratio of the
    unit-clustered to the instruction-clustered sandwich standard errors."""
    if counts.unit is None:
        return float("nan")
    se = [
        np.sqrt(
            pair_sandwich(
                c, theta, pw, pieces, prior_games=prior_games, pair_weight=pair_weight, seed=seed
            ).variances
        )
        for c in (counts.by_unit(), counts)
    ]
    ok = se[1] > 0
    return float(np.median(se[0][ok] / se[1][ok])) if ok.any() else float("nan")


class SampleCovariance:
    """The covariance of bootstrap samples (Elo², pairwise-complete), computed on demand: a
    models × models matrix only when asked for as a whole."""

    def __init__(self, samples: np.ndarray) -> None:
        self.samples = samples

    def _centred(self, cols) -> np.ndarray:
        x = self.samples[:, cols]
        if x.shape[0] < 2:  # no rounds: no covariance
            return np.full((2, *x.shape[1:]), np.nan)
        ok = np.isfinite(x)
        mean = np.where(ok, x, 0.0).sum(axis=0) / np.maximum(ok.sum(axis=0), 1)
        return np.where(ok, x - mean, 0.0)

    def diagonal(self) -> np.ndarray:
        c = self._centred(slice(None))
        return (c * c).sum(axis=0) / max(self.samples.shape[0] - 1, 1)

    def __getitem__(self, index: tuple[int, int]) -> float:
        c = self._centred(list(index))
        return float(c[:, 0] @ c[:, 1]) / max(self.samples.shape[0] - 1, 1)

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        c = self._centred(slice(None))
        return c.T @ c / max(self.samples.shape[0] - 1, 1)
