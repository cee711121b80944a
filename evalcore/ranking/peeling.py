"""Exact elimination of a sparse comparison graph's leaves, for the Newton steps over the pairs.

The Newton step of a Bradley–Terry fit with the weak prior solves (L(w) + D) x = b: L the graph
Laplacian of the pairs' information w, D the prior's positive diagonal. On a sparse table (2,000
models with 2,000 battles, most models playing once or twice; its random halves side by side)
the graph is mostly trees hanging off a small core, and conjugate gradients crawl along its
chains: 1,579 sparse products for the 2,000-model table's split halves. Here a model with one
remaining opponent (a leaf) is eliminated into that opponent, round after round: exact Gaussian
elimination that creates no new entries (a leaf v, its opponent u, the pair's weight w: D_u
loses w²/A_vv and b_u gains w b_v/A_vv; once u is solved, x_v = (b_v + w x_u)/A_vv). A forest
is solved completely in linear time; what remains (the core: every model with two or more
opponents left) is solved by a sparse LU factorisation with a fill-reducing order (SuperLU,
minimum degree on the symmetric pattern), or by the caller's conjugate gradients for a batch of
problems. This is the minimum-degree elimination of George & Liu, *Computer Solution of Large
Sparse Positive Definite Systems* (1981), whose first eliminations on a tree have no fill.

The elimination order depends on the pairs only (:func:`plan`, found once per set of pairs); a
pair whose weight is zero in one problem of a batch (a bootstrap round without it) is eliminated
the same way, at no cost to exactness, since the prior keeps every diagonal positive.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: One problem's core is factorised when it has at most this many pairs per model (chains and
#: a few cycles: the 2,000-model table's core has 1.45, its halves side by side 1.08) and at
#: most :data:`DIRECT_CORE_MODELS` models; a denser or larger core goes to the conjugate
#: gradients: a random graph of three opponents each is an expander whose factor fills in
#: (5,000 models: half a million entries, 0.04 s; 20,000: eight million, 1.1 s a step).
DIRECT_CORE_DEGREE = 1.5
DIRECT_CORE_MODELS = 5_000


@dataclass(frozen=True)
class Peeling:
    """The leaves' elimination order and what remains.

    ``rounds``: per round the leaves (sorted by opponent), their opponents, the leaves' pairs,
    the distinct opponents and where each one's leaves start. ``roots``: models left with no
    opponent (solved alone); ``core``: models left with two or more, joined by the pairs
    ``core_edges`` (``core_i``, ``core_j`` in the core's own numbering)."""

    rounds: tuple[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray], ...]
    roots: np.ndarray
    core: np.ndarray
    core_i: np.ndarray
    core_j: np.ndarray
    core_edges: np.ndarray
    eliminated: int


def plan(i: np.ndarray, j: np.ndarray, n_models: int) -> Peeling:
    """The elimination order of the pairs (``i[k]``, ``j[k]``) among ``n_models`` models."""
    m = int(n_models)
    alive_edge = np.ones(i.size, dtype=bool)
    alive = np.ones(m, dtype=bool)
    rounds = []
    eliminated = 0
    while True:
        k_all = np.flatnonzero(alive_edge)
        ei, ej = i[k_all], j[k_all]
        deg = np.bincount(ei, minlength=m) + np.bincount(ej, minlength=m)
        one = alive & (deg == 1)
        if not one.any():
            break
        first, second = one[ei], one[ej]  # each leaf's one pair, as its first or second model
        leaf = np.concatenate([ei[first], ej[second]])
        nbr = np.concatenate([ej[first], ei[second]])
        edge = np.concatenate([k_all[first], k_all[second]])
        # two leaves of each other (a pair on its own): the smaller goes, the other is a root
        ok = (deg[nbr] != 1) | (leaf < nbr)
        order = np.argsort(nbr[ok], kind="stable")
        leaf, nbr, edge = leaf[ok][order], nbr[ok][order], edge[ok][order]
        starts = np.flatnonzero(np.r_[True, nbr[1:] != nbr[:-1]])
        rounds.append((leaf, nbr, edge, nbr[starts], starts))
        alive[leaf] = False
        alive_edge[edge] = False
        eliminated += leaf.size
    core_edges = np.flatnonzero(alive_edge)
    deg = np.bincount(i[core_edges], minlength=m) + np.bincount(j[core_edges], minlength=m)
    core = np.flatnonzero(alive & (deg > 0))
    place = np.full(m, -1)
    place[core] = np.arange(core.size)
    return Peeling(
        rounds=tuple(rounds),
        roots=np.flatnonzero(alive & (deg == 0)),
        core=core,
        core_i=place[i[core_edges]],
        core_j=place[j[core_edges]],
        core_edges=core_edges,
        eliminated=eliminated,
    )


def solve(
    peel: Peeling,
    info: np.ndarray,
    full_diag: np.ndarray,
    rhs: np.ndarray,
    core_cg: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray],
) -> np.ndarray:
    """Solve (L(info) + diag) x = rhs for each row of (B, M) ``rhs``; ``full_diag`` (B, M) is the
    Laplacian's degrees plus the positive diagonal. The core of one problem is factorised
    (:func:`solve_core_directly`); a batch's core goes to ``core_cg(w, diagonal, b)``, which
    solves (L(w) + diag(diagonal − degrees of w)) y = b over the core's pairs."""
    d = full_diag.copy()
    b = np.array(rhs, dtype=np.float64)
    for leaf, _, edge, up, starts in peel.rounds:
        w = info[:, edge]
        f = w / d[:, leaf]
        d[:, up] -= np.add.reduceat(w * f, starts, axis=1)
        b[:, up] += np.add.reduceat(f * b[:, leaf], starts, axis=1)
    x = np.zeros_like(b)
    x[:, peel.roots] = b[:, peel.roots] / d[:, peel.roots]
    if peel.core.size:
        core, w_core = peel.core, info[:, peel.core_edges]
        if (
            b.shape[0] == 1
            and peel.core_edges.size
            <= DIRECT_CORE_DEGREE * core.size
            <= DIRECT_CORE_DEGREE * DIRECT_CORE_MODELS
        ):
            x[:, core] = solve_core_directly(peel, w_core[0], d[0, core], b[0, core])
        else:
            x[:, core] = core_cg(w_core, d[:, core], b[:, core])
    for leaf, nbr, edge, _, _ in reversed(peel.rounds):
        x[:, leaf] = (b[:, leaf] + info[:, edge] * x[:, nbr]) / d[:, leaf]
    return x


def solve_core_directly(peel: Peeling, w: np.ndarray, diag: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """One problem's core: the matrix with −``w`` at each core pair (both ways) and ``diag`` on
    its diagonal (positive definite), solved by SuperLU with a minimum-degree order of its
    symmetric pattern and no pivoting."""
    from scipy.sparse import csc_matrix
    from scipy.sparse.linalg import splu

    n = peel.core.size
    rows = np.concatenate([peel.core_i, peel.core_j, np.arange(n)])
    cols = np.concatenate([peel.core_j, peel.core_i, np.arange(n)])
    matrix = csc_matrix((np.concatenate([-w, -w, diag]), (rows, cols)), shape=(n, n))
    factor = splu(matrix, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0, options={"SymmetricMode": True})
    return factor.solve(rhs)
