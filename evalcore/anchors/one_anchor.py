"""One anchor's ranking of the other models, beside the all-pairs and the human rankings.

The anchor-based ranking ranks the other models by their win rate against the anchor, (wins +
ties/2) / battles (Don-Yehiya et al. 2026, §4.1); beside it, each model's rank in the all-pairs
Bradley–Terry ranking when the table has one, and its rank among the same models in a
human ranking when one is given, with Kendall's tau for each. On an anchor-only table (every model
judged against one reference, as in AlpacaEval and Arena-Hard) this is what there is to show: the
anchor's ranking and its agreement with humans.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import pandas as pd

from evalcore.anchors.common import (
    all_pairs_ratings,
    check_anchor,
    check_tau,
    design,
    human_scores,
    tau_label,
    win_rates,
)
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, deprecated
from evalcore.stats.against import disagreement_totals, orders_per_pair, pooled_wins, verdicts_against
from evalcore.stats.kendall import kendall_tau


@dataclass(frozen=True)
class AnchorRanking:
    """One anchor's ranking of the other models beside the all-pairs ranking.

    ``table`` columns: model, win_rate (against the anchor, ties half), battles, anchor_rank,
    all_pairs_rank (among the same models), rank_shift (all_pairs_rank − anchor_rank: positive
    = the anchor ranks the model higher than all pairs do), all_pairs_rating, and human_rank
    (rank among the same models in the human ranking; <NA> for a model it does not list) when a
    human ranking was given. ``tau_human`` is Kendall's tau of the anchor's ranking with it (NaN
    without one, or with fewer than three models matched). ``has_all_pairs_ranking``: the table has an
    all-pairs ranking (not anchor-only). ``calls_anchor`` are the judge calls against the anchor in this selection, ``calls_total``
    every call; ``design_calls_*`` the cost of each design per instruction and order.
    """

    anchor: str
    judge: str | None
    tau: str
    tau_all_pairs: float
    informativeness: float
    table: pd.DataFrame
    calls_anchor: int
    calls_total: int
    design_calls_anchor: int
    design_calls_all_pairs: int
    tau_human: float = float("nan")
    human_matched: int = 0
    has_all_pairs_ranking: bool = True

    def __repr__(self) -> str:
        return (
            f"AnchorRanking(anchor={self.anchor!r}, {len(self.table)} models, "
            f"tau_all_pairs={self.tau_all_pairs:.3f})"
        )

    @property
    def tau_quadratic(self) -> float:
        """Deprecated name of :attr:`tau_all_pairs` (removed in 0.4)."""
        deprecated("AnchorRanking.tau_quadratic", "AnchorRanking.tau_all_pairs")
        return self.tau_all_pairs

    @property
    def cost_share(self) -> float:
        """The anchor design's judge calls as a share of all pairs': (M − 1) / C(M, 2)."""
        return self.design_calls_anchor / self.design_calls_all_pairs

    def as_dict(self) -> dict:
        return {
            "anchor": self.anchor,
            "judge": self.judge,
            "tau": tau_label(self.tau),
            "tau_all_pairs": self.tau_all_pairs,
            "tau_human": self.tau_human,
            "human_models_matched": self.human_matched,
            "has_all_pairs_ranking": self.has_all_pairs_ranking,
            "informativeness": self.informativeness,
            "calls_anchor": self.calls_anchor,
            "calls_total": self.calls_total,
            "design_calls_anchor_per_instruction": self.design_calls_anchor,
            "design_calls_all_pairs_per_instruction": self.design_calls_all_pairs,
            "cost_share": self.cost_share,
            "models": self.table.to_dict(orient="records"),
        }


def anchor_ranking(
    counts: VerdictCounts, anchor: str, *, tau: str = "b", human_ranking: pd.DataFrame | None = None
) -> AnchorRanking:
    """The anchor-based ranking of one anchor (win rate against it) with rank shifts, and its
    agreement with a human ranking when one is given.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    anchor : str
        The anchor model.
    tau : {"b", "a"}
        Kendall's tau variant.
    human_ranking : DataFrame, optional
        Columns model, score (higher is better): adds ``human_rank`` and ``tau_human``.

    Returns
    -------
    AnchorRanking

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §4.1.

    Examples
    --------
    >>> c = VerdictCounts.from_cells(models=("x", "m1", "m2"), instructions=("q",), judge=None,
    ...     inst=[0, 0], a=[1, 2], b=[0, 0], n=[[0, 0, 0, 1, 0], [0, 1, 0, 0, 0]])
    >>> anchor_ranking(c, "x").table[["model", "win_rate"]].values.tolist()
    [['m1', 1.0], ['m2', 0.0]]
    """
    check_tau(tau)
    a = check_anchor(counts, anchor)
    models = counts.models
    m = len(models)
    wins = pooled_wins(counts)
    kind, _ = design(wins, models)
    rates = win_rates(wins)[a]
    battles = (wins + wins.T)[a]
    keep = np.isfinite(rates)
    keep[a] = False
    if keep.sum() < 1:
        raise UsageError(f"{anchor} has no battles with another model in this selection.")
    has_all_pairs_ranking = kind != "anchor-only" and m >= 3
    rating = all_pairs_ratings(wins, models) if has_all_pairs_ranking else np.full(m, np.nan)
    idx = np.flatnonzero(keep)
    table = pd.DataFrame(
        {
            "model": [models[i] for i in idx],
            "win_rate": rates[idx],
            "battles": battles[idx],
            "all_pairs_rating": rating[idx],
        }
    )
    table["anchor_rank"] = table["win_rate"].rank(ascending=False, method="min").astype(int)
    if has_all_pairs_ranking:
        table["all_pairs_rank"] = table["all_pairs_rating"].rank(ascending=False, method="min").astype(int)
        table["rank_shift"] = table["all_pairs_rank"] - table["anchor_rank"]
        tau_q = float(
            kendall_tau(table["win_rate"].to_numpy(), table["all_pairs_rating"].to_numpy(), variant=tau)
        )
    else:
        table["all_pairs_rank"] = pd.array([pd.NA] * len(table), dtype="Int64")
        table["rank_shift"] = pd.array([pd.NA] * len(table), dtype="Int64")
        tau_q = float("nan")
    table = (
        table[
            [
                "model",
                "win_rate",
                "battles",
                "anchor_rank",
                "all_pairs_rank",
                "rank_shift",
                "all_pairs_rating",
            ]
        ]
        .sort_values(["anchor_rank", "model"], kind="stable")
        .reset_index(drop=True)
    )
    tau_h, matched = float("nan"), 0
    human = human_scores(models, human_ranking)
    if human is not None:
        scores = human[idx]
        matched = int(np.isfinite(scores).sum())
        order = pd.Series(scores, index=[models[i] for i in idx]).rank(ascending=False, method="min")
        table["human_rank"] = pd.array(
            [None if pd.isna(order[m]) else int(order[m]) for m in table["model"]], dtype="Int64"
        )
        if matched >= 3:  # a rank correlation over fewer than three models says nothing
            aligned = pd.Series(scores, index=[models[i] for i in idx])[table["model"]].to_numpy()
            tau_h = float(kendall_tau(table["win_rate"].to_numpy(), aligned, variant=tau))
    entries = verdicts_against(counts, only=a).of(a)
    d, p = disagreement_totals(entries)
    orders = orders_per_pair(counts)
    return AnchorRanking(
        anchor=anchor,
        judge=counts.judge,
        tau=tau,
        tau_all_pairs=tau_q,
        informativeness=float(d / p) if p else float("nan"),
        table=table,
        calls_anchor=int(entries.calls.sum()),
        calls_total=counts.calls,
        design_calls_anchor=(m - 1) * orders,
        design_calls_all_pairs=comb(m, 2) * orders,
        tau_human=tau_h,
        human_matched=matched,
        has_all_pairs_ranking=has_all_pairs_ranking,
    )
