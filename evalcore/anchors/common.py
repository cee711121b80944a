"""Pieces every anchor analysis shares: the design, the all-pairs ranking, win rates, checks."""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, UsageError
from evalcore.ranking import comparison_graph, fit_bradley_terry, to_elo
from evalcore.ranking.design import classify_design
from evalcore.stats.against import pooled_wins
from evalcore.text import fmt_count

#: The prior (virtual tie games against an average player) that keeps resampled fits finite
#: when a resample leaves a model without a loss or without a win (as in ``leaderboard``).
RESAMPLE_PRIOR = 0.01

PAPER = (
    'Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge '
    'Anchor Selection", ACL 2026'
)


class NeedsAllPairs(DesignError):
    """An analysis that needs every model judged against every other model (all pairs)."""


def tau_label(variant: str) -> str:
    return "tau-b" if variant == "b" else "tau-a"


def check_tau(tau: str) -> str:
    if tau not in ("a", "b"):
        raise UsageError(f"tau must be 'a' or 'b', not {tau!r}.")
    return tau


def check_anchor(counts: VerdictCounts, anchor: str) -> int:
    """The index of ``anchor``, or a UsageError naming it."""
    if anchor not in counts.models:
        raise UsageError(f"anchor {anchor!r} is not one of the models of this selection.")
    return counts.index(anchor)


def design(wins: np.ndarray, models: tuple[str, ...]) -> tuple[str, str | None]:
    """all pairs / anchor-only / partial, from the pooled wins matrix (the store's rule)."""
    battles = wins + wins.T
    a, b = np.nonzero(np.triu(battles > 0, 1))
    pairs = pd.DataFrame({"model_1": [models[i] for i in a], "model_2": [models[j] for j in b]})
    return classify_design(models, pairs)


def all_pairs_ratings(wins: np.ndarray, models: tuple[str, ...]) -> np.ndarray:
    """The all-pairs ranking: Bradley–Terry Elo ratings on all battles (a weak prior only where the MLE is infinite)."""
    graph = comparison_graph(wins, models)
    theta, _ = fit_bradley_terry(wins, prior_games=0.0 if graph.mle_exists else 1.0)
    return to_elo(theta)


def win_rates(wins: np.ndarray) -> np.ndarray:
    """rate[..., A, m]: model m's win rate against anchor A (NaN where they never met)."""
    w = np.asarray(wins, dtype=np.float64)
    against = np.swapaxes(w, -1, -2)  # against[..., A, m] = wins of m over A
    games = w + against
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(games > 0, against / np.where(games > 0, games, 1.0), np.nan)


def human_scores(models: tuple[str, ...], human_ranking: pd.DataFrame | None) -> np.ndarray | None:
    """Human scores in the order of ``models`` (NaN for a model the ranking does not list)."""
    if human_ranking is None or len(human_ranking) == 0:
        return None
    frame = human_ranking.rename(columns={c: str(c).strip().lower() for c in human_ranking.columns})
    lookup = dict(
        zip(frame["model"].astype(str), pd.to_numeric(frame["score"], errors="coerce"), strict=True)
    )
    return np.array([lookup.get(m, np.nan) for m in models], dtype=np.float64)


def r2(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Slope, intercept and R² of the least-squares line y = slope·x + intercept."""
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if len(x) < 3 or np.ptp(x) == 0:
        return float("nan"), float("nan"), float("nan")
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    tss = ((y - y.mean()) ** 2).sum()
    value = 1.0 - (resid**2).sum() / tss if tss > 0 else float("nan")
    return float(slope), float(intercept), float(value)


def require_all_pairs(counts: VerdictCounts, what: str) -> np.ndarray:
    """The pooled (M, M) wins, or :class:`NeedsAllPairs` when some pair of models never met."""
    wins = pooled_wins(counts)
    kind, anchor = design(wins, counts.models)
    if kind != "all pairs":
        extra = (
            f" This table is anchor-only (every model against {anchor})."
            if anchor
            else " Some pairs of models were never judged against each other here."
        )
        raise NeedsAllPairs(
            f"{what} needs an all-pairs table (every model judged against every other model), "
            f"because it compares anchors with each other and with the all-pairs ranking.{extra} "
            "Load an all-pairs table (the all-pairs demo is one) to run it."
        )
    return wins


def require_models(counts: VerdictCounts) -> None:
    if counts.n_models < 2 or counts.n_instructions == 0 or counts.n_cells == 0:
        raise DesignError(
            "Anchor analysis needs verdicts between at least two different models; this "
            f"selection has {fmt_count(counts.n_models, 'model')} and "
            f"{fmt_count(counts.n_instructions, 'instruction')} with a verdict."
        )
