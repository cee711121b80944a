"""Bradley–Terry ratings on the Elo scale, their intervals and the leaderboard."""

import importlib
from typing import TYPE_CHECKING, Any

from evalcore.ranking.bradley_terry import (
    ELO_CENTRE,
    ELO_SCALE,
    SLOT_A_SCORE,
    ComparisonGraph,
    bootstrap_weights,
    comparison_graph,
    fit_bradley_terry,
    fit_bradley_terry_covariates,
    mle_exists,
    pairwise_wins,
    pooled_wins,
    ranks_descending,
    reachability,
    to_elo,
    win_entries,
    win_probability,
)
from evalcore.ranking.design import (
    MIN_INSTRUCTIONS_FOR_NOMINAL,
    IntervalChoice,
    IntervalMethod,
    IntervalPolicy,
    choose_interval,
    slot_comparability,
    sweep_bound,
)
from evalcore.ranking.intervals import bootstrap_thetas, sandwich_covariance
from evalcore.ranking.leaderboard import (
    Leaderboard,
    leaderboard,
    sign_counts,
)

# (eager: the module and its function share the name ``separation``)
from evalcore.ranking.separation import Separation, adjust_p_values, separation

if TYPE_CHECKING:
    from evalcore.ranking.fragility import PairFragility, RankingFragility, ranking_fragility
    from evalcore.ranking.style import StyleControl, controlled_leaderboard, style_control

#: Names of the analyses a leaderboard does not need, imported on first use (``rank`` never
#: reads them: a dozen modules less at start-up).
_LATER = {
    "PairFragility": "fragility",
    "RankingFragility": "fragility",
    "ranking_fragility": "fragility",
    "StyleControl": "style",
    "controlled_leaderboard": "style",
    "style_control": "style",
}


def __getattr__(name: str) -> Any:
    home = _LATER.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


_sign_counts = sign_counts  # old private name, still used by some callers

__all__ = [
    "slot_comparability",
    "sweep_bound",
    "ELO_CENTRE",
    "ELO_SCALE",
    "SLOT_A_SCORE",
    "MIN_INSTRUCTIONS_FOR_NOMINAL",
    "ComparisonGraph",
    "IntervalChoice",
    "IntervalMethod",
    "IntervalPolicy",
    "choose_interval",
    "Leaderboard",
    "bootstrap_thetas",
    "bootstrap_weights",
    "comparison_graph",
    "fit_bradley_terry",
    "leaderboard",
    "mle_exists",
    "pairwise_wins",
    "pooled_wins",
    "ranks_descending",
    "reachability",
    "sandwich_covariance",
    "sign_counts",
    "to_elo",
    "win_entries",
    "win_probability",
    "Separation",
    "adjust_p_values",
    "separation",
    "PairFragility",
    "RankingFragility",
    "ranking_fragility",
    "StyleControl",
    "controlled_leaderboard",
    "fit_bradley_terry_covariates",
    "style_control",
]
