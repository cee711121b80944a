"""The unit of resampling: how much clustering by a unit column (session, voter, run) widens
the intervals, and inverse pair-frequency weights for unbalanced arenas.

Calls that share a session, a voter or a run can be correlated beyond their instruction; an
interval that resamples instructions then treats correlated calls as independent and is too
narrow. Clustering by the unit (the cluster bootstrap, Field & Welsh, "Bootstrapping clustered
data", 2007; the cluster-robust sandwich, Cameron, Gelbach & Miller, "Robust inference with
multiway clustering", 2011, and Cameron & Miller, "A practitioner's guide to cluster-robust
inference", 2015) is done by the interval functions of :mod:`evalcore.ranking.intervals` on
:meth:`evalcore.counts.VerdictCounts.by_unit`; this module measures what it changed.
"""

from __future__ import annotations

import math

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking.intervals import sandwich_covariance
from evalcore.stats.threads import single_blas_thread

#: From this median ratio of standard errors on, clustering by the unit column is said to matter.
WIDENING_NOTE_FROM = 1.1


def cluster_widening(
    counts: VerdictCounts,
    theta: np.ndarray,
    wins: np.ndarray,
    *,
    prior_games: float = 0.0,
    pair_weights: np.ndarray | None = None,
) -> float:
    """Median over models of the sandwich standard error clustered by the counts' unit column ÷
    the one clustered by instruction (NaN without a unit column). Above 1, calls within a unit
    are positively correlated beyond their instruction, and intervals over instructions are too
    narrow (Cameron & Miller 2015)."""
    if counts.unit is None:
        return math.nan
    with single_blas_thread():
        by_unit = sandwich_covariance(
            counts.by_unit(), theta, wins, prior_games=prior_games, pair_weights=pair_weights
        )
        by_inst = sandwich_covariance(counts, theta, wins, prior_games=prior_games, pair_weights=pair_weights)
    se_u, se_i = np.sqrt(np.clip(np.diag(by_unit), 0, None)), np.sqrt(np.clip(np.diag(by_inst), 0, None))
    ok = se_i > 0
    return float(np.median(se_u[ok] / se_i[ok])) if ok.any() else math.nan


def widening_matters(widening: float) -> bool:
    """Whether clustering by the unit column changed the intervals enough to say so."""
    return math.isfinite(widening) and widening >= WIDENING_NOTE_FROM


def widening_note(column: str, widening: float, n_units: int) -> str:
    """The words for a clustered interval noticeably wider than one over instructions."""
    from evalcore import quantities as q

    return (
        f"Clustered by {column} ({n_units:,} {column}s), the intervals are "
        f"{q.format('cluster_widening', widening)} as wide as over instructions: calls in one "
        f"{column} agree more than chance, so intervals over instructions would be too narrow."
    )


def inverse_pair_weights(battles: np.ndarray) -> np.ndarray:
    """Inverse pair-frequency weights (M × M, symmetric): every call of the pair (i, j) weighs
    (mean battles per pair that met) ÷ (battles of i and j), so each pair that met counts as
    much as any other in the weighted likelihood, and the total weight equals the calls. 0 where
    a pair never met.

    >>> inverse_pair_weights(np.array([[0, 30, 10], [30, 0, 20], [10, 20, 0]])).round(2).tolist()
    [[0.0, 0.67, 2.0], [0.67, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    battles = np.asarray(battles, dtype=np.float64)
    met = battles > 0
    off = met & ~np.eye(battles.shape[0], dtype=bool)
    if not off.any():
        return np.zeros_like(battles)
    mean = battles[off].mean()
    with np.errstate(divide="ignore"):
        return np.where(off, mean / np.where(met, battles, 1.0), 0.0)


def widening_by_unit(
    source, *, judge: str | None, category: str | None = None
) -> dict[str, tuple[float, int]]:
    """:func:`cluster_widening` and the number of units for every unit column of a store of
    verdicts (``session``, ``voter``, ``run`` with two or more values), for one judge: what the
    report says when it matters. Empty for a table without unit columns."""
    from evalcore.ranking.bradley_terry import comparison_graph, fit_bradley_terry, pooled_wins

    columns = source.unit_columns() if hasattr(source, "unit_columns") else ()
    out: dict[str, tuple[float, int]] = {}
    for column in columns:
        counts = source.counts(judge=judge, category=category, cluster=column)
        if counts.n_models < 2 or counts.n_cells == 0:
            continue
        wins = pooled_wins(counts)
        prior = 0.0 if comparison_graph(wins, counts.models).mle_exists else 1.0
        theta, _ = fit_bradley_terry(wins, prior_games=prior)
        out[column] = (cluster_widening(counts, theta, wins, prior_games=prior), counts.n_units)
    return out
