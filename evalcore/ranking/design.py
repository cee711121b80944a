"""What the design supports: which interval method suits the table's size, and for each model the one-sided bound of a model that won (or lost)
every battle, whether a model's rating is comparable with the others' when it only ever sat in one
slot, and how many instructions stand behind each model (below the few-instructions threshold its
interval is widened to the model-based width). :func:`evalcore.ranking.leaderboard` applies them;
each is a pure function of the counts or of the fit."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING, Literal

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.ranking.bradley_terry import ELO_CENTRE, ELO_SCALE
from evalcore.ranking.intervals import fisher_information, information_inverse
from evalcore.slots import slot_balance
from evalcore.stats.intervals import Z95
from evalcore.text import fmt_count, fmt_list

if TYPE_CHECKING:
    import pandas as pd

#: The tail of the one-sided bound of a model that never lost (or never won): the lower end of a
#: 95% interval whose other end is unbounded, so 2.5%, as the two-sided intervals' ends.
ONE_SIDED_TAIL = 0.025

#: Below this many instructions, 95% intervals over instructions cover noticeably less than 95%,
#: and the leaderboard says so. From ``benchmarks/bench_interval_coverage.py`` (all pairs, six
#: models, instruction effects, 150 tables per size): the bootstrap covered 51% at 2 instructions,
#: 83% at 5, 90% at 10, 92% at 20, 93% at 30 and 95% at 50; the sandwich 71%, 89%, 92%, 94%, 94%
#: and 95%. At 30 instructions with 200 tables: bootstrap 93.1%, sandwich 94.4% (the measured
#: figures the pages quote, :data:`COVERAGE_AT_THRESHOLD`). The same threshold applies to each
#: model's own instructions (``instructions`` in the table).
MIN_INSTRUCTIONS_FOR_NOMINAL = 30
#: Measured coverage of the nominal 95% intervals at :data:`MIN_INSTRUCTIONS_FOR_NOMINAL`
#: instructions (200 simulated tables, ``benchmarks/bench_interval_coverage.py``'s design).
COVERAGE_AT_THRESHOLD = {"bootstrap": 0.931, "sandwich": 0.944}


IntervalMethod = Literal["bootstrap", "sandwich"]
#: What a caller may ask for: a method, or ``"auto"`` (:func:`choose_interval` decides).
IntervalChoice = Literal["auto", "bootstrap", "sandwich"]

#: Above this many instructions ``"auto"`` takes the sandwich: the bootstrap refits the model once
#: per round over every instruction pattern, which takes minutes on an arena-sized table (10.8 s
#: instead of about 1 s for 1,000 rounds on 300,000 battles).
BOOTSTRAP_LIMIT = 50_000
#: Above this many models too: a bootstrap round refits every rating (over the compared pairs,
#: ``evalcore.ranking.sparse_fit``), so 1,000 rounds on 2,000 models take tens of seconds where
#: the sandwich takes one fit.
BOOTSTRAP_MODEL_LIMIT = 150


@dataclass(frozen=True)
class IntervalPolicy:
    """Which interval method a leaderboard uses and why, in words (shown by every face)."""

    method: IntervalMethod
    requested: IntervalChoice
    reason: str

    @property
    def automatic(self) -> bool:
        return self.requested == "auto"


def choose_interval(n_instructions: int, n_models: int, requested: str = "auto") -> IntervalPolicy:
    """The one rule for the interval method, shared by ``rank``, :func:`leaderboard`,
    :meth:`evalcore.Dataset.leaderboard` and the Leaderboard page.

    ``"auto"`` takes the instruction-clustered sandwich above :data:`BOOTSTRAP_LIMIT` instructions
    or :data:`BOOTSTRAP_MODEL_LIMIT` models (where the bootstrap would take long), else the
    bootstrap over instructions. The size of the table decides, nothing else, so every face
    shows the same intervals for the same table (the number of rounds does not change the
    method: a caller that wants ratings only asks for ``interval="bootstrap", rounds=0``). An
    explicit method is kept. ``reason`` says which and why.

    Examples
    --------
    >>> choose_interval(1_000, 6).method, choose_interval(300_000, 129).method
    ('bootstrap', 'sandwich')
    >>> choose_interval(300, 2_000).reason
    'chosen automatically: sandwich, because the table has 2,000 models (above 150, the bootstrap would take long)'
    """
    if requested not in ("auto", "bootstrap", "sandwich"):
        raise UsageError(f"interval must be 'auto', 'bootstrap' or 'sandwich', not {requested!r}.")
    n_instructions, n_models = int(n_instructions), int(n_models)
    if requested != "auto":
        return IntervalPolicy(method=requested, requested=requested, reason=f"{requested}, as asked")  # type: ignore[arg-type]
    if n_instructions > BOOTSTRAP_LIMIT:
        why = f"the table has {fmt_count(n_instructions, 'instruction')} (above {BOOTSTRAP_LIMIT:,}, the bootstrap would take long)"
        method: IntervalMethod = "sandwich"
    elif n_models > BOOTSTRAP_MODEL_LIMIT:
        why = f"the table has {fmt_count(n_models, 'model')} (above {BOOTSTRAP_MODEL_LIMIT:,}, the bootstrap would take long)"
        method = "sandwich"
    else:
        why = (
            f"the table has {fmt_count(n_instructions, 'instruction')} and {fmt_count(n_models, 'model')} (up to "
            f"{BOOTSTRAP_LIMIT:,} and {BOOTSTRAP_MODEL_LIMIT:,}, the bootstrap is quick)"
        )
        method = "bootstrap"
    return IntervalPolicy(
        method=method, requested="auto", reason=f"chosen automatically: {method}, because {why}"
    )


def sweep_bound(
    opponents: np.ndarray, battles: np.ndarray, *, side: str, tail: float = ONE_SIDED_TAIL
) -> float:
    """The exact one-sided bound (Elo points) of a model that won (or lost) every battle.

    ``side="lower"`` for a model that won all its battles: the rating r at which winning every
    one of them has probability ``tail``, Π_j P(r beats r_j)^{n_j} = tail, with the opponents
    held at their ratings ``opponents`` (``battles`` n_j against each). Any lower rating makes
    the observed sweep less likely than ``tail``, so "at least r" is the inversion of the exact
    one-sided test of each rating (Clopper & Pearson, "The use of confidence or fiducial limits
    illustrated in the case of the binomial", Biometrika 1934, the zero-failures case); it covers
    the truth with probability at least 1 − ``tail`` when the opponents' ratings and the
    battles' independence hold. ``side="upper"`` for a model that lost every battle: by symmetry,
    "at most r". The maximum-likelihood rating of such a model is infinite, and a prior-held
    rating is not a bound at all.

    Parameters
    ----------
    opponents : array of float
        The opponents' ratings (Elo points).
    battles : array of float
        Battles against each opponent.
    side : {"lower", "upper"}
    tail : float
        The one-sided error probability (default 2.5%).

    Returns
    -------
    float
        NaN without battles.

    Examples
    --------
    Two wins in two battles against a model rated 1,000 have probability 1/4 at a rating of 1,000;
    one win in one battle has it at 400·log10(1/3) = 191 Elo points below the opponent.

    >>> round(sweep_bound(np.array([1000.0]), np.array([2.0]), side="lower", tail=0.25))
    1000
    >>> round(sweep_bound(np.array([1000.0]), np.array([1.0]), side="lower", tail=0.25))
    809
    """
    from evalcore.ranking.bradley_terry import ELO_SCALE
    from evalcore.stats.roots import brentq  # SciPy's algorithm, without importing scipy.optimize

    keep = np.asarray(battles, dtype=np.float64) > 0
    r = np.asarray(opponents, dtype=np.float64)[keep]
    n = np.asarray(battles, dtype=np.float64)[keep]
    if not n.size or not np.isfinite(r).all():
        return float("nan")
    if side == "upper":
        return -sweep_bound(-r, n, side="lower", tail=tail)
    log_tail = np.log(tail)

    def excess(x: float) -> float:  # log P(sweep | rating x) − log tail, increasing in x
        return float(-(n * np.logaddexp(0.0, (r - x) / ELO_SCALE)).sum() - log_tail)

    low, high = float(r.min()), float(r.max())
    step = 400.0
    while excess(low) > 0:
        low -= step
        step *= 2
    step = 400.0
    while excess(high) < 0:
        high += step
        step *= 2
    return float(brentq(excess, low, high, xtol=1e-6))


def sweep_note(name: str, side: str, limit: float, n_battles: int) -> str:
    won = "won every one" if side == "lower" else "lost every one"
    words = "at least" if side == "lower" else "at most"
    return (
        f"{name} {won} of its {fmt_count(n_battles, 'battle')}: its rating is {words} {limit:,.0f} (one-sided "
        f"95% bound: the rating at which {'winning' if side == 'lower' else 'losing'} all of them "
        "has a 2.5% chance, the other models held at their ratings and the battles taken as "
        "independent). The rating in the table is held finite by a weak prior and is not an "
        "estimate; rank it with care."
    )


#: Up to this many models on one side get a sentence each (:func:`sweep_note`); more are said in
#: one sentence (:func:`sweep_notes`): a sparse table of thousands of models has hundreds.
SWEEP_NOTES = 3


def sweep_notes(bounds: list[tuple[str, float, int]], side: str) -> list[str]:
    """The notes of the models that won (``side="lower"``) or lost every battle, each a (name,
    bound, battles): a sentence per model, or, for more than :data:`SWEEP_NOTES`, one sentence
    naming the first few and pointing to the bounds in the table.

    Examples
    --------
    >>> sweep_notes([("a", 1650.0, 3)], "lower")[0][:60]
    'a won every one of its 3 battles: its rating is at least 1,6'
    >>> sweep_notes([(f"m{k}", 1300.0, 1) for k in range(7)], "upper")[0][:70]
    '7 models lost every one of their battles (m0, m1, m2, m3, m4 and 2 mor'
    """
    if len(bounds) <= SWEEP_NOTES:
        return [sweep_note(name, side, limit, n) for name, limit, n in bounds]
    won = "won every one" if side == "lower" else "lost every one"
    words = "at least the lower" if side == "lower" else "at most the upper"
    return [
        f"{len(bounds):,} models {won} of their battles ({fmt_list(name for name, _, _ in bounds)}): "
        f"each one's rating is {words} end of its interval in the table (a one-sided 95% bound: "
        f"the rating at which {'winning' if side == 'lower' else 'losing'} all of its battles has "
        "a 2.5% chance, the other models held at their ratings and the battles taken as "
        "independent). Their ratings in the table are held finite by a weak prior and are not "
        "estimates; rank them with care."
    ]


def slot_comparability(counts: VerdictCounts) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Which models' ratings are comparable with the others' when the judge may prefer a slot.

    A rating fitted without a slot term absorbs the judge's slot preference in proportion to how
    often the model sat in each slot. Models that share one slot pattern absorb the same amount
    (the models of an anchor-only table, all in slot A), so they stay comparable with one another;
    a model that only ever sat in a slot that at most half of the models share exclusively (the
    reference of that table, always in slot B; a candidate always shown first among balanced
    pairs) carries the slot preference in its rating, and neither its rating nor its rank can be
    compared with the others. The one-slot models come from
    :func:`evalcore.slots.slot_balance`, the same check the judge's spec sheet uses to
    refuse position bias.

    Returns
    -------
    comparable : array of bool, in the order of ``counts.models``
    only_slot : array of str, ``"A"`` or ``"B"`` for a model that is not comparable, else ``""``
    warnings : list of str
        One sentence per design condition, empty when every model is comparable.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("ref", "x", "y"), instructions=("q1", "q2"),
    ...     judge="j", inst=[0, 1], a=[1, 2], b=[0, 0], n=[[0, 0, 0, 1, 0], [1, 0, 0, 0, 0]])
    >>> comparable, slot, _ = slot_comparability(c)
    >>> comparable.tolist(), slot.tolist()
    ([False, True, True], ['B', '', ''])
    """
    m = counts.n_models
    comparable = np.ones(m, dtype=bool)
    only_slot = np.array([""] * m, dtype=object)
    one_slot = slot_balance(counts).one_slot_models
    played = int((np.bincount(counts.a, minlength=m) + np.bincount(counts.b, minlength=m) > 0).sum())
    per_slot = {s: sum(1 for _, t, _ in one_slot if t == s) for s in ("A", "B")}
    flagged = [(name, slot, n) for name, slot, n in one_slot if 2 * per_slot[slot] <= played]
    for name, slot, _ in flagged:
        k = counts.models.index(name)
        comparable[k] = False
        only_slot[k] = slot
    warnings: list[str] = []
    if flagged:
        listed = fmt_list(
            (f"{name} (always in slot {slot}, {fmt_count(n, 'call')})" for name, slot, n in flagged), 4
        )
        warnings.append(
            f"Not comparable with the others: {listed}. A model that only ever sits in one "
            "slot, while most models do not, carries the judge's slot preference in its rating: "
            "its rating and rank cannot be told apart from that preference, so it is marked in "
            "the table and left out of the leader and of the separation of the top models. "
            "Judge it in both slot orders to compare it."
        )
    return comparable, only_slot, warnings


def instructions_per_model(counts: VerdictCounts) -> np.ndarray:
    """How many instructions carry at least one verdict involving each model (int array, M).

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("a", "b", "c"), instructions=("q1", "q2"),
    ...     judge=None, inst=[0, 1, 1], a=[0, 0, 1], b=[1, 2, 2],
    ...     n=[[0, 0, 0, 1, 0]] * 3)
    >>> instructions_per_model(c).tolist()
    [2, 2, 1]
    """
    m = counts.n_models
    inst = np.asarray(counts.inst, dtype=np.int64)
    # An instruction with a single cell (an arena's prompt: one battle) counts once for each of
    # its two models: counted directly, where hashing 2 × 1.8 M (instruction, model) keys took
    # seconds. Only instructions with several cells need the distinct keys.
    single = np.bincount(inst, minlength=counts.n_instructions)[inst] == 1
    out = np.bincount(counts.a[single], minlength=m) + np.bincount(counts.b[single], minlength=m)
    if not single.all():
        many = inst[~single]
        keys = np.concatenate([many * m + counts.a[~single], many * m + counts.b[~single]])
        out += np.bincount(np.unique(keys) % m, minlength=m)
    return out.astype(np.int64)


def widen_few(
    ci_low: np.ndarray,
    ci_high: np.ndarray,
    few: np.ndarray,
    wins: np.ndarray | None,
    theta: np.ndarray,
    prior: float,
    *,
    variances: np.ndarray | None = None,
) -> None:
    """Widen (in place) the intervals of the models in ``few`` to at least ±1.96 model-based
    standard errors: with a handful of instructions the resampling and clustered intervals have
    almost no units to vary over and come out far too narrow, while the model-based width still
    reflects how many calls the model has. ``variances``: the model-based variances when the
    caller has them (many models: :meth:`~evalcore.ranking.pair_board.PairSandwich.model_variances`),
    else they come from ``wins``."""
    if not few.any():
        return
    if variances is not None:
        var = np.clip(variances, 0.0, None)
    else:
        assert wins is not None
        info = fisher_information(wins, theta, prior_games=prior)
        # The pseudo-inverse: without the prior the information is a graph Laplacian (singular
        # along each connected piece's common shift, which the ratings do not identify).
        var = np.clip(np.diag(information_inverse(info, prior_games=prior)), 0.0, None)
    half = Z95 * ELO_SCALE * np.sqrt(var)
    rating = ELO_CENTRE + ELO_SCALE * theta
    low = np.where(np.isfinite(ci_low), np.minimum(ci_low, rating - half), rating - half)
    high = np.where(np.isfinite(ci_high), np.maximum(ci_high, rating + half), rating + half)
    ci_low[few] = low[few]
    ci_high[few] = high[few]


def few_notes(models: tuple[str, ...], per_model: np.ndarray, few: np.ndarray, n_inst: int) -> list[str]:
    """The per-model caveat: which models rest on few instructions (when only some do; a table
    that is small as a whole gets its own note)."""
    widened = (
        "intervals are widened to at least the model-based width (calls treated as independent), "
        "and may still cover the truth less often than 95%"
    )
    if few.all():
        return [
            f"Every model was judged on fewer than {MIN_INSTRUCTIONS_FOR_NOMINAL} instructions: their {widened}."
        ]
    order = [k for k in np.argsort(per_model, kind="stable") if few[k]]
    listed = fmt_list(f"{models[k]} ({int(per_model[k]):,} of {n_inst:,})" for k in order)
    return [
        f"Few instructions behind some models (instructions with a verdict in brackets): "
        f"{listed}. Below {MIN_INSTRUCTIONS_FOR_NOMINAL} instructions an interval over "
        f"instructions is too narrow (in simulation a model on 2 of 60 instructions got ±20 Elo "
        f"points and covered the truth about half the time); their {widened}. Read their "
        "ratings as rough."
    ]


def classify_design(models: tuple[str, ...], pairs: pd.DataFrame) -> tuple[str, str | None]:
    """ "all pairs" if every pair of models was judged, "anchor-only" if one model is in every
    judged pair (the AlpacaEval design), else "partial". Returns the design and the anchor."""
    import pandas as pd

    n_pairs = len(pairs)
    if len(models) >= 2 and n_pairs == comb(len(models), 2):
        return "all pairs", None
    if n_pairs:
        both = pd.concat([pairs.iloc[:, 0], pairs.iloc[:, 1]])
        appearances = both.value_counts()
        top = appearances.index[0]
        if appearances.iloc[0] == n_pairs and n_pairs == len(models) - 1:
            return "anchor-only", str(top)
    return "partial", None
