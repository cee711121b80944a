"""Power: how many samples separate two models, and what the loaded data can separate.

Three pieces (seed 000, §4.3, Table 2, Appendix C and Listing 1; ``shared/notes/DEFINITIONS.md``,
"Sign-test sample size" and "Total samples"):

1. **Sign test.** A "+5% edge" means P(A beats B | the pair is discordant) = 0.55. The number of
   *discordant* samples a one-sided sign test needs (normal approximation, as the paper's
   Table 2) is n = ⌈((z_{1−α}·0.5 + z_{power}·√(p(1−p))) / (p − 0.5))²⌉: 617 for +5%, 153 for
   +10% at α = 0.05, power 0.8. The sign test ignores ties, so the *total* is
   ⌈discordant / I⌉ with I the informativeness (the share of samples on which the two models'
   verdicts differ): 617 / 0.45 → 1,372; 617 / 0.54 → 1,143.
2. **Wilcoxon signed-rank power by simulation** on the loaded data's empirical distributions of
   *verdict differences*. For models A and B judged against the same anchor X on instruction i,
   d_i = v(i, A) − v(i, B), with v(i, m) the verdict of m against X read from m's point of view
   on the judge's scale (−2..+2): the paper's App. C. When a model met the anchor several times
   on one instruction (both orders, repeats), v(i, m) is the mean of those verdicts. Without an
   anchor (head-to-head), d_i is the verdict of A against B itself. Each simulation, as in
   Listing 1, picks one empirical distribution at random, draws N differences from it with
   replacement and runs ``scipy.stats.wilcoxon(S, alternative="greater", zero_method="pratt")``;
   the power at N is the share of simulations that reject at α.
3. **What this dataset can detect**: for each adjacent pair of the leaderboard, the smallest
   edge the sign test detects (at α and power) with the discordant samples the data has for that
   pair, the observed edge, and whether the pair is resolved (the sign test rejects "the lower
   model is as good or better").

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
from scipy import optimize, stats

from evalcore.anchors import verdicts_against
from evalcore.progress import Progress
from evalcore.ranking import Leaderboard, leaderboard
from evalcore.store import VerdictCounts

#: Verdict differences are rounded to this many decimals before they are grouped into a
#: distribution (means of a few calls are fractions like 1/3; rounding removes float noise).
_DECIMALS = 6
METHODS = ("normal", "exact")


# -- 1. the sign test ------------------------------------------------------------------------
def _check_alpha(alpha: float, method: str) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be between 0 and 1 (got {alpha}); 0.05 is usual.")
    if method not in METHODS:
        raise ValueError(f"method must be 'normal' or 'exact' (got {method!r}).")


def _check_design(alpha: float, power: float, method: str) -> None:
    _check_alpha(alpha, method)
    if not 0.0 < power < 1.0:
        raise ValueError(f"power must be between 0 and 1 (got {power}); 0.8 is usual.")
    if power <= alpha:
        raise ValueError(f"power ({power}) must exceed alpha ({alpha}): a test that rejects at "
                         "random already has power alpha.")


def _check_edge(edge: float) -> float:
    edge = float(edge)
    if not 0.0 < edge <= 0.5:
        raise ValueError(
            f"the edge must be above 0 and at most 0.5 (got {edge}): +5% is 0.05, meaning the "
            "better model wins 55% of the discordant samples."
        )
    return edge


def _z_alpha(alpha: float, two_sided: bool) -> float:
    return float(stats.norm.isf(alpha / 2.0 if two_sided else alpha))


def _exact_critical(n: np.ndarray, alpha: float, two_sided: bool) -> np.ndarray:
    """Smallest k with P(X ≥ k | n, 1/2) ≤ α (α/2 two-sided); n + 1 when no k qualifies."""
    level = alpha / 2.0 if two_sided else alpha
    n = np.asarray(n)
    crit = stats.binom.isf(level, n, 0.5) + 1
    return np.where(np.isnan(crit), n + 1, crit).astype(np.int64)


def sign_test_power(edge: float, discordant: np.ndarray | int, alpha: float = 0.05,
                    two_sided: bool = False, method: str = "normal") -> np.ndarray | float:
    """Power of the sign test with ``discordant`` untied samples when P(A wins | discordant) =
    0.5 + edge (seed 000 §4.3). ``"normal"``: Φ((√n·edge − z_{1−α}·0.5) / √(p(1−p))), the
    approximation behind Table 2 (the far tail of a two-sided test is ignored, as usual).
    ``"exact"``: the binomial test's rejection probability (both tails when two-sided)."""
    edge = _check_edge(edge)
    _check_alpha(alpha, method)
    n = np.asarray(discordant, dtype=np.float64)
    p = 0.5 + edge
    if method == "normal":
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (np.sqrt(n) * edge - _z_alpha(alpha, two_sided) * 0.5) / math.sqrt(p * (1 - p))
        out = np.where(n > 0, stats.norm.cdf(z), 0.0)
    else:
        ni = np.asarray(discordant, dtype=np.int64)
        crit = _exact_critical(ni, alpha, two_sided)
        out = np.where(crit <= ni, stats.binom.sf(crit - 1, ni, p), 0.0)
        if two_sided:
            out = out + np.where(crit <= ni, stats.binom.cdf(ni - crit, ni, p), 0.0)
    return out if np.ndim(discordant) else float(out)


def sign_test_sample_size(edge: float, alpha: float = 0.05, power: float = 0.8,
                          two_sided: bool = False, method: str = "normal") -> int:
    """Discordant samples a sign test needs to detect ``edge`` (seed 000 §4.3, Table 2).

    ``edge`` is P(A beats B | discordant) − 0.5 ("+5%" = 0.05). ``method="normal"`` is the
    paper's normal approximation, n = ⌈((z_{1−α}·0.5 + z_{power}·√(p(1−p))) / (p − 0.5))²⌉
    (z_{1−α/2} when two-sided): 617 for 0.05 and 153 for 0.10 at α = 0.05, power 0.8
    (``DEFINITIONS.md``, "Sign-test sample size"). ``method="exact"`` is the smallest n at which
    the exact binomial test reaches the power: 620 and 158. (Exact power saw-tooths in n, so a
    few larger n dip just below the target again; the paper did not use the exact test.)
    """
    edge = _check_edge(edge)
    _check_design(alpha, power, method)
    p = 0.5 + edge
    z_a = _z_alpha(alpha, two_sided)
    z_b = float(stats.norm.ppf(power))
    normal_n = math.ceil(((z_a * 0.5 + z_b * math.sqrt(p * (1 - p))) / edge) ** 2)
    normal_n = max(normal_n, 1)
    if method == "normal":
        return normal_n
    upper = 2 * normal_n + 200
    while True:
        from evalcore.limits import check_bytes  # scipy's binomial works on ~16 float64 arrays of n

        check_bytes(f"the exact sign test's sample size for an edge of {edge:.3%}", 128.0 * upper,
                    advice="Use the normal approximation (without --exact) or a larger edge; "
                    "for an edge this small the two agree to a fraction of a percent.")
        n = np.arange(1, upper + 1)
        reached = sign_test_power(edge, n, alpha, two_sided, "exact") >= power
        if reached.any():
            return int(n[np.argmax(reached)])
        upper *= 2


def minimum_detectable_edge(discordant: int, alpha: float = 0.05, power: float = 0.8,
                            two_sided: bool = False, method: str = "normal") -> float:
    """The smallest edge the sign test detects with ``discordant`` untied samples (at α and
    power): the inverse of :func:`sign_test_sample_size` (seed 000 §4.3). NaN when even a model
    that wins every discordant sample could not be detected with so few samples."""
    _check_design(alpha, power, method)
    n = int(discordant)
    if n <= 0:
        return math.nan

    def gap(e: float) -> float:
        return float(sign_test_power(e, n, alpha, two_sided, method)) - power

    hi = 0.5
    if gap(hi) < 0:
        return math.nan
    # For a fixed n the power (normal or exact) is continuous and increasing in the edge.
    return float(optimize.brentq(gap, 1e-12, hi, xtol=1e-12))


def total_samples(discordant: int, informativeness: float) -> int:
    """Total samples = ⌈discordant / I⌉ (seed 000 §4.3; ``DEFINITIONS.md``, "Total samples").

    ``informativeness`` I is the share of samples on which the two models' verdicts differ
    (for an anchor, :func:`evalcore.anchors.anchor_informativeness`). 617 / 0.45 → 1,372;
    617 / 0.54 → 1,143; 153 / 0.45 → 340. The quotient is rounded to 9 decimals before the
    ceiling, so floating-point noise in I does not add a sample: the paper's summary prints 341
    for 153 at a 55% tie rate because 1 − 0.55 is 0.44999999999999996 in floating point.
    """
    if not 0.0 < informativeness <= 1.0:
        raise ValueError(
            f"informativeness must be above 0 and at most 1 (got {informativeness}): it is the "
            "share of samples on which the two models' verdicts differ."
        )
    if discordant < 0:
        raise ValueError(f"discordant samples cannot be negative (got {discordant}).")
    return int(math.ceil(round(discordant / informativeness, 9)))


#: The informativeness values behind seed 000's Table 2: o3 (0.45), the mean anchor (0.54) and
#: the most informative anchor, o3 Mini (0.61).
PAPER_INFORMATIVENESS: dict[str, float] = {"o3": 0.45, "mean": 0.54, "o3 Mini": 0.61}


def paper_table(edges: tuple[float, ...] = (0.05, 0.10)) -> pd.DataFrame:
    """Seed 000's Table 2 recomputed: discordant samples (normal approximation, one-sided,
    α = 0.05, power 0.8), the exact-binomial figure, and totals at the paper's informativeness
    values (:data:`PAPER_INFORMATIVENESS`)."""
    rows = []
    for edge in edges:
        n = sign_test_sample_size(edge)
        row = {"edge": edge, "discordant": n,
               "exact_binomial": sign_test_sample_size(edge, method="exact")}
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

    def as_dict(self) -> dict:
        return {
            "test": "sign test, " + ("two-sided" if self.two_sided else "one-sided"),
            "method": ("normal approximation (seed 000, Table 2)" if self.method == "normal"
                       else "exact binomial test"),
            "alpha": self.alpha,
            "power": self.power,
            "informativeness": self.informativeness,
            "plans": self.table.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def sample_size_plan(edges: Sequence[float], alpha: float = 0.05, power: float = 0.8,
                     informativeness: float | None = None, two_sided: bool = False,
                     method: str = "normal") -> SampleSizePlan:
    """:func:`sign_test_sample_size` and :func:`total_samples` for each edge (one row each)."""
    if not len(edges):
        raise ValueError("give at least one edge, e.g. 0.05 for +5%.")
    if informativeness is not None:
        total_samples(1, informativeness)  # validates
    rows, notes = [], []
    for e in edges:
        n = sign_test_sample_size(e, alpha, power, two_sided, method)
        total = total_samples(n, informativeness) if informativeness is not None else None
        rows.append({"edge": float(e), "win_probability": 0.5 + float(e), "discordant": n,
                     "total": total})
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
    return SampleSizePlan(table=table, alpha=alpha, power=power, two_sided=two_sided,
                          method=method, informativeness=informativeness, notes=tuple(notes))


# -- verdict differences ---------------------------------------------------------------------
def _mean_verdicts(counts: VerdictCounts) -> np.ndarray:
    """v[i, m, x]: the mean verdict of ``models[m]`` against ``models[x]`` on instruction i, from
    m's point of view, both slots pooled (:func:`evalcore.anchors.verdicts_against`, the same
    v(i, m) that informativeness uses). NaN where they never met on i."""
    total, calls = verdicts_against(counts)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(calls > 0, total / np.maximum(calls, 1), np.nan)


def anchor_verdicts(counts: VerdictCounts, anchor: str) -> np.ndarray:
    """v[i, m]: the verdict of ``models[m]`` against ``anchor`` on instruction i, read from m's
    point of view on the judge's scale (seed 000 §4.2, v_{i,m}^{p,A}); the mean when they met
    more than once on i; NaN when they never met on i. The anchor's own column is 0 (a model
    ties itself), so a pair that includes the anchor compares the other model's verdict with 0.
    """
    if anchor not in counts.models:
        raise ValueError(f"anchor {anchor!r} is not one of the models in this selection.")
    return _against(_mean_verdicts(counts), counts.index(anchor))


def _against(mean: np.ndarray, x: int) -> np.ndarray:
    v = mean[:, :, x].copy()
    v[:, x] = 0.0
    return v


def verdict_differences(counts: VerdictCounts, model_a: str, model_b: str,
                        anchor: str | None = None) -> np.ndarray:
    """d_i = v(i, A) − v(i, B) over the instructions where both are defined (seed 000 App. C).

    With ``anchor``, v is each model's verdict against the anchor (:func:`anchor_verdicts`);
    without, d_i is the head-to-head verdict of A against B (A's point of view, the mean when
    judged more than once). Positive d_i: A did better on instruction i.
    """
    for m in (model_a, model_b):
        if m not in counts.models:
            raise ValueError(f"model {m!r} is not one of the models in this selection.")
    if model_a == model_b:
        raise ValueError("pick two different models.")
    a, b = counts.index(model_a), counts.index(model_b)
    if anchor is None:
        d = _mean_verdicts(counts)[:, a, b]
    else:
        v = anchor_verdicts(counts, anchor)
        d = v[:, a] - v[:, b]
    return np.round(d[~np.isnan(d)], _DECIMALS)


@dataclass(frozen=True)
class DifferenceDistributions:
    """Empirical distributions of verdict differences, one per (anchor, model pair).

    ``probs[j, k]`` is the share of instructions on which distribution j has d = ``support[k]``;
    ``support`` is sorted and symmetric around 0. ``table`` describes each distribution: anchor
    (None for head-to-head), model_a, model_b (oriented so that model_a has the edge),
    n (instructions), informativeness (share with d ≠ 0), edge (P(d > 0 | d ≠ 0) − 0.5) and
    mean_difference.
    """

    support: np.ndarray
    probs: np.ndarray
    table: pd.DataFrame

    def __len__(self) -> int:
        return len(self.table)

    def select(self, mask: np.ndarray) -> DifferenceDistributions:
        mask = np.asarray(mask)
        return DifferenceDistributions(self.support, self.probs[mask],
                                       self.table[mask].reset_index(drop=True))

    def with_edge(self, low: float, high: float) -> DifferenceDistributions:
        """Those whose edge lies in [low, high): Listing 1's ``effect_size_interval``."""
        e = self.table["edge"].to_numpy(dtype=np.float64)
        return self.select((e >= low - 1e-12) & (e < high - 1e-12))

    def pair(self, model_a: str, model_b: str, anchor: str | None = None) -> DifferenceDistributions:
        t = self.table
        same_anchor = t["anchor"].isna() if anchor is None else (t["anchor"] == anchor)
        hit = same_anchor & (((t["model_a"] == model_a) & (t["model_b"] == model_b))
                             | ((t["model_a"] == model_b) & (t["model_b"] == model_a)))
        return self.select(hit.to_numpy(dtype=bool))

    def pooled(self) -> pd.DataFrame:
        """difference, share: the mixture of all distributions, each weighted equally."""
        return pd.DataFrame({"difference": self.support,
                             "share": self.probs.mean(axis=0) if len(self) else 0.0})

    @classmethod
    def from_samples(cls, samples: Sequence[np.ndarray], *, anchors: Sequence[str | None] | None = None,
                     pairs: Sequence[tuple[str, str]] | None = None,
                     orient: bool = True) -> DifferenceDistributions:
        """Build distributions from arrays of observed differences (one array each)."""
        arrays = [np.round(np.asarray(s, dtype=np.float64), _DECIMALS) for s in samples]
        arrays = [a[~np.isnan(a)] for a in arrays]
        values = np.concatenate(arrays + [np.zeros(1)])
        support = np.unique(np.round(np.concatenate([values, -values]), _DECIMALS))
        support = np.unique(support + 0.0)  # −0.0 → 0.0
        probs = np.zeros((len(arrays), len(support)))
        for j, a in enumerate(arrays):
            if len(a):
                probs[j] = np.bincount(np.searchsorted(support, a), minlength=len(support)) / len(a)
        n = np.array([len(a) for a in arrays], dtype=np.int64)
        anchors = list(anchors) if anchors is not None else [None] * len(arrays)
        pairs = list(pairs) if pairs is not None else [(f"A{j}", f"B{j}") for j in range(len(arrays))]
        return _describe(support, probs, n, anchors, pairs, orient)


def _describe(support: np.ndarray, probs: np.ndarray, n: np.ndarray, anchors: list,
              pairs: list[tuple[str, str]], orient: bool) -> DifferenceDistributions:
    pos = probs[:, support > 0].sum(axis=1)
    neg = probs[:, support < 0].sum(axis=1)
    a = np.array([p[0] for p in pairs], dtype=object)
    b = np.array([p[1] for p in pairs], dtype=object)
    if orient:
        flip = neg > pos
        probs = np.where(flip[:, None], probs[:, ::-1], probs)
        pos, neg = np.where(flip, neg, pos), np.where(flip, pos, neg)
        a, b = np.where(flip, b, a), np.where(flip, a, b)
    disc = pos + neg
    with np.errstate(invalid="ignore", divide="ignore"):
        edge = np.where(disc > 0, pos / disc - 0.5, np.nan)
    table = pd.DataFrame({
        "anchor": pd.array(anchors, dtype="string"),
        "model_a": pd.array(a, dtype="string"),
        "model_b": pd.array(b, dtype="string"),
        "n": n,
        "informativeness": disc,
        "edge": edge,
        "mean_difference": probs @ support,
    })
    return DifferenceDistributions(support=support, probs=probs, table=table)


def difference_distributions(counts: VerdictCounts, anchors: Sequence[str] | None = None,
                             *, min_instructions: int = 1) -> DifferenceDistributions:
    """Every (anchor, unordered model pair) distribution of verdict differences in the data.

    ``anchors=None`` uses every model as the anchor in turn (seed 000 App. C: 22 anchors ×
    C(21, 2) pairs = 4,620 distributions); the anchor itself is left out of its pairs. Pairs
    with fewer than ``min_instructions`` shared instructions are dropped (an anchor-only table
    has pairs only for its one anchor). Each is oriented so that model_a has the edge.
    """
    if anchors is None:
        anchors = counts.models
    m = counts.n_models
    iu, ju = np.triu_indices(m, 1)
    for anchor in anchors:
        if anchor not in counts.models:
            raise ValueError(f"anchor {anchor!r} is not one of the models in this selection.")
    mean = _mean_verdicts(counts)
    blocks, sizes, labels, pairs = [], [], [], []
    for anchor in anchors:
        x = counts.index(anchor)
        v = _against(mean, x)
        keep = (iu != x) & (ju != x)
        d = v[:, iu[keep]] - v[:, ju[keep]]  # (I, P)
        ok = ~np.isnan(d)
        n = ok.sum(axis=0)
        use = n >= max(min_instructions, 1)
        if not use.any():
            continue
        blocks.append(np.round(d[:, use], _DECIMALS))
        sizes.append(n[use])
        labels += [anchor] * int(use.sum())
        pairs += [(counts.models[i], counts.models[j]) for i, j in zip(iu[keep][use], ju[keep][use], strict=True)]
    if not blocks:
        raise ValueError(
            "No two models were judged against a common anchor on the same instruction, so there "
            "is no distribution of verdict differences. Load a table where several models meet "
            "the same anchor (an all-pairs or anchor-based table)."
        )
    d = np.concatenate(blocks, axis=1)
    n = np.concatenate(sizes)
    finite = d[~np.isnan(d)]
    support = np.unique(np.concatenate([finite, -finite, [0.0]]) + 0.0)
    codes = np.searchsorted(support, np.where(np.isnan(d), 0.0, d))
    k = len(support)
    flat = codes + k * np.arange(d.shape[1])[None, :]
    hist = np.bincount(flat[~np.isnan(d)], minlength=k * d.shape[1]).reshape(d.shape[1], k)
    probs = hist / n[:, None]
    return _describe(support, probs, n, labels, pairs, orient=True)


# -- 2. Wilcoxon power by simulation ----------------------------------------------------------
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
    var = (n * (n + 1.0) * (2.0 * n + 1.0) - zero * (zero + 1.0) * (2.0 * zero + 1.0)
           - (ties ** 3 - ties).sum(axis=-1) / 2.0) / 24.0
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
    SIGN_FORMULA = "sign test (normal approximation)"

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
    n_values: Sequence[int],
    *,
    alpha: float = 0.05,
    target_power: float = 0.8,
    two_sided: bool = False,
    simulations: int = 2000,
    seed: int = 0,
    edge: float | None = None,
    progress: Progress | None = None,
) -> PowerCurve:
    """Power of the Wilcoxon signed-rank test (Pratt zeros) by simulation (seed 000 App. C,
    Listing 1), beside the sign test on the same draws and the sign test's formula.

    For each total sample size N, each of ``simulations`` rounds picks one of ``distributions``
    at random (Listing 1's ``np.random.choice(D)``), draws N verdict differences from it with
    replacement (a multinomial count over the support) and tests "A is better" at ``alpha``.
    ``edge`` labels the curve with the nominal edge (e.g. the lower end of the window passed to
    :meth:`DifferenceDistributions.with_edge`); the sign test's formula curve and
    ``planned_sign_total`` use it (else the mean edge) with the mean informativeness, i.e.
    discordant samples = N × I. Seeded: the same input gives the same curve.
    """
    _check_design(alpha, target_power, "normal")
    if len(distributions) == 0:
        raise ValueError("no distribution of verdict differences to simulate from (the edge "
                         "window holds no model pair; widen it or pick another edge).")
    if simulations < 1:
        raise ValueError("simulations must be at least 1.")
    grid = np.unique(np.asarray(n_values, dtype=np.int64))
    if grid.size == 0 or grid[0] < 1:
        raise ValueError("the sample sizes N must be positive integers.")
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
            progress((j + 1) / grid.size, f"N = {n:,}: {j + 1} of {grid.size} sample sizes")

    if plan_edge is not None and 0 < plan_edge <= 0.5 and mean_info > 0:
        formula = sign_test_power(plan_edge, grid * mean_info, alpha, two_sided, "normal")
        planned = total_samples(sign_test_sample_size(plan_edge, alpha, target_power, two_sided),
                                mean_info)
    else:
        formula = np.full(grid.size, np.nan)
        planned = None

    def se(p: np.ndarray) -> np.ndarray:
        return np.sqrt(p * (1 - p) / simulations)

    frame = pd.concat([
        pd.DataFrame({"n": grid, "test": PowerCurve.WILCOXON, "power": power_w, "mc_se": se(power_w)}),
        pd.DataFrame({"n": grid, "test": PowerCurve.SIGN, "power": power_s, "mc_se": se(power_s)}),
        pd.DataFrame({"n": grid, "test": PowerCurve.SIGN_FORMULA, "power": formula, "mc_se": 0.0}),
    ], ignore_index=True)

    def first(p: np.ndarray) -> int | None:
        hit = np.flatnonzero(p >= target_power)
        return int(grid[hit[0]]) if hit.size else None

    return PowerCurve(
        frame=frame, alpha=alpha, target_power=target_power, two_sided=two_sided,
        simulations=simulations, seed=seed, edge=edge, n_distributions=len(distributions),
        mean_edge=mean_edge, mean_informativeness=mean_info, wilcoxon_n=first(power_w),
        sign_n=first(power_s), planned_sign_total=planned, distributions=table,
    )


# -- 3. what this dataset can detect ---------------------------------------------------------
@dataclass(frozen=True)
class DetectableEdges:
    """For each adjacent pair of the leaderboard (its table order): the smallest edge the sign
    test detects with the data's discordant samples for that pair, and whether it is resolved.

    ``table`` columns: upper, lower (upper is ranked higher), rank_upper, rank_lower,
    rating_gap (Elo points), instructions (where both are defined), discordant (d ≠ 0),
    informativeness (discordant / instructions), upper_wins, lower_wins, observed_edge
    (upper_wins / discordant − 0.5), detectable_edge (at α and power with these discordant
    samples; NaN if none can be detected), p_value (exact binomial sign test, "upper is better";
    two-sided when asked), resolved (p_value < α with the edge on the upper model's side),
    instructions_needed (Table 2's total for the observed edge at this
    pair's informativeness; <NA> when the observed edge is not positive).
    """

    table: pd.DataFrame
    anchor: str | None
    alpha: float
    power: float
    two_sided: bool
    method: str
    n_instructions: int
    informativeness: float  # used for the headline
    informativeness_source: str
    detectable_edge: float  # at n_instructions × informativeness discordant samples
    notes: tuple[str, ...]

    @property
    def n_pairs(self) -> int:
        return len(self.table)

    @property
    def n_resolved(self) -> int:
        return int(self.table["resolved"].sum())

    @property
    def top_pair_resolved(self) -> bool | None:
        """Whether the data separate the two top models (None when there is no pair)."""
        return bool(self.table["resolved"].iloc[0]) if len(self.table) else None

    def as_dict(self) -> dict:
        return {
            "comparison": (f"verdict differences against the anchor {self.anchor}" if self.anchor
                           else "head-to-head verdicts"),
            "anchor": self.anchor,
            "alpha": self.alpha,
            "power": self.power,
            "two_sided": self.two_sided,
            "method": self.method,
            "n_instructions": self.n_instructions,
            "informativeness": self.informativeness,
            "informativeness_source": self.informativeness_source,
            "detectable_edge": self.detectable_edge,
            "n_pairs": self.n_pairs,
            "n_resolved": self.n_resolved,
            "top_pair_resolved": self.top_pair_resolved,
            "pairs": self.table.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def _sign_p_value(wins: np.ndarray, discordant: np.ndarray, two_sided: bool) -> np.ndarray:
    wins = np.asarray(wins, dtype=np.int64)
    m = np.asarray(discordant, dtype=np.int64)
    upper = stats.binom.sf(wins - 1, m, 0.5)
    p = np.minimum(1.0, 2.0 * np.minimum(upper, stats.binom.cdf(wins, m, 0.5))) if two_sided else upper
    return np.where(m > 0, p, np.nan)


def detectable_edges(
    counts: VerdictCounts,
    board: Leaderboard | None = None,
    *,
    anchor: str | None = None,
    informativeness: float | None = None,
    alpha: float = 0.05,
    power: float = 0.8,
    two_sided: bool = False,
    method: str = "normal",
) -> DetectableEdges:
    """What the loaded data can detect (issue 5, item 3; seed 000 §4.3).

    Adjacent pairs come from ``board.table`` (an :class:`evalcore.ranking.Leaderboard`; fitted
    without bootstrap when not given), within one piece of the comparison graph. For each pair,
    the verdict differences d_i (:func:`verdict_differences`: against ``anchor``, or head-to-head
    when ``anchor`` is None) give the discordant samples (d ≠ 0) and who won them; the detectable
    edge is :func:`minimum_detectable_edge` at that many discordant samples. The headline
    ``detectable_edge`` uses N × I discordant samples with N the loaded instructions and I
    ``informativeness`` (e.g. :func:`evalcore.anchors.anchor_informativeness` for the anchor, or
    typed in); without it, the mean informativeness of the adjacent pairs.
    """
    _check_design(alpha, power, method)
    if board is None:
        board = leaderboard(counts, rounds=0)
    if informativeness is not None and not 0.0 < informativeness <= 1.0:
        raise ValueError(f"informativeness must be above 0 and at most 1 (got {informativeness}).")
    table = board.table
    mean = _mean_verdicts(counts)
    if anchor is not None and anchor not in counts.models:
        raise ValueError(f"anchor {anchor!r} is not one of the models in this selection.")
    v = _against(mean, counts.index(anchor)) if anchor is not None else None
    rows, notes = [], []
    skipped = 0
    for k in range(len(table) - 1):
        hi, lo = table.iloc[k], table.iloc[k + 1]
        if hi["piece"] != lo["piece"]:
            skipped += 1
            continue
        upper, lower = str(hi["model"]), str(lo["model"])
        if v is not None:
            d = v[:, counts.index(upper)] - v[:, counts.index(lower)]
        else:
            d = mean[:, counts.index(upper), counts.index(lower)]
        d = np.round(d[~np.isnan(d)], _DECIMALS)
        wins, losses = int((d > 0).sum()), int((d < 0).sum())
        disc = wins + losses
        rows.append({
            "upper": upper, "lower": lower,
            "rank_upper": int(hi["rank"]), "rank_lower": int(lo["rank"]),
            "rating_gap": float(hi["rating"] - lo["rating"]),
            "instructions": int(d.size), "discordant": disc,
            "informativeness": disc / d.size if d.size else math.nan,
            "upper_wins": wins, "lower_wins": losses,
            "observed_edge": wins / disc - 0.5 if disc else math.nan,
            "detectable_edge": minimum_detectable_edge(disc, alpha, power, two_sided, method),
        })
    frame = pd.DataFrame(rows, columns=[
        "upper", "lower", "rank_upper", "rank_lower", "rating_gap", "instructions", "discordant",
        "informativeness", "upper_wins", "lower_wins", "observed_edge", "detectable_edge"])
    frame["p_value"] = _sign_p_value(frame["upper_wins"], frame["discordant"], two_sided)
    frame["resolved"] = ((frame["p_value"] < alpha) & (frame["observed_edge"] > 0)).fillna(False).astype(bool)
    needed = []
    for e, info in zip(frame["observed_edge"], frame["informativeness"], strict=True):
        if np.isfinite(e) and 0 < e <= 0.5 and info > 0:
            needed.append(total_samples(sign_test_sample_size(e, alpha, power, two_sided, method), info))
        else:
            needed.append(math.nan)
    frame["instructions_needed"] = pd.array(
        [None if isinstance(x, float) and math.isnan(x) else int(x) for x in needed], dtype="Int64")

    if skipped:
        notes.append(f"{skipped} adjacent row(s) of the leaderboard sit in different pieces of the "
                     "comparison graph (never compared, even indirectly) and are left out.")
    never = frame.loc[frame["instructions"] == 0]
    if len(never):
        how = "against the anchor " + anchor if anchor else "head-to-head"
        notes.append(f"{len(never)} adjacent pair(s) were never judged {how} on a common "
                     "instruction: nothing can be detected for them"
                     + ("" if anchor else "; pick an anchor they both met") + ".")
    if informativeness is not None:
        info, source = float(informativeness), "given"
    else:
        info = float(frame["informativeness"].mean()) if frame["informativeness"].notna().any() else math.nan
        source = "mean over the adjacent pairs"
    n = counts.n_instructions
    headline = (minimum_detectable_edge(int(math.floor(n * info)), alpha, power, two_sided, method)
                if np.isfinite(info) and info > 0 else math.nan)
    return DetectableEdges(
        table=frame, anchor=anchor, alpha=alpha, power=power, two_sided=two_sided, method=method,
        n_instructions=n, informativeness=info, informativeness_source=source,
        detectable_edge=headline, notes=tuple(notes),
    )
