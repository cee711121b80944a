"""Within-instruction ranking statistics: is the top tied, and does the order agree with a reference.

A selector ranks the candidates of one instruction and keeps the best. **An instruction's top is
tied** when at least two candidates share its highest score, so the selector picks among them at
random; T is the share of such instructions. **Agreement with a reference**, within each
instruction over the n candidates that have both a score and a reference value (n0 = n(n−1)/2
pairs): C − D counts concordant minus discordant pairs, and a pair tied by either side counts in
neither. τa = (C − D)/n0; τb = (C − D)/√((n0 − n1)(n0 − n2)) with n1 judge-tied and n2
reference-tied pairs (undefined when a factor is 0, then left out of the mean); Somers' D =
(C − D)/(n0 − n2); **top-1** is the exact expectation, under uniform tie-breaking, that the
judge's top candidate is a reference top one, |judge top ∩ reference top| / |judge top|. Each is
averaged over instructions. Scores are compared after rounding to 12 decimals, so a float sum
order never splits a tie.

References
----------
Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239–251.
Somers, R. H. (1962). A new asymmetric measure of association for ordinal variables.
*American Sociological Review* 27(6), 799–811.
"The Format is the Filter: Scoring Format Fixes What an LLM Judge Can Express" (2025), §3.3,
Table 1 and Appendix C (worked example: reference a > b > c and a binary judge accepting a and b
give τa = 2/3, τb = 2/√6 ≈ 0.8165 and top-1 = 1/2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.errors import UsageError
from evalcore.ties.levels import SCORE_DECIMALS

# Largest (groups × K × K) block compared at once: bounds the kernel's memory on any table.
_BLOCK = 2_000_000


def _sign_matrix(x: np.ndarray) -> np.ndarray:
    """sign(x[g, a] − x[g, b]) for every group g and candidate pair (a, b); NaN where absent."""
    return np.sign(x[:, :, None] - x[:, None, :])


def within_instruction(score: np.ndarray, reference: np.ndarray | None = None) -> pd.DataFrame:
    """Per-group top-tie and rank-agreement statistics of padded score arrays.

    ``score`` and ``reference`` are (G, K) arrays: row g holds the candidates of one instruction,
    NaN where a slot is empty (a missing candidate, or a missing reference value). Returns one row
    per group with ``candidates``, ``top_size`` (candidates sharing the highest score),
    ``top_tied`` (1.0/0.0; NaN with fewer than two candidates) and, with a reference, ``ranked``
    (candidates with both values), ``pairs`` (n0), ``s`` (C − D), ``judge_tied`` (n1),
    ``reference_tied`` (n2), ``tau_a``, ``tau_b``, ``somers_d``, ``top1`` (exact expectation),
    ``reference_top_size`` and ``uniform_top1`` (the top-1 of a selector that picks uniformly).
    See the module docstring for the definitions.

    Examples
    --------
    The worked example of "The Format is the Filter" (App. C): reference a > b > c, a binary judge
    accepting a and b.

    >>> per = within_instruction(np.array([[1.0, 1.0, 0.0]]), np.array([[3.0, 2.0, 1.0]]))
    >>> [round(float(per.loc[0, k]), 4) for k in ("tau_a", "tau_b", "top1")]
    [0.6667, 0.8165, 0.5]
    """
    s = np.round(np.asarray(score, dtype=np.float64), SCORE_DECIMALS)
    if s.ndim != 2:
        raise UsageError("score must be a (groups, candidates) array")
    r = None if reference is None else np.round(np.asarray(reference, dtype=np.float64), SCORE_DECIMALS)
    if r is not None and r.shape != s.shape:
        raise UsageError("reference must have the same shape as score")
    g, k = s.shape
    present = ~np.isnan(s)
    candidates = present.sum(axis=1)
    top = np.nanmax(np.where(present, s, -np.inf), axis=1, initial=-np.inf)
    top_size = (present & (s == top[:, None])).sum(axis=1)
    out = {
        "candidates": candidates,
        "top_size": top_size,
        "top_tied": np.where(candidates >= 2, (top_size >= 2).astype(float), np.nan),
    }
    if r is None:
        return pd.DataFrame(out)

    both = present & ~np.isnan(r)
    ranked = both.sum(axis=1)
    fields = {name: np.zeros(g) for name in ("pairs", "s", "judge_tied", "reference_tied")}
    upper = np.triu(np.ones((k, k), dtype=bool), 1)
    step = max(1, _BLOCK // max(1, k * k))
    for start in range(0, g, step):  # blocks of instructions, not rows
        sl = slice(start, start + step)
        valid = both[sl, :, None] & both[sl, None, :] & upper
        ds = np.where(valid, _sign_matrix(s[sl]), 0.0)
        dr = np.where(valid, _sign_matrix(r[sl]), 0.0)
        fields["pairs"][sl] = valid.sum(axis=(1, 2))
        fields["s"][sl] = (ds * dr).sum(axis=(1, 2))
        fields["judge_tied"][sl] = (valid & (ds == 0)).sum(axis=(1, 2))
        fields["reference_tied"][sl] = (valid & (dr == 0)).sum(axis=(1, 2))
    n0, sc, n1, n2 = fields["pairs"], fields["s"], fields["judge_tied"], fields["reference_tied"]
    with np.errstate(invalid="ignore", divide="ignore"):
        tau_a = np.where(n0 > 0, sc / n0, np.nan)
        tb_den = (n0 - n1) * (n0 - n2)
        tau_b = np.where(tb_den > 0, sc / np.sqrt(np.where(tb_den > 0, tb_den, 1.0)), np.nan)
        somers = np.where(n0 - n2 > 0, sc / np.where(n0 - n2 > 0, n0 - n2, 1.0), np.nan)
    s_top = np.max(np.where(both, s, -np.inf), axis=1, initial=-np.inf)
    r_top = np.max(np.where(both, r, -np.inf), axis=1, initial=-np.inf)
    judge_top = both & (s == s_top[:, None])
    ref_top = both & (r == r_top[:, None])
    jt, rt = judge_top.sum(axis=1), ref_top.sum(axis=1)
    hit = (judge_top & ref_top).sum(axis=1)
    enough = ranked >= 2
    with np.errstate(invalid="ignore", divide="ignore"):
        top1 = np.where(enough, hit / np.maximum(jt, 1), np.nan)
        uniform = np.where(enough, rt / np.maximum(ranked, 1), np.nan)
    out.update(
        {
            "ranked": ranked,
            "pairs": n0.astype(int),
            "s": sc,
            "judge_tied": n1.astype(int),
            "reference_tied": n2.astype(int),
            "tau_a": np.where(enough, tau_a, np.nan),
            "tau_b": np.where(enough, tau_b, np.nan),
            "somers_d": np.where(enough, somers, np.nan),
            "top1": top1,
            "reference_top_size": np.where(enough, rt, 0),
            "reference_top_tied": np.where(enough, (rt >= 2).astype(float), np.nan),
            "uniform_top1": uniform,
        }
    )
    return pd.DataFrame(out)


@dataclass(frozen=True)
class Agreement:
    """Mean within-instruction agreement of a judge's ranking with a reference ("The Format is the Filter", §3.3)."""

    reference_kind: str
    instructions: int  # instructions with at least two candidates that have a reference value
    tau_a: float
    tau_b: float
    tau_b_instructions: int  # instructions where τb is defined (neither side ties everything)
    somers_d: float
    top1: float
    reference_top_tied: float  # share of instructions whose reference top is tied
    uniform_top1: float  # top-1 of a selector that picks a candidate uniformly at random

    def as_dict(self) -> dict:
        return {
            k: getattr(self, k)
            for k in (
                "reference_kind",
                "instructions",
                "tau_a",
                "tau_b",
                "tau_b_instructions",
                "somers_d",
                "top1",
                "reference_top_tied",
                "uniform_top1",
            )
        }


def _nanmean(x: pd.Series) -> float:
    x = x.dropna()
    return float(x.mean()) if len(x) else float("nan")


def summarise_agreement(per_group: pd.DataFrame, reference_kind: str) -> Agreement:
    """Average the per-instruction statistics of :func:`within_instruction` into an Agreement."""
    used = per_group[per_group["ranked"] >= 2] if "ranked" in per_group else per_group.iloc[:0]
    return Agreement(
        reference_kind=reference_kind,
        instructions=int(len(used)),
        tau_a=_nanmean(used["tau_a"]) if len(used) else float("nan"),
        tau_b=_nanmean(used["tau_b"]) if len(used) else float("nan"),
        tau_b_instructions=int(used["tau_b"].notna().sum()) if len(used) else 0,
        somers_d=_nanmean(used["somers_d"]) if len(used) else float("nan"),
        top1=_nanmean(used["top1"]) if len(used) else float("nan"),
        reference_top_tied=_nanmean(used["reference_top_tied"]) if len(used) else float("nan"),
        uniform_top1=_nanmean(used["uniform_top1"]) if len(used) else float("nan"),
    )
