"""Separation at a glance: every pair's rating difference, its test, and tiers the data can't split.

For each pair of models, the rating difference r_i − r_j with a 95% interval (bootstrap
percentiles of the paired differences, or the delta method on the sandwich covariance) and a
two-sided p-value for "no difference" from the normal approximation with the bootstrap standard
error of the difference (Efron & Tibshirani 1993, ch. 6) or the delta-method standard error
(sandwich). Tail counts of the bootstrap are not used: with R rounds they cannot fall below
1/(R + 1), which a multiplicity correction over many pairs would never reject. The many pairs are tested together: p-values are
adjusted by Holm's step-down method (Holm, "A simple sequentially rejective multiple test
procedure", Scand. J. Statist. 1979), which controls the family-wise error rate, or by
Benjamini–Hochberg (JRSS B 1995), which controls the false-discovery rate.

Tiers walk down the leaderboard: a model opens a new tier when it is separated (adjusted p < α)
from the first model of the current tier; otherwise the data cannot tell it from that tier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from evalcore.errors import UsageError
from evalcore.ranking.leaderboard import Leaderboard
from evalcore.stats.intervals import Z95

if TYPE_CHECKING:  # pandas is imported where a table is made
    import pandas as pd

Correction = Literal["holm", "bh"]
#: Every pair is tested and drawn: beyond this many models the pairs (M²/2) are too many to
#: read or to compute interactively, and the analysis says so instead.
MAX_MODELS = 150
_CONTROL = {"holm": "Holm (family-wise error rate)", "bh": "Benjamini–Hochberg (false-discovery rate)"}


@dataclass(frozen=True, repr=False)
class Separation:
    """Pairwise differences (``pairs``: model_1, model_2 with model_1 rated higher, difference,
    low, high, p_value, p_adjusted, separated) and ``tiers`` (model → tier number, 1 = top)."""

    pairs: pd.DataFrame
    tiers: pd.DataFrame
    alpha: float
    correction: str
    method: str

    @property
    def control(self) -> str:
        return _CONTROL[self.correction]

    def matrix(self, column: str = "difference") -> pd.DataFrame:
        """A model × model view of a pairwise column in leaderboard order (antisymmetric for
        ``difference``; symmetric for p-values)."""
        import pandas as pd

        order = list(self.tiers["model"])
        at = {model: i for i, model in enumerate(order)}
        first = np.array([at[m] for m in self.pairs["model_1"]], dtype=np.intp)
        second = np.array([at[m] for m in self.pairs["model_2"]], dtype=np.intp)
        values = self.pairs[column].to_numpy(dtype=float)
        out = np.full((len(order), len(order)), np.nan)
        # one assignment per triangle, not a labelled write per cell (760 writes took 70 ms of
        # the Leaderboard page's run on the 20-model demo)
        out[first, second] = values
        out[second, first] = -values if column == "difference" else values
        return pd.DataFrame(out, index=order, columns=order)

    def as_dict(self) -> dict:
        return {
            "alpha": self.alpha,
            "multiplicity_control": self.control,
            "interval": self.method,
            "tiers": self.tiers.to_dict(orient="records"),
            "pairs": [
                {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in r.items()}
                for r in self.pairs.to_dict(orient="records")
            ],
        }

    def __repr__(self) -> str:
        return (
            f"Separation({len(self.tiers)} models in {self.tiers['tier'].max()} tiers, "
            f"{int(self.pairs['separated'].sum())} of {len(self.pairs)} pairs separated)"
        )


def adjust_p_values(p: np.ndarray, *, correction: Correction = "holm") -> np.ndarray:
    """Holm or Benjamini–Hochberg adjusted p-values (NaN stays NaN).

    Examples
    --------
    >>> adjust_p_values(np.array([0.01, 0.04, 0.03]), correction="holm").round(3).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_p_values(np.array([0.01, 0.04, 0.03]), correction="bh").round(3).tolist()
    [0.03, 0.04, 0.04]
    """
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    q = p[ok]
    n = q.size
    if n == 0:
        return out
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    if correction == "holm":
        adj = np.maximum.accumulate((n - np.arange(n)) * ranked)
    elif correction == "bh":
        adj = np.minimum.accumulate(n / np.arange(n, 0, -1) * ranked[::-1])[::-1]
    else:
        raise UsageError(f"correction must be 'holm' or 'bh', not {correction!r}.")
    res = np.empty(n)
    res[order] = np.minimum(adj, 1.0)
    out[ok] = res
    return out


def separation(board: Leaderboard, *, alpha: float = 0.05, correction: Correction = "holm") -> Separation:
    """Pairwise rating differences with intervals, multiplicity-adjusted tests, and tiers.

    Parameters
    ----------
    board : Leaderboard
        With bootstrap samples (``rounds > 0``) or sandwich intervals.
    alpha : float, default 0.05
        Family-wise (Holm) or false-discovery (BH) level.
    correction : {"holm", "bh"}

    Returns
    -------
    Separation

    References
    ----------
    Holm (1979); Benjamini & Hochberg (1995); Efron & Tibshirani (1993), ch. 6.
    """
    import pandas as pd

    if not 0 < alpha < 1:
        raise UsageError(f"alpha must be between 0 and 1; got {alpha}.")
    if correction not in _CONTROL:
        raise UsageError(f"correction must be 'holm' or 'bh', not {correction!r}.")
    if len(board.models) > MAX_MODELS:
        raise UsageError(
            f"Every pair is tested for up to {MAX_MODELS} models; this selection has "
            f"{len(board.models):,}. Choose a category or fewer models to see the tiers."
        )
    sandwich = board.interval_method == "sandwich"
    if not sandwich and board.samples.shape[0] < 20:
        raise UsageError(
            "Separation needs bootstrap rounds (at least 20) or sandwich intervals; "
            f"this leaderboard has {board.samples.shape[0]} rounds."
        )
    table = board.table
    order = list(table["model"])
    idx = {m: board.models.index(m) for m in order}
    piece = dict(zip(table["model"], table["piece"], strict=True))
    # At most MAX_MODELS models: the covariance as one small matrix (the many-model leaderboard
    # keeps it as factors, whose every entry costs two solves: 3 × 8,256 solves at 129 models)
    c = np.asarray(board.covariance) if sandwich else None
    rows = []
    for a_pos, m1 in enumerate(order):
        for m2 in order[a_pos + 1 :]:
            i, j = idx[m1], idx[m2]
            diff = float(board.ratings[i] - board.ratings[j])
            if piece[m1] != piece[m2]:
                rows.append((m1, m2, diff, math.nan, math.nan, math.nan))
                continue
            if c is not None:
                se = math.sqrt(max(c[i, i] + c[j, j] - 2 * c[i, j], 0.0))
                low, high = diff - Z95 * se, diff + Z95 * se
                p = math.erfc(abs(diff) / se / math.sqrt(2)) if se > 0 else math.nan
            else:
                d = board.samples[:, i] - board.samples[:, j]
                d = d[np.isfinite(d)]
                if d.size < 20:
                    rows.append((m1, m2, diff, math.nan, math.nan, math.nan))
                    continue
                low, high = (float(x) for x in np.percentile(d, [2.5, 97.5]))
                # The test uses the bootstrap standard error (a normal z-test): tail counts of
                # R rounds cannot go below 1/(R + 1), which Holm over many pairs never rejects.
                se = float(np.std(d, ddof=1))
                p = math.erfc(abs(diff) / se / math.sqrt(2)) if se > 0 else math.nan
            rows.append((m1, m2, diff, low, high, p))
    pairs = pd.DataFrame(rows, columns=["model_1", "model_2", "difference", "low", "high", "p_value"])
    pairs["p_adjusted"] = adjust_p_values(pairs["p_value"].to_numpy(), correction=correction)
    pairs["separated"] = (pairs["p_adjusted"] < alpha).fillna(False).astype(bool)
    separated = {(r.model_1, r.model_2) for r in pairs.itertuples() if r.separated}
    tiers, tier, head = [], 1, None
    for m in order:
        if head is None:
            head = m
        elif (head, m) in separated:
            tier += 1
            head = m
        tiers.append((m, tier))
    method = (
        "delta method on the instruction-clustered sandwich"
        if sandwich
        else f"bootstrap over instructions ({board.samples.shape[0]:,} rounds)"
    )
    return Separation(
        pairs=pairs,
        tiers=pd.DataFrame(tiers, columns=["model", "tier"]),
        alpha=alpha,
        correction=correction,
        method=method,
    )
