"""The sign test's sample sizes, power and detectable edge, and the total samples they imply.

A "+5% edge" means P(A beats B | the pair is discordant) = 0.55. The number of *discordant*
samples a one-sided sign test needs (normal approximation, as the paper's Table 2) is
n = ⌈((z_{1−α}·0.5 + z_{power}·√(p(1−p))) / (p − 0.5))²⌉: 617 for +5%, 153 for +10% at α = 0.05,
power 0.8. The sign test ignores ties, so the *total* is ⌈discordant / I⌉ with I the
informativeness (the share of samples on which the two models' verdicts differ): 617 / 0.45 →
1,372; 617 / 0.54 → 1,143 (Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM
as a Judge Anchor Selection", ACL 2026, §4.3, Table 2).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special, stats

from evalcore.errors import UsageError
from evalcore.limits import MAX_EXACT_DISCORDANT, MIN_EDGE, MIN_INFORMATIVENESS
from evalcore.stats.roots import brentq

METHODS = ("normal", "exact")


def _check_alpha(alpha: float, method: str) -> None:
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"alpha must be between 0 and 1 (got {alpha}); 0.05 is usual.")
    if method not in METHODS:
        raise UsageError(f"method must be 'normal' or 'exact' (got {method!r}).")


def check_design(alpha: float, power: float, method: str = "normal") -> None:
    """Validate α, the target power and the method (UsageError naming the argument)."""
    _check_alpha(alpha, method)
    if not 0.0 < power < 1.0:
        raise UsageError(f"power must be between 0 and 1 (got {power}); 0.8 is usual.")
    if power <= alpha:
        raise UsageError(
            f"power ({power}) must exceed alpha ({alpha}): a test that rejects at "
            "random already has power alpha."
        )


def _check_edge(edge: float, *, low: float = 0.0) -> float:
    """The edge as a float in (0, 0.5], or from ``low`` when a sample size is worked out for it."""
    edge = float(edge)
    if not (low <= edge <= 0.5 and edge > 0.0):
        raise UsageError(
            f"edge must be {f'at least {low:g}' if low else 'above 0'} and at most 0.5 (got {edge:g}): "
            "+5% is 0.05, meaning the "
            "better model wins 55% of the discordant samples"
            + ("; an edge below +0.0001% would need over a trillion samples." if low else ".")
        )
    return edge


@functools.lru_cache(maxsize=64)
def _z_alpha(alpha: float, two_sided: bool) -> float:
    # cached: the detectable edges ask for it in every step of their root search (scipy's
    # distribution methods take about half a millisecond a call on a scalar)
    return float(stats.norm.isf(alpha / 2.0 if two_sided else alpha))


def _exact_critical(n: np.ndarray, alpha: float, two_sided: bool) -> np.ndarray:
    """Smallest k with P(X ≥ k | n, 1/2) ≤ α (α/2 two-sided); n + 1 when no k qualifies."""
    level = alpha / 2.0 if two_sided else alpha
    n = np.asarray(n)
    crit = stats.binom.isf(level, n, 0.5) + 1
    return np.where(np.isnan(crit), n + 1, crit).astype(np.int64)


def sign_test_power(
    edge: float,
    discordant: np.ndarray | int,
    *,
    alpha: float = 0.05,
    two_sided: bool = False,
    method: str = "normal",
) -> np.ndarray | float:
    """Power of the sign test with ``discordant`` untied samples at P(A wins | discordant) = 0.5 + edge.

    Parameters
    ----------
    edge : float
        P(A beats B | discordant) − 0.5, in (0, 0.5].
    discordant : int or array of int
        Untied samples.
    alpha : float
        Significance level.
    two_sided : bool
        Two-sided test (α/2 in each tail).
    method : {"normal", "exact"}
        ``"normal"``: Φ((√n·edge − z_{1−α}·0.5) / √(p(1−p))), the approximation behind Table 2
        (the far tail of a two-sided test is ignored, as usual). ``"exact"``: the binomial
        test's rejection probability (both tails when two-sided).

    Returns
    -------
    float or ndarray

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.3 and Table 2.

    Examples
    --------
    >>> round(sign_test_power(0.05, 617), 3)
    0.8
    """
    edge = _check_edge(edge)
    _check_alpha(alpha, method)
    n = np.asarray(discordant, dtype=np.float64)
    p = 0.5 + edge
    if method == "normal":
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (np.sqrt(n) * edge - _z_alpha(alpha, two_sided) * 0.5) / math.sqrt(p * (1 - p))
        out = np.where(n > 0, special.ndtr(z), 0.0)  # the normal CDF, without scipy.stats' dispatch
    else:
        ni = np.asarray(discordant, dtype=np.int64)
        crit = _exact_critical(ni, alpha, two_sided)
        out = np.where(crit <= ni, stats.binom.sf(crit - 1, ni, p), 0.0)
        if two_sided:
            out = out + np.where(crit <= ni, stats.binom.cdf(ni - crit, ni, p), 0.0)
    return out if np.ndim(discordant) else float(out)


def sign_test_sample_size(
    edge: float, *, alpha: float = 0.05, power: float = 0.8, two_sided: bool = False, method: str = "normal"
) -> int:
    """Discordant samples a sign test needs to detect ``edge``.

    Parameters
    ----------
    edge : float
        P(A beats B | discordant) − 0.5 ("+5%" = 0.05), in (0, 0.5].
    alpha, power : float
        Significance level and target power (power > alpha).
    two_sided : bool
        Use z_{1−α/2}.
    method : {"normal", "exact"}
        ``"normal"`` is the paper's normal approximation,
        n = ⌈((z_{1−α}·0.5 + z_{power}·√(p(1−p))) / (p − 0.5))²⌉. ``"exact"`` is the smallest
        n at which the exact binomial test reaches the power (exact power saw-tooths in n, so a
        few larger n dip just below the target again; the paper did not use the exact test).

    Returns
    -------
    int

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.3 and Table 2.

    Examples
    --------
    >>> sign_test_sample_size(0.05), sign_test_sample_size(0.10)
    (617, 153)
    >>> sign_test_sample_size(0.05, method="exact")
    620
    """
    edge = _check_edge(edge, low=MIN_EDGE)
    check_design(alpha, power, method)
    p = 0.5 + edge
    z_a = _z_alpha(alpha, two_sided)
    z_b = float(stats.norm.ppf(power))
    normal_n = math.ceil(((z_a * 0.5 + z_b * math.sqrt(p * (1 - p))) / edge) ** 2)
    normal_n = max(normal_n, 1)
    if method == "normal":
        return normal_n
    if normal_n > MAX_EXACT_DISCORDANT:
        raise UsageError(
            f"the exact sign test's sample size is searched up to {MAX_EXACT_DISCORDANT:,} discordant "
            f"samples, and an edge of {edge:.4%} needs about {normal_n:,}: use the normal "
            "approximation (without --exact), which agrees with the exact test to a fraction of a "
            "percent at this size, or a larger edge."
        )
    # The exact power saw-tooths in n, so the smallest n must be searched, but not from 1: no n
    # below `start` can reach the power (see _exact_power_bound), and above it n is scanned in
    # blocks, so the answer is the same as a scan from n = 1 at a small part of the cost.
    start = _first_possible_n(p, alpha, power, two_sided, normal_n)
    block = max(256, normal_n // 8)
    while True:
        from evalcore.limits import check_bytes  # scipy's binomial works on ~16 float64 arrays of n

        check_bytes(
            f"the exact sign test's sample size for an edge of {edge:.3%}",
            128.0 * block,
            advice="Use the normal approximation (without --exact) or a larger edge; "
            "for an edge this small the two agree to a fraction of a percent.",
        )
        n = np.arange(start, start + block)
        reached = np.asarray(
            sign_test_power(edge, n, alpha=alpha, two_sided=two_sided, method="exact") >= power
        )  # n is an array
        if reached.any():
            return int(n[np.argmax(reached)])
        start += block
        block *= 2


def _exact_power_bound(n: int, p: float, alpha: float, two_sided: bool) -> float:
    """An upper bound on the exact sign test's power at ``n`` that never decreases with n.

    The randomised one-sided binomial test at level a is the most powerful level-a test (Neyman–
    Pearson), so it bounds the exact one-sided test's power; and its power never decreases with n,
    because a test may ignore an observation. Two-sided (a = α/2 each tail), the upper tail is
    bounded so and the lower tail's rejection probability is at most α/2 when p > 1/2.
    """
    level = alpha / 2.0 if two_sided else alpha
    c = int(_exact_critical(np.array([n]), level, False)[0])  # smallest k with P0(X ≥ k) ≤ level
    tail0 = float(stats.binom.sf(c - 1, n, 0.5)) if c <= n else 0.0
    mass0 = float(stats.binom.pmf(c - 1, n, 0.5))
    gamma = min(1.0, (level - tail0) / mass0) if mass0 > 0 else 0.0
    bound = float(stats.binom.sf(c - 1, n, p)) + gamma * float(stats.binom.pmf(c - 1, n, p))
    return bound + (level if two_sided else 0.0)


def _first_possible_n(p: float, alpha: float, power: float, two_sided: bool, guess: int) -> int:
    """The smallest n whose :func:`_exact_power_bound` reaches ``power`` (bisection on a
    non-decreasing function): no smaller n can give the exact test that power."""
    lo, hi = 1, max(guess, 1)
    while _exact_power_bound(hi, p, alpha, two_sided) < power:
        lo, hi = hi + 1, hi * 2
    while lo < hi:
        mid = (lo + hi) // 2
        if _exact_power_bound(mid, p, alpha, two_sided) >= power:
            hi = mid
        else:
            lo = mid + 1
    return lo


def minimum_detectable_edge(
    discordant: int,
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    two_sided: bool = False,
    method: str = "normal",
) -> float:
    """The smallest edge the sign test detects with ``discordant`` untied samples.

    The inverse of :func:`sign_test_sample_size` at α and power; NaN when even a model that
    wins every discordant sample could not be detected with so few samples.

    Parameters
    ----------
    discordant : int
        Untied samples.
    alpha, power : float
        Significance level and target power.
    two_sided : bool
        Two-sided test.
    method : {"normal", "exact"}
        As in :func:`sign_test_sample_size`.

    Returns
    -------
    float

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.3 and Table 2.

    Examples
    --------
    >>> round(minimum_detectable_edge(617), 3)
    0.05
    """
    check_design(alpha, power, method)
    n = int(discordant)
    if n <= 0:
        return math.nan

    def gap(e: float) -> float:
        return float(sign_test_power(e, n, alpha=alpha, two_sided=two_sided, method=method)) - power

    hi = 0.5
    if gap(hi) < 0:
        return math.nan
    # For a fixed n the power (normal or exact) is continuous and increasing in the edge.
    return float(brentq(gap, 1e-12, hi, xtol=1e-12))


def total_samples(discordant: int, informativeness: float) -> int:
    """Total samples = ⌈discordant / I⌉, the samples needed when only a share I is discordant.

    The quotient is rounded to 9 decimals before the ceiling, so floating-point noise in I does
    not add a sample: the paper's summary prints 341 for 153 at a 55% tie rate because 1 − 0.55
    is 0.44999999999999996 in floating point.

    Parameters
    ----------
    discordant : int
        Discordant samples needed (:func:`sign_test_sample_size`).
    informativeness : float
        I in (0, 1], the share of samples on which the two models' verdicts differ (for an
        anchor, :func:`evalcore.anchors.anchor_informativeness`).

    Returns
    -------
    int

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.3 and Table 2.

    Examples
    --------
    >>> total_samples(617, 0.45), total_samples(617, 0.54), total_samples(153, 0.45)
    (1372, 1143, 340)
    """
    if not MIN_INFORMATIVENESS <= informativeness <= 1.0:
        raise UsageError(
            f"informativeness must be between {MIN_INFORMATIVENESS:g} and 1 (got {informativeness:g}): "
            "it is the share of samples on which the two models' verdicts differ."
        )
    if discordant < 0:
        raise UsageError(f"discordant samples cannot be negative (got {discordant}).")
    return int(math.ceil(round(discordant / informativeness, 9)))


#: The informativeness values behind the paper's Table 2: o3 (0.45), the mean anchor (0.54) and
#: the most informative anchor, o3 Mini (0.61).
PAPER_INFORMATIVENESS: dict[str, float] = {"o3": 0.45, "mean": 0.54, "o3 Mini": 0.61}


def paper_table(edges: tuple[float, ...] = (0.05, 0.10)) -> pd.DataFrame:
    """The paper's Table 2 recomputed: discordant samples (normal approximation, one-sided,
    α = 0.05, power 0.8), the exact-binomial figure, and totals at the paper's informativeness
    values (:data:`PAPER_INFORMATIVENESS`).

    Examples
    --------
    >>> paper_table().loc[0, ["discordant", "exact_binomial", "total_I_0.45 (o3)"]].tolist()
    [617, 620, 1372]
    """
    rows = []
    for edge in edges:
        n = sign_test_sample_size(edge)
        row = {"edge": edge, "discordant": n, "exact_binomial": sign_test_sample_size(edge, method="exact")}
        for label, value in PAPER_INFORMATIVENESS.items():
            row[f"total_I_{value:.2f} ({label})"] = total_samples(n, value)
        rows.append(row)
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class SampleSizePlan:
    """Sign-test sample sizes for several edges at one α, power and informativeness."""

    table: pd.DataFrame  # edge, win_probability, discordant, total
    alpha: float
    power: float
    two_sided: bool
    method: str
    informativeness: float | None
    notes: tuple[str, ...] = ()

    def __repr__(self) -> str:
        return (
            f"SampleSizePlan({len(self.table)} edges, alpha={self.alpha:g}, "
            f"power={self.power:g}, informativeness={self.informativeness})"
        )

    def as_dict(self) -> dict:
        return {
            "test": "sign test, " + ("two-sided" if self.two_sided else "one-sided"),
            "method": (
                "normal approximation (Don-Yehiya et al. 2026, Table 2)"
                if self.method == "normal"
                else "exact binomial test"
            ),
            "alpha": self.alpha,
            "power": self.power,
            "informativeness": self.informativeness,
            "plans": self.table.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def sample_size_plan(
    edges: Sequence[float],
    *,
    alpha: float = 0.05,
    power: float = 0.8,
    informativeness: float | None = None,
    two_sided: bool = False,
    method: str = "normal",
) -> SampleSizePlan:
    """:func:`sign_test_sample_size` and :func:`total_samples` for each edge (one row each).

    Parameters
    ----------
    edges : sequence of float
        Edges to detect (0.05 = +5%).
    alpha, power : float
        Significance level and target power.
    informativeness : float, optional
        I in (0, 1]; adds the total samples.
    two_sided : bool
        Two-sided sign test.
    method : {"normal", "exact"}
        As in :func:`sign_test_sample_size`.

    Returns
    -------
    SampleSizePlan

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §4.3 and Table 2.

    Examples
    --------
    >>> sample_size_plan([0.05, 0.10], informativeness=0.45).table["total"].tolist()
    [1372, 340]
    """
    if not len(edges):
        raise UsageError("give at least one edge, e.g. 0.05 for +5%.")
    if informativeness is not None:
        total_samples(1, informativeness)  # validates
    rows, notes = [], []
    for e in edges:
        n = sign_test_sample_size(e, alpha=alpha, power=power, two_sided=two_sided, method=method)
        total = total_samples(n, informativeness) if informativeness is not None else None
        rows.append({"edge": float(e), "win_probability": 0.5 + float(e), "discordant": n, "total": total})
        if informativeness is not None:
            naive = math.ceil(n / (1.0 - (1.0 - informativeness)))
            if naive != total:
                notes.append(
                    f"+{e:.0%}: {n} / {informativeness:g} = {n / informativeness:.6f}, so {total}; "
                    f"computing I as 1 − tie rate in floating point gives {naive} (the paper's "
                    "summary prints 341 for +10% at a 55% tie rate for this reason)."
                )
    table = pd.DataFrame(rows, columns=["edge", "win_probability", "discordant", "total"])
    table["total"] = table["total"].astype("Int64")
    return SampleSizePlan(
        table=table,
        alpha=alpha,
        power=power,
        two_sided=two_sided,
        method=method,
        informativeness=informativeness,
        notes=tuple(notes),
    )
