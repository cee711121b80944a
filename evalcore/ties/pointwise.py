"""Tie structure of pointwise score tables, per format and judge.

A pointwise judge scores each candidate alone (binary, Likert-5, 0–100 …). Per format and judge
this module reports the parse rate, the score distribution's tie probability Σp², effective levels
D1 and D2 and distinct values, the share T of instructions whose top score is tied, and, with a
``reference`` column, the global Spearman correlation and the mean within-instruction τa, τb,
Somers' D and top-1 (see :mod:`evalcore.ties.within`).

References
----------
"The Format is the Filter: Scoring Format Fixes What an LLM Judge Can Express" (2025), Tables 1,
5 and 9.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from evalcore.errors import UsageError
from evalcore.ties.levels import SCORE_DECIMALS
from evalcore.ties.within import within_instruction

#: Columns of :func:`pointwise_tie_structure` that describe structure (no reference needed).
STRUCTURE_COLUMNS: tuple[str, ...] = ("tie_probability", "d1", "d2", "distinct", "top_tied")
#: Columns that need the ``reference`` column.
AGREEMENT_COLUMNS: tuple[str, ...] = ("spearman", "tau_b", "tau_a", "somers_d", "top1")


def _padded(frame: pd.DataFrame, keys: list[str]) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
    """Lay candidates out as (groups, K) arrays, one group per ``keys`` value."""
    frame = frame.sort_values(keys, kind="stable")
    group = frame.groupby(keys, sort=False, observed=True).ngroup().to_numpy()
    slot = frame.groupby(keys, sort=False, observed=True).cumcount().to_numpy()
    n_groups = int(group.max()) + 1 if len(group) else 0
    k = int(slot.max()) + 1 if len(slot) else 0
    s = np.full((n_groups, k), np.nan)
    r = np.full((n_groups, k), np.nan)
    s[group, slot] = frame["score"].to_numpy(dtype=np.float64)
    if "reference" in frame.columns:
        r[group, slot] = frame["reference"].to_numpy(dtype=np.float64)
    heads = frame.drop_duplicates(keys)[keys].reset_index(drop=True)
    return heads, s, r


def pointwise_levels(scores: pd.DataFrame) -> pd.DataFrame:
    """The score distribution per format and judge: format, judge, score, count, share."""
    scored = scores.dropna(subset=["score"])
    out = scored.groupby(["format", "judge", "score"], observed=True).size().rename("count").reset_index()
    out["share"] = out["count"] / out.groupby(["format", "judge"], observed=True)["count"].transform("sum")
    return out


def pointwise_tie_structure(
    scores: pd.DataFrame, *, nominal_levels: Mapping[str, int] | None = None
) -> pd.DataFrame:
    """Scoring-stage diagnostics per format and judge ("The Format is the Filter", Tables 1, 5, 9).

    ``scores`` is a validated pointwise table (:func:`evalcore.ingest.pointwise.validate_pointwise`):
    ``instruction_id, candidate, judge, format, score[, reference]``; a missing score is a call
    that returned nothing (counted in ``parse_rate``, left out of everything else). Returns one row
    per (format, judge) with ``rows``, ``scored``, ``parse_rate``, ``instructions`` (with ≥ 2 scored
    candidates), ``distinct``, ``tie_probability`` (Σp² over the score distribution), ``d1``,
    ``d2``, ``top_tied`` (T), and, when a ``reference`` column is present, ``spearman`` (global
    Spearman over all candidates), ``tau_b``, ``tau_a``, ``somers_d``, ``top1`` (means over
    instructions), ``reference_top_tied`` and ``uniform_top1``. ``nominal_levels`` (format →
    number of levels the format offers, e.g. 2, 5, 101) adds ``nominal`` and ``d2_per_nominal``.
    """
    keys = ["format", "judge"]
    frame = scores.copy()
    frame["score"] = pd.to_numeric(frame["score"], errors="coerce").round(SCORE_DECIMALS)
    has_ref = "reference" in frame.columns and frame["reference"].notna().any()
    rows = frame.groupby(keys, observed=True).size().rename("rows")
    scored = frame.dropna(subset=["score"])
    if scored.empty:
        raise UsageError("scores: no row has a score")
    levels = pointwise_levels(scored)
    levels["p2"] = levels["share"] ** 2
    levels["plogp"] = levels["share"] * np.log(levels["share"])
    agg = levels.groupby(keys, observed=True).agg(
        scored=("count", "sum"),
        distinct=("count", "size"),
        tie_probability=("p2", "sum"),
        neg_h=("plogp", "sum"),
    )
    agg["d1"] = np.exp(-agg.pop("neg_h"))
    agg["d2"] = 1.0 / agg["tie_probability"]
    table = pd.concat([rows, agg], axis=1).reset_index()
    table["scored"] = table["scored"].fillna(0).astype(int)
    table["parse_rate"] = table["scored"] / table["rows"]

    cols = keys + ["instruction_id", "score"] + (["reference"] if has_ref else [])
    heads, s, r = _padded(scored[cols], keys + ["instruction_id"])
    per = within_instruction(s, r if has_ref else None)
    per = pd.concat([heads, per], axis=1)
    multi = per[per["candidates"] >= 2]
    cell = multi.groupby(keys, observed=True).agg(
        instructions=("candidates", "size"), top_tied=("top_tied", "mean")
    )
    table = table.merge(cell.reset_index(), on=keys, how="left")
    table["instructions"] = table["instructions"].fillna(0).astype(int)
    if has_ref:
        ranked = per[per["ranked"] >= 2]
        agree = ranked.groupby(keys, observed=True).agg(
            ranked_instructions=("ranked", "size"),
            tau_b=("tau_b", "mean"),
            tau_a=("tau_a", "mean"),
            somers_d=("somers_d", "mean"),
            top1=("top1", "mean"),
            reference_top_tied=("reference_top_tied", "mean"),
            uniform_top1=("uniform_top1", "mean"),
        )
        both = scored.dropna(subset=["reference"])
        spear = {}
        for key, part in both.groupby(keys, observed=True):  # one call per cell, not per row
            ok = len(part) >= 3 and part["score"].nunique() > 1 and part["reference"].nunique() > 1
            spear[key] = float(spearmanr(part["score"], part["reference"]).statistic) if ok else np.nan
        agree["spearman"] = pd.Series(spear)
        table = table.merge(agree.reset_index(), on=keys, how="left")
        table["ranked_instructions"] = table["ranked_instructions"].fillna(0).astype(int)
    if nominal_levels:
        table["nominal"] = table["format"].map(dict(nominal_levels)).astype("float64")
        table["d2_per_nominal"] = table["d2"] / table["nominal"]
    order = [
        "format",
        "judge",
        "rows",
        "scored",
        "parse_rate",
        "instructions",
        "distinct",
        "tie_probability",
        "d1",
        "d2",
        "top_tied",
    ]
    if has_ref:
        order += [
            "ranked_instructions",
            "spearman",
            "tau_b",
            "tau_a",
            "somers_d",
            "top1",
            "reference_top_tied",
            "uniform_top1",
        ]
    if nominal_levels:
        order += ["nominal", "d2_per_nominal"]
    return table[order].sort_values(keys, kind="stable").reset_index(drop=True)
