"""Ties as data: the ranking under three tie conventions, and how much the choice moves it.

A pairwise judge's tie can enter a Bradley–Terry ranking three ways:

* **half a win** for each side: the leaderboard's convention (Bradley & Terry 1952, as Chatbot
  Arena counts them);
* **dropped**: only the decisive verdicts are fitted;
* **modelled**: Davidson's (1970) extension gives each pair three outcomes, the tie with
  probability ν·√(π_i π_j) / (π_i + π_j + ν·√(π_i π_j)), so ties inform the strengths without being
  read as wins (:func:`evalcore.ties.davidson.fit_davidson`).

:func:`tie_conventions` fits all three on the same verdicts (sign only: a strong and a weak win
are both a win), reports Davidson's tie parameter with its 95% interval (a bootstrap over
instructions, or the profile likelihood), and for each pair of conventions how many models change
rank, by how many places at most, and Kendall's tau between the two rankings. When the conventions agree on the order, the choice of
convention is a matter of scale only; when they disagree, which model sits where depends on how a
tie is read, and the sentence says so.

A Chatbot Arena battle's "tie (bothbad)" is a tie like any other here; the store keeps its
"both bad" mark beside the verdict, and :mod:`evalcore.ties.both_bad` reports its share.

References
----------
Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in paired
comparison experiments. *Journal of the American Statistical Association* 65(329), 317–328.
Bradley, R. A. & Terry, M. E. (1952). Rank analysis of incomplete block designs: I. The method of
paired comparisons. *Biometrika* 39, 324–345.
Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3), 239–251.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from scipy import sparse

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_int, check_models
from evalcore.progress import Progress
from evalcore.ranking.bradley_terry import fit_bradley_terry, mle_exists, ranks_descending, to_elo
from evalcore.schema import LEVELS
from evalcore.stats.bootstrap import bootstrap_weights, pattern_operand, percentile_interval, weighted_totals
from evalcore.stats.kendall import kendall_tau
from evalcore.stats.threads import single_blas_thread
from evalcore.text import fmt_count, fmt_list
from evalcore.ties.davidson import fit_davidson

#: The three conventions, in the order the faces show them, and their plain names.
CONVENTIONS: dict[str, str] = {
    "half_win": "a tie as half a win",
    "dropped": "ties dropped",
    "modelled": "ties modelled",
}
#: Virtual tie games per model where a maximum-likelihood strength would be infinite (the
#: leaderboard's weak prior).
PRIOR_GAMES = 1.0
#: The most models :func:`tie_conventions` ranks (``benchmarks/bench_model_limits.py``; 2.6 s at 500).
MAX_MODELS = 500
#: Bootstrap rounds of the tie parameter's interval on the page and the command line.
ROUNDS = 200
#: Fewer instructions than this are too few to resample: the interval is the profile likelihood's.
MIN_BOOTSTRAP_INSTRUCTIONS = 20
#: How the interval was made without resampling, and when it was not asked for (NaN bounds).
PROFILE_INTERVAL = "profile likelihood"
NO_INTERVAL = "not computed"
#: Said when resampling was asked for but every instruction holds one verdict (:func:`tie_conventions`).
INDEPENDENT_NOTE = (
    "Each instruction holds one verdict, so the verdicts are independent and the tie parameter's "
    "interval is the profile likelihood's: resampling instructions would resample the same "
    "independent verdicts and give the same interval."
)
#: Ratings equal to a hundredth of an Elo point share a rank (the fits' own precision is finer).
RANK_DECIMALS = 2
PAIRS: tuple[tuple[str, str], ...] = (
    ("half_win", "modelled"),
    ("half_win", "dropped"),
    ("dropped", "modelled"),
)

_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}


def _number(n: int) -> str:
    return _WORDS.get(n, f"{n:,}")


@dataclass(frozen=True)
class ConventionShift:
    """How the ranking changes from convention ``first`` to ``second``.

    ``models_moved``: models whose rank differs; ``largest_move``: the most places one model moves;
    ``tau``: Kendall's tau-b between the two rankings (1 = the same order); ``moved``: the models
    that move, the farthest first.
    """

    first: str
    second: str
    models_moved: int
    largest_move: int
    tau: float
    moved: tuple[str, ...]

    def as_dict(self) -> dict:
        return {
            "from": self.first,
            "to": self.second,
            "models_moved": self.models_moved,
            "largest_move": self.largest_move,
            "convention_tau": self.tau,
            "moved": list(self.moved),
        }


@dataclass(frozen=True)
class TieConventions:
    """Ratings (Elo scale, mean 1000) and ranks of one judge's verdicts under three tie conventions.

    Attributes
    ----------
    models : tuple of str
    half_win, dropped, modelled : ndarray
        Each model's rating when a tie is half a win (the leaderboard), when ties are dropped, and
        when they are modelled (Davidson 1970).
    decisive, ties : int
        Verdicts with a winner, and ties.
    tie_parameter, tie_parameter_low, tie_parameter_high : float
        Davidson's ν and its 95% interval; NaN when not identified.
    interval : str
        How the interval was made: ``"profile likelihood"`` (verdicts independent given the
        strengths) or ``"bootstrap over instructions"`` (percentiles of ``rounds`` resamples of
        the instructions, which allows for verdicts on one instruction to go together).
    refusal : str
        Why the tie parameter is not estimated ("" when it is).
    shifts : tuple of ConventionShift
        One per pair in :data:`PAIRS`, the headline (modelled against half a win) first.
    notes : tuple of str
        The weak prior, where a fit needed one.
    """

    models: tuple[str, ...]
    half_win: np.ndarray
    dropped: np.ndarray
    modelled: np.ndarray
    decisive: int
    ties: int
    tie_parameter: float
    tie_parameter_low: float
    tie_parameter_high: float
    refusal: str
    shifts: tuple[ConventionShift, ...]
    notes: tuple[str, ...] = ()
    interval: str = PROFILE_INTERVAL
    rounds: int = 0

    @property
    def identified(self) -> bool:
        """Whether the tie parameter is estimated (the verdicts hold ties and wins)."""
        return not self.refusal

    @property
    def tie_chance_equal(self) -> float:
        """Davidson's chance of a tie between two equally strong models, ν / (2 + ν)."""
        nu = self.tie_parameter
        return nu / (2.0 + nu) if np.isfinite(nu) else float("nan")

    @property
    def orders_agree(self) -> bool:
        """Whether every convention ranks the models in the same order."""
        return all(s.models_moved == 0 for s in self.shifts)

    @property
    def modelling_agrees(self) -> bool:
        """Whether modelling the ties keeps the leaderboard's order (a tie as half a win). Dropping
        ties discards evidence and reorders close models by noise alone, so only this comparison
        decides whether the report says anything."""
        return self.headline.models_moved == 0

    @property
    def headline(self) -> ConventionShift:
        """Modelling ties against counting them as half a win (the leaderboard)."""
        return self.shifts[0]

    def ranks(self, convention: str) -> np.ndarray:
        """Competition ranks (1 = best) under ``convention``."""
        return ranks_descending(getattr(self, convention), decimals=RANK_DECIMALS)

    def sentence(self) -> str:
        """What the choice of convention does to the ranking, in plain words (names are user text)."""
        if self.ties == 0:
            return (
                "No verdict is a tie, so the three ways of counting ties give the same ranking and "
                "there is no tie parameter to estimate."
            )
        if self.decisive == 0:
            return "Every verdict is a tie: no way of counting ties can tell the models apart."
        head, drop = self.shifts[0], self.shifts[1]
        text = "Modelling ties instead of counting each as half a win moves " + _moves(head, names=True)
        if drop.models_moved == 0 and head.models_moved == 0:
            text += ", and dropping ties moves none either."
        else:
            text += "; dropping ties moves " + _moves(drop, names=False) + "."
        if self.orders_agree:
            return text + " The order does not depend on how ties are counted."
        return text + " The order depends on how ties are counted: read neighbouring places with care."

    def frame(self):
        """One row per model: its rating and rank under each convention, in the leaderboard's order."""
        import pandas as pd

        out = pd.DataFrame(
            {
                "model": self.models,
                "rating": self.half_win,
                "rank": self.ranks("half_win"),
                "rating_ties_dropped": self.dropped,
                "rank_ties_dropped": self.ranks("dropped"),
                "rating_ties_modelled": self.modelled,
                "rank_ties_modelled": self.ranks("modelled"),
            }
        )
        return out.sort_values(["rank", "rank_ties_modelled"], kind="stable").reset_index(drop=True)

    def as_dict(self) -> dict:
        return {
            "decisive_verdicts": self.decisive,
            "tie_verdicts": self.ties,
            "tie_parameter": self.tie_parameter if self.identified else None,
            "tie_parameter_low": self.tie_parameter_low if self.identified else None,
            "tie_parameter_high": self.tie_parameter_high if self.identified else None,
            "tie_chance_equal_models": self.tie_chance_equal if self.identified else None,
            "interval_method": self.interval if self.identified else None,
            "rounds": self.rounds,
            "refusal": self.refusal or None,
            "orders_agree": self.orders_agree,
            "sentence": self.sentence(),
            "comparisons": [s.as_dict() for s in self.shifts],
            "models": self.frame().to_dict(orient="records"),
            "notes": list(self.notes),
        }


def _moves(shift: ConventionShift, *, names: bool) -> str:
    """ "no model", "two models by one place (a, b)", "three models by up to two places"."""
    n = shift.models_moved
    if n == 0:
        return "no model" if names else "none"
    text = f"{_number(n)} model{'s' if n != 1 else ''} " + (
        "by one place" if shift.largest_move == 1 else f"by up to {_number(shift.largest_move)} places"
    )
    return text + (f" ({fmt_list(shift.moved, 3)})" if names else "")


def convention_shift(
    models: tuple[str, ...], first: str, second: str, ratings: dict[str, np.ndarray]
) -> ConventionShift:
    """How the ranking moves from ``ratings[first]`` to ``ratings[second]`` (competition ranks;
    ratings equal to a hundredth of a point share the better rank)."""
    r1 = ranks_descending(ratings[first], decimals=RANK_DECIMALS)
    r2 = ranks_descending(ratings[second], decimals=RANK_DECIMALS)
    move = np.abs(r1 - r2)
    order = np.argsort(-move, kind="stable")
    return ConventionShift(
        first=first,
        second=second,
        models_moved=int(np.count_nonzero(move)),
        largest_move=int(move.max(initial=0)),
        tau=float(kendall_tau(-r1, -r2)),
        moved=tuple(models[k] for k in order if move[k] > 0),
    )


def _bradley_terry(wins: np.ndarray) -> tuple[np.ndarray, bool]:
    """The leaderboard's fit: plain maximum likelihood, the weak prior where it is infinite."""
    finite = bool(mle_exists(wins))
    theta, _ = fit_bradley_terry(wins, prior_games=0.0 if finite else PRIOR_GAMES)
    return to_elo(theta), finite


def conventions_from_matrices(
    wins: np.ndarray,
    ties: np.ndarray,
    *,
    models: tuple[str, ...] | None = None,
    interval: bool = True,
) -> TieConventions:
    """:func:`tie_conventions` on pooled matrices: ``wins[i, j]`` decisive verdicts of i over j,
    ``ties`` symmetric (``ties[i, j]`` the ties between i and j, each tie once). ``interval=False``
    leaves the tie parameter's interval out (NaN bounds, :data:`NO_INTERVAL`)."""
    w = np.asarray(wins, dtype=np.float64)
    t = np.asarray(ties, dtype=np.float64)
    m = w.shape[0]
    if w.shape != (m, m) or t.shape != (m, m) or m < 2:
        raise UsageError("comparing tie conventions needs verdicts between at least two models")
    names = models or tuple(f"m{k}" for k in range(m))
    n_ties = int(round(np.triu(t, 1).sum()))
    n_decisive = int(round(w.sum()))
    half, half_finite = _bradley_terry(w + 0.5 * t)
    dropped, dropped_finite = _bradley_terry(w) if n_decisive else (np.full(m, 1000.0), False)
    notes = []
    if not half_finite:
        notes.append(
            "Some model never lost or never won: the ratings under each convention include one "
            "virtual tie per model against an average model, as on the leaderboard."
        )
    elif not dropped_finite and n_decisive:
        notes.append(
            "Without the ties some model never lost or never won: the ratings with ties dropped "
            "include one virtual tie per model against an average model."
        )
    nu = low = high = float("nan")
    refusal = ""
    if n_ties == 0:
        refusal = (
            "No verdict is a tie, so the tie parameter is not identified: its estimate would sit "
            "at zero, with no interval that means anything."
        )
        modelled = dropped
    elif n_decisive == 0:
        refusal = (
            "Every verdict is a tie, so the tie parameter is not identified: its estimate would be "
            "infinite, and no model is stronger than another."
        )
        modelled = np.full(m, 1000.0)
        dropped = modelled
    else:
        prior = 0.0 if half_finite else PRIOR_GAMES
        fit = fit_davidson(w, t, models=names, prior_games=prior, interval=interval)
        modelled, nu, low, high = fit.ratings, fit.nu, fit.nu_low, fit.nu_high
    ratings = {"half_win": half, "dropped": dropped, "modelled": modelled}
    return TieConventions(
        models=names,
        half_win=half,
        dropped=dropped,
        modelled=modelled,
        decisive=n_decisive,
        ties=n_ties,
        tie_parameter=nu,
        tie_parameter_low=low,
        tie_parameter_high=high,
        refusal=refusal,
        shifts=tuple(convention_shift(names, a, b, ratings) for a, b in PAIRS),
        notes=tuple(notes),
        interval=PROFILE_INTERVAL if interval else NO_INTERVAL,
    )


def outcome_matrices(counts: VerdictCounts) -> tuple[np.ndarray, np.ndarray]:
    """Pooled decisive wins (M, M) and ties (M, M, symmetric) of ``counts``, by the verdict's sign
    and with both slots pooled."""
    m = counts.n_models
    levels = np.asarray(LEVELS)
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    won_a = counts.cell_scores((levels > 0).astype(float))
    won_b = counts.cell_scores((levels < 0).astype(float))
    tied = counts.cell_scores((levels == 0).astype(float))
    wins = np.bincount(a * m + b, weights=won_a, minlength=m * m) + np.bincount(
        b * m + a, weights=won_b, minlength=m * m
    )
    low, high = np.minimum(a, b), np.maximum(a, b)
    upper = np.bincount(low * m + high, weights=tied, minlength=m * m).reshape(m, m)
    return wins.reshape(m, m), upper + upper.T


def _instruction_operands(counts: VerdictCounts):
    """Per instruction pattern, its decisive wins and (upper-triangle) ties as M² columns."""
    m = counts.n_models
    levels = np.asarray(LEVELS)
    a, b = counts.a.astype(np.int64), counts.b.astype(np.int64)
    inst = counts.inst.astype(np.int64)
    won_a = counts.cell_scores((levels > 0).astype(float))
    won_b = counts.cell_scores((levels < 0).astype(float))
    tied = counts.cell_scores((levels == 0).astype(float))
    shape = (counts.n_instructions, m * m)
    wins = sparse.csr_matrix(
        (np.r_[won_a, won_b], (np.r_[inst, inst], np.r_[a * m + b, b * m + a])), shape=shape
    )
    ties = sparse.csr_matrix((tied, (inst, np.minimum(a, b) * m + np.maximum(a, b))), shape=shape)
    pats = counts.patterns
    rep = pats.representative
    return pattern_operand(wins[rep]), pattern_operand(ties[rep]), pats.multiplicity


#: Resamples between two reports of the tie parameter's bootstrap to a progress callback.
PROGRESS_EVERY = 10


def _bootstrap_tie_parameter(
    counts: VerdictCounts, *, rounds: int, seed: int, prior: float, start, progress: Progress | None = None
) -> np.ndarray:
    """Davidson's ν refitted on ``rounds`` resamples of the instructions (NaN where a resample
    holds no tie or no decisive verdict); ``progress`` hears every :data:`PROGRESS_EVERY` rounds."""
    m = counts.n_models
    wins_op, ties_op, multiplicity = _instruction_operands(counts)
    out = np.full(rounds, np.nan)
    for first, stop, weights in bootstrap_weights(multiplicity, rounds, seed, row_bytes=16 * m * m):
        w_all = weighted_totals(weights, wins_op)
        t_all = weighted_totals(weights, ties_op)
        for r in range(stop - first):
            if progress is not None and (first + r) % PROGRESS_EVERY == 0:
                progress(
                    (first + r) / rounds,
                    f"refitting the tie parameter: resample {first + r + 1:,} of {rounds:,}",
                )
            w = w_all[r].reshape(m, m)
            upper = t_all[r].reshape(m, m)
            if upper.sum() == 0 or w.sum() == 0:
                continue
            fit = fit_davidson(w, upper + upper.T, prior_games=prior, interval=False, start=start)
            out[first + r] = fit.nu
    return out


def tie_conventions(
    counts: VerdictCounts,
    *,
    rounds: int = 0,
    seed: int = 0,
    interval: bool = True,
    progress: Progress | None = None,
) -> TieConventions:
    """Rank one judge's verdicts three ways: a tie as half a win, ties dropped, ties modelled.

    Parameters
    ----------
    counts : VerdictCounts
        One judge's calls; a verdict counts by its sign (a tie is level 0), both slots pooled.
    rounds : int, default 0
        Bootstrap rounds over instructions for the tie parameter's interval (the page and the
        command line use :data:`ROUNDS`); 0, or fewer than
        :data:`MIN_BOOTSTRAP_INSTRUCTIONS` instructions, gives the profile-likelihood interval,
        as does a table whose every instruction holds one verdict (an arena's battles: the
        verdicts are then independent, which the profile likelihood assumes; said in the notes).
    seed : int, default 0
        Seed of the resampling.
    interval : bool, default True
        False: the ratings and the tie parameter without its interval (NaN bounds; ``rounds`` is
        then ignored), for a caller that shows only the order and the sentence (the headline
        findings and the report): the profile-likelihood search is most of the cost.
    progress : callable, optional
        ``progress(fraction, words)`` during the bootstrap (a page's progress bar).

    Returns
    -------
    TieConventions
        The ratings and ranks under each convention, Davidson's tie parameter with its 95%
        interval (bootstrap over instructions, or profile likelihood; refused in words when the
        verdicts hold no tie, or nothing but ties), and for each pair of conventions the models that change rank, the largest move
        and Kendall's tau-b between the rankings.

    Notes
    -----
    The half-a-win ratings are the leaderboard's point estimates (the same fit and the same weak
    prior where a strength would be infinite). With ties dropped, a model that only ever tied
    has no decisive verdict; it keeps the average rating. The profile-likelihood interval treats
    verdicts as independent given the strengths; verdicts on one instruction often go together
    (an easy prompt ties more), and the bootstrap over instructions allows for that: on the demo
    its interval is about two and a half times as wide (Efron & Tibshirani, *An Introduction to
    the Bootstrap*, 1993).

    References
    ----------
    Davidson, R. R. (1970). On extending the Bradley–Terry model to accommodate ties in paired
    comparison experiments. *Journal of the American Statistical Association* 65(329), 317–328.
    Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3).

    Examples
    --------
    >>> import numpy as np
    >>> wins = np.array([[0, 6, 8], [4, 0, 6], [2, 4, 0]])
    >>> ties = np.array([[0, 2, 1], [2, 0, 3], [1, 3, 0]])
    >>> tc = conventions_from_matrices(wins, ties, models=("a", "b", "c"))
    >>> tc.headline.models_moved, tc.orders_agree
    (0, True)
    """
    if counts.n_models < 2 or counts.n_cells == 0:
        raise UsageError(
            "Comparing tie conventions needs verdicts between at least two models; this selection "
            f"has {fmt_count(counts.n_models, 'model')} with a verdict."
        )
    check_models(
        counts.n_models,
        limit=MAX_MODELS,
        analysis="The ranking with the ties modelled (Davidson's model) fits every model against every other",
        measured="1,000 models took 9 s, 2,000 half a minute",
        instead="The leaderboard ranks any number (a tie as half a win); compare the conventions on fewer models.",
    )
    rounds, seed = check_int("rounds", rounds, low=0), check_int("seed", seed, low=0)
    wins, ties = outcome_matrices(counts)
    # One call an instruction (an arena): resampling instructions resamples independent verdicts,
    # which the profile likelihood already treats as independent; the two agree there (94.5% and
    # 97.0% coverage with independent verdicts; 1.2948–1.3033 against 1.2950–1.3031 on 1.8 M
    # battles) and the profile costs a twentieth (0.2 against 4.6 s there).
    independent = counts.single_call_instructions()
    resample = bool(
        interval and rounds and counts.n_instructions >= MIN_BOOTSTRAP_INSTRUCTIONS and not independent
    )
    # the bootstrap's interval replaces the profile likelihood's: that search is not made for it
    tc = conventions_from_matrices(wins, ties, models=counts.models, interval=interval and not resample)
    if not resample:
        if interval and rounds and independent and tc.identified:
            tc = replace(tc, notes=(*tc.notes, INDEPENDENT_NOTE))
        return tc
    if not tc.identified:  # nothing was fitted: labelled as without the bootstrap
        return replace(tc, interval=PROFILE_INTERVAL)
    prior = 0.0 if bool(mle_exists(wins + 0.5 * ties)) else PRIOR_GAMES  # as the point fit
    start = fit_davidson(wins, ties, prior_games=prior, interval=False).params
    with single_blas_thread():  # hundreds of small solves: one BLAS thread (see there)
        draws = _bootstrap_tie_parameter(
            counts, rounds=rounds, seed=seed, prior=prior, start=start, progress=progress
        )
    low, high = percentile_interval(draws)
    return replace(
        tc,
        tie_parameter_low=float(low),
        tie_parameter_high=float(high),
        interval="bootstrap over instructions",
        rounds=rounds,
    )
