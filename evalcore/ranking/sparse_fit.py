"""Bradley–Terry on the compared pairs only: Newton's method with conjugate gradients.

The dense fit (:func:`evalcore.ranking.bradley_terry.fit_bradley_terry` with ``solver="dense"``)
solves an M × M system per Newton step, O(M³): 2,000 models take seconds per fit and a bootstrap
of them most of an hour. Its Hessian, though, is a weighted graph Laplacian (one entry per pair of
models that met) plus a diagonal (the weak prior) or a rank-one term (the free location). Here the
Newton step solves that system by preconditioned conjugate gradients (Hestenes & Stiefel, "Methods
of conjugate gradients for solving linear systems", 1952) with a Jacobi (diagonal)
preconditioner, whose every product costs one pass over the compared pairs: the cost of a fit
grows with the pairs, not with the cube of the models (the Laplacian approach of Spielman & Teng,
"Nearly linear time algorithms for preconditioning and solving symmetric, diagonally dominant
linear systems", 2014, with the simplest preconditioner). The Newton iteration, its damping and
its stopping rule are the dense fit's, so both reach the same maximum (equal to 1e-6 Elo in the
tests); each CG solve is made exact enough for that (its tolerance shrinks with the gradient,
an inexact Newton method: Dembo, Eisenstat & Steihaug, "Inexact Newton methods", 1982).
With the weak prior, a step first eliminates the graph's leaves exactly (models with one
opponent left, round after round) and solves only the core that remains
(:mod:`evalcore.ranking.peeling`): on a sparse table, mostly trees, the conjugate gradients
crawled along the chains.

Whether the maximum-likelihood estimate exists (the directed "scored against" graph strongly
connected, Zermelo 1929; Ford 1957) and the pieces of the comparison graph are found by
:mod:`scipy.sparse.csgraph` (Tarjan's algorithm), in time linear in the pairs, where the dense
code squares an M × M reachability matrix.

A batch of problems (bootstrap rounds) shares the pairs and is solved at once: θ is (B, M), the
wins are (B, K), and every product is one sparse-times-dense-block product.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from evalcore.ranking import peeling

if TYPE_CHECKING:
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

#: From this many models the fits, the graph checks, the bootstrap and the sandwich's bread use
#: the pair-based path; below it the dense M × M solve is as fast or faster. Measured on the two
#: shared cores (load about 6), a 200-round leaderboard, dense against sparse: 60 models 0.23 s
#: against 0.36 s (all pairs) and 0.26 s against 0.30 s (arena); 100 models 1.21 s against 0.91 s
#: and 1.04 s against 0.52 s.
SPARSE_FROM_MODELS = 100
#: One problem alone (not a batch) is solved densely below this many models: its M × M solve is
#: a single small factorisation, where each conjugate-gradient step of the sparse one costs a
#: sparse product and Python overhead. Measured with one BLAS thread (an arena-like table, every
#: pair met with probability ½, a warm start), ms per fit dense against sparse: 129 models 0.6
#: against 2.0, 200 models 2.1 against 3.8, 300 models 4.3 against 5.3, 400 models 8.9 against
#: 10.0; a batch of 8 is already faster sparse at 129 models (5.2 against 6.0 ms). The fragility
#: search refits one removal at a time, hundreds of times.
SINGLE_SPARSE_FROM_MODELS = 400


def single_solver(problems: int, models: int) -> Literal["dense", "auto"]:
    """The solver of ``problems`` fits of ``models`` models solved at once by a caller that fits
    one problem at a time (the fragility search's refits, the category test's fits): ``"dense"``
    for a single problem below :data:`SINGLE_SPARSE_FROM_MODELS` models, else ``"auto"`` (the
    size switch of every fit). Both solvers run the same Newton iteration to the same maximum
    (equal to 1e-6 Elo in the tests)."""
    return "dense" if problems == 1 and models < SINGLE_SPARSE_FROM_MODELS else "auto"


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


@dataclass(frozen=True)
class Pairs:
    """The unordered pairs of models that met, ``i[k] < j[k]``, and their incidence matrix.

    ``incidence`` is (K, M) with +1 at ``i`` and −1 at ``j``: ``incidence @ θ`` are the pairs'
    strength differences and ``incidenceᵀ @ v`` scatters a per-pair quantity back to the models
    with the sign of the first model, the two products every Newton and CG step needs.
    """

    i: np.ndarray
    j: np.ndarray
    n_models: int
    incidence: sparse.csr_matrix
    #: products' operands built on first use (the transposed incidence, its absolute value, the
    #: block Laplacians' patterns per batch size)
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_arrays(cls, i: np.ndarray, j: np.ndarray, n_models: int) -> Pairs:
        i = np.asarray(i, dtype=np.int64)
        j = np.asarray(j, dtype=np.int64)
        k = np.arange(i.size)
        inc = sparse.csr_matrix(
            (
                np.concatenate([np.ones(i.size), -np.ones(i.size)]),
                (np.concatenate([k, k]), np.concatenate([i, j])),
            ),
            shape=(i.size, n_models),
        )
        return cls(i=i, j=j, n_models=int(n_models), incidence=inc)

    @property
    def n_pairs(self) -> int:
        return int(self.i.size)

    def diff(self, x: np.ndarray) -> np.ndarray:
        """(B, K) differences x_i − x_j for (B, M) values."""
        return x[:, self.i] - x[:, self.j]

    def _operand(self, name: str) -> sparse.csr_matrix:
        if name not in self._cache:
            t = sparse.csr_matrix(self.incidence.T)
            self._cache["scatter"], self._cache["degree"] = t, abs(t)
        return self._cache[name]

    def scatter(self, v: np.ndarray) -> np.ndarray:
        """(B, M): per model, Σ over its pairs of ±v (+ as the first model, − as the second)."""
        return np.asarray(self._operand("scatter") @ v.T).T

    def block_laplacian(self, w: np.ndarray, diagonal: np.ndarray) -> sparse.csr_matrix:
        """The (B·M, B·M) block-diagonal matrix of B weighted Laplacians: pair weights ``w``
        (B, K) off the diagonal (negated) and ``diagonal`` (B, M) on it."""
        n_batch, m = w.shape[0], self.n_models
        if "order" not in self._cache:
            # each row's entries: its pairs as first model, as second model, then the diagonal
            rows = np.concatenate([self.i, self.j, np.arange(m)])
            cols = np.concatenate([self.j, self.i, np.arange(m)])
            order = np.lexsort((cols, rows))
            indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=m))])
            where = np.empty_like(order)
            where[order] = np.arange(order.size)  # each entry's place in its row
            k = self.n_pairs
            self._cache["order"] = (where[:k], where[k : 2 * k], where[2 * k :], cols[order], indptr)
        at_i, at_j, at_d, cols, indptr = self._cache["order"]
        per = cols.size
        key = ("block", n_batch)
        if key not in self._cache:
            index = np.int32 if n_batch * max(per, m) < 2**31 - 1 else np.int64
            indices = (cols[None, :] + (np.arange(n_batch) * m)[:, None]).ravel().astype(index)
            full_ptr = (indptr[None, :-1] + (np.arange(n_batch) * per)[:, None]).ravel()
            self._cache[key] = (indices, np.concatenate([full_ptr, [n_batch * per]]).astype(index))
        indices, full_ptr = self._cache[key]
        values = np.empty((n_batch, per))
        values[:, at_i] = -w
        values[:, at_j] = values[:, at_i]
        values[:, at_d] = diagonal
        values = values.ravel()
        out = sparse.csr_matrix((n_batch * m, n_batch * m))
        out.data, out.indices, out.indptr = values, indices, full_ptr  # no checks, no copies
        return out

    def degree(self, w: np.ndarray) -> np.ndarray:
        """(B, M): per model, Σ over its pairs of w (both ends)."""
        return np.asarray(self._operand("degree") @ w.T).T


def dense_to_pairs(wins: np.ndarray) -> tuple[Pairs, np.ndarray, np.ndarray]:
    """The pairs that met in (…, M, M) win matrices and their wins ``(w_ij, w_ji)``, (…, K) each.

    A pair is kept when any matrix of the batch has a battle between the two.
    """
    w = np.asarray(wins, dtype=np.float64)
    m = w.shape[-1]
    games = w + np.swapaxes(w, -1, -2)
    met = games.reshape(-1, m, m).any(axis=0)
    i, j = np.nonzero(np.triu(met, 1))
    return Pairs.from_arrays(i, j, m), w[..., i, j], w[..., j, i]


def fit_pairs(
    pairs: Pairs,
    w_ij: np.ndarray,
    w_ji: np.ndarray,
    *,
    prior_games: float = 0.0,
    theta0: np.ndarray | None = None,
    frozen: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-9,
    cg_floor: float = 1e-13,
    centre: bool = True,
) -> tuple[np.ndarray, bool]:
    """Bradley–Terry strengths θ from the wins of each pair, by Newton–CG.

    ``w_ij`` / ``w_ji`` are (K,) or (B, K): the wins of ``pairs.i`` over ``pairs.j`` and back.
    Options and the returned values mean what they mean in
    :func:`evalcore.ranking.bradley_terry.fit_bradley_terry` (the same Newton iteration, damping
    and stopping rule, the same rank-one term for the free location without a prior, the same
    frozen models and centring), whose dense solve this replaces. ``cg_floor``: the tightest
    relative tolerance of a step's conjugate gradients (looser for a fit that only ranks).
    ``centre=False`` leaves the strengths where the prior put them (with a prior the location is
    identified; the split halves centre several problems fitted as one, each on its own).
    """
    wij = np.asarray(w_ij, dtype=np.float64)
    single = wij.ndim == 1
    wij = np.atleast_2d(wij)
    wji = np.atleast_2d(np.asarray(w_ji, dtype=np.float64))
    n_batch = wij.shape[0]
    m = pairs.n_models
    games = wij + wji
    won = _ends(pairs, wij, wji)  # i scored w_ij against j, j scored w_ji against i
    theta = np.zeros((n_batch, m)) if theta0 is None else np.broadcast_to(theta0, (n_batch, m)).copy()
    keep = None
    if frozen is not None:
        fz = np.broadcast_to(np.asarray(frozen, dtype=bool), (n_batch, m))
        if fz.any():
            keep = (~fz).astype(np.float64)
    converged = False
    for _ in range(max_iter):
        d = pairs.diff(theta)
        p = _sigmoid(d)
        expected = _ends(pairs, games * p, games * (1.0 - p))
        grad = won - expected
        info = games * p * (1.0 - p)
        prior_diag: np.ndarray | float = 0.0
        if prior_games:
            q = _sigmoid(theta)
            grad += prior_games * (0.5 - q)
            prior_diag = prior_games * q * (1.0 - q)
        if keep is not None:
            grad = grad * keep
        step = solve_information(
            pairs, info, prior_diag, grad, rank_one=not prior_games, keep=keep, rtol=_forcing(grad, cg_floor)
        )
        biggest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, 4.0 / np.maximum(biggest, 1e-300))
        theta = theta + step
        if np.abs(step).max() < tol or np.abs(grad).max() < tol:
            converged = True
            break
    if keep is None and centre:
        theta = theta - theta.mean(axis=1, keepdims=True)
    return (theta[0] if single else theta), converged


def _ends(pairs: Pairs, at_i: np.ndarray, at_j: np.ndarray) -> np.ndarray:
    """(B, M): per model, Σ of ``at_i`` over pairs where it is first plus ``at_j`` where second."""
    return 0.5 * (pairs.degree(at_i + at_j) + pairs.scatter(at_i - at_j))


def _forcing(grad: np.ndarray, floor: float = 1e-13) -> float:
    """The CG tolerance of a Newton step, relative to the gradient: loose far from the optimum,
    1e-13 near it, so the last steps are exact Newton steps (the dense fit's)."""
    return float(min(1e-3, max(1e-2 * np.abs(grad).max(), floor)))


def solve_information(
    pairs: Pairs,
    info: np.ndarray,
    prior_diag: np.ndarray | float,
    rhs: np.ndarray,
    *,
    rank_one: bool,
    keep: np.ndarray | None = None,
    rtol: float = 1e-12,
    max_cg: int | None = None,
) -> np.ndarray:
    """Solve (L(info) + diag(prior_diag) [+ 11ᵀ/M]) x = rhs for each row (B, M) by
    Jacobi-preconditioned conjugate gradients.

    L(info) is the graph Laplacian with pair weights ``info`` (B, K), the Fisher information of
    the Bradley–Terry likelihood; ``prior_diag`` the weak prior's diagonal; the rank-one term
    (without a prior) fixes the free location, as in the dense fit, and leaves the solution of a
    right-hand side summing to zero orthogonal to the constant vector. Frozen models
    (``keep`` = 0) have x = 0 and drop out of the products. Stops when every row's residual is
    below ``rtol`` times its right-hand side.
    """
    m = pairs.n_models
    rhs = np.atleast_2d(rhs)
    n_batch = rhs.shape[0]
    extra = 1.0 / m if rank_one else 0.0
    prior = np.broadcast_to(np.asarray(prior_diag, dtype=np.float64), (n_batch, m))

    info = np.broadcast_to(info, (n_batch, pairs.n_pairs))
    full_diag = pairs.degree(info) + prior + extra
    if not rank_one and keep is None and (prior > 0).all():
        # with the prior: the graph's leaves eliminated exactly first (:mod:`peeling`)
        plan = _peeling(pairs)
        if plan.eliminated:
            core_pairs = pairs._cache["core"]

            def core_cg(w: np.ndarray, diagonal: np.ndarray, b: np.ndarray) -> np.ndarray:
                # the core's Laplacian plus what is left on its diagonal (positive: the prior's
                # share and each eliminated leaf's w − w²/A_vv ≥ 0)
                return solve_information(
                    core_pairs, w, diagonal - core_pairs.degree(w), b, rank_one=False, rtol=rtol
                )

            return peeling.solve(plan, info, full_diag, rhs, core_cg)
    # The batch's Laplacians (plus the prior's diagonal) as one block-diagonal sparse matrix:
    # a product is then one pass over the stored entries, where the incidence products make
    # and index (B, K) arrays twice per product.
    lap = pairs.block_laplacian(info, full_diag - extra)

    def product(matrix: sparse.csr_matrix, kept: np.ndarray | None, x: np.ndarray) -> np.ndarray:
        if kept is not None:
            x = x * kept
        y = (matrix @ x.ravel()).reshape(x.shape)
        if rank_one:
            y = y + extra * x.sum(axis=1, keepdims=True)
        if kept is not None:
            y = y * kept
        return y

    def apply(x: np.ndarray) -> np.ndarray:
        return product(lap, keep, x)

    inv = np.where(full_diag > 0, 1.0 / np.where(full_diag > 0, full_diag, 1.0), 0.0)
    if keep is not None:
        inv = inv * keep
    solved = np.zeros((n_batch, m))
    rows = np.arange(n_batch)  # the problems still iterating
    sub, kept = lap, keep
    x = np.zeros((n_batch, m))
    r = rhs.copy()
    z = inv * r
    p = z.copy()
    rz = (r * z).sum(axis=1)
    target = (rtol * np.sqrt((rhs * rhs).sum(axis=1))) ** 2
    limit = max_cg or max(10 * m, 1000)
    for _ in range(limit):
        active = (r * r).sum(axis=1) > target
        if not active.any():
            break
        if rows.size > 1 and 2 * int(active.sum()) <= rows.size:
            # Half the batch has converged: keep iterating the others only (a finished
            # problem no longer changes; its products were wasted work).
            solved[rows] = x
            rows, x, r, p, rz, target = (
                rows[active],
                x[active],
                r[active],
                p[active],
                rz[active],
                target[active],
            )
            sub = pairs.block_laplacian(info[rows], (full_diag - extra)[rows])
            kept = None if keep is None else keep[rows]
            active = active[active]
        q = product(sub, kept, p)
        pq = (p * q).sum(axis=1)
        alpha = np.where(active & (pq > 0), rz / np.where(pq > 0, pq, 1.0), 0.0)
        x += alpha[:, None] * p
        r -= alpha[:, None] * q
        z = inv[rows] * r
        rz_new = (r * z).sum(axis=1)
        beta = np.where(rz > 0, rz_new / np.where(rz > 0, rz, 1.0), 0.0)
        p = z + beta[:, None] * p
        rz = rz_new
    solved[rows] = x
    x = solved
    if rank_one:
        # The preconditioned iterates are not orthogonal to the constant vector, so a solve that
        # stops early leaves a stray shift of all strengths, which no later step removes (the
        # likelihood does not see it). Correct x along 1 so that 1ᵀAx = 1ᵀb, as the exact
        # solution has: then the location evolves exactly as in the dense fit.
        ones = np.ones((1, m)) if keep is None else keep
        ax = apply(x)
        a1 = apply(np.broadcast_to(ones, x.shape).copy())
        denom = (ones * a1).sum(axis=1)
        c = np.where(denom > 0, ((ones * (rhs - ax)).sum(axis=1)) / np.where(denom > 0, denom, 1.0), 0.0)
        x = x + c[:, None] * ones
    return x


def _peeling(pairs: Pairs) -> peeling.Peeling:
    """The leaves' elimination order of ``pairs`` and its core's pairs (found once per pairs)."""
    if "peeling" not in pairs._cache:
        plan = peeling.plan(pairs.i, pairs.j, pairs.n_models)
        pairs._cache["peeling"] = plan
        pairs._cache["core"] = Pairs.from_arrays(plan.core_i, plan.core_j, plan.core.size)
    return pairs._cache["peeling"]


def solve_information_dense(
    pairs: Pairs, info: np.ndarray, prior_diag: np.ndarray | float, rhs: np.ndarray, *, rank_one: bool
) -> np.ndarray | None:
    """The system of :func:`solve_information` for one problem ((K,) pair weights, (M,)
    right-hand side), built as a dense M × M matrix and solved directly: below
    :data:`SPARSE_FROM_MODELS` models cheaper than the conjugate gradients' sparse products, and
    exact where they stop at a tolerance. None when the matrix is singular (without the prior,
    pairs of positive weight that leave the models in several pieces, as a bootstrap round can):
    then the caller's conjugate gradients find the step within each piece, as before."""
    m = pairs.n_models
    info = np.asarray(info, dtype=np.float64)
    matrix = np.zeros((m, m))
    matrix[pairs.i, pairs.j] = -info  # each unordered pair once (i < j)
    matrix[pairs.j, pairs.i] = -info
    if rank_one and not _connected(matrix < 0):
        return None
    degree = np.bincount(pairs.i, info, minlength=m) + np.bincount(pairs.j, info, minlength=m)
    matrix[np.arange(m), np.arange(m)] = degree + prior_diag
    if rank_one:
        matrix += 1.0 / m
    try:
        return np.linalg.solve(matrix, np.asarray(rhs, dtype=np.float64))
    except np.linalg.LinAlgError:
        return None


def _connected(adjacency: np.ndarray) -> bool:
    """Whether a dense symmetric (M, M) adjacency joins every model (breadth-first, a few
    vector steps on the dense graphs this is used for)."""
    seen = np.zeros(adjacency.shape[0], dtype=bool)
    seen[0] = True
    frontier = seen.copy()
    while frontier.any():
        frontier = adjacency[frontier].any(axis=0) & ~seen
        seen |= frontier
    return bool(seen.all())


def strong_pieces(pairs: Pairs, w_ij: np.ndarray, w_ji: np.ndarray, present: np.ndarray | None = None) -> int:
    """How many strongly connected pieces the graph "i scored against j" has among the
    ``present`` models (default: all), by Tarjan's algorithm."""
    m = pairs.n_models
    fwd = w_ij > 0
    back = w_ji > 0
    rows = np.concatenate([pairs.i[fwd], pairs.j[back]])
    cols = np.concatenate([pairs.j[fwd], pairs.i[back]])
    if present is not None:
        idx = np.flatnonzero(present)
        if idx.size <= 1:
            return int(idx.size)
        remap = np.full(m, -1)
        remap[idx] = np.arange(idx.size)
        ok = (remap[rows] >= 0) & (remap[cols] >= 0)
        rows, cols, m = remap[rows[ok]], remap[cols[ok]], idx.size
    if m <= CLOSURE_MODELS:
        reach = _closure(rows, cols, m)
        # models that reach each other share a piece, labelled by its first model
        return int(np.unique((reach & reach.T).argmax(axis=1)).size)
    from scipy.sparse import csgraph  # imported on first use: a tenth of a second at start-up

    graph = sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(m, m))
    return int(csgraph.connected_components(graph, directed=True, connection="strong")[0])


#: Up to this many models the graph's pieces are read off its transitive closure (a few products
#: of models × models matrices, as the dense path's :func:`~evalcore.ranking.bradley_terry.reachability`),
#: not from the graph library: an arena of 129 models then never imports it (a twentieth of a
#: second at start-up, more than the products cost).
CLOSURE_MODELS = 256


def _closure(rows: np.ndarray, cols: np.ndarray, m: int) -> np.ndarray:
    """``reach[i, j]``: j can be reached from i along the edges (rows → cols); every model reaches
    itself. Repeated squaring, as :func:`~evalcore.ranking.bradley_terry.reachability`."""
    reach = np.eye(m, dtype=bool)
    reach[rows, cols] = True
    while True:
        step = reach.astype(np.float32)
        closer = (step @ step) > 0
        if np.array_equal(closer, reach):
            return reach
        reach = closer


def weak_pieces(pairs: Pairs) -> np.ndarray:
    """Piece label per model (models that met, directly or through others, share one), numbered
    0, 1, … in the order of each piece's first model, as the dense
    :func:`evalcore.ranking.bradley_terry.comparison_graph` numbers them."""
    m = pairs.n_models
    if m <= CLOSURE_MODELS:
        reach = _closure(np.r_[pairs.i, pairs.j], np.r_[pairs.j, pairs.i], m)
        # each model's first reachable model labels its piece; renumbered 0, 1, … in that order
        return np.unique(reach.argmax(axis=1), return_inverse=True)[1].astype(np.int64)
    from scipy.sparse import csgraph

    graph = sparse.csr_matrix((np.ones(pairs.n_pairs), (pairs.i, pairs.j)), shape=(m, m))
    _, labels = csgraph.connected_components(graph, directed=False)
    first = np.full(labels.max() + 1, m)
    np.minimum.at(first, labels, np.arange(m))
    order = np.argsort(np.argsort(first, kind="stable"), kind="stable")
    return order[labels]


def rows_to_pairs(a: np.ndarray, b: np.ndarray, n_models: int) -> tuple[Pairs, np.ndarray]:
    """The pairs that met in rows of (slot A, slot B) models, and each row's pair index."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    m = int(n_models)
    keys, pair = np.unique(np.minimum(a, b) * m + np.maximum(a, b), return_inverse=True)
    return Pairs.from_arrays(keys // m, keys % m, m), pair


def solve_covariate_step(
    pairs: Pairs,
    w_pair: np.ndarray,
    prior_diag: np.ndarray | float,
    cross: np.ndarray,
    d: np.ndarray,
    g_theta: np.ndarray,
    g_beta: np.ndarray,
    *,
    rank_one: bool,
    rtol: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The Newton step of the Bradley–Terry fit with covariates, over the compared pairs.

    The information is [[A, C], [Cᵀ, D]]: A the Laplacian of the pair weights (plus the prior's
    diagonal, or the rank-one location term), C (M × F) the covariates' cross block, D (F × F)
    theirs. With Y = A⁻¹[g_θ, C] (F + 1 conjugate-gradient solves, batched) the step is the
    block elimination: s_β = S⁻¹(g_β − Cᵀ A⁻¹ g_θ) with the Schur complement S = D − Cᵀ A⁻¹ C,
    and s_θ = A⁻¹(g_θ − C s_β). F is a handful of covariates, so S is tiny.
    """
    f = cross.shape[1]
    rhs = np.vstack([g_theta[None, :], cross.T])
    y = solve_information(
        pairs, np.broadcast_to(w_pair, (f + 1, w_pair.size)), prior_diag, rhs, rank_one=rank_one, rtol=rtol
    )
    y_g, y_c = y[0], y[1:].T  # (M,), (M, F)
    schur = d + 1e-9 * np.eye(f) - cross.T @ y_c
    s_beta = np.linalg.solve(schur, g_beta - cross.T @ y_g) if f else np.zeros(0)
    return y_g - y_c @ s_beta, s_beta
