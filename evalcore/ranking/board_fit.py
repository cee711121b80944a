"""The point fit of a leaderboard and what its intervals need, for few models or for many.

Below :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models a leaderboard works on
models × models matrices (the pooled wins, the dense sandwich); from there on the pairs that met
only (:mod:`evalcore.ranking.pair_board`), so that its memory and time follow the battles. One
object, :class:`BoardFit`, answers the leaderboard's questions the same way on either path: the
ratings, the sandwich (its variances, entries and draws), the clustering's widening, the
model-based variances and the battles and win rates between models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.ranking import pair_board, sparse_fit
from evalcore.ranking.bradley_terry import (
    ELO_SCALE,
    ComparisonGraph,
    comparison_graph,
    fit_bradley_terry,
    pooled_wins,
)
from evalcore.ranking.design import widen_few
from evalcore.ranking.intervals import normal_draws, sandwich_covariance
from evalcore.ranking.units import cluster_widening, inverse_pair_weights
from evalcore.stats.threads import single_blas_thread

if TYPE_CHECKING:
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

Matrix: TypeAlias = "np.ndarray | sparse.csr_matrix"


@dataclass
class BoardFit:
    """The pooled fit of one leaderboard: dense (``pw`` None) or over the pairs."""

    counts: VerdictCounts
    graph: ComparisonGraph
    prior: float
    theta: np.ndarray
    total: Matrix  # pooled wins (M × M), dense or sparse
    weights: Matrix | None  # per-call pair weights (M × M), or None
    fitted: np.ndarray | None  # the (weighted) dense wins the fit used (few models)
    pw: pair_board.PairWins | None = None
    fitted_pw: pair_board.PairWins | None = None
    pair_weight: np.ndarray | None = None
    seed: int = 0
    _sandwich: pair_board.PairSandwich | None = None

    @classmethod
    def make(
        cls, counts: VerdictCounts, pw: pair_board.PairWins | None, *, weighted: bool, seed: int
    ) -> BoardFit:
        if pw is None:
            total = pooled_wins(counts)
            graph = comparison_graph(total, counts.models)
            prior = 0.0 if graph.mle_exists else 1.0
            weights = inverse_pair_weights(total + total.T) if weighted else None
            fitted = total if weights is None else total * weights
            theta, _ = fit_bradley_terry(fitted, prior_games=prior)
            return cls(counts, graph, prior, theta, total, weights, fitted, seed=seed)
        graph = pair_board.pair_graph(pw, counts.models)
        prior = 0.0 if graph.mle_exists else 1.0
        pair_weight = pair_board.inverse_pair_weight(pw) if weighted else None
        fitted_pw = pw.weighted(pair_weight)
        theta, _ = sparse_fit.fit_pairs(pw.pairs, fitted_pw.w_ij, fitted_pw.w_ji, prior_games=prior)
        return cls(
            counts,
            graph,
            prior,
            theta,
            pw.matrix(pw.w_ij, pw.w_ji),
            None if pair_weight is None else pw.matrix(pair_weight, pair_weight),
            None,
            pw,
            fitted_pw,
            pair_weight,
            seed,
        )

    @property
    def many(self) -> bool:
        return self.pw is not None

    def pair_sandwich(self, units: VerdictCounts, draws: int = 0) -> pair_board.PairSandwich:
        assert self.fitted_pw is not None
        if self._sandwich is None:
            with single_blas_thread():
                self._sandwich = pair_board.pair_sandwich(
                    units,
                    self.theta,
                    self.fitted_pw,
                    self.graph.pieces,
                    prior_games=self.prior,
                    pair_weight=self.pair_weight,
                    seed=self.seed,
                    draws=draws,
                )
            self._sandwich.scale = ELO_SCALE**2
        return self._sandwich

    def sandwich(self, units: VerdictCounts, rounds: int) -> tuple[object, np.ndarray, list[str]]:
        """The sandwich covariance (Elo²), ``rounds`` rating draws from its normal approximation
        (natural scale) and the notes it needs."""
        m = self.counts.n_models
        if self.many:
            s = self.pair_sandwich(units, rounds)
            draws = s.draws(self.theta, draws=rounds) if rounds else np.empty((0, m))
            notes = [] if s.exact else [pair_board.drawn_note(max(rounds, pair_board.DIAGONAL_DRAWS))]
            return s, draws, notes
        assert self.fitted is not None
        with single_blas_thread():  # one (models × models) product per chunk: no pool needed
            cov = ELO_SCALE**2 * sandwich_covariance(
                units, self.theta, self.fitted, prior_games=self.prior, pair_weights=self.weights
            )
        draws = (
            normal_draws(self.theta, cov / ELO_SCALE**2, draws=rounds, seed=self.seed)
            if rounds
            else np.empty((0, m))
        )
        return cov, draws, []

    def widening(self) -> float:
        """:func:`evalcore.ranking.units.cluster_widening` of the counts' unit column."""
        if self.counts.unit is None:
            return math.nan
        if self.many:
            assert self.fitted_pw is not None
            return pair_board.pair_cluster_widening(
                self.counts,
                self.theta,
                self.fitted_pw,
                self.graph.pieces,
                prior_games=self.prior,
                pair_weight=self.pair_weight,
                seed=self.seed,
            )
        assert self.fitted is not None
        return cluster_widening(
            self.counts, self.theta, self.fitted, prior_games=self.prior, pair_weights=self.weights
        )

    def widen_few(
        self, units: VerdictCounts, ci_low: np.ndarray, ci_high: np.ndarray, few: np.ndarray
    ) -> None:
        """:func:`evalcore.ranking.design.widen_few` with this fit's model-based variances."""
        if not few.any():
            return
        if self.many:
            variances = self.pair_sandwich(units).model_variances()
            widen_few(ci_low, ci_high, few, None, self.theta, self.prior, variances=variances)
        else:
            assert isinstance(self.total, np.ndarray)
            widen_few(ci_low, ci_high, few, self.total, self.theta, self.prior)

    def plain_theta(self) -> np.ndarray:
        """The unweighted fit (for the weighting's shift)."""
        if self.pw is not None:
            return sparse_fit.fit_pairs(self.pw.pairs, self.pw.w_ij, self.pw.w_ji, prior_games=self.prior)[0]
        assert isinstance(self.total, np.ndarray)
        return fit_bradley_terry(self.total, prior_games=self.prior)[0]

    def battles_and_rates(self) -> tuple[Matrix, Matrix]:
        """Battles between each pair and the row model's win rate (NaN, or not stored, where a
        pair never met)."""
        if self.pw is not None:
            games = self.pw.battles
            with np.errstate(invalid="ignore", divide="ignore"):
                return self.pw.matrix(games, games), self.pw.matrix(
                    self.pw.w_ij / games, self.pw.w_ji / games
                )
        total = np.asarray(self.total)
        battles = total + total.T
        with np.errstate(invalid="ignore", divide="ignore"):
            return battles, np.where(battles > 0, total / battles, np.nan)
