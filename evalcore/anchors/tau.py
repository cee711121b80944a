"""Per-anchor rankings and their Kendall's tau with the all-pairs and human rankings.

The **all-pairs ranking** is the Bradley–Terry fit on all battles (ties half a win each, both
slots pooled). The **anchor-based ranking** for anchor A ranks the other models by their win rate
against A, (wins + ties/2) / battles; on battles against one anchor, Bradley–Terry ratings are a
monotone function of this win rate, so both rank alike. **Kendall's tau** of an anchor-based
ranking is taken with the all-pairs ranking (and with a human ranking when one is loaded) on the
models other than the anchor: tau-b by default, tau-a on request (Kendall 1938, 1945).
Plotted against the anchor's position it draws the paper's inverted U (Don-Yehiya et al. 2026,
§4.1, Fig. 1); against informativeness, its Fig. 3.

Everything here reads pooled wins (M × M) and per-anchor sparse entries, never an
instructions × models × models tensor.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from evalcore.anchors.common import (
    NeedsAllPairs,
    all_pairs_ratings,
    check_tau,
    design,
    human_scores,
    r2,
    require_models,
    tau_label,
    win_rates,
)
from evalcore.anchors.informativeness import informativeness_ceiling, informativeness_counts
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_models, deprecated
from evalcore.quantities import quantity
from evalcore.ranking import comparison_graph, ranks_descending
from evalcore.stats.against import (
    AgainstVerdicts,
    pooled_wins,
    shared_against,
)
from evalcore.stats.kendall import kendall_tau
from evalcore.text import fmt_count

_INFORMATIVENESS = quantity("informativeness")
#: The most models :func:`anchor_sweep` takes: it holds several anchor-by-model tables (2,000
#: models 1–3 s, 3,000 models 6 s and 800 MB more, 10,000 models a minute and gigabytes).
MAX_MODELS = 2000

ANCHOR_ONLY_SENTENCE = (
    "Comparing anchors with each other (per-anchor tau, the inverted U, pilot screening, the "
    "sweeps) needs an all-pairs table, where every model is judged against every other model."
)


def _tau_rows(scores: np.ndarray, reference: np.ndarray, variant: str) -> np.ndarray:
    """kendall_tau row by row in chunks, so the (rows, M, M) pair arrays stay small.

    A row that scores few of the M models (an anchor of a sparse arena met a handful of them) is
    computed on those models alone: the models without a score in the row or the reference form
    no pair either way, so the tau is the same, and the row costs the square of its own models
    instead of the square of all the models (a 2,000-model arena's sweep: 40 s, now under a second)."""
    out = np.full(scores.shape[0], np.nan)
    m = max(scores.shape[-1], 1)
    scored = np.isfinite(scores) & np.isfinite(reference)[None, :]
    few = scored.sum(axis=1) * 4 <= m  # a quarter of the models or fewer
    for row in np.flatnonzero(few):
        keep = np.flatnonzero(scored[row])
        out[row] = kendall_tau(scores[row, keep], reference[keep], variant=variant)
    rows = np.flatnonzero(~few)
    step = max(1, 2_000_000 // (m * m))
    for start in range(0, rows.size, step):
        chunk = rows[start : start + step]
        out[chunk] = kendall_tau(scores[chunk], reference[None, :], variant=variant)
    return out


def _no_model_wins_share(against: AgainstVerdicts) -> np.ndarray:
    """Per anchor, the share of its instructions on which no model's mean verdict beats it."""
    m, n_inst = against.n_models, against.n_instructions
    out = np.full(m, np.nan)
    if not against.inst.size:
        return out
    key = (against.opponent * n_inst + against.inst) * m + against.model
    heads = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])  # sorted: one per (A, i, model)
    total = np.add.reduceat(against.total, heads)
    cell = against.opponent[heads] * n_inst + against.inst[heads]  # sorted

    def distinct(x: np.ndarray) -> np.ndarray:  # unique of a sorted array, in O(n)
        return x[np.r_[True, x[1:] != x[:-1]]] if x.size else x

    judged = distinct(cell)
    beaten = distinct(cell[total > 0])
    n_judged = np.bincount(judged // n_inst, minlength=m)
    n_beaten = np.bincount(beaten // n_inst, minlength=m)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_judged > 0, (n_judged - n_beaten) / np.maximum(n_judged, 1), np.nan)


@dataclass(frozen=True)
class AnchorSweep:
    """Every model taken as the anchor: its position, its taus and its informativeness.

    ``table`` columns: anchor, position (1 = strongest in the all-pairs ranking; <NA> when there
    is no all-pairs ranking), all_pairs_rating (Elo scale), tau_all_pairs, tau_human,
    informativeness, models_ranked (models with battles against the anchor), calls (judge calls
    against it), no_model_wins_share (share of instructions on which no model beats it).
    ``all_pairs`` lists model, rating, position. ``recommended`` is the most informative anchor,
    ties broken by tau_all_pairs. ``fit_*`` is the linear fit of tau_all_pairs on
    informativeness. ``all_pairs_tau_human`` is the all-pairs ranking's tau with the human
    ranking (NaN without one). ``needs_all_pairs`` is a sentence saying what this table cannot
    show (None on an all-pairs table).
    """

    judge: str | None
    models: tuple[str, ...]
    n_instructions: int
    design: str
    tau: str
    table: pd.DataFrame
    all_pairs: pd.DataFrame | None
    recommended: str | None
    all_pairs_tau_human: float
    human_models_matched: int
    ceiling_3_level: float
    fit_slope: float
    fit_intercept: float
    fit_r2: float
    notes: tuple[str, ...]
    needs_all_pairs: str | None = None

    def __repr__(self) -> str:
        return (
            f"AnchorSweep({len(self.models)} models, {self.n_instructions:,} instructions, "
            f"design={self.design!r}, recommended={self.recommended!r})"
        )

    @property
    def has_all_pairs_ranking(self) -> bool:
        return self.all_pairs is not None

    @property
    def quadratic(self) -> pd.DataFrame | None:
        """Deprecated name of :attr:`all_pairs` (removed in 0.4)."""
        deprecated("AnchorSweep.quadratic", "AnchorSweep.all_pairs")
        return self.all_pairs

    @property
    def quadratic_tau_human(self) -> float:
        """Deprecated name of :attr:`all_pairs_tau_human` (removed in 0.4)."""
        deprecated("AnchorSweep.quadratic_tau_human", "AnchorSweep.all_pairs_tau_human")
        return self.all_pairs_tau_human

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "n_models": len(self.models),
            "n_instructions": self.n_instructions,
            "design": self.design,
            "tau": tau_label(self.tau),
            # the catalogue's words, as every face gives them (its method's reference is there too)
            "informativeness_definition": f"{_INFORMATIVENESS.definition} {_INFORMATIVENESS.method}",
            "recommended": self.recommended,
            "recommended_by": "highest informativeness (ties: higher tau_all_pairs)",
            "all_pairs_tau_human": self.all_pairs_tau_human,
            "human_models_matched": self.human_models_matched,
            "ceiling_3_level": self.ceiling_3_level,
            "fit": {"slope": self.fit_slope, "intercept": self.fit_intercept, "r2": self.fit_r2},
            "needs_all_pairs": self.needs_all_pairs,
            "notes": list(self.notes),
            "anchors": self.table.to_dict(orient="records"),
            "all_pairs": (self.all_pairs.to_dict(orient="records") if self.all_pairs is not None else None),
        }


def anchor_sweep(
    counts: VerdictCounts,
    *,
    human_ranking: pd.DataFrame | None = None,
    tau: str = "b",
    against: AgainstVerdicts | None = None,
) -> AnchorSweep:
    """Each model as the anchor: tau with the all-pairs and human rankings, informativeness.

    Works on any design. On an anchor-only table only the anchor can serve as an anchor and there
    is no all-pairs ranking (tau_all_pairs is NaN; ``needs_all_pairs`` says so in a sentence);
    on an arena-shaped table (one battle per prompt) informativeness is NaN with a note.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge.
    human_ranking : DataFrame, optional
        Columns model, score (higher is better).
    tau : {"b", "a"}
        Kendall's tau-b (scipy's default) or tau-a.
    against : AgainstVerdicts, optional
        :func:`~evalcore.stats.against.verdicts_against` of ``counts`` when the caller already
        built it (shared with :func:`evalcore.power.detectable_edges`); built here otherwise.

    Returns
    -------
    AnchorSweep

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.1 (Table 1, Fig. 1), §4.3 (Fig. 3). M. G. Kendall, "A new measure
    of rank correlation", Biometrika 30, 1938.

    Examples
    --------
    >>> from evalcore.simulate.tables import SimulationSpec, simulate
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore(); store.load(simulate(SimulationSpec(n_models=5, seed=1)).verdicts)
    >>> sweep = anchor_sweep(store.counts())
    >>> sweep.design, len(sweep.table)
    ('all pairs', 5)
    """
    check_tau(tau)
    require_models(counts)
    check_models(
        counts.n_models,
        limit=MAX_MODELS,
        analysis="The anchor sweep ranks every model against each model taken as the anchor",
        measured="3,000 models took 6 s and 800 MB more, 10,000 a minute and several gigabytes",
        instead="The leaderboard ranks any number; choose an anchor on a smaller selection.",
        grows="square",
    )
    models = counts.models
    m = len(models)
    wins = pooled_wins(counts)
    kind, only_anchor = design(wins, models)
    against = shared_against(counts, against)
    rates = win_rates(wins)  # (A, m)
    met = np.isfinite(rates)
    models_ranked = met.sum(axis=1)
    candidates = models_ranked >= 2
    cand = np.flatnonzero(candidates)
    differ, pairs = informativeness_counts(against, cand)
    info = np.full(m, np.nan)
    with np.errstate(invalid="ignore", divide="ignore"):
        info[cand] = np.where(pairs > 0, differ / np.maximum(pairs, 1), np.nan)
    notes: list[str] = []
    if len(cand) and not (pairs > 0).any():
        notes.append(
            "No instruction has two models judged against the same anchor (one battle "
            "per prompt, as in an arena table): informativeness and per-instruction "
            "agreement need several models on the same prompt, so they are left empty. "
            "Win rates against each anchor still apply."
        )

    quad = None
    rating = np.full(m, np.nan)
    position = np.full(m, np.nan)
    needs = None
    if kind != "anchor-only" and m >= 3:
        rating = all_pairs_ratings(wins, models)
        position = ranks_descending(rating).astype(float)
        notes.extend(comparison_graph(wins, models).notes(models))
        quad = (
            pd.DataFrame({"model": list(models), "rating": rating, "position": position.astype(int)})
            .sort_values("position", kind="stable")
            .reset_index(drop=True)
        )
        if kind == "partial":
            notes.append(
                "Not every pair of models was judged: the all-pairs ranking is the "
                "Bradley–Terry fit on the pairs that were, not a full all-pairs ranking."
            )
    else:
        needs = ANCHOR_ONLY_SENTENCE
        notes.append(
            "This table compares every model with one anchor"
            + (f" ({only_anchor})" if only_anchor else "")
            + ": there is no all-pairs ranking to compare with, and no other model "
            "can serve as an anchor. The anchor's own ranking, informativeness, win-rate "
            "distribution and agreement with a human ranking still apply."
        )

    anchor_scores = np.where(np.eye(m, dtype=bool), np.nan, rates)[cand]  # the anchor left out
    tau_q = np.full(m, np.nan)
    if quad is not None and len(cand):
        tau_q[cand] = _tau_rows(anchor_scores, rating, tau)
    # A rank correlation over fewer than three models says nothing (two models give ±1).
    tau_q = np.where(models_ranked >= 3, tau_q, np.nan)
    human = human_scores(models, human_ranking)
    tau_h = np.full(m, np.nan)
    all_pairs_tau_human = float("nan")
    matched = 0
    if human is not None:
        matched = int(np.isfinite(human).sum())
        if matched >= 3:
            if len(cand):
                tau_h[cand] = _tau_rows(anchor_scores, human, tau)
                # An anchor-based ranking with fewer than three models matched says nothing.
                enough = (np.isfinite(anchor_scores) & np.isfinite(human)[None, :]).sum(1) >= 3
                tau_h[cand] = np.where(enough, tau_h[cand], np.nan)
            if quad is not None:
                all_pairs_tau_human = float(kendall_tau(rating, human, variant=tau))
        else:
            notes.append(
                f"The human ranking names only {matched} of these models: at least "
                "three are needed for a rank correlation."
            )
        missing = [x for x, h in zip(models, human, strict=True) if not np.isfinite(h)]
        if missing and matched >= 3:
            notes.append(
                f"The human ranking does not list {fmt_count(len(missing), 'model')} "
                f"({', '.join(missing[:5])}{'…' if len(missing) > 5 else ''}): "
                "tau_human uses the models it lists."
            )

    calls = np.bincount(against.opponent, weights=against.calls, minlength=m).astype(np.int64)
    table = pd.DataFrame(
        {
            "anchor": list(models),
            "position": position,
            "all_pairs_rating": rating,
            "tau_all_pairs": tau_q,
            "tau_human": tau_h,
            "informativeness": info,
            "models_ranked": models_ranked.astype(int),
            "calls": calls,
            "no_model_wins_share": _no_model_wins_share(against),
        }
    )[candidates]
    if quad is not None:
        table = table.sort_values(["position", "anchor"], kind="stable")
        table["position"] = table["position"].astype(int)
    else:
        table = table.drop(columns=["position", "all_pairs_rating"])
        table.insert(1, "position", pd.array([pd.NA] * len(table), dtype="Int64"))
        table.insert(2, "all_pairs_rating", np.nan)
    table = table.reset_index(drop=True)

    recommended = None
    ranked = table.dropna(subset=["informativeness"])
    if len(ranked):
        key = ranked.assign(_t=ranked["tau_all_pairs"].fillna(-np.inf))
        recommended = str(
            key.sort_values(["informativeness", "_t"], ascending=False, kind="stable").iloc[0]["anchor"]
        )
    slope, intercept, fit = r2(
        table["informativeness"].to_numpy(dtype=float), table["tau_all_pairs"].to_numpy(dtype=float)
    )
    return AnchorSweep(
        judge=counts.judge,
        models=models,
        n_instructions=counts.n_instructions,
        design=kind,
        tau=tau,
        table=table,
        all_pairs=quad,
        recommended=recommended,
        all_pairs_tau_human=all_pairs_tau_human,
        human_models_matched=matched,
        ceiling_3_level=informativeness_ceiling(m - 1),
        fit_slope=slope,
        fit_intercept=intercept,
        fit_r2=fit,
        notes=tuple(notes),
        needs_all_pairs=needs,
    )


def starting_anchor(
    ranked: Sequence[str], *, fixed: str | None = None, sweep: Callable[[], AnchorSweep] | None = None
) -> str:
    """The anchor a power analysis starts on (a policy, one place): the table's own anchor
    ``fixed`` (an anchor-only table), else the sweep's most informative anchor (``sweep`` is
    called only then, so a caller can share a memoised sweep), else the middle model of
    ``ranked`` (best first) where no anchor can be assessed (the sweep raises ValueError).

    Examples
    --------
    >>> starting_anchor(["a", "b", "c"], fixed="c"), starting_anchor(["a", "b", "c"])
    ('c', 'b')
    """
    if fixed in ranked:
        return str(fixed)
    try:
        best = sweep().recommended if sweep is not None else None
    except ValueError:  # the design has no anchor to assess (one battle per prompt)
        best = None
    return str(best) if best in ranked else ranked[len(ranked) // 2]


@dataclass(frozen=True)
class JudgeEffect:
    """Per judge the best and the worst anchor (by tau with the all-pairs ranking).

    ``table``: judge, best_anchor, worst_anchor, best_tau_all_pairs, worst_tau_all_pairs,
    gap_all_pairs, best_tau_human, worst_tau_human, gap_human (best − worst of those two
    anchors), human_range (max − min tau_human over all anchors), all_pairs_tau_human.
    ``judge_spread``: max − min over judges of all_pairs_tau_human (the judge effect).
    """

    tau: str
    table: pd.DataFrame
    judge_spread: float

    def __repr__(self) -> str:
        return f"JudgeEffect({len(self.table)} judges, judge_spread={self.judge_spread:.3f})"

    @property
    def max_anchor_gap_human(self) -> float:
        """The largest best-minus-worst anchor gap in tau with humans over judges (the anchor
        effect, to set beside ``judge_spread``); NaN without a human ranking."""
        gaps = self.table["gap_human"].abs()
        return float(gaps.max()) if gaps.notna().any() else float("nan")

    def as_dict(self) -> dict:
        return {
            "tau": tau_label(self.tau),
            "judge_spread": self.judge_spread,
            "max_anchor_gap_human": self.max_anchor_gap_human,
            "judges": self.table.to_dict(orient="records"),
        }


def anchor_vs_judge(sweeps: Mapping[str, AnchorSweep]) -> JudgeEffect:
    """Compare the anchor effect with the judge effect across per-judge sweeps.

    Parameters
    ----------
    sweeps : mapping of judge name to AnchorSweep
        One sweep per judge, all with the same tau variant.

    Returns
    -------
    JudgeEffect

    Raises
    ------
    NeedsAllPairs
        When no judge has an all-pairs table.

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §5.2 (Table 3).
    """
    rows = []
    variants = {s.tau for s in sweeps.values()}
    if len(variants) > 1:
        raise UsageError("all sweeps must use the same tau variant")
    for judge, sweep in sweeps.items():
        t = sweep.table.dropna(subset=["tau_all_pairs"])
        if t.empty:
            continue
        best = t.loc[t["tau_all_pairs"].idxmax()]
        worst = t.loc[t["tau_all_pairs"].idxmin()]
        human = sweep.table["tau_human"]
        rows.append(
            {
                "judge": judge,
                "best_anchor": best["anchor"],
                "worst_anchor": worst["anchor"],
                "best_tau_all_pairs": best["tau_all_pairs"],
                "worst_tau_all_pairs": worst["tau_all_pairs"],
                "gap_all_pairs": best["tau_all_pairs"] - worst["tau_all_pairs"],
                "best_tau_human": best["tau_human"],
                "worst_tau_human": worst["tau_human"],
                "gap_human": best["tau_human"] - worst["tau_human"],
                "human_range": (human.max() - human.min()) if human.notna().any() else np.nan,
                "all_pairs_tau_human": sweep.all_pairs_tau_human,
            }
        )
    if not rows:
        raise NeedsAllPairs(
            "The anchor-versus-judge comparison needs an all-pairs table for at least one judge."
        )
    table = pd.DataFrame(rows)
    q = table["all_pairs_tau_human"].dropna()
    spread = float(q.max() - q.min()) if len(q) >= 2 else float("nan")
    return JudgeEffect(tau=variants.pop(), table=table, judge_spread=spread)
