"""Uncertainty of Bradley–Terry ratings: the bootstrap over instructions and the sandwich.

Both treat the instruction as the unit of sampling (a benchmark is a sample of prompts; the calls
on one prompt are correlated).

- **Bootstrap** (Efron & Tibshirani, *An Introduction to the Bootstrap*, 1993): instructions are
  redrawn with replacement and the ratings refitted exactly as the point estimate was fitted; the
  interval is the 2.5 and 97.5 percentiles. Drawn over instruction patterns in chunks
  (:mod:`evalcore.stats.bootstrap`), so memory stays bounded on arena-sized tables.
- **Sandwich** (Huber 1967; White 1980; clustered: Liang & Zeger, "Longitudinal data analysis
  using generalized linear models", Biometrika 1986): Cov(θ̂) ≈ H⁺ (Σ_i g_i g_iᵀ) H⁺ with H the
  Fisher information of the pooled fit and g_i the score contribution of instruction i, times
  I/(I − 1). Ties enter as half wins, so the likelihood is a quasi-likelihood and the sandwich is
  the variance that stays valid. LMArena's leaderboard moved to these intervals in 2025. A rating
  difference gets its interval by the delta method: Var(r_i − r_j) = C_ii + C_jj − 2 C_ij.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.progress import Progress
from evalcore.ranking import sparse_fit
from evalcore.ranking.bradley_terry import (
    SLOT_A_SCORE,
    _sigmoid,
    fit_bradley_terry,
    reachability,
    win_entries,
)
from evalcore.stats.bootstrap import bootstrap_weights, entries_operand, pattern_operand, weighted_totals
from evalcore.stats.lazy_sparse import issparse

if TYPE_CHECKING:
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

#: Up to this many models the sandwich's normal draws use the eigendecomposition of the
#: covariance; above, a Cholesky factor (:func:`normal_draws`).
EIGH_DRAWS_UP_TO = 100
#: Most within-cluster pairs of score entries :func:`row_sandwich_covariance` forms at once.
MEAT_CHUNK_PAIRS = 4_000_000


def bootstrap_thetas(
    counts: VerdictCounts,
    theta: np.ndarray,
    *,
    prior_games: float,
    rounds: int,
    seed: int,
    progress: Progress | None = None,
    pair_weights: np.ndarray | sparse.spmatrix | None = None,
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Bootstrap strengths θ* (rounds, M), refitted on resampled instruction patterns.

    The instruction axis is the resampling unit: pass ``counts.by_unit()`` to resample sessions,
    voters or runs (the cluster bootstrap; Field & Welsh 2007). ``pair_weights`` (M × M,
    symmetric, dense or sparse) weights every call of a pair, fixed across rounds (:func:`evalcore.ranking.units.inverse_pair_weights`).

    Returns ``(theta_samples, absent, regularised_rounds, unconverged)``. ``absent[r, m]`` marks a
    model with no battle in round ``r``: its θ* is NaN (not the prior's centre) and the other
    models keep the frame of the point estimate (their mean equals their point mean).
    Rounds on which some model never loses or never wins are fitted with the weak prior, as the
    full data would be (``regularised_rounds``).
    """
    m = counts.n_models
    reps, mult = counts.pattern_counts()
    rows, cols, vals = win_entries(reps)
    if pair_weights is not None:
        if issparse(pair_weights):  # many models: the pairs that met
            vals = vals * np.asarray(pair_weights[cols // m, cols % m], dtype=np.float64).ravel()
        else:
            vals = vals * np.asarray(pair_weights, dtype=np.float64).ravel()[cols]
    n_pat = int(mult.size)
    if m >= sparse_fit.SPARSE_FROM_MODELS:
        return _bootstrap_pairs(m, theta, rows, cols, vals, mult, prior_games, rounds, seed, progress)
    # Each round's win matrix W_r = Σ_s w[r, s] · wins_s: one BLAS product on a dense per-pattern
    # matrix for all-pairs tables (hundreds of patterns), a sparse one for arena tables (tens of
    # thousands of patterns over M² columns).
    per_pattern = entries_operand(rows, cols, vals, (n_pat, m * m), exact_sums=pair_weights is None)
    row_bytes = (n_pat + 3 * m * m) * 8  # a transposed copy of the weights, the wins, their working copies
    samples = np.full((rounds, m), np.nan)
    absent_all = np.zeros((rounds, m), dtype=bool)
    regularised = unconverged = 0
    for start, stop, w in bootstrap_weights(mult, rounds, seed, row_bytes=row_bytes):
        r = stop - start
        wins = weighted_totals(w, per_pattern).reshape(r, m, m)
        games = (wins + np.swapaxes(wins, 1, 2)).sum(axis=2)
        absent = games <= 0
        needs = np.zeros(r, dtype=bool) if prior_games else ~_mle_exists_present(wins, ~absent)
        regularised += int(needs.sum())
        th = np.empty((r, m))
        for group, games_prior in ((~needs, prior_games), (needs, 1.0)):
            if group.any():
                th[group], ok = fit_bradley_terry(
                    wins[group], prior_games=games_prior, theta0=theta, frozen=absent[group]
                )
                unconverged += 0 if ok else int(group.sum())
        # The frame: present models' mean equals their point-estimate mean.
        present = ~absent
        shift = np.where(present, theta - th, 0.0).sum(axis=1) / np.maximum(present.sum(axis=1), 1)
        th = np.where(present, th + shift[:, None], np.nan)
        samples[start:stop] = th
        absent_all[start:stop] = absent
        if progress is not None:
            progress(stop / rounds, f"bootstrap round {stop:,} of {rounds:,}")
    return samples, absent_all, regularised, unconverged


def _mle_exists_present(wins: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Whether each round's MLE is finite for the models that played in it: the graph "i scored
    against j" strongly connected among them. An absent model has no likelihood and must not
    force the prior on the others; it must not join them either (linking it both ways to
    everyone, as this check once did, made every round with an absent model look connected, and
    such a round with an undefeated model was then fitted without the prior and diverged)."""
    reach = reachability(wins > 0)
    mutual = reach & np.swapaxes(reach, -1, -2)
    outside = ~present[:, :, None] | ~present[:, None, :]
    return (mutual | outside).all(axis=(-2, -1))


def _bootstrap_pairs(
    m: int,
    theta: np.ndarray,
    rows: np.ndarray,
    cols: np.ndarray,
    vals: np.ndarray,
    mult: np.ndarray,
    prior_games: float,
    rounds: int,
    seed: int,
    progress: Progress | None,
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """:func:`bootstrap_thetas` over the pairs that met (many models): each round's wins are K
    numbers per direction instead of an M × M matrix, and the refits are Newton–CG
    (:func:`evalcore.ranking.sparse_fit.fit_pairs`) warm-started from the point fit, so a round
    costs time in proportion to the pairs. The same draws, frame, prior rule and outputs."""
    first, second = cols // m, cols % m
    lo, hi = np.minimum(first, second), np.maximum(first, second)
    keys, pair = np.unique(lo * m + hi, return_inverse=True)
    pairs = sparse_fit.Pairs.from_arrays(keys // m, keys % m, m)
    k = pairs.n_pairs
    slot = 2 * pair + (first > second)  # even: wins of the pair's first model, odd: of the second
    n_pat = int(mult.size)
    per_pattern = pattern_operand(sparse.csr_matrix((vals, (rows, slot)), shape=(n_pat, 2 * k)))
    row_bytes = (n_pat + 16 * k + 16 * m) * 8  # the weights, the wins and the Newton–CG work arrays
    samples = np.full((rounds, m), np.nan)
    absent_all = np.zeros((rounds, m), dtype=bool)
    regularised = unconverged = 0
    for start, stop, w in bootstrap_weights(mult, rounds, seed, row_bytes=row_bytes):
        r = stop - start
        both = weighted_totals(w, per_pattern)
        w_ij, w_ji = both[:, 0::2], both[:, 1::2]
        absent = pairs.degree(w_ij + w_ji) <= 0
        needs = np.zeros(r, dtype=bool)
        if not prior_games:
            for b in range(r):
                needs[b] = sparse_fit.strong_pieces(pairs, w_ij[b], w_ji[b], present=~absent[b]) > 1
        regularised += int(needs.sum())
        th = np.empty((r, m))
        for group, games_prior in ((~needs, prior_games), (needs, 1.0)):
            if group.any():
                th[group], ok = sparse_fit.fit_pairs(
                    pairs,
                    w_ij[group],
                    w_ji[group],
                    prior_games=games_prior,
                    theta0=theta,
                    frozen=absent[group],
                )
                unconverged += 0 if ok else int(group.sum())
        present = ~absent
        shift = np.where(present, theta - th, 0.0).sum(axis=1) / np.maximum(present.sum(axis=1), 1)
        samples[start:stop] = np.where(present, th + shift[:, None], np.nan)
        absent_all[start:stop] = absent
        if progress is not None:
            progress(stop / rounds, f"bootstrap round {stop:,} of {rounds:,}")
    return samples, absent_all, regularised, unconverged


def fisher_information(wins: np.ndarray, theta: np.ndarray, *, prior_games: float = 0.0) -> np.ndarray:
    """The observed = expected information of the Bradley–Terry log-likelihood at θ (M × M),
    a weighted graph Laplacian; with the weak prior, its diagonal term."""
    games = wins + wins.T
    p = _sigmoid(theta[:, None] - theta[None, :])
    info = games * p * (1.0 - p)
    h = np.diag(info.sum(axis=1)) - info
    if prior_games:
        q = _sigmoid(theta)
        h += np.diag(prior_games * q * (1.0 - q))
    return h


def information_inverse(info: np.ndarray, *, prior_games: float = 0.0) -> np.ndarray:
    """The pseudo-inverse of a Bradley–Terry information matrix (M × M), the sandwich's bread.

    Below :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models by an eigendecomposition
    (``numpy.linalg.pinv``). From there by one Cholesky factorisation, several times cheaper: with
    the prior the information is positive definite; without it, it is the Laplacian of a
    connected graph (the MLE exists), whose pseudo-inverse is (H + 11ᵀ/M)⁻¹ − 11ᵀ/M. Falls back
    to the pseudo-inverse if the factorisation fails (a disconnected graph without the prior).
    """
    m = info.shape[0]
    if m < sparse_fit.SPARSE_FROM_MODELS:
        return np.linalg.pinv(info, hermitian=True)
    from scipy import linalg

    shift = 0.0 if prior_games else 1.0 / m
    try:
        factor = linalg.cho_factor(info + shift, lower=True, check_finite=False)
    except linalg.LinAlgError:
        return np.linalg.pinv(info, hermitian=True)
    inverse = linalg.cho_solve(factor, np.eye(m), check_finite=False)
    return inverse - shift


def score_residuals(
    counts: VerdictCounts, theta: np.ndarray
) -> tuple[VerdictCounts, np.ndarray | None, np.ndarray]:
    """Each cell's score residual (slot A's score less its expectation under ``theta``), over
    instruction patterns: ``(representatives, multiplicities or None, residuals)``.

    Instructions with identical cells give the same score, so a sandwich's meat is summed over
    patterns with their multiplicity. With one call per instruction and few models (an arena
    table) the patterns are the distinct (model A, model B, verdict) and are found without a sort
    (about 50,000 for 1.8 M battles, shared with the split halves). With one cell per instruction
    otherwise (many models for the battles) the clustered sums are O(cells) already, and hashing
    the cells into patterns first would only cost time and memory (``None`` multiplicities).
    """
    if counts.n_cells == counts.n_instructions and not counts.one_call_each():
        reps, mult = counts, None
    else:
        reps, mult = counts.pattern_counts()
    calls = reps.n.sum(axis=1).astype(np.float64)
    resid = reps.cell_scores(SLOT_A_SCORE) - calls * _sigmoid(theta[reps.a] - theta[reps.b])
    return reps, mult, resid


def sandwich_covariance(
    counts: VerdictCounts,
    theta: np.ndarray,
    wins: np.ndarray,
    *,
    prior_games: float = 0.0,
    chunk_patterns: int = 20_000,
    pair_weights: np.ndarray | None = None,
) -> np.ndarray:
    """Instruction-clustered sandwich covariance of the natural-scale strengths θ̂ (M × M).

    The instruction axis is the cluster: pass ``counts.by_unit()`` to cluster by session, voter or
    run (Cameron, Gelbach & Miller 2011; Cameron & Miller 2015). With ``pair_weights`` (M × M,
    symmetric) each call's score is weighted by its pair's weight, and ``wins`` must be the
    weighted wins the fit used (the weighted likelihood's information).

    The score of instruction i for model x is Σ over its cells of (score − calls·p) with sign +
    for slot A's model and − for slot B's; instructions with identical cells contribute the same
    score, so the meat is summed over instruction patterns with their multiplicity, in chunks.
    The covariance is of the centred strengths (Σθ = 0): the pseudo-inverse of the information
    acts on the space orthogonal to the constant vector.
    """
    m = counts.n_models
    reps, mult, resid = score_residuals(counts, theta)
    if pair_weights is not None:
        resid = resid * np.asarray(pair_weights, dtype=np.float64)[reps.a, reps.b]
    meat = clustered_outer(reps.inst, reps.a, reps.b, resid, n_models=m, weights=mult, chunk=chunk_patterns)
    n_clusters = counts.n_instructions
    if n_clusters > 1:
        meat *= n_clusters / (n_clusters - 1)
    bread = information_inverse(
        fisher_information(wins, theta, prior_games=prior_games), prior_games=prior_games
    )
    if prior_games:
        # The penalised fit is not centred by the information; project onto Σθ = 0:
        # (I − 11ᵀ/M)·bread, written as a subtraction of column means (no M³ product).
        bread = bread - bread.mean(axis=0, keepdims=True)
    if m >= sparse_fit.SPARSE_FROM_MODELS and np.count_nonzero(meat) < 0.1 * meat.size:
        # An arena's meat is a weighted Laplacian of the pairs that met: its product with the
        # bread costs O(pairs × M) as a sparse matrix, leaving one dense product of three.
        cov = bread @ np.asarray(sparse.csr_matrix(meat) @ bread.T)
    else:
        cov = bread @ meat @ bread.T
    return 0.5 * (cov + cov.T)


def clustered_outer(
    inst: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    left: np.ndarray,
    right: np.ndarray | None = None,
    *,
    n_models: int,
    weights: np.ndarray | None = None,
    chunk: int = 20_000,
) -> np.ndarray:
    """Σ_k w_k g_k h_kᵀ over clusters k (M × M): the meat of a clustered sandwich.

    Cell ``r`` (cluster ``inst[r]``, slot A model ``a[r]``, slot B model ``b[r]``) adds its
    residual ``left[r]`` to g_k at ``a`` and subtracts it at ``b`` (the Bradley–Terry score of a
    pair is ± the same number for its two models); ``right`` builds h_k the same way (default:
    ``left``, giving Σ w g gᵀ). ``inst`` must be sorted, so a chunk of clusters is a slice of
    cells and memory stays at ``chunk`` × M.
    """
    m = n_models
    inst = np.asarray(inst, dtype=np.int64)
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    left = np.asarray(left, dtype=np.float64)
    same = right is None
    right = left if right is None else np.asarray(right, dtype=np.float64)
    n_clusters = int(inst[-1]) + 1 if inst.size else 0
    w = None if weights is None else np.asarray(weights, dtype=np.float64)
    if w is not None:
        n_clusters = max(n_clusters, int(w.size))
    out = np.zeros((m, m))
    # A cluster of one cell (an arena prompt: one battle) adds l·r·(e_a − e_b)(e_a − e_b)ᵀ: four
    # entries, summed by bincount in O(cells) instead of a dense (clusters × M) block.
    single = np.bincount(inst, minlength=n_clusters)[inst] == 1
    if single.any():
        x, y = a[single], b[single]
        val = left[single] * right[single] * (1.0 if w is None else w[inst[single]])
        out += (
            np.bincount(x * m + x, val, m * m)
            + np.bincount(y * m + y, val, m * m)
            - np.bincount(x * m + y, val, m * m)
            - np.bincount(y * m + x, val, m * m)
        ).reshape(m, m)
        rest = ~single
        kept, inst = np.unique(inst[rest], return_inverse=True)
        a, b, left, right = a[rest], b[rest], left[rest], right[rest]
        w = None if w is None else w[kept]
        n_clusters = int(kept.size)
    bounds = np.searchsorted(inst, np.arange(0, n_clusters + chunk, chunk))

    def scores(values: np.ndarray, sl: slice, local: np.ndarray, size: int) -> np.ndarray:
        return np.bincount(local * m + a[sl], weights=values[sl], minlength=size) - np.bincount(
            local * m + b[sl], weights=values[sl], minlength=size
        )

    for k, lo in enumerate(range(0, n_clusters, chunk)):
        hi = min(lo + chunk, n_clusters)
        sl = slice(bounds[k], bounds[k + 1])
        local = inst[sl] - lo
        size = (hi - lo) * m
        g = scores(left, sl, local, size).reshape(hi - lo, m)
        h = g if same else scores(right, sl, local, size).reshape(hi - lo, m)
        if w is not None:
            g = g * w[lo:hi, None]
        out += g.T @ h
    return out


#: Eigenvalues of a sandwich covariance at most this share of its largest are its zero
#: directions (:func:`normal_draws`): rounding leaves them at about 1e-16 of it, either sign.
ZERO_EIGENVALUE = 1e-13


def normal_draws(theta: np.ndarray, cov: np.ndarray, *, draws: int, seed: int) -> np.ndarray:
    """Draws of θ from N(θ̂, Cov) (for rank ranges under the sandwich): (draws, M).

    The square root of Cov is its eigendecomposition up to :data:`EIGH_DRAWS_UP_TO` models; above,
    a Cholesky factor of Cov plus a ridge of 1e-10 of its largest variance (Cov is singular along
    the constant vector and between pieces), about ten times cheaper at 2,000 models and the same
    distribution up to that ridge (1e-5 of a standard deviation).
    """
    z = np.random.default_rng(seed).standard_normal((draws, theta.size))
    if theta.size > EIGH_DRAWS_UP_TO:
        ridge = 1e-10 * max(float(np.max(np.diag(cov))), 1e-300)
        try:
            root = np.linalg.cholesky(cov + ridge * np.eye(theta.size))
            return theta + z @ root.T
        except np.linalg.LinAlgError:
            pass  # not positive definite even with the ridge: the eigendecomposition below
    vals, vecs = np.linalg.eigh(cov)
    # Cov's zero directions (the constant, between pieces) come out as rounding noise of about
    # 1e-16 of its largest variance, whose square root would put 1e-8 of a standard deviation
    # of noise into the draws: they are zero
    vals = np.where(vals > ZERO_EIGENVALUE * max(float(vals.max(initial=0.0)), 0.0), vals, 0.0)
    root = vecs * np.sqrt(vals)
    return theta + z @ root.T


def row_sandwich_covariance(
    a: np.ndarray,
    b: np.ndarray,
    x: np.ndarray,
    resid: np.ndarray,
    cluster: np.ndarray | None,
    info: np.ndarray,
    n_models: int,
    *,
    prior_games: float = 0.0,
) -> np.ndarray:
    """Cluster-robust sandwich covariance of (θ, β) for a Bradley–Terry fit on rows with
    covariates (:func:`~evalcore.ranking.bradley_terry.fit_bradley_terry_covariates`).

    ``resid`` is each row's score residual n·(p − y); a row adds +resid to its slot-A model,
    −resid to its slot-B model and resid·x to the covariates. Scores are summed per ``cluster``
    (the instruction: its calls share the responses) into a sparse clusters × parameters matrix,
    so an arena table of one battle per instruction never builds a dense one; the meat is
    GᵀG · C/(C − 1) and the bread the inverse information with the location of θ fixed.
    ``cluster=None`` gives the model-based covariance (the inverse information alone). θ's block
    is the covariance of the centred strengths (Σθ = 0), as :func:`sandwich_covariance`.
    """
    m, f = n_models, x.shape[1]
    k = m + f
    centre_dir = np.zeros(k)
    centre_dir[:m] = 1.0
    try:
        bread = np.linalg.inv(info + np.outer(centre_dir, centre_dir))
    except np.linalg.LinAlgError:
        return np.full((k, k), np.nan)
    if cluster is None:
        cov = bread
    else:
        meat, n_c = _clustered_meat(a, b, x, resid, np.asarray(cluster, dtype=np.int64), m)
        if n_c > 1:
            meat *= n_c / (n_c - 1)
        cov = bread @ meat @ bread
    # The covariance of centred strengths: project θ's block onto Σθ = 0 (a penalised fit, or
    # the rank-one term, leaves some variance along the constant direction).
    proj = np.eye(k)
    proj[:m, :m] -= 1.0 / m
    cov = proj @ cov @ proj.T
    return 0.5 * (cov + cov.T)


def _clustered_meat(
    a: np.ndarray, b: np.ndarray, x: np.ndarray, resid: np.ndarray, cluster: np.ndarray, m: int
) -> tuple[np.ndarray, int]:
    """Σ_c g_c g_cᵀ in time linear in the rows, never a dense clusters × parameters matrix.

    g_c has a model part (resid summed per model and cluster, + slot A, − slot B) and a
    covariate part (resid·x summed per cluster). The model part is kept as sparse entries
    (cluster, model, value); its outer products are formed only between entries of the same
    cluster, in chunks (an arena cluster has 2 entries, an all-pairs instruction at most M).
    """
    f = x.shape[1]
    if cluster.size == 0:
        return np.zeros((m + f, m + f)), 0
    cl, n_c = _dense_labels(cluster)
    if n_c == cluster.size:
        # One row per cluster (an arena table): g_c is that row's score, and Σ g gᵀ is a
        # resid²-weighted Laplacian plus the rows' covariate products.
        r2 = resid * resid
        m_ab = np.bincount(a * m + b, r2, minlength=m * m).reshape(m, m)
        meat = np.zeros((m + f, m + f))
        meat[:m, :m] = np.diag(m_ab.sum(axis=1) + m_ab.sum(axis=0)) - m_ab - m_ab.T
        rx = r2[:, None] * x
        for jf in range(f):
            meat[:m, m + jf] = np.bincount(a, rx[:, jf], minlength=m) - np.bincount(b, rx[:, jf], minlength=m)
        meat[m:, :m] = meat[:m, m:].T
        meat[m:, m:] = x.T @ rx
        return meat, int(cluster.size)
    g_beta = (
        np.stack([np.bincount(cl, resid * x[:, j], minlength=n_c) for j in range(f)], axis=1)
        if f
        else np.zeros((n_c, 0))
    )
    key, value = np.unique(np.concatenate([cl * m + a, cl * m + b]), return_inverse=True)
    value = np.bincount(value, np.concatenate([resid, -resid]), minlength=key.size)
    entry_cluster, entry_model = key // m, key % m  # sorted by cluster
    meat = np.zeros((m + f, m + f))
    sizes = np.bincount(entry_cluster, minlength=n_c)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    # pairs of entries within a cluster, chunked so no chunk holds more than ~4 M pairs
    per_entry = sizes[entry_cluster]
    bounds = np.searchsorted(
        np.cumsum(per_entry), np.arange(0, per_entry.sum() + MEAT_CHUNK_PAIRS, MEAT_CHUNK_PAIRS), side="right"
    )
    bounds = np.unique(np.clip(bounds, 0, key.size))
    lo = 0
    for hi in [*bounds[1:], key.size]:
        if hi <= lo:
            continue
        i = np.repeat(np.arange(lo, hi), per_entry[lo:hi])
        offset = np.arange(i.size) - np.repeat(
            np.cumsum(per_entry[lo:hi]) - per_entry[lo:hi], per_entry[lo:hi]
        )
        j = starts[entry_cluster[i]] + offset
        meat[:m, :m] += np.bincount(
            entry_model[i] * m + entry_model[j], value[i] * value[j], minlength=m * m
        ).reshape(m, m)
        lo = hi
    for jf in range(f):
        meat[:m, m + jf] = np.bincount(entry_model, value * g_beta[entry_cluster, jf], minlength=m)
    meat[m:, :m] = meat[:m, m:].T
    meat[m:, m:] = g_beta.T @ g_beta
    return meat, n_c


def _dense_labels(cluster: np.ndarray) -> tuple[np.ndarray, int]:
    """Cluster ids renumbered 0..C−1, and C. Ids that are already small (the store numbers
    instructions from 0) are relabelled by a bincount, far faster than sorting them."""
    low = int(cluster.min())
    span = int(cluster.max()) - low + 1
    if span <= 4 * cluster.size + 1024:
        present = np.bincount(cluster - low, minlength=span) > 0
        label = np.cumsum(present) - 1
        return label[cluster - low], int(present.sum())
    _, inverse = np.unique(cluster, return_inverse=True)
    return inverse, int(inverse.max()) + 1
