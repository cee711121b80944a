"""The leaderboard of one judge: Bradley–Terry ratings with intervals, rank ranges, win rates.

Why this module is longer than 500 lines: :func:`leaderboard` assembles every column of the one
table (ratings, intervals over the chosen unit, bounds, rank ranges, weighting shifts) and its
notes; the interval methods, the design rules and the unit of resampling live in
:mod:`.intervals`, :mod:`.design` and :mod:`.units`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_int
from evalcore.limits import check_bytes, check_rounds
from evalcore.progress import Progress
from evalcore.ranking import pair_board, sparse_fit
from evalcore.ranking.board_fit import BoardFit
from evalcore.ranking.bradley_terry import (
    ELO_CENTRE,
    ELO_SCALE,
    ranks_descending,
)
from evalcore.ranking.design import (
    MIN_INSTRUCTIONS_FOR_NOMINAL,
    IntervalChoice,
    choose_interval,
    few_notes,
    instructions_per_model,
    slot_comparability,
    sweep_bound,
    sweep_notes,
)
from evalcore.ranking.intervals import (
    bootstrap_thetas,
)
from evalcore.ranking.units import widening_matters, widening_note
from evalcore.schema import LEVELS
from evalcore.stats.intervals import Z95, Estimate
from evalcore.stats.threads import single_blas_thread
from evalcore.text import fmt_count

if TYPE_CHECKING:
    import pandas as pd
    from scipy import sparse
else:  # imported on first use: a ranking of few models never needs it
    from evalcore.stats.lazy_sparse import sparse

#: How many models × models float arrays a leaderboard of fewer than
#: :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models holds at its peak (the pooled
#: wins and their transpose sum, battles, win rates, the covariance, the sandwich's bread and meat).
LEADERBOARD_MATRICES = 6
#: Bytes a leaderboard over the pairs holds per pair that met (the wins, the Newton–CG work
#: arrays, the information and the meat as sparse matrices), per verdict cell (the clusters'
#: scores) and per model.
PAIR_BYTES, CELL_BYTES, MODEL_BYTES = 320, 100, 400
#: Copies of the draws (rounds × models numbers) a leaderboard holds: the ratings, the draws a
#: sandwich keeps, the ranks (4-byte) and a chunk's work arrays.
DRAW_COPIES = 4
#: The chunked work of the draws' solves and the rank ranges (about 64 MB of random signs and
#: their solutions).
DRAW_WORK_BYTES = 160 * 2**20


def board_bytes(n_models: int, n_pairs: int, n_cells: int, rounds: int) -> float:
    """The memory a leaderboard needs at its peak, before it is built (for :func:`check_bytes`).

    Below :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models: its models × models
    matrices. From there it keeps no such matrix: the estimate follows the pairs that met, the
    verdict cells and the draws (10,000 models, 200,000 pairs and 1,000 draws: about 600 MB).
    """
    m = float(n_models)
    if n_models < sparse_fit.SPARSE_FROM_MODELS:
        return LEADERBOARD_MATRICES * 8.0 * m * m
    draws = max(int(rounds), pair_board.DIAGONAL_DRAWS)
    return (
        PAIR_BYTES * float(n_pairs)
        + CELL_BYTES * float(n_cells)
        + MODEL_BYTES * m
        + DRAW_COPIES * 8.0 * draws * m
        + DRAW_WORK_BYTES
    )


_METHOD_TEXT = {
    "bootstrap": "2.5-97.5 percentiles of a bootstrap over instructions",
    "sandwich": "instruction-clustered sandwich (normal approximation, ±1.96 standard errors)",
}
#: The same, when the unit is a column's (the bootstrap draws, the sandwich clusters, its values).
_UNIT_METHOD_TEXT = {
    "bootstrap": "2.5-97.5 percentiles of a bootstrap over {unit}s",
    "sandwich": "{unit}-clustered sandwich (normal approximation, ±1.96 standard errors)",
}
#: The weightings of the calls a leaderboard accepts.
WEIGHTINGS = (None, "inverse-pair")


@dataclass(frozen=True, repr=False)
class Leaderboard:
    """The leaderboard of one judge: ratings, 95% intervals, rank ranges and the win-rate matrix.

    ``table`` columns: rank, model, rating, ci_low, ci_high, rank_low, rank_high, battles, wins,
    ties, losses, win_rate, piece, bound, comparable, only_slot. ``bound`` is ``"at least"`` for a
    model that never lost (``ci_low`` is its exact one-sided 95% bound,
    :func:`~evalcore.ranking.intervals.sweep_bound`; ``ci_high`` is +inf), ``"at most"`` for one
    that never scored, else empty. ``comparable`` is False for a model that only ever sat in one
    slot while most models did not (:func:`slot_comparability`; ``only_slot`` names the slot): its
    rating carries the judge's slot preference. With a single instruction ``rank_low`` and
    ``rank_high`` are NaN (no rank range). ``instructions`` counts the instructions with at least one
    verdict involving the model; ``few_instructions`` is True below
    :data:`MIN_INSTRUCTIONS_FOR_NOMINAL` (its interval is widened, see :func:`leaderboard`). ``samples`` holds rating draws (rounds × M, in the order of ``models``): bootstrap
    ratings, or draws from the sandwich's normal approximation (for rank ranges; from 100 models
    draws of the clusters' scores with random signs, which have the sandwich's covariance exactly). ``covariance``
    is the ratings' covariance (Elo² units) from the chosen method.
    """

    models: tuple[str, ...]
    #: the table's columns as arrays, rows in table order (the frames below are built on first
    #: use, so a caller that only wants ``as_dict()`` — the command line — never loads pandas)
    columns: dict[str, np.ndarray]
    #: (M, M) observed, row model's point of view; NaN where never met. From
    #: :data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models a sparse matrix of the pairs
    #: that met (and ``battles`` too); :attr:`win_rate_matrix` is dense either way.
    win_rates: np.ndarray | sparse.csr_matrix
    battles: np.ndarray | sparse.csr_matrix  # (M, M) battles between each pair, both slots
    samples: np.ndarray
    #: dense (M, M) below SPARSE_FROM_MODELS models; from there its factors
    #: (:class:`~evalcore.ranking.pair_board.PairSandwich`, or the bootstrap's
    #: :class:`~evalcore.ranking.pair_board.SampleCovariance`): ``cov[i, j]`` and
    #: ``cov.diagonal()`` either way, ``numpy.asarray(cov)`` the whole matrix
    covariance: np.ndarray | pair_board.PairSandwich | pair_board.SampleCovariance
    ratings: np.ndarray  # point ratings in the order of ``models``
    rounds: int
    seed: int
    judge: str | None
    n_instructions: int
    notes: tuple[str, ...]
    prior_games: float
    interval_method: str = "bootstrap"
    #: why this method: :attr:`IntervalPolicy.reason` (``"auto"`` says the rule it applied)
    interval_reason: str = ""
    #: design conditions that qualify the ratings (models not comparable with the others)
    design_warnings: tuple[str, ...] = ()
    #: the resampling unit: "instruction", or the unit column the intervals are clustered by
    cluster: str = "instruction"
    #: how many resampling units (instructions, or sessions, voters, runs)
    n_units: int = 0
    #: median over models of the clustered sandwich standard error ÷ the instruction-level one
    #: (NaN when the unit is the instruction)
    cluster_widening: float = math.nan
    #: None, or "inverse-pair" (each pair that met weighs the same; ``weighting_shift`` column)
    weighting: str | None = None

    @property
    def not_comparable(self) -> tuple[str, ...]:
        """The models whose ratings are not comparable with the others' (one slot only)."""
        return tuple(
            str(m) for m, ok in zip(self.columns["model"], self.columns["comparable"], strict=True) if not ok
        )

    def comparable_only(self) -> Leaderboard:
        """The same leaderboard with only the rows of comparable models in its table (what the
        headline findings read: the leader and the adjacent pairs among comparable models)."""
        keep = np.asarray(self.columns["comparable"], dtype=bool)
        if keep.all():
            return self
        return replace(self, columns={k: v[keep] for k, v in self.columns.items()})

    @cached_property
    def table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.columns)

    @cached_property
    def win_rate_matrix(self) -> pd.DataFrame:
        import pandas as pd

        names = list(self.models)
        return pd.DataFrame(_dense(self.win_rates, "win-rate", np.nan), index=names, columns=names)

    @cached_property
    def battles_matrix(self) -> pd.DataFrame:
        import pandas as pd

        names = list(self.models)
        return pd.DataFrame(_dense(self.battles, "battles", 0.0), index=names, columns=names)

    @property
    def interval_description(self) -> str:
        if self.cluster != "instruction":
            return _UNIT_METHOD_TEXT[self.interval_method].format(unit=self.cluster)
        return _METHOD_TEXT[self.interval_method]

    def difference(self, model_1: str, model_2: str) -> Estimate:
        """The rating difference r₁ − r₂ (Elo points) with its 95% interval.

        Bootstrap: percentiles of the paired differences across rounds. Sandwich: the delta
        method, Var = C₁₁ + C₂₂ − 2·C₁₂.
        """
        i, j = self.models.index(model_1), self.models.index(model_2)
        value = float(self.ratings[i] - self.ratings[j])
        if self.interval_method == "sandwich":
            var = self.covariance[i, i] + self.covariance[j, j] - 2 * self.covariance[i, j]
            half = Z95 * math.sqrt(max(var, 0.0))
            return Estimate(value, value - half, value + half, method="delta method (sandwich)")
        d = self.samples[:, i] - self.samples[:, j]
        d = d[np.isfinite(d)]
        if d.size < 2:
            return Estimate(value, method="bootstrap")
        low, high = np.percentile(d, [2.5, 97.5])
        return Estimate(value, float(low), float(high), method=f"bootstrap over {self.cluster}s")

    def as_dict(self) -> dict:
        return {
            "judge": self.judge,
            "interval_method": self.interval_method,
            "interval": self.interval_description,
            "interval_reason": self.interval_reason,
            "rounds": self.rounds,
            "seed": self.seed,
            "n_instructions": self.n_instructions,
            "cluster": self.cluster,
            "n_units": self.n_units,
            "cluster_widening": None if not math.isfinite(self.cluster_widening) else self.cluster_widening,
            "weighting": self.weighting,
            "prior_games": self.prior_games,
            "notes": list(self.notes),
            "design_warnings": list(self.design_warnings),
            "models": _records(self.columns),
        }

    def __repr__(self) -> str:
        return (
            f"Leaderboard({len(self.models)} models, {self.n_instructions:,} instructions, "
            f"{self.interval_method})"
        )


def _records(columns: dict[str, np.ndarray]) -> list[dict]:
    """One dict per row with Python values (as ``DataFrame.to_dict("records")``), ±inf and NaN
    as None."""
    lists = {k: v.tolist() for k, v in columns.items()}
    n = len(next(iter(lists.values()))) if lists else 0
    return [
        {k: (None if isinstance(v[i], float) and not math.isfinite(v[i]) else v[i]) for k, v in lists.items()}
        for i in range(n)
    ]


def leaderboard(
    counts: VerdictCounts,
    *,
    rounds: int = 1000,
    seed: int = 0,
    interval: IntervalChoice = "auto",
    progress: Progress | None = None,
    weighting: str | None = None,
) -> Leaderboard:
    """Bradley–Terry leaderboard with 95% intervals over instructions (or over the unit the
    counts were read with: ``store.counts(cluster="session")``).

    Parameters
    ----------
    counts : VerdictCounts
        One judge's calls (sparse counts from :meth:`evalcore.store.store.VerdictStore.counts`).
    rounds : int, default 1000
        Bootstrap rounds (``interval="bootstrap"``), or normal draws for the rank ranges
        (``interval="sandwich"``). ``0`` gives point estimates only.
    seed : int, default 0
        Seed of the resampling.
    interval : {"auto", "bootstrap", "sandwich"}, default "auto"
        How intervals are made (see :mod:`evalcore.ranking.intervals`); ``"auto"`` applies
        :func:`choose_interval` (the same rule as ``rank`` and the Leaderboard page), and
        ``interval_reason`` says what it chose and why.
    progress : callable, optional
        ``progress(fraction, label)`` while bootstrapping.
    weighting : {None, "inverse-pair"}, default None
        ``"inverse-pair"`` weights every call by (mean battles per pair) ÷ (its pair's battles),
        so that a heavily sampled pair does not dominate an unbalanced arena; the
        ``weighting_shift`` column says how far it moved each model.

    The resampling unit is the counts' (:attr:`VerdictCounts.unit_column`, else the
    instruction): the bootstrap redraws whole units and the sandwich sums scores per unit
    (:meth:`VerdictCounts.by_unit`). With a unit column, ``cluster_widening`` is the median ratio
    of the unit-clustered to the instruction-clustered sandwich standard errors.

    Returns
    -------
    Leaderboard

    Notes
    -----
    The point estimate is the maximum-likelihood fit on all battles, with a weak prior (one
    virtual tie per model against an average model) only where the MLE is infinite, said in
    ``notes``. A model that never lost has an infinite MLE: it gets an exact one-sided 95% lower
    bound (``bound == "at least"``; the rating at which its sweep has a 2.5% chance, the others at
    their ratings), never a two-sided interval. A model absent from a
    bootstrap resample has no rating in that round (it is not put at the prior's centre).

    A model judged on fewer than :data:`MIN_INSTRUCTIONS_FOR_NOMINAL` instructions has too few
    units for an interval over instructions: resampling two instructions, or a sandwich over two
    clusters, gives a width of ±16–22 Elo points where the data allow about ±155. Its interval is
    widened to at least the model-based one (Fisher information of the pooled fit, calls treated as
    independent; Bradley & Terry 1952, Agresti 2002), and a note names it. In simulation (60
    instructions, one model on 2 of them, instruction effects, 200 tables) the rare model's
    bootstrap interval covered the truth 47% of the time and the sandwich 59%; widened, 90.5% and
    92.5% (``tests/ranking/test_few_instructions.py``).

    References
    ----------
    Bradley & Terry, "Rank analysis of incomplete block designs", Biometrika 39 (1952).
    Chiang et al., "Chatbot Arena: An Open Platform for Evaluating LLMs by Human Preference",
    ICML 2024 (bootstrap intervals; sandwich intervals on the 2025 leaderboard).

    Examples
    --------
    >>> import numpy as np
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q1", "q2", "q3"),
    ...     judge=None, inst=[0, 1, 2], a=[0, 0, 1], b=[1, 1, 0],
    ...     n=[[0, 0, 0, 0, 1], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]])
    >>> board = leaderboard(c, rounds=0)
    >>> [round(r) for r in board.table["rating"]]
    [1000, 1000]
    """
    rounds = check_rounds(rounds, models=counts.n_models)
    seed = check_int("seed", seed, low=0)
    if weighting not in WEIGHTINGS:
        raise UsageError(f"weighting must be None or 'inverse-pair', not {weighting!r}.")
    policy = choose_interval(counts.n_instructions, counts.n_models, interval)
    interval = policy.method
    if counts.n_models < 2 or counts.n_cells == 0:
        raise UsageError(
            "A leaderboard needs verdicts between at least two different models; "
            f"this selection has {fmt_count(counts.n_models, 'model')} and "
            f"{fmt_count(counts.n_instructions, 'instruction')} with a verdict."
        )
    m = counts.n_models
    many = m >= sparse_fit.SPARSE_FROM_MODELS
    pw = pair_board.pooled_pair_wins(counts) if many else None
    # Refuse at once, in words, what would not fit, instead of swapping for minutes: from
    # SPARSE_FROM_MODELS models nothing is models × models (see board_bytes).
    check_bytes(
        f"a leaderboard of {m:,} models",
        board_bytes(m, 0 if pw is None else pw.pairs.n_pairs, counts.n_cells, rounds),
        advice="Below 100 models it keeps models × models matrices (win rates, battles, "
        "covariances); from there it keeps the pairs that met and the draws. Rank a category or "
        "a subset of the models, or ask for fewer rounds.",
    )
    units = counts.by_unit()  # what is resampled: instructions, or the unit column's values
    fit = BoardFit.make(counts, pw, weighted=weighting is not None, seed=seed)
    graph, prior, theta = fit.graph, fit.prior, fit.theta
    ratings = ELO_CENTRE + ELO_SCALE * theta

    notes: list[str] = list(graph.notes(counts.models))
    cov: np.ndarray | pair_board.PairSandwich | pair_board.SampleCovariance
    if interval == "bootstrap":
        with single_blas_thread():  # thousands of small solves: one thread is far faster
            th, absent, regularised, unconverged = bootstrap_thetas(
                units,
                theta,
                prior_games=prior,
                rounds=rounds,
                seed=seed,
                progress=progress,
                pair_weights=fit.weights,
            )
        samples = ELO_CENTRE + ELO_SCALE * th
        notes += _bootstrap_notes(rounds, regularised, unconverged, absent, counts.models)
        cov = pair_board.SampleCovariance(samples if rounds > 1 else np.empty((0, m)))
        if not fit.many:
            cov = np.asarray(cov) if rounds > 1 else np.full((m, m), np.nan)
    else:
        cov, draws, more = fit.sandwich(units, rounds)  # type: ignore[assignment]
        samples = ELO_CENTRE + ELO_SCALE * draws
        notes += more

    ci_low, ci_high = _intervals(interval, ratings, samples, cov, rounds)
    widening = fit.widening()
    if widening_matters(widening):
        notes.append(widening_note(counts.unit_column or "unit", widening, units.n_instructions))
    battles, rate = fit.battles_and_rates()
    if not isinstance(battles, np.ndarray):
        battles = sparse.csr_matrix(battles)
    bound = np.array([""] * m, dtype=object)
    # A model that never lost (or never won) has an infinite maximum-likelihood rating: the
    # resamples only repeat the prior-held one, which is no bound. Its one-sided bound is exact
    # instead: the rating at which the observed sweep has a 2.5% chance, others at their ratings.
    index = {name: k for k, name in enumerate(counts.models)}
    for names, side, words in ((graph.undefeated, "lower", "at least"), (graph.winless, "upper", "at most")):
        stated = []
        for name in names:
            k = index[name]
            bound[k] = words
            row = _row(battles, k)
            limit = sweep_bound(ratings, row, side=side) if rounds else math.nan
            ci_low[k], ci_high[k] = (limit, math.inf) if side == "lower" else (-math.inf, limit)
            if math.isfinite(limit):
                stated.append((name, limit, int(row.sum())))
        notes += sweep_notes(stated, side)

    n_inst = counts.n_instructions
    per_model = instructions_per_model(counts)
    few = per_model < MIN_INSTRUCTIONS_FOR_NOMINAL
    if rounds and few.any():
        fit.widen_few(units, ci_low, ci_high, few & (bound == ""))
        notes += few_notes(counts.models, per_model, few, n_inst)
    rank_unidentified = bool(rounds and n_inst < 2)
    if rank_unidentified:
        notes.append(
            "With a single instruction there is nothing to resample: no interval and no rank "
            "range is shown (every resample would repeat the one instruction, so a range would "
            "claim a certainty the data cannot give). Judge more instructions."
        )
        ci_low[:] = np.nan
        ci_high[:] = np.nan
    elif rounds and n_inst < MIN_INSTRUCTIONS_FOR_NOMINAL:
        notes.append(
            f"Only {fmt_count(n_inst, 'instruction')}: below about {MIN_INSTRUCTIONS_FOR_NOMINAL}, intervals "
            "over instructions are too narrow (in simulation, nominal 95% intervals covered the "
            "truth about 90% of the time with 10 instructions and about 50% with 2). Read them "
            "as rough, and judge more instructions."
        )
    # A zero-width interval is not an interval (e.g. every resample identical).
    zero = np.isfinite(ci_low) & np.isfinite(ci_high) & (ci_high - ci_low <= 1e-9)
    if zero.any() and n_inst >= 2:
        notes.append(
            "Every resample gave the same rating for "
            + ", ".join(counts.models[k] for k in np.flatnonzero(zero)[:5])
            + (" and others" if zero.sum() > 5 else "")
            + ": a zero-width interval would claim certainty the data cannot give, so none is "
            "shown (typically every verdict is a tie, or every instruction was judged alike)."
        )
    ci_low[zero] = np.nan
    ci_high[zero] = np.nan

    rank = np.empty(m, dtype=int)
    rank_low = np.empty(m, dtype=int)
    rank_high = np.empty(m, dtype=int)
    for piece in np.unique(graph.pieces):
        members = np.flatnonzero(graph.pieces == piece)
        rank[members] = ranks_descending(ratings[members])
        if rounds and samples.shape[0]:
            rank_low[members], rank_high[members] = _rank_ranges(samples, members)
        else:
            rank_low[members] = rank[members]
            rank_high[members] = rank[members]

    if rank_unidentified:
        rank_low, rank_high = np.full(m, np.nan), np.full(m, np.nan)
    comparable, only_slot, slot_warnings = slot_comparability(counts)

    sign = sign_counts(counts)
    piece = graph.pieces.astype(int) + 1
    columns = {
        "rank": rank,
        "model": np.array(counts.models, dtype=object),
        "rating": ratings,
        "ci_low": ci_low,
        "ci_high": ci_high,
        "rank_low": rank_low,
        "rank_high": rank_high,
        "battles": sign["battles"],
        "wins": sign["wins"],
        "ties": sign["ties"],
        "losses": sign["losses"],
        "win_rate": (sign["wins"] + 0.5 * sign["ties"]) / np.maximum(sign["battles"], 1),
        "piece": piece,
        "bound": bound,
        "comparable": comparable,
        "only_slot": only_slot,
        "instructions": per_model,
        "few_instructions": few,
    }
    # table order: by piece, then rank, then name (a stable sort, as pandas' sort_values)
    order = sorted(range(m), key=lambda k: (piece[k], rank[k], counts.models[k]))
    if weighting is not None:
        columns["weighting_shift"] = ELO_SCALE * (theta - fit.plain_theta())
    columns = {name: values[order] for name, values in columns.items()}
    return Leaderboard(
        models=counts.models,
        columns=columns,
        win_rates=rate,
        battles=battles,
        samples=samples,
        covariance=cov,
        ratings=ratings,
        rounds=rounds,
        seed=seed,
        judge=counts.judge,
        n_instructions=n_inst,
        notes=tuple(notes),
        prior_games=prior,
        interval_method=interval,
        interval_reason=policy.reason,
        design_warnings=tuple(slot_warnings),
        cluster=counts.unit_column or "instruction",
        n_units=counts.n_units,
        cluster_widening=widening,
        weighting=weighting,
    )


def _row(matrix: np.ndarray | sparse.csr_matrix, k: int) -> np.ndarray:
    """Row ``k`` of a models × models matrix, dense or sparse, as a dense vector."""
    if isinstance(matrix, np.ndarray):
        return matrix[k]
    out = np.zeros(matrix.shape[1])
    span = slice(matrix.indptr[k], matrix.indptr[k + 1])
    np.add.at(out, matrix.indices[span], matrix.data[span])
    return out


def _dense(matrix: np.ndarray | sparse.csr_matrix, what: str, fill: float) -> np.ndarray:
    """A models × models matrix as a dense array (``fill`` where a sparse one stores nothing),
    refused in words where it would not fit."""
    if isinstance(matrix, np.ndarray):
        return matrix
    m = matrix.shape[0]
    check_bytes(f"the {what} matrix of {m:,} models", 8.0 * m * m)
    coo = matrix.tocoo()
    out = np.full((m, m), fill)
    out[coo.row, coo.col] = coo.data
    return out


def _rank_ranges(samples: np.ndarray, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5 and 97.5 percentiles ("lower" and "higher") of each member's rank among the
    members over the draws; a model absent from a draw takes the worst rank in it. Ranked a
    chunk of draws at a time (a quarter of a million ranks: ranking makes eight arrays of its
    size) into 4-byte ranks, so many models need one copy of the draws."""
    rounds = samples.shape[0]
    ranks = np.empty((rounds, members.size), dtype=np.int32)
    step = max(1, int(250_000 // max(members.size, 1)))
    for lo in range(0, rounds, step):
        sub = samples[lo : lo + step][:, members]
        ranks[lo : lo + step] = ranks_descending(np.where(np.isfinite(sub), sub, -np.inf))
    ranks.sort(axis=0)
    low = ranks[int(math.floor(0.025 * (rounds - 1)))]
    high = ranks[int(math.ceil(0.975 * (rounds - 1)))]
    return low.astype(int), high.astype(int)


def _intervals(
    method: str, ratings: np.ndarray, samples: np.ndarray, cov, rounds: int
) -> tuple[np.ndarray, np.ndarray]:
    m = ratings.size
    if method == "sandwich":
        half = Z95 * np.sqrt(np.clip(cov.diagonal(), 0.0, None))
        return ratings - half, ratings + half
    if not rounds:
        return np.full(m, np.nan), np.full(m, np.nan)
    low = np.full(m, np.nan)
    high = np.full(m, np.nan)
    for k in range(m):
        s = samples[:, k]
        s = s[np.isfinite(s)]
        if s.size >= 2:
            low[k], high[k] = np.percentile(s, [2.5, 97.5])
    return low, high


def _bootstrap_notes(
    rounds: int, regularised: int, unconverged: int, absent: np.ndarray, models: tuple[str, ...]
) -> list[str]:
    notes = []
    if regularised:
        notes.append(
            f"{regularised:,} of {rounds:,} bootstrap rounds drew instructions on which some model "
            "never lost or never won; those rounds were fitted with the weak prior (one virtual "
            "tie per model against an average model), as the full data would be."
        )
    if unconverged:
        notes.append(
            f"{unconverged:,} of {rounds:,} bootstrap fits stopped before converging; "
            "their ratings are kept as reached."
        )
    missing = absent.sum(axis=0) if absent.size else np.zeros(len(models), dtype=int)
    worst = [(models[k], int(missing[k])) for k in np.argsort(-missing) if missing[k] > 0][:5]
    if worst:
        listed = ", ".join(f"{name} ({n:,})" for name, n in worst)
        notes.append(
            "Some models had no battle at all in some resamples (rounds in brackets): their "
            f"interval uses only the rounds in which they played — {listed}."
        )
    return notes


def sign_counts(counts: VerdictCounts) -> dict[str, np.ndarray]:
    """Wins, ties, losses and battles per model, both slots pooled."""
    # Per cell, then per model by bincount: O(cells), where an (M, M, L) pooled array is 160 MB
    # and most of a second at 2,000 models. Slot A's wins, ties and losses per cell are read once.
    m = counts.n_models
    levels = np.asarray(LEVELS)
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    a_win = counts.cell_scores((levels > 0) * 1.0)
    a_tie = counts.cell_scores((levels == 0) * 1.0)
    a_loss = counts.cell_scores((levels < 0) * 1.0)

    def per_model(values: np.ndarray, side: np.ndarray) -> np.ndarray:
        return np.rint(np.bincount(side, weights=values, minlength=m)).astype(np.int64)

    wins = per_model(a_win, a) + per_model(a_loss, b)
    losses = per_model(a_loss, a) + per_model(a_win, b)
    ties = per_model(a_tie, a) + per_model(a_tie, b)
    return {"wins": wins, "losses": losses, "ties": ties, "battles": wins + losses + ties}
