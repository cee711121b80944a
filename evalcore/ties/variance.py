"""Variance shares: does the scoring format or the judge set each diagnostic?

Over a complete format × judge grid with one value per cell, the sum of squares of a diagnostic
splits into format, judge and residual parts (two-way ANOVA without replication; the residual
absorbs the interaction). Leaving each judge out in turn shows whether one judge drives a share.

References
----------
Scheffé, H. (1959). *The Analysis of Variance*. Wiley, ch. 4 (two-way layout, one observation
per cell).
"The Format is the Filter: Scoring Format Fixes What an LLM Judge Can Express" (2025), §3.1,
Tables 2 and 6.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.errors import UsageError
from evalcore.text import fmt_count, fmt_list
from evalcore.ties.pointwise import pointwise_tie_structure

#: Diagnostics decomposed by default, in the order of Table 2 of "The Format is the Filter" (those present are used).
SHARE_DIAGNOSTICS: tuple[str, ...] = (
    "tie_probability",
    "distinct",
    "d2_per_nominal",
    "d1",
    "d2",
    "top_tied",
    "spearman",
    "tau_b",
    "tau_a",
    "somers_d",
    "top1",
)


@dataclass(frozen=True)
class VarianceShares:
    """Format, judge and residual shares of each diagnostic's sum of squares ("The Format is the Filter", Table 2).

    ``table`` has one row per diagnostic: ``format_share``, ``judge_share``, ``residual_share``
    (fractions summing to 1) and ``total_ss``. ``notes`` say which diagnostics were left out and why.
    """

    formats: tuple[str, ...]
    judges: tuple[str, ...]
    table: pd.DataFrame
    notes: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "formats": list(self.formats),
            "judges": list(self.judges),
            "shares": self.table.to_dict(orient="records"),
            "notes": list(self.notes),
        }


def _two_way_shares(grid: np.ndarray) -> tuple[float, float, float, float]:
    """Two-way ANOVA without replication on a (formats, judges) grid → shares and total SS."""
    grand = grid.mean()
    n_f, n_j = grid.shape
    ss_total = float(((grid - grand) ** 2).sum())
    ss_format = float(n_j * ((grid.mean(axis=1) - grand) ** 2).sum())
    ss_judge = float(n_f * ((grid.mean(axis=0) - grand) ** 2).sum())
    if ss_total <= 1e-24:
        return float("nan"), float("nan"), float("nan"), 0.0
    return (
        ss_format / ss_total,
        ss_judge / ss_total,
        max(0.0, ss_total - ss_format - ss_judge) / ss_total,
        ss_total,
    )


def variance_shares(
    scores: pd.DataFrame, *, diagnostics: Sequence[str] | None = None, without_judges: Sequence[str] = ()
) -> VarianceShares:
    """Decompose each diagnostic over the format × judge grid ("The Format is the Filter", §3.1, Table 2).

    ``scores`` is either a raw pointwise table (it has a ``score`` column; its diagnostics are
    computed with :func:`pointwise_tie_structure`) or a per-cell table with ``format``, ``judge``
    and one column per diagnostic (one row per cell). ``without_judges`` drops judges first (the
    paper's leave-one-judge-out columns). A diagnostic needs a value in every cell of a grid with at
    least two formats and two judges; otherwise it is left out and a note says why.

    Examples
    --------
    >>> cells = pd.DataFrame({"format": ["binary", "binary", "likert", "likert"],
    ...                       "judge": ["x", "y", "x", "y"], "d2": [1.5, 1.7, 3.5, 3.7]})
    >>> row = variance_shares(cells).table.iloc[0]
    >>> round(float(row["format_share"]), 3), round(float(row["judge_share"]), 3)
    (0.99, 0.01)
    """
    cells = pointwise_tie_structure(scores) if "score" in scores.columns else scores
    cells = cells[~cells["judge"].isin(list(without_judges))]
    formats = tuple(dict.fromkeys(cells["format"].astype(str)))
    judges = tuple(dict.fromkeys(cells["judge"].astype(str)))
    wanted = [d for d in (diagnostics or SHARE_DIAGNOSTICS) if d in cells.columns]
    notes: list[str] = []
    rows = []
    if len(formats) < 2 or len(judges) < 2:
        notes.append(
            f"Variance shares need at least two formats and two judges; this table has "
            f"{fmt_count(len(formats), 'format')} and {fmt_count(len(judges), 'judge')}."
        )
        wanted = []
    if cells.duplicated(["format", "judge"]).any():
        raise UsageError("scores: the per-cell table has more than one row for a format and judge")
    for name in wanted:
        pivot = cells.pivot(index="format", columns="judge", values=name)
        pivot = pivot.reindex(index=list(formats), columns=list(judges)).astype("float64")
        if pivot.isna().any().any():
            missing = [f"{f}/{j}" for f in formats for j in judges if pd.isna(pivot.loc[f, j])]
            notes.append(f"{name}: left out, no value for " + fmt_list(missing))
            continue
        f_share, j_share, res, ss = _two_way_shares(pivot.to_numpy())
        if ss == 0.0:
            notes.append(f"{name}: identical in every cell, nothing to decompose")
        rows.append(
            {
                "diagnostic": name,
                "format_share": f_share,
                "judge_share": j_share,
                "residual_share": res,
                "total_ss": ss,
            }
        )
    table = pd.DataFrame(
        rows, columns=["diagnostic", "format_share", "judge_share", "residual_share", "total_ss"]
    )
    return VarianceShares(formats=formats, judges=judges, table=table, notes=tuple(notes))


def leave_one_judge_out(scores: pd.DataFrame, *, diagnostics: Sequence[str] | None = None) -> pd.DataFrame:
    """Variance shares with each judge removed in turn ("The Format is the Filter", Table 6): tidy rows of
    ``judge_removed, diagnostic, format_share, judge_share, residual_share``."""
    cells = pointwise_tie_structure(scores) if "score" in scores.columns else scores
    frames = []
    for judge in dict.fromkeys(cells["judge"].astype(str)):
        shares = variance_shares(cells, diagnostics=diagnostics, without_judges=[judge]).table
        frames.append(shares.assign(judge_removed=judge))
    if not frames:
        return pd.DataFrame(
            columns=[
                "judge_removed",
                "diagnostic",
                "format_share",
                "judge_share",
                "residual_share",
                "total_ss",
            ]
        )
    out = pd.concat(frames, ignore_index=True)
    return out[["judge_removed", "diagnostic", "format_share", "judge_share", "residual_share", "total_ss"]]
