"""Ties as data: Davidson's extension of Bradley–Terry, with its tie parameter ν.

Davidson (1970) gives each pair three outcomes: with strengths π = e^θ,
P(i beats j) = π_i / D, P(tie) = ν·√(π_i π_j) / D, D = π_i + π_j + ν·√(π_i π_j). The tie parameter ν
says how readily a judge calls a tie between equals (P(tie | equal) = ν / (2 + ν)); the strengths
are then fitted from wins and ties together instead of counting a tie as half a win. The fit here
maximises the written-out log-likelihood over (θ, log ν) with θ centred, by L-BFGS with the exact
gradient, and reports ν with a 95% Wald interval on the log scale from the observed information
(a finite-difference Jacobian of the exact gradient).

Reference: Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in
paired comparison experiments. *Journal of the American Statistical Association* 65(329), 317–328.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE

Z95 = 1.959963984540054


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

    def as_dict(self) -> dict:
        return {
            "models": [
                {"model": m, "rating": float(r)} for m, r in zip(self.models, self.ratings, strict=True)
            ],
            "tie_parameter": self.nu,
            "tie_parameter_low": self.nu_low,
            "tie_parameter_high": self.nu_high,
        }


def _negloglik(params: np.ndarray, wins: np.ndarray, ties: np.ndarray) -> tuple[float, np.ndarray]:
    """−ℓ and its gradient; params = (θ_1 … θ_{M−1}, log ν) with θ_M = −Σ the others (centred)."""
    m = wins.shape[0]
    theta = np.append(params[: m - 1], -params[: m - 1].sum())
    log_nu = params[-1]
    ti, tj = theta[:, None], theta[None, :]
    mid = 0.5 * (ti + tj) + log_nu
    log_d = np.logaddexp(np.logaddexp(ti, tj), mid)
    # wins[i, j]: i beat j; ties[i, j] = ties[j, i]: ties between i and j (each pair counted in the
    # upper triangle only, so a tie enters the likelihood once)
    t_up = np.triu(ties, 1)
    n = wins + wins.T + t_up + t_up.T  # battles of each ordered pair, counted on both sides
    ll = np.sum(wins * (ti - log_d)) + np.sum(t_up * (mid - log_d))
    p_i = np.exp(ti - log_d)
    p_t = np.exp(mid - log_d)
    # ∂ℓ/∂θ_i over the upper-triangle view of each pair: wins_i − E[wins_i] + ½(ties − E[ties])
    n_up = np.triu(n, 1)
    d_theta = (
        wins.sum(axis=1)
        - np.sum(np.triu(n_up * p_i, 1), axis=1)
        - np.sum(np.triu(n_up * p_i.T, 1), axis=0)
        + 0.5 * (np.sum(t_up, axis=1) + np.sum(t_up, axis=0))
        - 0.5 * (np.sum(n_up * p_t, axis=1) + np.sum(n_up * p_t, axis=0))
    )
    d_lognu = float(np.sum(t_up) - np.sum(n_up * p_t))
    grad_free = d_theta[: m - 1] - d_theta[m - 1]
    return -float(ll), -np.append(grad_free, d_lognu)


def fit_davidson(wins: np.ndarray, ties: np.ndarray, *, models: tuple[str, ...] | None = None) -> DavidsonFit:
    """Maximum-likelihood Davidson fit of pooled counts.

    Parameters
    ----------
    wins
        (M, M): ``wins[i, j]`` decisive verdicts of i over j.
    ties
        (M, M), symmetric: ties between i and j (``ties[i, j] == ties[j, i]``, each tie once).
    models
        Names (default ``m0 … m{M-1}``).

    Returns
    -------
    DavidsonFit
        Ratings on the Elo scale and ν with its 95% interval (Davidson 1970).
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
    x0 = np.zeros(m)
    res = optimize.minimize(
        _negloglik, x0, args=(w, t), jac=True, method="L-BFGS-B", options={"gtol": 1e-10, "maxiter": 2000}
    )
    # observed information: the Jacobian of the exact gradient by central differences
    h = 1e-5
    info = np.empty((m, m))
    for k in range(m):
        e = np.zeros(m)
        e[k] = h
        info[:, k] = (_negloglik(res.x + e, w, t)[1] - _negloglik(res.x - e, w, t)[1]) / (2 * h)
    cov = np.linalg.pinv(0.5 * (info + info.T))
    se = float(np.sqrt(max(cov[-1, -1], 0.0)))
    log_nu = float(res.x[-1])
    theta = np.append(res.x[: m - 1], -res.x[: m - 1].sum())
    return DavidsonFit(
        models=models or tuple(f"m{k}" for k in range(m)),
        ratings=ELO_CENTRE + ELO_SCALE * theta,
        nu=float(np.exp(log_nu)),
        nu_low=float(np.exp(log_nu - Z95 * se)),
        nu_high=float(np.exp(log_nu + Z95 * se)),
        log_likelihood=-float(res.fun),
        converged=bool(res.success),
    )


@dataclass(frozen=True)
class TieConventions:
    """Ratings (Elo scale) and ranks of the same verdicts under three tie conventions, and the
    largest rank change between any two."""

    models: tuple[str, ...]
    half_win: np.ndarray
    dropped: np.ndarray
    modelled: np.ndarray
    largest_rank_change: int

    def frame(self):
        import pandas as pd

        return pd.DataFrame(
            {
                "model": self.models,
                "half_win": self.half_win,
                "dropped": self.dropped,
                "modelled": self.modelled,
            }
        )


def tie_conventions(
    wins: np.ndarray, ties: np.ndarray, *, models: tuple[str, ...] | None = None
) -> TieConventions:
    """The ranking under "a tie is half a win" (the leaderboard), "ties dropped" and "ties
    modelled" (Davidson 1970): how much the choice of convention moves each model.

    ``wins``/``ties`` as in :func:`fit_davidson`. The first two are the leaderboard's
    Bradley–Terry fit (:func:`evalcore.ranking.bradley_terry.fit_bradley_terry`, with its weak
    prior when a model never lost or never won).
    """
    from evalcore.ranking.bradley_terry import fit_bradley_terry, mle_exists, ranks_descending, to_elo

    w = np.asarray(wins, dtype=np.float64)
    t = np.asarray(ties, dtype=np.float64)
    half = w + 0.5 * t
    out = []
    for matrix in (half, w):
        prior = 0.0 if bool(np.all(mle_exists(matrix))) else 1.0
        theta, _ = fit_bradley_terry(matrix, prior_games=prior)
        out.append(to_elo(theta))
    modelled = fit_davidson(w, t, models=models).ratings
    ranks = [ranks_descending(r) for r in (*out, modelled)]
    change = max(int(np.max(np.abs(a - b))) for a in ranks for b in ranks)
    return TieConventions(
        models=models or tuple(f"m{k}" for k in range(w.shape[0])),
        half_win=out[0],
        dropped=out[1],
        modelled=modelled,
        largest_rank_change=change,
    )
