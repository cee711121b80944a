"""Anchor selection: per-anchor rankings, informativeness, pilot screening, sweeps and a planner.

Definitions (seed 000, "Mediocrity is the key for LLM as a Judge Anchor Selection", §4–§6 and
App. B–F; ``shared/notes/DEFINITIONS.md``, "Anchors" and "Verdicts and win rates"):

- The **quadratic ranking** is the Bradley–Terry fit on all battles (ties half a win each,
  both slots pooled; :mod:`evalcore.ranking`).
- The **anchor-based ranking** for anchor A ranks the other models by their win rate against A,
  (wins + ties/2) / battles. On battles against a single anchor, Bradley–Terry ratings are a
  monotone function of this win rate (r = 400/ln10 · logit(win rate)), so both rank alike.
- **Kendall's tau** of an anchor-based ranking is taken with the quadratic ranking (and with a
  human ranking when one is loaded) on the models other than the anchor. tau-b by default
  (scipy's ``kendalltau``); tau-a counts tied pairs as neither concordant nor discordant and
  divides by all pairs.
- **Informativeness** I(p, A) (seed 000 §4.3): over instructions i and unordered pairs {a, b} of
  models other than A, the share with v(i, a) ≠ v(i, b), where v(i, m) is model m's verdict
  against A on the judge's full scale, read from m's point of view. When a model has more than
  one call against the anchor on an instruction (both orders, or repeats), v(i, m) is **the mean
  of its calls** (each read from the model's point of view); pairs are compared exactly (as
  fractions). A pair counts only on instructions where both models have a verdict against A.
- The **3-level ceiling**: with verdicts that are wins or losses decided by a strict strength
  order (transitivity, no ties with the anchor), an instruction splits the M other models into
  those above and those below the anchor, so at most ⌊M/2⌋·⌈M/2⌉ of the C(M, 2) pairs differ
  (0.524 for M = 21, → 0.5 as M grows; the paper's bound 0.5). Ties with the anchor make a third
  group and lift the ceiling to C(M, 2) − Σ_g C(n_g, 2) with three near-equal groups (0.7 for
  M = 21); magnitude (5 levels) lifts it further.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Mapping

import numpy as np
import pandas as pd

from evalcore.progress import Progress
from evalcore.ranking import (
    comparison_graph,
    fit_bradley_terry,
    pairwise_wins,
    ranks_descending,
    to_elo,
)
from evalcore.schema import LEVELS
from evalcore.store import VerdictCounts, classify_design

#: The prior (virtual tie games against an average player) that keeps resampled fits finite
#: when a resample leaves a model without a loss or without a win (as in ``leaderboard``).
_RESAMPLE_PRIOR = 0.01


class NeedsAllPairs(ValueError):
    """An analysis that needs every model judged against every other model (all pairs)."""


# --------------------------------------------------------------------------------------------
# Kendall's tau, batched
# --------------------------------------------------------------------------------------------
from evalcore.stats.kendall import kendall_tau  # noqa: E402,F401  (moved; one place)


def _tau_label(variant: str) -> str:
    return "tau-b" if variant == "b" else "tau-a"


# --------------------------------------------------------------------------------------------
# Battles against an anchor
# --------------------------------------------------------------------------------------------
def verdicts_against(counts: VerdictCounts) -> tuple[np.ndarray, np.ndarray]:
    """Every model's verdicts against every possible anchor, from the model's point of view.

    Returns ``(total, calls)``, both int64 of shape (I, M, M): ``total[i, m, A]`` is the sum of
    model m's verdicts (−2..+2, m's point of view) over its calls against anchor A on instruction
    i, both slots pooled, and ``calls[i, m, A]`` their number. v(i, m) = total / calls is the
    mean verdict used by informativeness (module docstring).
    """
    c = counts.counts.astype(np.int64)
    levels = np.asarray(LEVELS, dtype=np.int64)
    as_first = c @ levels  # m in slot A against A in slot B: already m's point of view
    n_first = c.sum(axis=-1)
    total = as_first - np.swapaxes(as_first, 1, 2)  # m in slot B: the slot-A verdict negated
    calls = n_first + np.swapaxes(n_first, 1, 2)
    return total, calls


def _pair_disagreements(total: np.ndarray, calls: np.ndarray,
                        mask: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Differing and comparable model pairs, per leading index, for one anchor.

    ``total`` and ``calls`` are (..., M): each model's summed verdict and number of calls
    against the anchor. Two models differ when their mean verdicts differ (compared exactly as
    fractions). ``mask`` (broadcastable to (..., M)) keeps only some models as competitors.
    """
    m = total.shape[-1]
    valid = calls > 0
    if mask is not None:
        valid = valid & mask
    upper = np.triu(np.ones((m, m), dtype=bool), 1)
    both = valid[..., :, None] & valid[..., None, :] & upper
    equal = total[..., :, None] * calls[..., None, :] == total[..., None, :] * calls[..., :, None]
    pairs = both.sum(axis=(-2, -1))
    differ = (both & ~equal).sum(axis=(-2, -1))
    return differ, pairs


def _informativeness_all(total: np.ndarray, calls: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(differing, comparable) (instruction, pair) cases for every anchor: two (M,) arrays."""
    m = total.shape[1]
    differ = np.zeros(m, dtype=np.int64)
    pairs = np.zeros(m, dtype=np.int64)
    for a in range(m):  # a loop over anchors (22), each one vectorised over instructions × pairs
        d, p = _pair_disagreements(total[:, :, a], calls[:, :, a])
        differ[a] = d.sum()
        pairs[a] = p.sum()
    return differ, pairs


def anchor_informativeness(counts: VerdictCounts, anchor: str) -> float:
    """I(p, A) of one anchor on the judge's full verdict scale (seed 000 §4.3; module docstring).

    NaN when no instruction has two models judged against the anchor.
    """
    if anchor not in counts.models:
        raise ValueError(f"{anchor!r} is not one of the models of this selection")
    total, calls = verdicts_against(counts)
    a = counts.index(anchor)
    d, p = _pair_disagreements(total[:, :, a], calls[:, :, a])
    return float(d.sum() / p.sum()) if p.sum() else float("nan")


def informativeness_ceiling(n_competitors: int, *, ties: bool = False) -> float:
    """The largest I(p, A) that 3-level verdicts following a strict order can reach.

    Without ties against the anchor (every model above or below it): ⌊M/2⌋·⌈M/2⌉ / C(M, 2)
    (DEFINITIONS.md, "Anchors"). With ties allowed as a third group (models level with the
    anchor): C(M, 2) minus the same-verdict pairs of three near-equal groups. M is the number
    of models ranked against the anchor.
    """
    m = int(n_competitors)
    if m < 2:
        return float("nan")
    if not ties:
        return (m // 2) * (m - m // 2) / comb(m, 2)
    groups = [m // 3 + (1 if k < m % 3 else 0) for k in range(3)]
    return (comb(m, 2) - sum(comb(g, 2) for g in groups)) / comb(m, 2)


# --------------------------------------------------------------------------------------------
# The quadratic ranking and the design
# --------------------------------------------------------------------------------------------
def _design(wins: np.ndarray, models: tuple[str, ...]) -> tuple[str, str | None]:
    """all pairs / anchor-only / partial, from the pooled wins matrix (evalcore.store's rule)."""
    battles = wins + wins.T
    a, b = np.nonzero(np.triu(battles > 0, 1))
    pairs = pd.DataFrame({"model_1": [models[i] for i in a], "model_2": [models[j] for j in b]})
    return classify_design(models, pairs)


def _quadratic(wins: np.ndarray, models: tuple[str, ...]) -> np.ndarray:
    """Bradley–Terry Elo ratings on all battles (a weak prior only where the MLE is infinite)."""
    graph = comparison_graph(wins, models)
    theta, _ = fit_bradley_terry(wins, prior_games=0.0 if graph.mle_exists else 1.0)
    return to_elo(theta)


def _win_rates(wins: np.ndarray) -> np.ndarray:
    """rate[..., A, m]: model m's win rate against anchor A (NaN where they never met)."""
    w = np.asarray(wins, dtype=np.float64)
    against = np.swapaxes(w, -1, -2)  # against[..., A, m] = wins of m over A
    games = w + against
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, against / np.where(games > 0, games, 1.0), np.nan)


def _human_scores(models: tuple[str, ...], human_ranking: pd.DataFrame | None) -> np.ndarray | None:
    """Human scores in the order of ``models`` (NaN for a model the ranking does not list)."""
    if human_ranking is None or len(human_ranking) == 0:
        return None
    frame = human_ranking.rename(columns={c: str(c).strip().lower() for c in human_ranking.columns})
    lookup = dict(zip(frame["model"].astype(str), pd.to_numeric(frame["score"], errors="coerce"), strict=True))
    return np.array([lookup.get(m, np.nan) for m in models], dtype=np.float64)


def _r2(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Slope, intercept and R² of the least-squares line y = slope·x + intercept."""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 3 or np.ptp(x) == 0:
        return float("nan"), float("nan"), float("nan")
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    tss = ((y - y.mean()) ** 2).sum()
    r2 = 1.0 - (resid ** 2).sum() / tss if tss > 0 else float("nan")
    return float(slope), float(intercept), float(r2)


# --------------------------------------------------------------------------------------------
# The per-anchor sweep (items 1–3)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorSweep:
    """Every model taken as the anchor: its position, its taus and its informativeness.

    ``table`` columns: anchor, position (1 = strongest in the quadratic ranking; NaN when there
    is no quadratic ranking), quadratic_rating (Elo scale), tau_quadratic, tau_human,
    informativeness, models_ranked (models with battles against the anchor), calls (judge calls
    against it), no_model_wins_share (share of instructions on which no model beats it).
    ``quadratic`` lists model, rating, position. ``recommended`` is the most informative anchor
    (seed 000 §5.3, §6: choose the anchor with the most informative samples), ties broken by
    tau_quadratic. ``fit_*`` is the linear fit of tau_quadratic on informativeness (Fig. 3).
    """

    judge: str | None
    models: tuple[str, ...]
    n_instructions: int
    design: str
    tau: str
    table: pd.DataFrame
    quadratic: pd.DataFrame | None
    recommended: str | None
    quadratic_tau_human: float
    human_models_matched: int
    ceiling_3_level: float
    fit_slope: float
    fit_intercept: float
    fit_r2: float
    notes: tuple[str, ...]

    @property
    def has_quadratic(self) -> bool:
        return self.quadratic is not None

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "n_models": len(self.models),
            "n_instructions": self.n_instructions,
            "design": self.design,
            "tau": _tau_label(self.tau),
            "informativeness_definition": (
                "share of (instruction, model pair) cases, anchor excluded, whose verdicts "
                "against the anchor differ on the judge's full scale; a model's verdict is the "
                "mean of its calls (seed 000 §4.3)"),
            "recommended": self.recommended,
            "recommended_by": "highest informativeness (ties: higher tau_quadratic)",
            "quadratic_tau_human": self.quadratic_tau_human,
            "human_models_matched": self.human_models_matched,
            "ceiling_3_level": self.ceiling_3_level,
            "fit": {"slope": self.fit_slope, "intercept": self.fit_intercept, "r2": self.fit_r2},
            "notes": list(self.notes),
            "anchors": self.table.to_dict(orient="records"),
            "quadratic": (self.quadratic.to_dict(orient="records")
                          if self.quadratic is not None else None),
        }


def anchor_sweep(counts: VerdictCounts, *, human_ranking: pd.DataFrame | None = None,
                 tau: str = "b") -> AnchorSweep:
    """Each model as the anchor: tau with the quadratic and human rankings, informativeness.

    Seed 000 §4.1 (Table 1, Fig. 1: tau against the anchor's position), §4.3 (informativeness,
    Fig. 3: tau against informativeness, R² of the linear fit). Works on any design: on an
    anchor-only table only the anchor can serve as an anchor and there is no quadratic ranking
    (tau_quadratic is NaN, said in ``notes``).
    """
    if tau not in ("a", "b"):
        raise ValueError("tau must be 'a' or 'b'")
    if counts.n_models < 2 or counts.n_instructions == 0:
        raise ValueError("Anchor analysis needs verdicts between at least two different models; "
                         f"this selection has {counts.n_models} model(s) and "
                         f"{counts.n_instructions} instruction(s) with a verdict.")
    models = counts.models
    m = len(models)
    wins = pairwise_wins(counts).sum(axis=0)
    design, only_anchor = _design(wins, models)
    total, calls = verdicts_against(counts)
    differ, pairs = _informativeness_all(total, calls)
    with np.errstate(invalid="ignore", divide="ignore"):
        info = np.where(pairs > 0, differ / np.where(pairs > 0, pairs, 1), np.nan)
    rates = _win_rates(wins)  # (A, m)
    met = np.isfinite(rates)
    models_ranked = met.sum(axis=1)
    candidates = models_ranked >= 2
    notes: list[str] = []

    quadratic = None
    rating = np.full(m, np.nan)
    position = np.full(m, np.nan)
    if design != "anchor-only" and m >= 3:
        rating = _quadratic(wins, models)
        position = ranks_descending(rating).astype(float)
        notes.extend(comparison_graph(wins, models).notes(models))
        quadratic = pd.DataFrame({"model": list(models), "rating": rating,
                                  "position": position.astype(int)}
                                 ).sort_values("position", kind="stable").reset_index(drop=True)
        if design == "partial":
            notes.append("Not every pair of models was judged: the 'quadratic' ranking is the "
                         "Bradley–Terry fit on the pairs that were, not a full all-pairs ranking.")
    else:
        notes.append(
            "This table compares every model with one anchor"
            + (f" ({only_anchor})" if only_anchor else "")
            + ": there is no all-pairs (quadratic) ranking to compare with, and no other model "
            "can serve as an anchor. The anchor's own ranking, informativeness and win-rate "
            "distribution still apply; the per-anchor comparison needs an all-pairs table.")

    anchor_scores = np.where(np.eye(m, dtype=bool), np.nan, rates)  # (A, m): the anchor left out
    tau_q = (kendall_tau(anchor_scores, rating[None, :], variant=tau)
             if quadratic is not None else np.full(m, np.nan))
    # A rank correlation over fewer than three models says nothing (two models give ±1).
    tau_q = np.where(models_ranked >= 3, tau_q, np.nan)
    human = _human_scores(models, human_ranking)
    tau_h = np.full(m, np.nan)
    quadratic_tau_human = float("nan")
    matched = 0
    if human is not None:
        matched = int(np.isfinite(human).sum())
        if matched >= 3:
            tau_h = kendall_tau(anchor_scores, human[None, :], variant=tau)
            # An anchor-based ranking with fewer than three models matched says nothing.
            enough = (np.isfinite(anchor_scores) & np.isfinite(human)[None, :]).sum(axis=1) >= 3
            tau_h = np.where(enough, tau_h, np.nan)
            if quadratic is not None:
                quadratic_tau_human = float(kendall_tau(rating, human, variant=tau))
        else:
            notes.append(f"The human ranking names only {matched} of these models: at least "
                         "three are needed for a rank correlation.")
        missing = [x for x, h in zip(models, human, strict=True) if not np.isfinite(h)]
        if missing and matched >= 3:
            notes.append(f"The human ranking does not list {len(missing)} model(s) "
                         f"({', '.join(missing[:5])}{'…' if len(missing) > 5 else ''}): "
                         "tau_human uses the models it lists.")

    # Share of instructions on which no model beats the anchor (mean verdict > 0).
    judged = (calls > 0).sum(axis=1)  # (I, A): models judged against A on instruction i
    beats = ((total > 0) & (calls > 0)).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        inst_with = (judged >= 1).sum(axis=0)
        no_win = ((beats == 0) & (judged >= 1)).sum(axis=0) / np.where(inst_with > 0, inst_with, 1)
    table = pd.DataFrame({
        "anchor": list(models),
        "position": position,
        "quadratic_rating": rating,
        "tau_quadratic": tau_q,
        "tau_human": tau_h,
        "informativeness": info,
        "models_ranked": models_ranked.astype(int),
        "calls": calls.sum(axis=(0, 1)).astype(np.int64),
        "no_model_wins_share": np.where(inst_with > 0, no_win, np.nan),
    })[candidates]
    if quadratic is not None:
        table = table.sort_values(["position", "anchor"], kind="stable")
        table["position"] = table["position"].astype(int)
    else:
        table = table.drop(columns=["position", "quadratic_rating"])
        table.insert(1, "position", pd.array([pd.NA] * len(table), dtype="Int64"))
        table.insert(2, "quadratic_rating", np.nan)
    table = table.reset_index(drop=True)

    recommended = None
    ranked = table.dropna(subset=["informativeness"])
    if len(ranked):
        key = ranked.assign(_t=ranked["tau_quadratic"].fillna(-np.inf))
        recommended = str(key.sort_values(["informativeness", "_t"], ascending=False,
                                          kind="stable").iloc[0]["anchor"])
    slope, intercept, r2 = _r2(table["informativeness"].to_numpy(dtype=float),
                               table["tau_quadratic"].to_numpy(dtype=float))
    return AnchorSweep(
        judge=counts.judge, models=models, n_instructions=counts.n_instructions, design=design,
        tau=tau, table=table, quadratic=quadratic, recommended=recommended,
        quadratic_tau_human=quadratic_tau_human, human_models_matched=matched,
        ceiling_3_level=informativeness_ceiling(m - 1), fit_slope=slope,
        fit_intercept=intercept, fit_r2=r2, notes=tuple(notes),
    )


# --------------------------------------------------------------------------------------------
# One anchor: its ranking beside the quadratic one (item 5)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AnchorRanking:
    """One anchor's ranking of the other models beside the quadratic ranking.

    ``table`` columns: model, win_rate (against the anchor, ties half), battles, anchor_rank,
    quadratic_rank (among the same models), rank_shift (quadratic_rank − anchor_rank: positive
    = the anchor ranks the model higher than all pairs do), quadratic_rating.
    ``calls_anchor`` are the judge calls against the anchor in this selection, ``calls_total``
    every call; ``design_calls_*`` the cost of each design per instruction and order.
    """

    anchor: str
    judge: str | None
    tau: str
    tau_quadratic: float
    informativeness: float
    table: pd.DataFrame
    calls_anchor: int
    calls_total: int
    design_calls_anchor: int
    design_calls_all_pairs: int

    @property
    def cost_share(self) -> float:
        """The anchor design's judge calls as a share of all pairs': (M − 1) / C(M, 2)."""
        return self.design_calls_anchor / self.design_calls_all_pairs

    def as_dict(self) -> dict:
        return {
            "anchor": self.anchor, "judge": self.judge, "tau": _tau_label(self.tau),
            "tau_quadratic": self.tau_quadratic, "informativeness": self.informativeness,
            "calls_anchor": self.calls_anchor, "calls_total": self.calls_total,
            "design_calls_anchor_per_instruction": self.design_calls_anchor,
            "design_calls_all_pairs_per_instruction": self.design_calls_all_pairs,
            "cost_share": self.cost_share,
            "models": self.table.to_dict(orient="records"),
        }


def anchor_ranking(counts: VerdictCounts, anchor: str, *, tau: str = "b") -> AnchorRanking:
    """The anchor-based ranking of one anchor (win rate against it) with rank shifts (§4.1)."""
    if anchor not in counts.models:
        raise ValueError(f"{anchor!r} is not one of the models of this selection")
    models = counts.models
    m = len(models)
    a = counts.index(anchor)
    wins = pairwise_wins(counts).sum(axis=0)
    design, _ = _design(wins, models)
    rates = _win_rates(wins)[a]
    battles = (wins + wins.T)[a]
    keep = np.isfinite(rates)
    keep[a] = False
    if keep.sum() < 1:
        raise ValueError(f"{anchor} has no battles with another model in this selection.")
    has_quadratic = design != "anchor-only" and m >= 3
    rating = _quadratic(wins, models) if has_quadratic else np.full(m, np.nan)
    idx = np.flatnonzero(keep)
    table = pd.DataFrame({
        "model": [models[i] for i in idx],
        "win_rate": rates[idx],
        "battles": battles[idx],
        "quadratic_rating": rating[idx],
    })
    table["anchor_rank"] = table["win_rate"].rank(ascending=False, method="min").astype(int)
    if has_quadratic:
        table["quadratic_rank"] = table["quadratic_rating"].rank(ascending=False, method="min"
                                                                 ).astype(int)
        table["rank_shift"] = table["quadratic_rank"] - table["anchor_rank"]
        tau_q = float(kendall_tau(table["win_rate"].to_numpy(), table["quadratic_rating"].to_numpy(),
                                  variant=tau))
    else:
        table["quadratic_rank"] = pd.array([pd.NA] * len(table), dtype="Int64")
        table["rank_shift"] = pd.array([pd.NA] * len(table), dtype="Int64")
        tau_q = float("nan")
    table = table[["model", "win_rate", "battles", "anchor_rank", "quadratic_rank", "rank_shift",
                   "quadratic_rating"]].sort_values(["anchor_rank", "model"], kind="stable"
                                                    ).reset_index(drop=True)
    total, calls = verdicts_against(counts)
    d, p = _pair_disagreements(total[:, :, a], calls[:, :, a])
    orders = orders_per_pair(counts)
    return AnchorRanking(
        anchor=anchor, judge=counts.judge, tau=tau, tau_quadratic=tau_q,
        informativeness=float(d.sum() / p.sum()) if p.sum() else float("nan"), table=table,
        calls_anchor=int(calls[:, :, a].sum()), calls_total=int(counts.counts.sum()),
        design_calls_anchor=(m - 1) * orders, design_calls_all_pairs=comb(m, 2) * orders,
    )


def _both_orders_share(counts: VerdictCounts) -> float:
    """Share of judged (instruction, ordered pair) cells whose reverse order was judged too."""
    judged = counts.counts.sum(axis=-1) > 0
    if not judged.any():
        return 0.0
    return float((judged & np.swapaxes(judged, 1, 2)).sum() / judged.sum())


def orders_per_pair(counts: VerdictCounts) -> int:
    """2 when most judged pairs were judged in both orders, else 1 (for costing designs)."""
    return 2 if _both_orders_share(counts) >= 0.5 else 1


# --------------------------------------------------------------------------------------------
# Win-rate distributions (item 4, seed 000 §4.2, Fig. 2)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WinRateDistribution:
    """For each instruction, how many models beat the anchor (mean verdict > 0, model's view).

    ``per_instruction``: instruction_id, models_judged, models_beating_anchor, models_losing,
    identical (every judged model got the same verdict: no signal at any scale).
    ``histogram``: models_beating_anchor, instructions. ``anchor_beats_all``: instructions on
    which every judged model lost to the anchor; ``all_beat_anchor`` the reverse;
    ``no_signal``: instructions with identical verdicts for every model.
    """

    anchor: str
    n_competitors: int
    n_instructions: int
    per_instruction: pd.DataFrame
    histogram: pd.DataFrame
    anchor_beats_all: int
    all_beat_anchor: int
    no_signal: int

    @property
    def sentence(self) -> str:
        return (f"{self.anchor} beats every model on {self.anchor_beats_all:,} of "
                f"{self.n_instructions:,} instructions: at the win/tie/loss level those "
                "comparisons carry no ranking signal.")

    def as_dict(self) -> dict:
        return {"anchor": self.anchor, "n_competitors": self.n_competitors,
                "n_instructions": self.n_instructions,
                "anchor_beats_all": self.anchor_beats_all,
                "all_beat_anchor": self.all_beat_anchor, "no_signal": self.no_signal,
                "histogram": self.histogram.to_dict(orient="records")}


def win_rate_distribution(counts: VerdictCounts, anchor: str) -> WinRateDistribution:
    """Per instruction, the number of models that beat ``anchor`` (seed 000 §4.2):
    Σ_j 1[v(i, j) > 0], with v the model's mean verdict against the anchor."""
    if anchor not in counts.models:
        raise ValueError(f"{anchor!r} is not one of the models of this selection")
    a = counts.index(anchor)
    total, calls = verdicts_against(counts)
    t, n = total[:, :, a], calls[:, :, a]
    judged = n > 0
    n_judged = judged.sum(axis=1)
    beating = ((t > 0) & judged).sum(axis=1)
    losing = ((t < 0) & judged).sum(axis=1)
    d, _ = _pair_disagreements(t, n)
    keep = n_judged >= 1
    per = pd.DataFrame({
        "instruction_id": np.asarray(counts.instructions, dtype=object)[keep],
        "models_judged": n_judged[keep], "models_beating_anchor": beating[keep],
        "models_losing": losing[keep], "identical": (d == 0)[keep] & (n_judged[keep] >= 2),
    })
    n_comp = int(np.isfinite(_win_rates(pairwise_wins(counts).sum(axis=0))[a]).sum())
    hist = (per["models_beating_anchor"].value_counts()
            .reindex(range(n_comp + 1), fill_value=0).rename_axis("models_beating_anchor")
            .reset_index(name="instructions"))
    return WinRateDistribution(
        anchor=anchor, n_competitors=n_comp, n_instructions=int(keep.sum()),
        per_instruction=per, histogram=hist,
        anchor_beats_all=int(((per["models_losing"] == per["models_judged"])).sum()),
        all_beat_anchor=int(((per["models_beating_anchor"] == per["models_judged"])).sum()),
        no_signal=int(per["identical"].sum()),
    )


# --------------------------------------------------------------------------------------------
# Sweeps over the number of instructions (§5.1, Fig. 4) and of anchors (App. E, Fig. 7)
# --------------------------------------------------------------------------------------------
def _require_all_pairs(counts: VerdictCounts, what: str) -> np.ndarray:
    """The per-instruction wins, or NeedsAllPairs when some pair of models never met."""
    per_inst = pairwise_wins(counts)
    design, anchor = _design(per_inst.sum(axis=0), counts.models)
    if design != "all pairs":
        extra = f" This table is anchor-only (every model against {anchor})." if anchor else ""
        raise NeedsAllPairs(
            f"{what} needs an all-pairs table (every model judged against every other model), "
            f"because it compares anchors with each other and with the all-pairs ranking.{extra} "
            "Load an all-pairs table (the all-pairs demo is one) to run it.")
    return per_inst


def _summarise(frame: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    g = frame.groupby(by, sort=False)["tau"]
    out = g.agg(mean="mean", sd="std", low=lambda s: s.quantile(0.025),
                high=lambda s: s.quantile(0.975), runs="count").reset_index()
    return out


@dataclass(frozen=True)
class SampleSizeSweep:
    """tau against the number of instructions (seed 000 §5.1, Fig. 4).

    ``runs``: size, repetition, ranking ("quadratic" or an anchor's name), tau.
    ``summary``: size, ranking, mean, sd, low, high (2.5/97.5 percentiles over repetitions),
    runs; the ranking "mean over anchors" averages every anchor's tau within a repetition first.
    """

    reference: str
    tau: str
    sizes: tuple[int, ...]
    repetitions: int
    seed: int
    runs: pd.DataFrame
    summary: pd.DataFrame

    def as_dict(self) -> dict:
        return {"reference": self.reference, "tau": _tau_label(self.tau),
                "sizes": list(self.sizes), "repetitions": self.repetitions, "seed": self.seed,
                "summary": self.summary.to_dict(orient="records")}


def default_sizes(n_instructions: int, count: int = 10, smallest: int = 50) -> tuple[int, ...]:
    """``count`` sizes from ``smallest`` (or fewer) to every instruction, evenly spaced."""
    low = min(smallest, n_instructions)
    return tuple(int(s) for s in np.unique(np.round(np.linspace(low, n_instructions, count))))


def sample_size_sweep(counts: VerdictCounts, *, sizes: tuple[int, ...] | None = None,
                      repetitions: int = 30, seed: int = 0,
                      human_ranking: pd.DataFrame | None = None, reference: str = "human",
                      tau: str = "b", progress: Progress | None = None) -> SampleSizeSweep:
    """Draw ``repetitions`` instruction subsets of each size (without replacement); fit the
    quadratic ranking and every anchor-based ranking on each; tau with the reference.

    ``reference="human"`` uses ``human_ranking`` (the paper's Fig. 4); ``"quadratic"`` the
    quadratic ranking on all instructions. Vectorised: each size is one batch of
    (repetitions, M, M) win matrices and one batched Bradley–Terry fit.
    """
    per_inst = _require_all_pairs(counts, "The instruction-count sweep")
    models = counts.models
    m, n_inst = len(models), counts.n_instructions
    if reference == "human":
        ref = _human_scores(models, human_ranking)
        if ref is None or np.isfinite(ref).sum() < 3:
            raise ValueError("No human ranking covering at least three of these models is loaded: "
                             "load one, or sweep against the quadratic ranking.")
    elif reference == "quadratic":
        ref = _quadratic(per_inst.sum(axis=0), models)
    else:
        raise ValueError("reference must be 'human' or 'quadratic'")
    sizes = tuple(sorted({int(s) for s in (sizes or default_sizes(n_inst))}))
    if not sizes or sizes[0] < 1 or sizes[-1] > n_inst:
        raise ValueError(f"sizes must lie between 1 and the {n_inst} instructions available")
    rng = np.random.default_rng(seed)
    flat = per_inst.reshape(n_inst, m * m)
    eye = np.eye(m, dtype=bool)
    names = ["quadratic"] + list(models)
    frames = []
    for step, size in enumerate(sizes):
        keys = rng.random((repetitions, n_inst))
        chosen = np.argsort(keys, axis=1)[:, :size]
        weights = np.zeros((repetitions, n_inst))
        np.put_along_axis(weights, chosen, 1.0, axis=1)
        w = (weights @ flat).reshape(repetitions, m, m)
        theta, _ = fit_bradley_terry(w, prior_games=_RESAMPLE_PRIOR)
        rates = np.where(eye, np.nan, _win_rates(w))  # (R, A, m)
        scores = np.concatenate([theta[:, None, :], rates], axis=1)  # (R, 1 + M, m)
        chunk = max(1, 400_000 // ((m + 1) * m * m))  # bound the (chunk, 1 + M, m, m) pair arrays
        taus = np.concatenate([kendall_tau(scores[r:r + chunk], ref, variant=tau)
                               for r in range(0, repetitions, chunk)])  # (R, 1 + M)
        frames.append(pd.DataFrame({
            "size": size, "repetition": np.repeat(np.arange(repetitions), m + 1),
            "ranking": np.tile(names, repetitions), "tau": taus.ravel()}))
        if progress is not None:
            progress((step + 1) / len(sizes), f"{size:,} instructions ({step + 1} of {len(sizes)})")
    runs = pd.concat(frames, ignore_index=True)
    anchors = runs[runs["ranking"] != "quadratic"]
    mean_runs = (anchors.groupby(["size", "repetition"], sort=False)["tau"].mean()
                 .reset_index().assign(ranking="mean over anchors"))
    summary = pd.concat([_summarise(runs, ["size", "ranking"]),
                         _summarise(mean_runs, ["size", "ranking"])], ignore_index=True)
    return SampleSizeSweep(reference=reference, tau=tau, sizes=sizes, repetitions=repetitions,
                           seed=seed, runs=runs, summary=summary)


@dataclass(frozen=True)
class AnchorCountSweep:
    """tau with the quadratic ranking as anchors are added one by one (seed 000 App. E, Fig. 7).

    ``runs``: n_anchors, permutation, first_anchor, tau; ``summary``: n_anchors, mean, sd, low,
    high, runs. The ranking for an anchor set is the Bradley–Terry fit on every battle that
    involves at least one anchor (the union), tau over all models (the anchors included), so it
    reaches 1 when every model is an anchor.
    """

    tau: str
    permutations: int
    seed: int
    runs: pd.DataFrame
    summary: pd.DataFrame

    def as_dict(self) -> dict:
        return {"tau": _tau_label(self.tau), "permutations": self.permutations, "seed": self.seed,
                "summary": self.summary.to_dict(orient="records")}


def anchor_count_sweep(counts: VerdictCounts, *, permutations: int = 40, seed: int = 0,
                       tau: str = "b", progress: Progress | None = None) -> AnchorCountSweep:
    """Random orders of the models; after each added anchor, refit on the union of their
    battles and take tau with the quadratic ranking (App. E). One batched fit per order."""
    per_inst = _require_all_pairs(counts, "The anchor-count sweep")
    models = counts.models
    m = len(models)
    wins = per_inst.sum(axis=0)
    ref = _quadratic(wins, models)
    rng = np.random.default_rng(seed)
    frames = []
    for p in range(permutations):
        order = rng.permutation(m)
        in_set = np.zeros((m, m), dtype=bool)  # in_set[k, j]: model j among the first k+1
        for k in range(m):
            in_set[k:, order[k]] = True
        mask = in_set[:, :, None] | in_set[:, None, :]
        theta, _ = fit_bradley_terry(wins[None] * mask, prior_games=_RESAMPLE_PRIOR)
        taus = kendall_tau(theta, ref, variant=tau)
        frames.append(pd.DataFrame({"n_anchors": np.arange(1, m + 1), "permutation": p,
                                    "first_anchor": models[order[0]], "tau": taus}))
        if progress is not None:
            progress((p + 1) / permutations, f"order {p + 1} of {permutations}")
    runs = pd.concat(frames, ignore_index=True)
    return AnchorCountSweep(tau=tau, permutations=permutations, seed=seed, runs=runs,
                            summary=_summarise(runs, ["n_anchors"]))


# --------------------------------------------------------------------------------------------
# Pilot screening (item 6, seed 000 §5.3, App. F)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PilotScreening:
    """Informativeness of every candidate anchor estimated on k sampled instructions.

    ``table``: anchor, position, full (informativeness on all data), pilot_mean, pilot_sd,
    pilot_low, pilot_high (2.5/97.5 percentiles over repetitions), bottom_three_rate (share of
    repetitions in which the anchor is among the three least informative), recommended_rate
    (share in which it is the most informative). ``pearson_r``: mean over repetitions of the
    Pearson r between the pilot and full informativeness across anchors (the paper's statistic);
    ``pearson_r_reps`` each repetition's r. ``extremes`` maps the strongest and the weakest model
    of the quadratic ranking to their bottom-three rate. ``recommended``: the anchor with the
    highest mean pilot informativeness. ``pilot_calls``: judge calls of one pilot (all pairs of
    the pool on k instructions, as in this table's orders).
    """

    k: int
    n_models: int
    repetitions: int
    seed: int
    table: pd.DataFrame
    pearson_r: float
    pearson_r_reps: np.ndarray
    extremes: dict
    recommended: str
    pilot_calls: int

    def as_dict(self) -> dict:
        return {"k": self.k, "n_models": self.n_models, "repetitions": self.repetitions,
                "seed": self.seed, "pearson_r": self.pearson_r,
                "pearson_r_reps": self.pearson_r_reps, "extremes": self.extremes,
                "recommended": self.recommended, "pilot_calls": self.pilot_calls,
                "anchors": self.table.to_dict(orient="records")}


def _pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x (R, A) with y (A,), over entries finite in both."""
    keep = np.isfinite(x) & np.isfinite(y)[None, :]
    n = keep.sum(axis=1)
    xs = np.where(keep, x, 0.0)
    ys = np.where(keep, y[None, :], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = xs.sum(1) / n
        my = ys.sum(1) / n
        dx = np.where(keep, x - mx[:, None], 0.0)
        dy = np.where(keep, y[None, :] - my[:, None], 0.0)
        r = (dx * dy).sum(1) / np.sqrt((dx ** 2).sum(1) * (dy ** 2).sum(1))
    return np.where(n >= 3, r, np.nan)


def pilot_screening(counts: VerdictCounts, *, k: int = 10, n_models: int | None = None,
                    repetitions: int = 30, seed: int = 0,
                    progress: Progress | None = None) -> PilotScreening:
    """Screen every candidate anchor on a small pilot (seed 000 §5.3): in each repetition draw
    k instructions (and, with ``n_models``, a random pool of that many models as competitors);
    estimate each anchor's informativeness on them and compare with the full data."""
    per_inst = _require_all_pairs(counts, "Pilot screening")
    models = counts.models
    m, n_inst = len(models), counts.n_instructions
    if not 1 <= k <= n_inst:
        raise ValueError(f"k must be between 1 and the {n_inst} instructions available")
    pool = m if n_models is None else int(n_models)
    if not 3 <= pool <= m:
        raise ValueError(f"the pool of models must hold between 3 and {m} models")
    total, calls = verdicts_against(counts)
    differ, pairs = _informativeness_all(total, calls)
    full = differ / np.maximum(pairs, 1)
    rating = _quadratic(per_inst.sum(axis=0), models)
    position = ranks_descending(rating)
    rng = np.random.default_rng(seed)
    inst = np.argsort(rng.random((repetitions, n_inst)), axis=1)[:, :k]  # (R, k)
    chosen = np.argsort(rng.random((repetitions, m)), axis=1)[:, :pool]
    mask = np.zeros((repetitions, m), dtype=bool)
    np.put_along_axis(mask, chosen, True, axis=1)
    estimate = np.full((repetitions, m), np.nan)
    for a in range(m):
        t = total[:, :, a][inst]  # (R, k, m)
        n = calls[:, :, a][inst]
        d, p = _pair_disagreements(t, n, mask[:, None, :])
        d, p = d.sum(axis=1), p.sum(axis=1)
        estimate[:, a] = np.where(p > 0, d / np.maximum(p, 1), np.nan)
        if progress is not None:
            progress((a + 1) / m, f"anchor {a + 1} of {m}")
    r_reps = _pearson_rows(estimate, full)
    filled = np.where(np.isfinite(estimate), estimate, np.inf)
    bottom = np.argsort(filled, axis=1, kind="stable")[:, :3]
    in_bottom = np.zeros((repetitions, m), dtype=bool)
    np.put_along_axis(in_bottom, bottom, True, axis=1)
    top = np.argmax(np.where(np.isfinite(estimate), estimate, -np.inf), axis=1)
    mean_est = np.nanmean(np.where(np.isfinite(estimate), estimate, np.nan), axis=0)
    table = pd.DataFrame({
        "anchor": list(models), "position": position, "full": full,
        "pilot_mean": mean_est, "pilot_sd": np.nanstd(estimate, axis=0, ddof=1),
        "pilot_low": np.nanpercentile(estimate, 2.5, axis=0),
        "pilot_high": np.nanpercentile(estimate, 97.5, axis=0),
        "bottom_three_rate": in_bottom.mean(axis=0),
        "recommended_rate": np.bincount(top, minlength=m) / repetitions,
    }).sort_values("position", kind="stable").reset_index(drop=True)
    best, worst = int(np.argmin(position)), int(np.argmax(position))
    orders = orders_per_pair(counts)
    return PilotScreening(
        k=k, n_models=pool, repetitions=repetitions, seed=seed, table=table,
        pearson_r=float(np.nanmean(r_reps)) if np.isfinite(r_reps).any() else float("nan"),
        pearson_r_reps=r_reps,
        extremes={models[best]: float(in_bottom[:, best].mean()),
                  models[worst]: float(in_bottom[:, worst].mean())},
        recommended=models[int(np.nanargmax(mean_est))],
        pilot_calls=k * comb(pool, 2) * orders,
    )


# --------------------------------------------------------------------------------------------
# Anchor effect vs judge effect (item 8, seed 000 §5.2, Table 3)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class JudgeEffect:
    """Per judge the best and the worst anchor (by tau with the quadratic ranking, Table 3).

    ``table``: judge, best_anchor, worst_anchor, best_tau_quadratic, worst_tau_quadratic,
    gap_quadratic, best_tau_human, worst_tau_human, gap_human (best − worst of those two
    anchors), human_range (max − min tau_human over all anchors), quadratic_tau_human.
    ``judge_spread``: max − min over judges of quadratic_tau_human (the judge effect).
    """

    tau: str
    table: pd.DataFrame
    judge_spread: float

    @property
    def max_anchor_gap_human(self) -> float:
        """The largest best-minus-worst anchor gap in tau with humans over judges (the anchor
        effect, to set beside ``judge_spread``); NaN without a human ranking."""
        gaps = self.table["gap_human"].abs()
        return float(gaps.max()) if gaps.notna().any() else float("nan")

    def as_dict(self) -> dict:
        return {"tau": _tau_label(self.tau), "judge_spread": self.judge_spread,
                "max_anchor_gap_human": self.max_anchor_gap_human,
                "judges": self.table.to_dict(orient="records")}


def anchor_vs_judge(sweeps: Mapping[str, AnchorSweep]) -> JudgeEffect:
    """Compare the anchor effect with the judge effect across per-judge sweeps (§5.2)."""
    rows = []
    variants = {s.tau for s in sweeps.values()}
    if len(variants) > 1:
        raise ValueError("all sweeps must use the same tau variant")
    for judge, sweep in sweeps.items():
        t = sweep.table.dropna(subset=["tau_quadratic"])
        if t.empty:
            continue
        best = t.loc[t["tau_quadratic"].idxmax()]
        worst = t.loc[t["tau_quadratic"].idxmin()]
        human = sweep.table["tau_human"]
        rows.append({
            "judge": judge, "best_anchor": best["anchor"], "worst_anchor": worst["anchor"],
            "best_tau_quadratic": best["tau_quadratic"], "worst_tau_quadratic": worst["tau_quadratic"],
            "gap_quadratic": best["tau_quadratic"] - worst["tau_quadratic"],
            "best_tau_human": best["tau_human"], "worst_tau_human": worst["tau_human"],
            "gap_human": best["tau_human"] - worst["tau_human"],
            "human_range": (human.max() - human.min()) if human.notna().any() else np.nan,
            "quadratic_tau_human": sweep.quadratic_tau_human,
        })
    if not rows:
        raise NeedsAllPairs("The anchor-versus-judge comparison needs an all-pairs table for at "
                            "least one judge.")
    table = pd.DataFrame(rows)
    q = table["quadratic_tau_human"].dropna()
    spread = float(q.max() - q.min()) if len(q) >= 2 else float("nan")
    return JudgeEffect(tau=variants.pop(), table=table, judge_spread=spread)


# --------------------------------------------------------------------------------------------
# The planner (item 9, seed 000 §6, Fig. 5)
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class EvaluationPlan:
    """The design the decision tree of seed 000 §6 (Fig. 5) recommends, and every design's cost.

    ``options``: design, calls_per_instruction, instructions_needed, calls_needed,
    instructions_planned, calls_planned, fits_budget, note. ``discordant`` is the sign test's
    number of discordant samples for the edge; ``instructions_needed`` inflates it by the share
    of informative cases (N_total = N / I, seed 000 §4.3).
    """

    recommendation: str
    reasons: tuple[str, ...]
    options: pd.DataFrame
    discordant: int
    edge: float
    alpha: float
    power: float
    sentence: str
    warnings: tuple[str, ...]

    def as_dict(self) -> dict:
        return {"recommendation": self.recommendation, "reasons": list(self.reasons),
                "discordant": self.discordant, "edge": self.edge, "alpha": self.alpha,
                "power": self.power, "sentence": self.sentence, "warnings": list(self.warnings),
                "options": self.options.to_dict(orient="records")}


def decisive_rate(counts: VerdictCounts) -> float:
    """Share of calls with a non-tie verdict: the informative share of direct comparisons."""
    c = counts.counts.sum(axis=(0, 1, 2)).astype(np.float64)
    return float(1.0 - c[LEVELS.index(0)] / c.sum()) if c.sum() else float("nan")


def plan_evaluation(
    n_models: int,
    *,
    natural_anchor: bool = False,
    full_ranking: bool = True,
    budget: int | None = None,
    n_instructions: int | None = None,
    anchor: str | None = None,
    informativeness: float | None = None,
    direct_decisive_rate: float | None = None,
    pairs_of_interest: int | None = None,
    orders: int = 1,
    edge: float = 0.05,
    alpha: float = 0.05,
    power: float = 0.8,
) -> EvaluationPlan:
    """Recommend all pairs, the natural anchor, a chosen anchor or only the pairs of interest.

    Seed 000 §6 (Fig. 5): a natural anchor → use it (conclusions only against it); no natural
    anchor and at most three models → all pairs (3N calls, the cost of an external anchor);
    four or more models without the need for a full ranking → judge only the pairs of interest;
    a full ranking → avoid anchors when all pairs are affordable (within ``budget``), else a
    chosen mid-ranked anchor screened by a pilot, reported with its informativeness.
    Sample sizes: ``evalcore.power.sign_test_sample_size`` (discordant samples, one-sided) and
    ``total_samples`` (÷ informativeness for an anchor, ÷ the decisive rate for direct pairs).
    """
    from evalcore.power import sign_test_sample_size, total_samples

    if n_models < 2:
        raise ValueError("an evaluation needs at least two models")
    if orders not in (1, 2):
        raise ValueError("orders must be 1 (one order per pair) or 2 (both orders)")
    for name, value in (("informativeness", informativeness),
                        ("direct_decisive_rate", direct_decisive_rate)):
        if value is not None and not (0.0 < value <= 1.0):
            raise ValueError(f"{name} must lie in (0, 1]")
    discordant = int(sign_test_sample_size(edge, alpha=alpha, power=power))
    warnings: list[str] = []

    def needed(share: float | None) -> int:
        return int(total_samples(discordant, share)) if share is not None else discordant

    direct_note = ("÷ the decisive (non-tie) rate of direct comparisons" if direct_decisive_rate
                   else "assumes every direct comparison is decisive: ties raise it")
    m = int(n_models)
    rows = [
        ("all pairs", comb(m, 2), needed(direct_decisive_rate), direct_note),
        ("natural anchor", m - 1, needed(direct_decisive_rate),
         "each model against the natural anchor; no conclusions about other pairs"),
        ("chosen anchor", m - 1, needed(informativeness),
         ("÷ the anchor's informativeness (N_total = N / I)" if informativeness
          else "informativeness unknown: run the pilot; the total is N / I")),
    ]
    if pairs_of_interest:
        rows.append(("pairs of interest", int(pairs_of_interest), needed(direct_decisive_rate),
                     "only the comparisons the study needs; no full ranking"))
    options = pd.DataFrame(rows, columns=["design", "calls_per_instruction", "instructions_needed",
                                          "note"])
    options["calls_per_instruction"] *= orders
    options["calls_needed"] = options["calls_per_instruction"] * options["instructions_needed"]
    if n_instructions:
        options["instructions_planned"] = int(n_instructions)
        options["calls_planned"] = options["calls_per_instruction"] * int(n_instructions)
        cost = options["calls_planned"]
    else:
        options["instructions_planned"] = pd.array([pd.NA] * len(options), dtype="Int64")
        options["calls_planned"] = pd.array([pd.NA] * len(options), dtype="Int64")
        cost = options["calls_needed"]
    options["fits_budget"] = (cost <= budget) if budget is not None else pd.NA
    options = options[["design", "calls_per_instruction", "instructions_needed", "calls_needed",
                       "instructions_planned", "calls_planned", "fits_budget", "note"]]

    def fits(design: str) -> bool:
        return budget is None or bool(options.loc[options["design"] == design, "fits_budget"].iloc[0])

    reasons: list[str] = []
    if natural_anchor:
        choice = "natural anchor"
        reasons.append("A natural anchor exists (e.g. the method a new one improves on): compare "
                       "every model with it and draw no conclusions about other pairs (§6).")
    elif m <= 3:
        choice = "all pairs"
        reasons.append(f"With {m} models all pairs cost {comb(m, 2)} calls per instruction, no "
                       f"more than the {m} of an external anchor (§6).")
    elif not full_ranking:
        choice = "pairs of interest"
        reasons.append("No full ranking is needed: judge only the comparisons of interest and "
                       "report their win rates, not absolute scores (§6).")
        if not pairs_of_interest:
            warnings.append("Give the number of pairs of interest to cost this design.")
    elif budget is not None and fits("all pairs"):
        choice = "all pairs"
        reasons.append("A full ranking is needed and the budget covers all pairs: avoid anchors "
                       "when possible (an anchor caps informativeness, §4.3, §6).")
    else:
        choice = "chosen anchor"
        reasons.append("A full ranking of four or more models is needed"
                       + (" and all pairs exceed the budget" if budget is not None else "")
                       + ": choose a mid-ranked anchor, confirm its informativeness on a pilot of "
                       "about 10 instructions (§5.3), and report it (§6).")
    if budget is not None and choice in set(options["design"]) and not fits(choice):
        warnings.append(f"The budget of {budget:,} judge calls does not cover the recommended "
                        "design at the sample size shown: judge fewer instructions and accept a "
                        "larger detectable edge, or raise the budget.")
    if n_instructions and choice in set(options["design"]):
        need = int(options.loc[options["design"] == choice, "instructions_needed"].iloc[0])
        if n_instructions < need:
            warnings.append(f"{n_instructions:,} instructions are fewer than the {need:,} needed "
                            f"to detect a +{edge:.0%} edge at {power:.0%} power (α = {alpha}).")
    n_used = int(n_instructions) if n_instructions else int(
        options.loc[options["design"] == choice, "instructions_needed"].iloc[0]
        if choice in set(options["design"]) else discordant)
    calls_used = (int(options.loc[options["design"] == choice, "calls_per_instruction"].iloc[0])
                  * n_used if choice in set(options["design"]) else 0)
    if choice == "chosen anchor":
        name = anchor or "the chosen anchor"
        info = (f"informativeness {informativeness:.1%}" if informativeness
                else "informativeness: measure it with a pilot")
        sentence = (f"Anchor-based evaluation against {name}, {info} (the share of instruction × "
                    f"model-pair cases whose verdicts against the anchor differ; seed 000 §4.3); "
                    f"{n_used:,} instructions, {calls_used:,} judge calls.")
    elif choice == "natural anchor":
        sentence = (f"Every model compared with the natural anchor{' ' + anchor if anchor else ''} "
                    f"on {n_used:,} instructions ({calls_used:,} judge calls); no conclusions "
                    "are drawn about other pairs.")
    elif choice == "all pairs":
        sentence = (f"All {comb(m, 2)} pairs of the {m} models judged on {n_used:,} instructions "
                    f"({calls_used:,} judge calls), ranked with Bradley–Terry.")
    else:
        sentence = (f"Only the pairs of interest judged on {n_used:,} instructions; win rates "
                    "are reported per pair.")
    return EvaluationPlan(recommendation=choice, reasons=tuple(reasons), options=options,
                          discordant=discordant, edge=edge, alpha=alpha, power=power,
                          sentence=sentence, warnings=tuple(warnings))
