"""Davidson's tie model: the fit equals a direct maximisation of the written-out likelihood on
three models, and recovers a known tie parameter with about 95% interval coverage (the
comparison of tie conventions: ``test_conventions.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize

from evalcore.ranking.bradley_terry import ELO_SCALE
from evalcore.ties.davidson import fit_davidson


def _written_out(params, wins, ties):
    """−log-likelihood of Davidson (1970), pair by pair, strengths θ = (a, b, −a−b), ν = e^c."""
    a, b, c = params
    pi = np.exp([a, b, -a - b])
    nu = np.exp(c)
    total = 0.0
    for i in range(3):
        for j in range(3):
            if i == j:
                continue
            d = pi[i] + pi[j] + nu * np.sqrt(pi[i] * pi[j])
            total += wins[i][j] * np.log(pi[i] / d)
            if i < j:
                total += ties[i][j] * np.log(nu * np.sqrt(pi[i] * pi[j]) / d)
    return -total


def test_three_models_match_the_written_out_likelihood():
    wins = np.array([[0, 20, 25], [9, 0, 14], [6, 10, 0]], float)
    t = np.array([[0, 8, 5], [8, 0, 11], [5, 11, 0]], float)
    fit = fit_davidson(wins, t)
    ref = optimize.minimize(
        _written_out,
        np.zeros(3),
        args=(wins, t),
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000},
    )
    a, b, c = ref.x
    np.testing.assert_allclose(fit.ratings - 1000, ELO_SCALE * np.array([a, b, -a - b]), atol=1e-3)
    assert fit.nu == pytest.approx(np.exp(c), rel=1e-5)
    assert fit.log_likelihood == pytest.approx(-ref.fun, abs=1e-8)


def _simulate(rng, theta, nu, per_pair):
    m = theta.size
    wins, ties = np.zeros((m, m)), np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            pi, pj = np.exp(theta[i]), np.exp(theta[j])
            tie = nu * np.sqrt(pi * pj)
            d = pi + pj + tie
            n_i, n_j, n_t = rng.multinomial(per_pair, [pi / d, pj / d, tie / d])
            wins[i, j], wins[j, i], ties[i, j], ties[j, i] = n_i, n_j, n_t, n_t
    return wins, ties


def test_a_known_tie_parameter_is_recovered_with_coverage():
    rng = np.random.default_rng(11)
    theta = np.array([0.8, 0.3, 0.0, -0.4, -0.7])
    nu, covered, estimates = 0.9, 0, []
    for _ in range(100):
        fit = fit_davidson(*_simulate(rng, theta, nu, 40))
        covered += fit.nu_low <= nu <= fit.nu_high
        estimates.append(fit.nu)
    assert abs(np.mean(estimates) - nu) < 0.03
    assert covered >= 88  # nominal 95 of 100 draws; fewer than 88 has a 0.3% chance


def test_the_gradient_with_the_weak_prior_is_exact():
    from evalcore.ties.davidson import _negloglik

    wins = np.array([[0, 20, 25, 3], [9, 0, 14, 2], [6, 10, 0, 1], [0, 0, 0, 0]], float)
    t = np.array([[0, 8, 5, 0], [8, 0, 11, 0], [5, 11, 0, 0], [0, 0, 0, 0]], float)
    x = np.array([0.3, -0.1, 0.2, -0.4])
    for prior in (0.0, 1.0):
        err = optimize.check_grad(
            lambda p, prior=prior: _negloglik(p, wins, t, prior)[0],
            lambda p, prior=prior: _negloglik(p, wins, t, prior)[1],
            x,
        )
        assert err < 1e-5


def test_a_model_that_never_lost_keeps_a_finite_rating_under_the_weak_prior():
    from evalcore.ties.conventions import conventions_from_matrices

    # d never scores against anyone (it only loses): the plain fits diverge
    wins = np.array([[0, 20, 25, 3], [9, 0, 14, 2], [6, 10, 0, 1], [0, 0, 0, 0]], float)
    t = np.array([[0, 8, 5, 0], [8, 0, 11, 0], [5, 11, 0, 0], [0, 0, 0, 0]], float)
    tc = conventions_from_matrices(wins, t, models=("a", "b", "c", "d"))
    assert tc.notes and "virtual tie" in tc.notes[0]
    for ratings in (tc.half_win, tc.dropped, tc.modelled):
        assert np.all(np.isfinite(ratings)) and np.argmin(ratings) == 3
    assert tc.tie_parameter_low < tc.tie_parameter < tc.tie_parameter_high


@pytest.mark.parametrize("prior", [0.0, 1.0])
def test_the_information_is_the_hessian_of_the_written_out_likelihood(prior):
    """Newton's steps use −∂²ℓ in closed form: it equals central differences of the gradient."""
    from evalcore.ties.davidson import _information, _negloglik

    rng = np.random.default_rng(3)
    wins, ties = _simulate(rng, np.array([0.5, 0.1, -0.2, -0.4]), 0.7, 12)
    x = np.array([0.3, -0.1, 0.2, np.log(0.5)])
    h = 1e-6
    numeric = np.column_stack(
        [
            (_negloglik(x + h * e, wins, ties, prior)[1] - _negloglik(x - h * e, wins, ties, prior)[1])
            / (2 * h)
            for e in np.eye(len(x))
        ]
    )
    np.testing.assert_allclose(_information(x, wins, ties, prior), numeric, rtol=1e-6, atol=1e-6)


def test_the_fit_is_the_maximum_to_rounding_and_resamples_fit_in_a_few_steps():
    """The fit stops where the gradient of ℓ vanishes to rounding (1e-8 for hundreds of
    verdicts), not at an optimiser's tolerance, so the bootstrap's many refits and the point fit
    agree with the maximum to far below the printed digits."""
    from evalcore.ties.davidson import _negloglik

    rng = np.random.default_rng(8)
    theta = np.array([0.9, 0.5, 0.2, 0.0, -0.3, -0.6, -0.7])
    for _ in range(5):
        wins, ties = _simulate(rng, theta, 0.4, 25)
        fit = fit_davidson(wins, ties, interval=False)
        assert fit.converged
        assert np.max(np.abs(_negloglik(fit.params, wins, ties)[1])) < 1e-8


def _information_by_jacobian(params, wins, ties, prior):
    """The information as it was written before: the full (θ_1 … θ_M, log ν) matrix taken to the
    free parameters by the Jacobian's product (the reference for the row-and-column differences)."""
    from evalcore.ties.davidson import _log_sigmoid

    m = wins.shape[0]
    theta = np.append(params[: m - 1], -params[: m - 1].sum())
    ti, tj = theta[:, None], theta[None, :]
    mid = 0.5 * (ti + tj) + params[-1]
    log_d = np.logaddexp(np.logaddexp(ti, tj), mid)
    p_win, p_tie = np.exp(ti - log_d), np.exp(mid - log_d)
    t_up = np.triu(ties, 1)
    n = wins + wins.T + t_up + t_up.T
    np.fill_diagonal(n, 0.0)
    score = p_win + 0.5 * p_tie
    full = np.empty((m + 1, m + 1))
    full[:m, :m] = n * (0.25 * p_tie - score * score.T)
    diagonal = np.sum(n * (p_win + 0.25 * p_tie - score**2), axis=1)
    if prior:
        diagonal = diagonal + prior * np.exp(_log_sigmoid(theta) + _log_sigmoid(-theta))
    full[np.arange(m), np.arange(m)] = diagonal
    full[:m, m] = full[m, :m] = np.sum(n * (0.5 * p_tie - score * p_tie), axis=1)
    full[m, m] = 0.5 * np.sum(n * (p_tie - p_tie**2))
    jac = np.zeros((m + 1, m))
    jac[: m - 1, : m - 1] = np.eye(m - 1)
    jac[m - 1, : m - 1] = -1.0
    jac[m, m - 1] = 1.0
    return jac.T @ full @ jac


def test_newtons_information_from_the_shared_chances_equals_the_jacobian_product():
    """Newton's steps take the information from the chances the likelihood's evaluation already
    made (:func:`_hessian`), by differences of rows and columns instead of a product with the
    Jacobian: the same matrix to 1e-12 on tables of 2 to 12 models, with and without the prior."""
    from evalcore.ties.davidson import _evaluate, _hessian, _table

    rng = np.random.default_rng(26)
    for m in range(2, 13):
        wins, ties = _simulate(rng, rng.normal(size=m), 0.6, int(rng.integers(2, 20)))
        x = np.append(0.5 * rng.normal(size=m - 1), np.log(0.7))
        for prior in (0.0, 1.0):
            tab = _table(wins, ties)
            got = _hessian(_evaluate(x, tab, prior)[2], tab, prior)
            np.testing.assert_allclose(
                got, _information_by_jacobian(x, wins, ties, prior), rtol=1e-12, atol=1e-12
            )
