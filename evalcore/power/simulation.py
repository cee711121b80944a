"""Power of the Wilcoxon signed-rank and sign tests by simulation on empirical distributions.

Each simulation, as in the paper's Listing 1, picks one empirical distribution of verdict
differences at random, draws N differences from it with replacement and runs
``scipy.stats.wilcoxon(S, alternative="greater", zero_method="pratt")``; the power at N is the
share of simulations that reject at α (Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge
Anchor Selection", ACL 2026, App. C; Wilcoxon, "Individual comparisons by ranking methods",
Biometrics Bulletin 1945; Pratt, "Remarks on zeros and ties in the Wilcoxon signed rank
procedures", JASA 1959).

Vectorised: a draw of N values from a discrete distribution is a multinomial count over its
support, so a whole batch of simulations is one ``Generator.multinomial`` call, and the
signed-rank statistic with Pratt's zeros, average ranks for ties and scipy's tie-corrected
normal approximation is computed from those counts in numpy (no per-simulation scipy call).
The only Python loop is over the N values of the curve.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from evalcore.errors import UsageError, check_int
from evalcore.limits import check_simulations
from evalcore.power.differences import DifferenceDistributions
from evalcore.power.sign_test import (
    check_design,
    sign_test_power,
    sign_test_sample_size,
    total_samples,
)
from evalcore.progress import Progress


def signed_rank_z(support: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The Wilcoxon signed-rank z of samples given as counts over ``support`` (rows of
    ``counts``), with Pratt's treatment of zeros, average ranks for ties and the tie-corrected
    normal approximation without continuity correction: exactly what
    ``scipy.stats.wilcoxon(..., zero_method="pratt", method="asymptotic")`` computes (scipy's
    default for these sample sizes whenever there are zeros or ties). NaN when every d is 0."""
    support = np.asarray(support, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    levels, inverse = np.unique(np.abs(support), return_inverse=True)
    n_levels = len(levels)
    onehot = np.zeros((len(support), n_levels))
    onehot[np.arange(len(support)), inverse] = 1.0
    pos = c @ (onehot * (support > 0)[:, None])
    neg = c @ (onehot * (support < 0)[:, None])
    zero = c[..., support == 0].sum(axis=-1)
    n = c.sum(axis=-1)
    ties = pos + neg  # per |d| level, zeros excluded (they sit below every other level)
    before = zero[..., None] + np.cumsum(ties, axis=-1) - ties
    rank = before + (ties + 1.0) / 2.0
    r_plus = (rank * pos).sum(axis=-1)
    mean = (n * (n + 1.0) - zero * (zero + 1.0)) / 4.0
    var = (
        n * (n + 1.0) * (2.0 * n + 1.0)
        - zero * (zero + 1.0) * (2.0 * zero + 1.0)
        - (ties**3 - ties).sum(axis=-1) / 2.0
    ) / 24.0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, (r_plus - mean) / np.sqrt(np.maximum(var, 0.0)), np.nan)


def sign_z(support: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The sign test's z on the discordant samples, (W − m/2) / (√m / 2), without continuity
    correction: the normal approximation behind Table 2. NaN when nothing is discordant."""
    support = np.asarray(support, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    wins = c[..., support > 0].sum(axis=-1)
    m = wins + c[..., support < 0].sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(m > 0, (wins - m / 2.0) / (np.sqrt(m) / 2.0), np.nan)


def _reject(z: np.ndarray, alpha: float, two_sided: bool) -> np.ndarray:
    p = 2.0 * stats.norm.sf(np.abs(z)) if two_sided else stats.norm.sf(z)
    return np.nan_to_num(p, nan=1.0) < alpha


@dataclass(frozen=True)
class PowerCurve:
    """Simulated power of the Wilcoxon signed-rank and sign tests against total samples N.

    ``frame`` is tidy: n, test ("Wilcoxon signed-rank (simulated)", "sign test (simulated)",
    "sign test (normal approximation)"), power, mc_se (the Monte Carlo standard error,
    √(power(1 − power)/simulations); 0 for the formula). Both simulated tests see the same draws.
    """

    frame: pd.DataFrame
    alpha: float
    target_power: float
    two_sided: bool
    simulations: int
    seed: int
    edge: float | None  # the nominal edge (the window's lower end) when a window was used
    n_distributions: int
    mean_edge: float
    mean_informativeness: float
    wilcoxon_n: int | None  # smallest N of the grid reaching the target power
    sign_n: int | None
    planned_sign_total: int | None  # ⌈sign_test_sample_size(edge) / mean informativeness⌉
    distributions: pd.DataFrame = field(repr=False, default_factory=pd.DataFrame)

    WILCOXON = "Wilcoxon signed-rank (simulated)"
    SIGN = "sign test (simulated)"
    SIGN_APPROXIMATION = "sign test (normal approximation)"

    def __repr__(self) -> str:
        return (
            f"PowerCurve({self.n_distributions} distributions, simulations="
            f"{self.simulations}, wilcoxon_n={self.wilcoxon_n}, sign_n={self.sign_n})"
        )

    def as_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "target_power": self.target_power,
            "alternative": "two-sided" if self.two_sided else "greater",
            "zero_method": "pratt",
            "simulations": self.simulations,
            "seed": self.seed,
            "edge": self.edge,
            "n_distributions": self.n_distributions,
            "mean_edge": self.mean_edge,
            "mean_informativeness": self.mean_informativeness,
            "wilcoxon_n": self.wilcoxon_n,
            "sign_n": self.sign_n,
            "planned_sign_total": self.planned_sign_total,
            "curve": self.frame.to_dict(orient="records"),
        }


def wilcoxon_power(
    distributions: DifferenceDistributions,
    n_values: Sequence[int] | np.ndarray,
    *,
    alpha: float = 0.05,
    target_power: float = 0.8,
    two_sided: bool = False,
    simulations: int = 2000,
    seed: int = 0,
    edge: float | None = None,
    progress: Progress | None = None,
) -> PowerCurve:
    """Power of the Wilcoxon signed-rank test (Pratt zeros) by simulation, beside the sign test
    on the same draws and the sign test's formula.

    For each total sample size N, each of ``simulations`` rounds picks one of ``distributions``
    at random (Listing 1's ``np.random.choice(D)``), draws N verdict differences from it with
    replacement (a multinomial count over the support) and tests "A is better" at ``alpha``.
    ``edge`` labels the curve with the nominal edge (e.g. the lower end of the window passed to
    :meth:`DifferenceDistributions.with_edge`); the sign test's formula curve and
    ``planned_sign_total`` use it (else the mean edge) with the mean informativeness, i.e.
    discordant samples = N × I. Seeded: the same input gives the same curve.

    Parameters
    ----------
    distributions : DifferenceDistributions
        The empirical distributions to draw from.
    n_values : sequence of int
        Total sample sizes N of the curve.
    alpha, target_power : float
        Significance level and the power to reach.
    two_sided : bool
        Two-sided tests.
    simulations : int
        Simulations per N (1 to 1,000,000).
    seed : int
        Seed of the draws.
    edge : float, optional
        The nominal edge that labels the curve.
    progress : callable, optional
        ``progress(fraction, text)``.

    Returns
    -------
    PowerCurve

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    App. C, Listing 1. F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics
    Bulletin 1, 1945. J. W. Pratt, "Remarks on zeros and ties in the Wilcoxon signed rank
    procedures", JASA 54, 1959.

    Examples
    --------
    >>> d = DifferenceDistributions.from_samples([[1, 1, 1, -1]])  # edge +25%
    >>> curve = wilcoxon_power(d, [20, 200], simulations=500, seed=0)
    >>> curve.wilcoxon_n
    200
    """
    check_design(alpha, target_power, "normal")
    # per simulation: the drawn pair, its probabilities and counts over the (at most 16) verdict
    # differences, and the test statistics, float64: refused over the memory budget before any work
    simulations = check_simulations(simulations, bytes_per_simulation=16 * 8 * 4)
    seed = check_int("seed", seed, low=0)
    if len(distributions) == 0:
        raise UsageError(
            "no distribution of verdict differences to simulate from (the edge "
            "window holds no model pair; widen it or pick another edge)."
        )
    grid = np.unique(np.asarray(n_values, dtype=np.int64))
    if grid.size == 0 or grid[0] < 1:
        raise UsageError("the sample sizes N must be positive integers.")
    probs = distributions.probs / distributions.probs.sum(axis=1, keepdims=True)
    support = distributions.support
    rng = np.random.default_rng(seed)
    table = distributions.table
    mean_edge = float(np.nanmean(table["edge"])) if table["edge"].notna().any() else math.nan
    mean_info = float(table["informativeness"].mean())
    plan_edge = edge if edge is not None else mean_edge

    power_w = np.empty(grid.size)
    power_s = np.empty(grid.size)
    for j, n in enumerate(grid):
        pick = rng.integers(len(distributions), size=simulations)
        draws = rng.multinomial(int(n), probs[pick])
        power_w[j] = _reject(signed_rank_z(support, draws), alpha, two_sided).mean()
        power_s[j] = _reject(sign_z(support, draws), alpha, two_sided).mean()
        if progress is not None:
            progress((j + 1) / grid.size, f"{n:,} instructions: {j + 1} of {grid.size} sample sizes")

    if plan_edge is not None and 0 < plan_edge <= 0.5 and mean_info > 0:
        formula = sign_test_power(
            plan_edge, grid * mean_info, alpha=alpha, two_sided=two_sided, method="normal"
        )
        planned = total_samples(
            sign_test_sample_size(plan_edge, alpha=alpha, power=target_power, two_sided=two_sided), mean_info
        )
    else:
        formula = np.full(grid.size, np.nan)
        planned = None

    def se(p: np.ndarray) -> np.ndarray:
        return np.sqrt(p * (1 - p) / simulations)

    frame = pd.concat(
        [
            pd.DataFrame({"n": grid, "test": PowerCurve.WILCOXON, "power": power_w, "mc_se": se(power_w)}),
            pd.DataFrame({"n": grid, "test": PowerCurve.SIGN, "power": power_s, "mc_se": se(power_s)}),
            pd.DataFrame({"n": grid, "test": PowerCurve.SIGN_APPROXIMATION, "power": formula, "mc_se": 0.0}),
        ],
        ignore_index=True,
    )

    def first(p: np.ndarray) -> int | None:
        hit = np.flatnonzero(p >= target_power)
        return int(grid[hit[0]]) if hit.size else None

    return PowerCurve(
        frame=frame,
        alpha=alpha,
        target_power=target_power,
        two_sided=two_sided,
        simulations=simulations,
        seed=seed,
        edge=edge,
        n_distributions=len(distributions),
        mean_edge=mean_edge,
        mean_informativeness=mean_info,
        wilcoxon_n=first(power_w),
        sign_n=first(power_s),
        planned_sign_total=planned,
        distributions=table,
    )
