"""Analytic intervals of the spec sheet: linearisation with instructions as clusters.

Every interval of the sheet is of a smooth function of totals over instructions (shares Σnum/Σden,
call-weighted means of per-pair rates, Cohen's kappa from a confusion matrix). Its linearisation
(the influence of each instruction, Binder 1983) gives a cluster-robust variance in one pass over
the instruction patterns, S/(S − 1)·Σ_i u_i², with no resampling:

- **shares** (tie rates, swap consistency, agreement): the Wilson score interval on the
  *effective* sample size n_eff = p(1 − p)/var, never above the nominal count (Korn & Graubard
  1998; Dean & Pagano 2015): it keeps Wilson's behaviour near 0 and 1 and widens for the
  correlation of calls on one instruction.
- **the rest** (position bias, slot bias, per-anchor preference and slot bias, kappa): Wald,
  the estimate ± 1.96 cluster-robust standard errors (the delta method).

Fewer than :data:`MIN_INSTRUCTIONS` instructions leave the spread between instructions
unestimated: the bounds are NaN and the sheet says why (:data:`FEW_INSTRUCTIONS_NOTE`).

References
----------
Binder, D. A. (1983). On the variances of asymptotically normal estimators from complex surveys.
International Statistical Review 51(3).
Korn, E. L. & Graubard, B. I. (1998). Confidence intervals for proportions with small expected
number of positive counts estimated from survey data. Survey Methodology 24(2).
Dean, N. & Pagano, M. (2015). Evaluating confidence interval methods for binomial proportions in
clustered surveys. Journal of Survey Statistics and Methodology 3(4).
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical inference. JASA 22.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from evalcore.errors import UsageError
from evalcore.stats.intervals import Z95, Estimate, wilson_interval

#: The two ways the sheet's intervals are made, and the one every face uses unless asked.
INTERVALS = ("analytic", "bootstrap")
DEFAULT_INTERVAL = "analytic"
#: How the analytic intervals are made (shown with every interval).
SHARE_METHOD = "Wilson 95% on the effective sample size (instructions as clusters)"
DELTA_METHOD = "delta method 95% with a cluster-robust standard error (instructions as clusters)"
ANALYTIC_METHOD = (
    "analytic, instructions as clusters: Wilson 95% on the effective sample size for shares, "
    "the delta method with a cluster-robust standard error for the rest"
)
#: The analytic intervals need at least this many instructions.
MIN_INSTRUCTIONS = 5
FEW_INSTRUCTIONS_NOTE = (
    f"Fewer than {MIN_INSTRUCTIONS} instructions: how much the figures vary from one instruction "
    "to the next cannot be estimated, so no interval is given."
)


def interval_words(interval: str, rounds: int) -> str:
    """How a sheet's 95% intervals are made, in words (the page, the command and the report)."""
    if interval == "bootstrap":
        if not rounds:
            return "none (no bootstrap rounds asked for)"
        return f"2.5 and 97.5 percentiles of {rounds:,} bootstrap rounds over instructions"
    return ANALYTIC_METHOD


def check_interval(interval: object) -> str:
    """``interval`` if it is one of :data:`INTERVALS`, else a :class:`UsageError` in words."""
    if interval not in INTERVALS:
        raise UsageError(f"interval must be 'analytic' or 'bootstrap', not {interval!r}.")
    return str(interval)


def clustered_variance(u: np.ndarray, mult: np.ndarray) -> np.ndarray:
    """S/(S − 1)·Σ_s mult_s (u_s − ū)² over patterns s of per-instruction influences ``u`` (S, …)
    (S = Σ mult, the instructions); NaN below :data:`MIN_INSTRUCTIONS`."""
    w = np.asarray(mult, dtype=np.float64)
    s = float(w.sum())
    if s < MIN_INSTRUCTIONS:
        return np.full(u.shape[1:], np.nan)
    mean = np.tensordot(w, u, axes=1) / s
    second = np.tensordot(w, u * u, axes=1) / s
    return np.maximum(second - mean * mean, 0.0) * s * s / (s - 1.0)


def share(num: np.ndarray, den: np.ndarray, mult: np.ndarray, *, scale: float = 1.0) -> Estimate:
    """Σnum/Σden over instructions (``num``, ``den`` per pattern, weighted by ``mult``) with the
    Wilson interval on the clustered effective sample size."""
    w = np.asarray(mult, dtype=np.float64)
    total_num, total_den = float(w @ num), float(w @ den)
    if total_den <= 0:
        return Estimate(float("nan"))
    p = total_num / total_den
    var = float(clustered_variance((num - p * den) / total_den, w))
    if not np.isfinite(var):
        return Estimate(p * scale)
    binomial = p * (1.0 - p)
    n_eff = total_den if var <= 0 or binomial <= 0 else min(total_den, binomial / var)
    low, high = wilson_interval(p * n_eff, n_eff)
    return Estimate(p * scale, low * scale, high * scale, method=SHARE_METHOD)


def wald(value: float, var: float, *, scale: float = 1.0) -> Estimate:
    """value ± 1.96·sqrt(var), times ``scale``; no bounds when the variance is not finite."""
    if not (np.isfinite(value) and np.isfinite(var)):
        return Estimate(value * scale)
    half = Z95 * float(np.sqrt(var))
    return Estimate(value * scale, (value - half) * scale, (value + half) * scale, method=DELTA_METHOD)


def pair_mean(
    n: np.ndarray,
    x: np.ndarray,
    *,
    reverse_sign: float,
    group: np.ndarray,
    sign: np.ndarray,
    n_groups: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Call-weighted means over pairs of g_p = ½(x₀/n₀ + reverse_sign·x₁/n₁) and their gradient.

    ``n``, ``x`` (P, 2): a pair's calls and total of x in its two orders. Entries e (arrays
    ``group``, ``sign`` of length E, entry e over pair e mod P) put ``sign[e]``·g_p with weight
    n₀ + n₁ into group ``group[e]``: G_g = Σ sign·w·g / Σ w. Returns G (n_groups,) and, per
    entry and order, the derivatives of its group's G with respect to the pair's x and n totals
    (E, 2) each. G does not change when every total is scaled, so the influences sum to zero.
    """
    p = n.shape[0]
    pair = np.arange(group.size) % max(p, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = x / n
        c = np.array([1.0, reverse_sign])
        g = 0.5 * (rate * c).sum(axis=1)
        w = n.sum(axis=1)
        total_w = np.bincount(group, w[pair], minlength=n_groups)
        mean = np.bincount(group, sign * w[pair] * g[pair], minlength=n_groups) / total_w
        inv = 1.0 / total_w[group]
        we = (sign * w[pair])[:, None]
        d_x = we * 0.5 * c / n[pair] * inv[:, None]
        d_n = ((sign * g[pair] - mean[group])[:, None] - we * 0.5 * c * x[pair] / n[pair] ** 2) * inv[:, None]
    return mean, d_x, d_n


#: Influences are summed into a dense (patterns × groups) array up to this many entries, else into
#: a sparse matrix (an arena table's anchors: many patterns times many models).
DENSE_INFLUENCE = 20_000_000


def pair_influence(
    inst: np.ndarray,
    slot: np.ndarray,
    x: np.ndarray,
    n: np.ndarray,
    d_x: np.ndarray,
    d_n: np.ndarray,
    group: np.ndarray,
    *,
    n_patterns: int,
    n_groups: int,
    n_pairs: int,
) -> np.ndarray | sparse.csr_matrix:
    """(patterns, groups) influences: every cell (pattern ``inst``, pair-order ``slot`` = 2p + k,
    totals ``x``, ``n``) adds d_x·x + d_n·n of each entry over its pair (entries from
    :func:`pair_mean`; cells with slot −1 carry none). Dense when small enough, else sparse."""
    keep = slot >= 0
    inst, slot, x, n = inst[keep], slot[keep], x[keep], n[keep]
    pair, order = slot // 2, slot % 2
    keys, vals = [], []
    for start in range(0, group.size, max(n_pairs, 1)):  # one block of entries per pass over P
        e = start + pair
        keys.append(inst * n_groups + group[e])
        vals.append(d_x[e, order] * x + d_n[e, order] * n)
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    val = np.concatenate(vals) if vals else np.zeros(0)
    if n_patterns * n_groups <= DENSE_INFLUENCE:
        return np.bincount(key, val, minlength=n_patterns * n_groups).reshape(n_patterns, n_groups)
    return sparse.csr_matrix((val, (key // n_groups, key % n_groups)), shape=(n_patterns, n_groups))


def sparse_variance(u: np.ndarray | sparse.csr_matrix, mult: np.ndarray) -> np.ndarray:
    """:func:`clustered_variance` per group of a (patterns, groups) influence array, dense or sparse."""
    if not isinstance(u, sparse.csr_matrix):
        return clustered_variance(np.asarray(u), mult)
    w = np.asarray(mult, dtype=np.float64)
    s = float(w.sum())
    if s < MIN_INSTRUCTIONS:
        return np.full(u.shape[1], np.nan)
    mean = np.asarray(u.T @ w).ravel() / s
    second = np.asarray(u.multiply(u).T @ w).ravel() / s
    return np.maximum(second - mean * mean, 0.0) * s * s / (s - 1.0)


def kappa_influence(per: np.ndarray) -> tuple[float, np.ndarray]:
    """Cohen's kappa of the summed confusion (rows human, columns judge) of ``per`` (S, 9) and each
    instruction's influence on it (S,), by the delta method (Fleiss, Cohen & Everitt 1969)."""
    conf = per.sum(axis=0).reshape(3, 3)
    total = conf.sum()
    rows, cols = conf.sum(axis=1), conf.sum(axis=0)
    p_o = np.trace(conf) / total
    p_e = float(rows @ cols) / total**2
    if not (total > 0 and p_e < 1.0):
        return float("nan"), np.full(per.shape[0], np.nan)
    kappa = (p_o - p_e) / (1.0 - p_e)
    d_po = (np.eye(3) - p_o) / total
    d_pe = (cols[:, None] + rows[None, :]) / total**2 - 2.0 * p_e / total
    grad = d_po / (1.0 - p_e) + d_pe * (p_o - 1.0) / (1.0 - p_e) ** 2
    return float(kappa), per @ grad.ravel()
