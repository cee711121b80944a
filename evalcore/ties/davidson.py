"""Ties as data: Davidson's extension of Bradley–Terry, with its tie parameter ν.

Davidson (1970) gives each pair three outcomes: with strengths π = e^θ,
P(i beats j) = π_i / D, P(tie) = ν·√(π_i π_j) / D, D = π_i + π_j + ν·√(π_i π_j). The tie parameter ν
says how readily a judge calls a tie between equals (P(tie | equal) = ν / (2 + ν)); the strengths
are then fitted from wins and ties together instead of counting a tie as half a win. The fit here
maximises the written-out log-likelihood over (θ, log ν) with θ centred, by Newton's method with
the exact information (L-BFGS with the exact gradient where Newton's steps do not converge: an
infinite strength), and reports ν with a 95% profile-likelihood interval: the values of ν whose profile
log-likelihood (the strengths refitted at each fixed ν) lies within χ²₁(0.95)/2 = 1.92 of the
maximum (Wilks 1938). The profile interval keeps ν positive and follows the likelihood's own
asymmetry, which a Wald interval (symmetric on the log scale) ignores. It treats the
verdicts as independent given the strengths (as the Bradley–Terry model does).

A model that never lost, or never won or tied, has an infinite maximum-likelihood strength;
``prior_games`` then adds that many virtual tie games of every model against an average model
(the same weak prior as the leaderboard's Bradley–Terry fit), which keeps every strength finite.

The comparison of the three tie conventions (a tie as half a win, ties dropped, ties modelled)
is :func:`evalcore.ties.conventions.tie_conventions`.

Reference: Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in
paired comparison experiments. *Journal of the American Statistical Association* 65(329), 317–328.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import optimize

from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE
from evalcore.stats.roots import brentq

Z95 = 1.959963984540054
#: Half the 95% point of χ² with one degree of freedom: the profile interval's drop in ℓ.
PROFILE_DROP = 0.5 * 3.841458820694124


@dataclass(frozen=True)
class DavidsonFit:
    """Davidson strengths (Elo scale, mean 1000) and the tie parameter ν with its 95% interval."""

    models: tuple[str, ...]
    ratings: np.ndarray
    nu: float
    nu_low: float
    nu_high: float
    log_likelihood: float
    converged: bool
    #: The fitted parameters (θ_1 … θ_{M−1}, log ν): a resample's starting point.
    params: np.ndarray | None = None

    def as_dict(self) -> dict:
        return {
            "models": [
                {"model": m, "rating": float(r)} for m, r in zip(self.models, self.ratings, strict=True)
            ],
            "tie_parameter": self.nu,
            "tie_parameter_low": self.nu_low,
            "tie_parameter_high": self.nu_high,
        }


class _Table(NamedTuple):
    """What the likelihood needs of the counts, made once per fit (not at every evaluation)."""

    wins: np.ndarray  # wins[i, j]: i beat j
    t_up: np.ndarray  # ties between i and j, upper triangle (each tie once)
    n_up: np.ndarray  # battles of each pair, upper triangle
    n: np.ndarray  # battles of each pair on both sides (symmetric), zero diagonal
    win_rows: np.ndarray  # each model's wins
    tie_sides: np.ndarray  # each model's ties


def _table(wins: np.ndarray, ties: np.ndarray) -> _Table:
    # wins[i, j]: i beat j; ties[i, j] = ties[j, i]: ties between i and j (each pair counted in the
    # upper triangle only, so a tie enters the likelihood once)
    t_up = np.triu(ties, 1)
    n = wins + wins.T + t_up + t_up.T  # battles of each ordered pair, counted on both sides
    n_up = np.triu(n, 1)
    both = n.copy()
    np.fill_diagonal(both, 0.0)
    return _Table(wins, t_up, n_up, both, wins.sum(axis=1), np.sum(t_up, axis=1) + np.sum(t_up, axis=0))


def _probabilities(params: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """θ (centred, all M), the tie's log-odds term, log D and the pair's outcome chances at ``params``."""
    theta = np.append(params[: m - 1], -params[: m - 1].sum())
    ti, tj = theta[:, None], theta[None, :]
    mid = 0.5 * (ti + tj) + params[-1]
    log_d = np.logaddexp(np.logaddexp(ti, tj), mid)
    return theta, mid, log_d, np.exp(ti - log_d)


def _evaluate(
    params: np.ndarray, tab: _Table, prior_games: float
) -> tuple[float, np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """−ℓ, its gradient, and what :func:`_hessian` needs at ``params`` (θ, P(win), P(tie))."""
    m = tab.wins.shape[0]
    theta, mid, log_d, p_i = _probabilities(params, m)
    ti = theta[:, None]
    ll = np.sum(tab.wins * (ti - log_d)) + np.sum(tab.t_up * (mid - log_d))
    p_t = np.exp(mid - log_d)
    # ∂ℓ/∂θ_i over the upper-triangle view of each pair: wins_i − E[wins_i] + ½(ties − E[ties])
    n_up = tab.n_up
    tie_up = n_up * p_t
    d_theta = (
        tab.win_rows
        - np.sum(n_up * p_i, axis=1)
        - np.sum(n_up * p_i.T, axis=0)
        + 0.5 * tab.tie_sides
        - 0.5 * (np.sum(tie_up, axis=1) + np.sum(tie_up, axis=0))
    )
    if prior_games:
        ll += prior_games * float(np.sum(0.5 * _log_sigmoid(theta) + 0.5 * _log_sigmoid(-theta)))
        d_theta = d_theta + prior_games * (0.5 - 1.0 / (1.0 + np.exp(-theta)))
    d_lognu = float(np.sum(tab.t_up) - np.sum(tie_up))
    grad_free = d_theta[: m - 1] - d_theta[m - 1]
    return -float(ll), -np.append(grad_free, d_lognu), (theta, p_i, p_t)


def _negloglik(
    params: np.ndarray, wins: np.ndarray, ties: np.ndarray, prior_games: float = 0.0
) -> tuple[float, np.ndarray]:
    """−ℓ and its gradient; params = (θ_1 … θ_{M−1}, log ν) with θ_M = −Σ the others (centred).
    ``prior_games`` virtual tie games of each model against strength 0 are added to ℓ."""
    f, g, _ = _evaluate(params, _table(wins, ties), prior_games)
    return f, g


def _log_sigmoid(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)


def _hessian(
    chances: tuple[np.ndarray, np.ndarray, np.ndarray], tab: _Table, prior_games: float
) -> np.ndarray:
    """−∂²ℓ in the free parameters (θ_1 … θ_{M−1}, log ν) from the chances :func:`_evaluate` gave.

    Each pair's three outcomes form a multinomial logit whose log-odds are linear in (θ, log ν)
    (a win of i: θ_i; a tie: (θ_i + θ_j)/2 + log ν), so the observed information equals the
    expected one: over the pairs, battles × the covariance of the outcome's predictor vector.
    The full (θ_1 … θ_M, log ν) matrix is taken to the free parameters (θ_M = −Σ the others)
    by differences of its rows and columns."""
    theta, p_win, p_tie = chances
    m = theta.size
    n = tab.n
    score = p_win + 0.5 * p_tie  # E[θ_i's predictor] in the pair (i, j)
    full = np.empty((m + 1, m + 1))
    full[:m, :m] = n * (0.25 * p_tie - score * score.T)
    diagonal = np.sum(n * (p_win + 0.25 * p_tie - score**2), axis=1)
    if prior_games:
        diagonal = diagonal + prior_games * np.exp(_log_sigmoid(theta) + _log_sigmoid(-theta))
    full[np.arange(m), np.arange(m)] = diagonal
    full[:m, m] = full[m, :m] = np.sum(n * (0.5 * p_tie - score * p_tie), axis=1)
    full[m, m] = 0.5 * np.sum(n * (p_tie - p_tie**2))  # each pair twice in n
    last = m - 1  # θ_M, the one that is not free
    rows = full  # made here: changed in place
    rows[:last] -= full[last]  # the rows of the free θ's less θ_M's row
    rows[last] = rows[m]  # log ν's row in place of θ_M's
    out = rows[:m, :m].copy()
    out[:, :last] -= rows[:m, last : last + 1]  # the same for the columns
    out[:, last] = rows[:m, m]
    return out


def _information(params: np.ndarray, wins: np.ndarray, ties: np.ndarray, prior_games: float) -> np.ndarray:
    """−∂²ℓ at ``params`` (θ_1 … θ_{M−1}, log ν), the Hessian of :func:`_negloglik`
    (:func:`_hessian`)."""
    tab = _table(np.asarray(wins, dtype=np.float64), np.asarray(ties, dtype=np.float64))
    return _hessian(_evaluate(params, tab, prior_games)[2], tab, prior_games)


def _newton(
    start: np.ndarray, w: np.ndarray, t: np.ndarray, prior: float, *, nu_fixed: bool = False
) -> tuple[np.ndarray, float] | None:
    """Newton's method on −ℓ with the exact information and step halving; (params, −ℓ) at the
    maximum, or None when it does not converge (an infinite strength: the caller falls back to
    L-BFGS). ``nu_fixed``: log ν (the last parameter) held, as the profile likelihood needs.
    A few steps from a nearby start (a resample from the full data's fit), where L-BFGS takes
    dozens of gradient evaluations."""
    tab = _table(w, t)
    x = np.array(start, dtype=np.float64)
    k = len(x) - 1 if nu_fixed else len(x)
    f, g, chances = _evaluate(x, tab, prior)
    for _ in range(100):
        try:
            step = np.linalg.solve(_hessian(chances, tab, prior)[:k, :k], g[:k])
        except np.linalg.LinAlgError:
            return None
        scale = 1.0
        while True:
            trial = x.copy()
            trial[:k] -= scale * step
            f_new, g_new, chances_new = _evaluate(trial, tab, prior)
            if np.isfinite(f_new) and f_new <= f + 1e-12 * max(1.0, abs(f)):
                break
            scale *= 0.5
            if scale < 1e-6:
                return None
        x, f, g, chances = trial, f_new, g_new, chances_new
        if float(np.max(np.abs(scale * step))) < 1e-10:
            return x, f
    return None


def _profile(log_nu: float, start: np.ndarray, w: np.ndarray, t: np.ndarray, prior: float) -> float:
    """The profile log-likelihood at a fixed log ν: the strengths refitted, ν held."""

    fitted = _newton(np.append(start, log_nu), w, t, prior, nu_fixed=True)
    if fitted is not None:
        return -fitted[1]

    def f(free: np.ndarray) -> tuple[float, np.ndarray]:
        value, grad = _negloglik(np.append(free, log_nu), w, t, prior)
        return value, grad[:-1]

    res = optimize.minimize(f, start, jac=True, method="L-BFGS-B", options={"gtol": 1e-9, "maxiter": 2000})
    return -float(res.fun)


def _profile_end(
    best: np.ndarray, top: float, step: float, direction: float, w: np.ndarray, t: np.ndarray, prior: float
) -> float:
    """The log ν on one side of the maximum where the profile has dropped by :data:`PROFILE_DROP`
    (±inf when it never does within 40 units of log ν: the data bound ν on one side only)."""
    c0, start = float(best[-1]), best[:-1]

    def gap(c: float) -> float:
        return _profile(c, start, w, t, prior) - (top - PROFILE_DROP)

    inner, outer = c0, c0 + direction * step
    while gap(outer) > 0:
        inner, outer = outer, outer + direction * step
        step *= 2.0
        if abs(outer - c0) > 40.0:
            return direction * np.inf
    return float(brentq(gap, min(inner, outer), max(inner, outer), xtol=1e-6))


def fit_davidson(
    wins: np.ndarray,
    ties: np.ndarray,
    *,
    models: tuple[str, ...] | None = None,
    prior_games: float = 0.0,
    interval: bool = True,
    start: np.ndarray | None = None,
) -> DavidsonFit:
    """Maximum-likelihood Davidson fit of pooled counts.

    Parameters
    ----------
    wins
        (M, M): ``wins[i, j]`` decisive verdicts of i over j.
    ties
        (M, M), symmetric: ties between i and j (``ties[i, j] == ties[j, i]``, each tie once).
    models
        Names (default ``m0 … m{M-1}``).
    prior_games
        Virtual tie games of each model against an average model (0: the plain maximum
        likelihood; the leaderboard uses 1 where a strength would be infinite).
    interval
        Whether to compute the profile-likelihood interval (False: NaN bounds, the point fit
        only, as a bootstrap round needs).
    start
        Starting parameters (θ_1 … θ_{M−1}, log ν), e.g. the full data's fit for a resample.

    Returns
    -------
    DavidsonFit
        Ratings on the Elo scale and ν with its 95% profile-likelihood interval.

    Raises
    ------
    ValueError
        Without a single tie, or without a single decisive verdict: ν is then not identified
        (its estimate would be 0 or infinite, on the edge of the parameter space, and no interval
        around it means anything).

    References
    ----------
    Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in paired
    comparison experiments. *Journal of the American Statistical Association* 65(329), 317–328.
    Wilks, S. S. (1938). The large-sample distribution of the likelihood ratio for testing
    composite hypotheses. *Annals of Mathematical Statistics* 9(1), 60–62.
    """
    w = np.asarray(wins, dtype=np.float64)
    t = np.asarray(ties, dtype=np.float64)
    m = w.shape[0]
    if w.shape != (m, m) or t.shape != (m, m) or m < 2:
        raise ValueError("wins and ties must be square matrices over the same two or more models")
    if not np.allclose(t, t.T):
        raise ValueError("ties must be symmetric: ties[i, j] is the ties between i and j")
    if np.triu(t, 1).sum() == 0:
        raise ValueError("no ties: the tie parameter is not identified (it would be 0)")
    if w.sum() == 0:
        raise ValueError("nothing but ties: the tie parameter is not identified (it would be infinite)")
    x0 = np.zeros(m) if start is None else np.asarray(start, dtype=np.float64)
    fitted = _newton(x0, w, t, prior_games)
    if fitted is not None:
        res = optimize.OptimizeResult(x=fitted[0], fun=fitted[1], success=True)
    else:  # an infinite strength (no prior): L-BFGS goes as far as its tolerance allows
        res = optimize.minimize(
            _negloglik,
            x0,
            args=(w, t, prior_games),
            jac=True,
            method="L-BFGS-B",
            options={"gtol": 1e-10, "ftol": 1e-15, "maxiter": 5000},
        )
    # the profile search starts one rough standard error away (log ν is about as precise as the
    # log of a count of ties among the verdicts) and doubles its step until the likelihood drops
    n_ties, n_all = float(np.triu(t, 1).sum()), float(w.sum() + np.triu(t, 1).sum())
    step = Z95 * float(np.sqrt(1.0 / n_ties + 1.0 / n_all))
    top = -float(res.fun)
    low = _profile_end(res.x, top, step, -1.0, w, t, prior_games) if interval else np.nan
    high = _profile_end(res.x, top, step, 1.0, w, t, prior_games) if interval else np.nan
    log_nu = float(res.x[-1])
    theta = np.append(res.x[: m - 1], -res.x[: m - 1].sum())
    return DavidsonFit(
        models=models or tuple(f"m{k}" for k in range(m)),
        ratings=ELO_CENTRE + ELO_SCALE * theta,
        nu=float(np.exp(log_nu)),
        nu_low=float(np.exp(low)),
        nu_high=float(np.exp(high)),
        log_likelihood=top,
        converged=bool(res.success),
        params=res.x,
    )
