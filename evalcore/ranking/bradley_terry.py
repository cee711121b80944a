"""Bradley–Terry on the Elo scale: the model, its maximum-likelihood fit and when the fit exists.

A verdict counts by its sign and a tie is half a win for each side; P(i beats j) =
1 / (1 + 10^((r_j − r_i)/400)), so r = (400 / ln 10)·θ with θ the natural-scale Bradley–Terry
strength (Bradley & Terry, "Rank analysis of incomplete block designs", Biometrika 1952; Elo,
*The Rating of Chessplayers*, 1978). Everything is fitted on aggregated counts: an M × M matrix of
wins for a point estimate, a (B, M, M) stack for a batch of resamples, never on rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import sparse_fit
from evalcore.stats.against import SLOT_A_SCORE
from evalcore.text import fmt_list

#: How many pieces, and models of each kind, a note names before saying how many more there are.
LISTED = 5

#: Elo points per natural-log unit of strength: r = ELO_SCALE · θ.
ELO_SCALE = 400.0 / np.log(10.0)
#: Ratings are reported with the models' mean at this value.
ELO_CENTRE = 1000.0

#: How a Newton step is solved: see :func:`fit_bradley_terry`.
Solver = Literal["auto", "dense", "sparse"]


def win_entries(counts: VerdictCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each cell's wins as sparse entries ``(instruction, a·M + b, wins of a over b)``.

    Every cell contributes twice: slot A's score against slot B (wins + half the ties) and
    slot B's score against slot A. Summing the entries per (a, b) gives the pooled win matrix;
    per instruction, the per-instruction matrices.
    """
    m = counts.n_models
    score_a = counts.cell_scores(SLOT_A_SCORE)
    score_b = counts.cell_scores(1.0 - SLOT_A_SCORE)
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    rows = np.concatenate([counts.inst, counts.inst]).astype(np.int64)
    cols = np.concatenate([a * m + b, b * m + a])
    return rows, cols, np.concatenate([score_a, score_b])


def pooled_wins(counts: VerdictCounts) -> np.ndarray:
    """(M, M) wins over all instructions, both slots pooled: ``wins[a, b]`` = battles of a
    against b won by a, plus half the ties. ``wins + wins.T`` is the number of battles."""
    m = counts.n_models
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    # two sums rather than one over win_entries' concatenation (whose instruction rows this never
    # reads): the same numbers, as every score is a whole or half battle, summed exactly
    wins = np.bincount(a * m + b, weights=counts.cell_scores(SLOT_A_SCORE), minlength=m * m)
    wins += np.bincount(b * m + a, weights=counts.cell_scores(1.0 - SLOT_A_SCORE), minlength=m * m)
    return wins.reshape(m, m)


def pairwise_wins(counts: VerdictCounts) -> np.ndarray:
    """Per-instruction wins (I, M, M), dense: only for small tables (see
    :meth:`~evalcore.counts.VerdictCounts.dense`); prefer :func:`win_entries`."""
    c = counts.dense().astype(np.float64)
    as_a = c @ SLOT_A_SCORE
    as_b = c @ (1.0 - SLOT_A_SCORE)
    return as_a + np.swapaxes(as_b, 1, 2)


def win_probability(r_i: np.ndarray | float, r_j: np.ndarray | float) -> np.ndarray | float:
    """P(i beats j) for Elo-scale ratings (Elo 1978): 1 / (1 + 10^((r_j − r_i)/400))."""
    return 1.0 / (1.0 + np.power(10.0, (np.asarray(r_j) - np.asarray(r_i)) / 400.0))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


#: Strength spans (natural scale) up to which :func:`_pair_probabilities` takes exponentials of
#: the strengths: beyond about 745 below the largest an exponential underflows to zero, and two
#: such models would give 0 / 0.
EXP_SPAN = 600.0


def _pair_probabilities(theta: np.ndarray) -> np.ndarray:
    """(B, M, M) P(i beats j) = σ(θ_i − θ_j) for (B, M) strengths, as e_i / (e_i + e_j) with
    e = exp(θ − max θ): an addition and a division per pair where the hyperbolic tangent of each
    difference took four times as long (a batch of 50 problems of 129 models: 5 against 20 ms),
    the same to rounding. Strengths spread wider than :data:`EXP_SPAN` take the tangent."""
    low, high = theta.min(axis=1, keepdims=True), theta.max(axis=1, keepdims=True)
    if not np.all(high - low <= EXP_SPAN):  # (a NaN strength too: the tangent propagates it)
        return _sigmoid(theta[:, :, None] - theta[:, None, :])
    e = np.exp(theta - high)
    total = e[:, :, None] + e[:, None, :]
    return np.divide(e[:, :, None], total, out=total)


def fit_bradley_terry(
    wins: np.ndarray,
    *,
    prior_games: float = 0.0,
    theta0: np.ndarray | None = None,
    frozen: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-9,
    solver: Solver = "auto",
) -> tuple[np.ndarray, bool]:
    """Maximum-likelihood Bradley–Terry strengths θ (natural scale, mean zero) by Newton's method.

    ``wins`` is (M, M) or a batch (B, M, M) with ``wins[..., i, j]`` the (possibly fractional)
    wins of i over j. ``prior_games`` adds that many virtual tie games of every model against a
    virtual player of strength 0, which keeps ratings finite when a model never loses or never
    wins (the maximum-likelihood estimate is then infinite); ``0`` gives the plain MLE.
    The free location (θ + c has the same likelihood) is removed by a rank-one term in the
    Hessian, which leaves the fixed point (gradient zero) unchanged; θ is returned with mean
    zero, with the same leading shape as ``wins``, and whether every problem converged.

    ``frozen`` ((M,) or (B, M), boolean) marks models that keep their ``theta0`` value: a model
    with no battle in a bootstrap resample has no likelihood to fit, and freezing it keeps the
    others' system solvable without pulling it towards a prior. The returned θ of such a round
    is then not centred (the caller decides the frame).

    ``solver``: ``"dense"`` solves the M × M Newton system directly (O(M³) per step);
    ``"sparse"`` solves it by conjugate gradients over the pairs that met
    (:func:`evalcore.ranking.sparse_fit.fit_pairs`, the same iteration and fixed point);
    ``"auto"`` takes the sparse one from :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS`
    models.
    """
    w = np.asarray(wins, dtype=np.float64)
    if solver == "sparse" or (solver == "auto" and w.shape[-1] >= sparse_fit.SPARSE_FROM_MODELS):
        pairs, w_ij, w_ji = sparse_fit.dense_to_pairs(w)
        return sparse_fit.fit_pairs(
            pairs,
            w_ij,
            w_ji,
            prior_games=prior_games,
            theta0=theta0,
            frozen=frozen,
            max_iter=max_iter,
            tol=tol,
        )
    single = w.ndim == 2
    if single:
        w = w[None]
    n_batch, m, _ = w.shape
    games = w + np.swapaxes(w, 1, 2)
    won = w.sum(axis=2)
    theta = np.zeros((n_batch, m)) if theta0 is None else np.broadcast_to(theta0, (n_batch, m)).copy()
    eye = np.eye(m)
    diagonal = np.arange(m)
    fz = None
    if frozen is not None:
        fz = np.broadcast_to(np.asarray(frozen, dtype=bool), (n_batch, m))
        if not fz.any():
            fz = None
    converged = False
    for _ in range(max_iter):
        p = _pair_probabilities(theta)
        hess = games * p
        grad = won - hess.sum(axis=2)
        hess *= 1.0 - p  # Fisher information per pair, in place (a batch's largest arrays)
        del p
        hess[:, diagonal, diagonal] -= hess.sum(axis=2)
        if not prior_games:
            hess -= 1.0 / m  # the rank-one term: fixes the location, keeps the fixed point
        else:
            q = _sigmoid(theta)
            grad += prior_games * (0.5 - q)
            hess[:, diagonal, diagonal] -= prior_games * q * (1.0 - q)
        if fz is not None:
            # A frozen model's row and column become −identity with zero gradient: its step is 0.
            keep = ~fz
            hess = hess * keep[:, :, None] * keep[:, None, :] - eye * fz[:, :, None]
            grad = np.where(fz, 0.0, grad)
        step = np.linalg.solve(hess, grad[:, :, None])[:, :, 0]
        # Damp long steps: far from the optimum Newton can overshoot on sparse data.
        biggest = np.abs(step).max(axis=1, keepdims=True)
        step *= np.minimum(1.0, 4.0 / np.maximum(biggest, 1e-300))
        theta = theta - step
        if np.abs(step).max() < tol or np.abs(grad).max() < tol:
            converged = True
            break
    if fz is None:
        theta = theta - theta.mean(axis=1, keepdims=True)
    return (theta[0] if single else theta), converged


@dataclass(frozen=True)
class ComparisonGraph:
    """Whether the battles allow finite maximum-likelihood ratings, and why not if they don't.

    The MLE exists exactly when the directed graph "i scored against j" is strongly connected
    (Zermelo 1929; Ford 1957). ``pieces`` labels the undirected components: models in different
    pieces never met, directly or through others, and their ratings are not comparable.
    """

    pieces: np.ndarray  # int component label per model
    undefeated: tuple[str, ...]  # won (or tied) every battle and lost none
    winless: tuple[str, ...]  # scored nothing: lost every battle
    mle_exists: bool

    @property
    def n_pieces(self) -> int:
        return int(self.pieces.max()) + 1 if self.pieces.size else 0

    def notes(self, models: tuple[str, ...]) -> tuple[str, ...]:
        notes = []
        if self.n_pieces > 1:
            # (a table of thousands of models may be in hundreds of pieces: a few named, each by
            # its first models, so that the note stays a sentence)
            groups = [
                "{" + fmt_list(m for m, p in zip(models, self.pieces, strict=False) if p == k) + "}"
                for k in range(min(self.n_pieces, LISTED))
            ]
            more = self.n_pieces - len(groups)
            listed = "; ".join(groups) + (f"; and {more:,} more" if more > 0 else "")
            notes.append(
                f"The comparison graph is in {self.n_pieces:,} pieces that never met "
                f"({listed}): ratings and ranks are comparable "
                "only within a piece. Judge some pairs across pieces to join them."
            )
        if self.undefeated:
            one = len(self.undefeated) == 1
            notes.append(
                f"{fmt_list(self.undefeated, LISTED)} lost no battle: the maximum-likelihood "
                + (
                    "rating is infinite. The rating shown is"
                    if one
                    else "ratings are infinite. The ratings shown are"
                )
                + " held finite by a weak prior (one virtual tie against an average model); "
                + (
                    "it is neither an estimate nor a bound."
                    if one
                    else "they are neither estimates nor bounds."
                )
            )
        if self.winless:
            one = len(self.winless) == 1
            notes.append(
                f"{fmt_list(self.winless, LISTED)} won no battle (not even a tie): "
                + ("its rating is" if one else "their ratings are")
                + " held finite by the same weak prior; "
                + (
                    "it is neither an estimate nor a bound."
                    if one
                    else "they are neither estimates nor bounds."
                )
            )
        if not self.mle_exists and not (self.undefeated or self.winless) and self.n_pieces == 1:
            notes.append(
                "Some group of models beat every model outside it without a single loss or tie: "
                "the maximum-likelihood ratings are infinite, and a weak prior (one virtual tie per "
                "model) keeps them finite."
            )
        return tuple(notes)


def reachability(adjacency: np.ndarray) -> np.ndarray:
    """``reach[..., i, j]``: j can be reached from i along the edges of ``adjacency`` ((…, M, M),
    boolean); every node reaches itself. Transitive closure by repeated squaring (log M
    products), which for leaderboard-sized graphs, batched, beats importing a graph library."""
    adjacency = np.asarray(adjacency, dtype=bool)
    reach = adjacency | np.eye(adjacency.shape[-1], dtype=bool)
    while True:
        step = reach.astype(np.float32)
        closer = (step @ step) > 0
        if np.array_equal(closer, reach):
            return reach
        reach = closer


def mle_exists(wins: np.ndarray) -> np.ndarray:
    """Whether the Bradley–Terry MLE is finite for each (…, M, M) win matrix: the directed graph
    "i scored against j" is strongly connected (Zermelo 1929; Ford 1957)."""
    wins = np.asarray(wins)
    m = wins.shape[-1]
    if m >= sparse_fit.SPARSE_FROM_MODELS:
        # Tarjan's strongly connected components on the pairs that met, problem by problem:
        # linear in the pairs, where the closure below is O(M³ log M).
        flat = wins.reshape(-1, m, m)
        out = np.empty(flat.shape[0], dtype=bool)
        for k, w in enumerate(flat):
            pairs, w_ij, w_ji = sparse_fit.dense_to_pairs(w)
            out[k] = sparse_fit.strong_pieces(pairs, w_ij, w_ji) == 1
        return out.reshape(wins.shape[:-2])
    reach = reachability(wins > 0)
    return (reach & np.swapaxes(reach, -1, -2)).all(axis=(-2, -1))


def comparison_graph(wins: np.ndarray, models: tuple[str, ...]) -> ComparisonGraph:
    """Diagnose ``wins`` (M × M): pieces, models that never lose or never win, MLE existence."""
    games = wins + wins.T
    if len(models) >= sparse_fit.SPARSE_FROM_MODELS:
        # The same pieces and existence check from graph traversals over the pairs that met.
        pairs, w_ij, w_ji = sparse_fit.dense_to_pairs(wins)
        pieces = sparse_fit.weak_pieces(pairs)
        n_strong = sparse_fit.strong_pieces(pairs, w_ij, w_ji)
    else:
        together = reachability(games > 0)
        # A piece is labelled by its first model; labels are renumbered 0, 1, … in model order.
        _, pieces = np.unique(together.argmax(axis=1), return_inverse=True)
        n_strong = 1 if mle_exists(wins) else 2
    played = games.sum(axis=1) > 0
    lost = wins.T.sum(axis=1) > 0  # someone scored against the model
    scored = wins.sum(axis=1) > 0
    undefeated = tuple(m for m, p, lo in zip(models, played, lost, strict=False) if p and not lo)
    winless = tuple(m for m, p, s in zip(models, played, scored, strict=False) if p and not s)
    return ComparisonGraph(
        pieces=pieces,
        undefeated=undefeated,
        winless=winless,
        mle_exists=bool(n_strong == 1 and len(models) > 1),
    )


def to_elo(theta: np.ndarray) -> np.ndarray:
    """Natural-scale strengths → Elo-scale ratings with the models' mean at 1000."""
    theta = np.asarray(theta)
    return ELO_CENTRE + ELO_SCALE * (theta - theta.mean(axis=-1, keepdims=True))


def bootstrap_weights(n_instructions: int, rounds: int, seed: int) -> np.ndarray:
    """(rounds, I) multinomial counts, dense: kept for small tables only. New code uses
    :func:`evalcore.stats.bootstrap.bootstrap_weights` (instruction patterns, chunked)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n_instructions, np.full(n_instructions, 1.0 / n_instructions), size=rounds).astype(
        np.float64
    )


def ranks_descending(scores: np.ndarray, *, decimals: int = 6) -> np.ndarray:
    """Competition ranks along the last axis, 1 = highest; equal scores share the best rank.

    Scores are compared after rounding to ``decimals`` so that models whose fits differ only by
    floating-point noise (an all-ties judge, identical battles) share their rank ("min" ranks, as
    ``scipy.stats.rankdata(-scores, method="min")``, without importing scipy.stats).
    """
    key = -np.round(np.asarray(scores, dtype=np.float64), decimals)
    # Equal keys share the rank of the first of them whatever their order, so any sort gives the
    # same ranks: the unstable one is ten times faster on the rank ranges' draws (1,000 × 1,539).
    # NaN keys each start a group of their own, so their order matters: there, a stable sort.
    order = np.argsort(key, axis=-1, kind="stable" if np.isnan(key).any() else None)
    ordered = np.take_along_axis(key, order, axis=-1)
    position = np.broadcast_to(np.arange(key.shape[-1]), key.shape)
    starts = np.ones(key.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    ranks = np.empty(key.shape, dtype=int)
    np.put_along_axis(ranks, order, first + 1, axis=-1)
    return ranks


def fit_bradley_terry_covariates(
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    n: np.ndarray,
    x: np.ndarray,
    n_models: int,
    *,
    prior_games: float = 0.0,
    theta0: np.ndarray | None = None,
    max_iter: int = 100,
    tol: float = 1e-10,
    solver: Solver = "auto",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Bradley–Terry with covariates of the two answers, on rows, by damped Newton (IRLS).

    P(slot A wins) = σ(θ_a − θ_b + xᵀβ) for each row of ``a``, ``b`` (model indices), ``y``
    (slot A's score: 1, ½ for a tie, 0), ``n`` (calls in the row) and ``x`` ((R, F) covariates).
    ``prior_games`` virtual ties of every model against a strength-0 player keep θ finite when
    a model never loses (as :func:`fit_bradley_terry`); β has no prior. Everything is vectorised
    over rows (bincounts for the model block, one (F × F) product for the covariates), so 1.8 M
    rows take a fraction of a second per step.

    ``theta0`` starts θ there (the plain fit's strengths save a few steps); β starts at 0.
    Returns θ (mean zero), β, the information matrix ((M + F) × (M + F), θ first) at the
    optimum, and whether Newton converged. With F = 0 this is the plain fit of
    :func:`fit_bradley_terry` on the same calls (ties half a win): the same likelihood.

    ``solver`` as in :func:`fit_bradley_terry`: from
    :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models each Newton step is solved over
    the compared pairs (:func:`evalcore.ranking.sparse_fit.solve_covariate_step`) instead of as
    one dense (M + F) × (M + F) system; the loss, the step halving and the stopping rule are the
    same, and so is the optimum. The information returned is dense either way.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    y = np.asarray(y, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    x = np.asfortranarray(np.asarray(x, dtype=np.float64).reshape(a.size, -1))
    m, f = int(n_models), x.shape[1]
    ones = np.zeros(m + f)
    ones[:m] = 1.0
    # The free location of θ (sum-to-zero direction) is fixed by a rank-one term, which leaves the
    # fixed point unchanged; a tiny ridge keeps β defined if a covariate is all zero. With the
    # prior there is no free location, and the rank-one term would only bend the Newton step: the
    # fit then converged linearly and stopped unconverged after 100 steps on tables with
    # undefeated models (2,000-model arena, style control by slot).
    use_pairs = solver == "sparse" or (solver == "auto" and m >= sparse_fit.SPARSE_FROM_MODELS)
    centre = 0.0 if use_pairs else np.outer(ones, ones) * (not prior_games) + 1e-9 * np.eye(m + f)

    pair = a * m + b
    if use_pairs:
        pairs, pair_of_row = sparse_fit.rows_to_pairs(a, b, m)

        def newton_step(p: np.ndarray, eta: np.ndarray, grad: np.ndarray) -> np.ndarray:
            sig = _sigmoid(eta)
            w = n * sig * (1.0 - sig)
            w_pair = np.bincount(pair_of_row, w, minlength=pairs.n_pairs)
            wx = w[:, None] * x
            cross = np.empty((m, f))
            for k in range(f):
                cross[:, k] = np.bincount(a, wx[:, k], minlength=m) - np.bincount(b, wx[:, k], minlength=m)
            prior_diag: np.ndarray | float = 0.0
            if prior_games:
                q = _sigmoid(p[:m])
                prior_diag = prior_games * q * (1.0 - q)
            s_theta, s_beta = sparse_fit.solve_covariate_step(
                pairs,
                w_pair,
                prior_diag,
                cross,
                x.T @ wx,
                grad[:m],
                grad[m:],
                rank_one=not prior_games,
                rtol=float(min(1e-3, max(1e-2 * np.abs(grad).max(), 1e-13))),
            )
            return np.concatenate([s_theta, s_beta])

    def evaluate(p: np.ndarray) -> tuple[float, np.ndarray]:
        eta = p[a] - p[b] + (x @ p[m:] if f else 0.0)
        out = float(n @ (np.logaddexp(0.0, eta) - y * eta))
        if prior_games:
            out += prior_games * float(np.sum(np.logaddexp(0.0, p[:m]) - 0.5 * p[:m]))
        return out, eta

    def derivatives(p: np.ndarray, eta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        sig = _sigmoid(eta)
        r = n * (sig - y)
        w = n * sig * (1.0 - sig)
        return _gradient(a, b, x, r, m, p if prior_games else None, prior_games), information(
            a, b, x, w, m, p[:m] if prior_games else None, prior_games, pair=pair
        )

    p = np.zeros(m + f)
    if theta0 is not None:
        p[:m] = theta0
    current, eta = evaluate(p)
    converged = False
    for _ in range(max_iter):
        if use_pairs:
            sig = _sigmoid(eta)
            grad = _gradient(a, b, x, n * (sig - y), m, p if prior_games else None, prior_games)
            step = newton_step(p, eta, grad)
        else:
            grad, info = derivatives(p, eta)
            step = np.linalg.solve(info + centre, grad)
        scale = 1.0
        while True:  # halve the step until the loss does not rise (sparse data can overshoot)
            trial = p - scale * step
            value, trial_eta = evaluate(trial)
            if value <= current + 1e-12 * abs(current) or scale < 1e-6:
                break
            scale *= 0.5
        p, current, eta = trial, value, trial_eta
        if np.abs(scale * step).max() < tol or np.abs(grad).max() < tol:
            converged = True
            break
    _, info = derivatives(p, eta)
    theta = p[:m]
    return theta - theta.mean(), p[m:].copy(), info, converged


def _gradient(a, b, x, r, m, p, prior_games) -> np.ndarray:
    grad = np.empty(m + x.shape[1])
    grad[:m] = np.bincount(a, r, minlength=m) - np.bincount(b, r, minlength=m)
    grad[m:] = r @ x
    if prior_games:
        grad[:m] += prior_games * (_sigmoid(p[:m]) - 0.5)
    return grad


def information(
    a: np.ndarray,
    b: np.ndarray,
    x: np.ndarray,
    w: np.ndarray,
    n_models: int,
    theta: np.ndarray | None = None,
    prior_games: float = 0.0,
    *,
    pair: np.ndarray | None = None,
) -> np.ndarray:
    """Fisher information of the covariate Bradley–Terry model for row weights ``w`` = n·p(1 − p):
    the model block is a weighted graph Laplacian, the cross block the covariates' weighted sums
    per model (+ slot A, − slot B), the covariate block XᵀWX."""
    m, f = n_models, x.shape[1]
    cross = np.bincount(a * m + b if pair is None else pair, w, minlength=m * m).reshape(m, m)
    info = np.zeros((m + f, m + f))
    info[:m, :m] = -(cross + cross.T)
    info[np.arange(m), np.arange(m)] = cross.sum(axis=1) + cross.sum(axis=0)
    wx = w[:, None] * x
    for k in range(f):
        info[:m, m + k] = np.bincount(a, wx[:, k], minlength=m) - np.bincount(b, wx[:, k], minlength=m)
    info[m:, :m] = info[:m, m:].T
    info[m:, m:] = x.T @ wx
    if prior_games and theta is not None:
        q = _sigmoid(theta)
        info[np.arange(m), np.arange(m)] += prior_games * q * (1.0 - q)
    return info
