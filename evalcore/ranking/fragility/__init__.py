"""Fragility of a Bradley–Terry ranking: the fewest verdicts whose removal reverses an order.

For a pair of models (the leader and a challenger, or two neighbours on the leaderboard) the
question is: what is the smallest set of judge calls whose removal makes the model behind rate
above the model ahead, when the ratings are refitted exactly as the leaderboard fits them?

The search follows Huang, Shen, Wei & Broderick (2025), who found that dropping 2 of 57,477
Chatbot Arena votes changes the top model. It has three steps.

1. **First-order influence** (the approximate maximum influence perturbation, AMIP, of Broderick,
   Giordano & Meager): removing one call of model x against model y, with score s for x (1 a
   win, ½ a tie), moves the strengths by about −H⁻¹ (s − p_xy)(e_x − e_y), H the Fisher
   information. Its effect on the gap θ_ahead − θ_behind is −(s − p_xy)(u_x − u_y) with
   u = H⁻¹(e_ahead − e_behind): one linear solve per pair. The calls with the most negative
   effect, taken until their summed effect exceeds the gap, are the AMIP set.
2. **Refit and re-linearise**: the AMIP set is removed and the ratings refitted; if the order has
   not flipped, the influence is recomputed at the new fit and more calls are taken, until the
   order flips or ``max_drop`` calls are gone. A flip is always *verified* by a refit.
3. **Minimise**: the shortest prefix of the removal sequence that still flips (bisection), then
   single calls put back while the flip survives. On small tables an **exhaustive** search over
   every removal of 1, 2, … calls (bounded by ``exhaustive`` refits) proves that no smaller set
   flips the order, or finds one.

The same search answers a second question (``kind="flip"``): the fewest verdicts whose *reversal*
puts the model behind ahead, as a judge's errors or a judge working against the leader would. A
flip turns a win for one model into a win for the other, or a tie into a win for either; each
verdict is flipped at most once. A flip moves the pair's scores by a whole verdict where a removal
moves them by its surprise (1 − p for a win), so about half as many flips suffice. Only the moves
change (:class:`~evalcore.ranking.fragility.outcomes.Outcomes` with ``kind``); the influence,
refits, minimising and exhaustive proof are shared.

The Bradley–Terry fit sees only the pooled win matrix, so calls with the same two models and the
same outcome (x beat y, or a tie) are interchangeable: the search works on these *outcomes* (at
most M² + M²/2 of them, whatever the number of instructions), and the concrete calls reported are
the first such calls in instruction order. Memory stays at a few M × M matrices per refit, and a
per-cell index only for naming the calls found.

The package keeps the parts apart: :mod:`~evalcore.ranking.fragility.results` (the frozen result
types and their sentences), :mod:`~evalcore.ranking.fragility.outcomes` (the table as outcomes:
influence, refits, naming the calls), :mod:`~evalcore.ranking.fragility.search` (the guided search
and the exhaustive proof) and this module (:func:`ranking_fragility`, which runs them per pair).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError, check_int, check_models
from evalcore.ranking.bradley_terry import (
    ELO_SCALE,
    comparison_graph,
    fit_bradley_terry,
    ranks_descending,
)
from evalcore.ranking.fragility.outcomes import CellIndex, Kind, Outcomes
from evalcore.ranking.fragility.results import (
    LIST_LIMIT,
    TOLERANCE_ELO,
    DroppedCalls,
    DroppedOutcome,
    PairFragility,
    PairsMode,
    RankingFragility,
)
from evalcore.ranking.fragility.search import Search, take_calls
from evalcore.stats.threads import single_blas_thread
from evalcore.text import fmt_count

#: The most models the search runs on. Each refit solves the full information matrix (its cost
#: grows with the cube of the models) and the search refits hundreds of times: one kind took
#: about 1 s on 130 models and 20,000 battles, 2–11 s on 200 models (20,000 and 2,000 battles),
#: 5–28 s on 300, and had not finished after five minutes on 2,000 models
#: (``benchmarks/bench_model_limits.py``). The Overview runs both kinds; a page must not hang.
MAX_MODELS = 150

__all__ = [
    "LIST_LIMIT",
    "MAX_MODELS",
    "TOLERANCE_ELO",
    "DroppedCalls",
    "DroppedOutcome",
    "Kind",
    "PairFragility",
    "PairsMode",
    "RankingFragility",
    "ranking_fragility",
]


def ranking_fragility(
    counts: VerdictCounts,
    *,
    pairs: PairsMode = "leader",
    kind: Kind = "remove",
    max_drop: int | None = None,
    exhaustive: int = 2000,
    max_listed: int = LIST_LIMIT,
) -> RankingFragility:
    """The smallest number of verdicts whose removal (or reversal) flips the leader, or each adjacent pair.

    Parameters
    ----------
    counts : VerdictCounts
        One judge's calls (sparse counts from :meth:`evalcore.store.store.VerdictStore.counts`).
    pairs : {"leader", "adjacent"}, default "leader"
        ``"leader"``: the leader against every model it was compared with (directly or through
        others); the lead is the challenger needing the fewest removals. ``"adjacent"``: each
        model against the next one down the leaderboard.
    kind : {"remove", "flip"}, default "remove"
        ``"remove"``: verdicts are taken out of the table. ``"flip"``: verdicts are reversed, as a
        judge error or an adversarial judge would: a win for one model becomes a win for the other
        (a loss for the model it favoured), and a tie becomes a win for either of the two. A
        verdict is flipped at most once; a win is never softened to a tie. Every count below
        (``max_drop``, ``n_drop``) then counts verdicts flipped.
    max_drop : int, optional
        The most calls removed (or flipped) per pair. Default: 1% of the calls, at least 10 (at most all).
    exhaustive : int, default 2000
        Largest number of candidate removals refitted to prove that no smaller set flips an
        order (all removals of 1 call, then of 2, …, while the count fits); ``0`` turns it off.
    max_listed : int, default 100
        Most concrete calls named per pair (the outcome summary always covers the whole set).

    Returns
    -------
    RankingFragility
        One :class:`PairFragility` per pair (the calls responsible, named by instruction, slot-A
        model, slot-B model and level; whether the set is proven smallest), and ``headline()``.

    Notes
    -----
    Ratings are refitted after each removal exactly as the leaderboard fits them: the plain
    maximum-likelihood Bradley–Terry fit with ties as half wins, or with a weak prior (one virtual
    tie per model) where the data leave a rating infinite. A flip means the model behind rates
    strictly above the model ahead (by more than 10⁻⁶ Elo); an exact tie is not a flip. Every
    flip reported is verified by a refit; a set is *proven* smallest only where the exhaustive
    search covered every smaller size, otherwise it is the smallest the guided search found (an
    upper bound). Calls with the same models and outcome are interchangeable for the fit. In
    ``"leader"`` mode, once some rival takes the lead with k calls, the other rivals are searched
    up to 2k + 10 calls only (their ``max_drop`` says so).

    Flipping a call changes the score equations of its two models by its whole score (a removal
    by its score less the predicted probability p), so to first order one flip of a win for the
    model ahead moves the gap as far as 1 / (1 − p) removals: about two where the two models are
    close (p near ½). The same greedy, refit-verified and exhaustive search runs on flips, so a
    lead resting on k removals usually rests on about k / 2 flips; for two models alone exactly
    ⌈k / 2⌉. The first-order step is the one Broderick, Giordano & Meager derive for dropping
    data, applied to a change of outcome instead of a removal.

    References
    ----------
    Huang, Shen, Wei & Broderick, "Dropping Just a Handful of Preferences Can Change Top Large
    Language Model Rankings", arXiv:2508.11847 (2025).
    Broderick, Giordano & Meager, "An Automatic Finite-Sample Robustness Metric: When Can Dropping
    a Little Data Make a Big Difference?", arXiv:2011.14999 (2020; 2023).

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("a", "b"), instructions=("q1", "q2"), judge=None,
    ...     inst=[0, 1], a=[0, 0], b=[1, 1], n=[[2, 0, 0, 0, 3], [0, 2, 0, 3, 0]])
    >>> result = ranking_fragility(c)
    >>> result.lead.n_drop
    3
    >>> result.headline()
    'The lead of a rests on 3 verdicts (30% of all 10): removing them puts b ahead; no smaller set does.'
    """
    with single_blas_thread():  # thousands of small refits: one BLAS thread is far faster
        return _ranking_fragility(
            counts, pairs=pairs, kind=kind, max_drop=max_drop, exhaustive=exhaustive, max_listed=max_listed
        )


def _ranking_fragility(
    counts: VerdictCounts,
    *,
    pairs: PairsMode,
    kind: Kind,
    max_drop: int | None,
    exhaustive: int,
    max_listed: int,
) -> RankingFragility:
    if not isinstance(counts, VerdictCounts):
        raise UsageError(f"counts must be VerdictCounts, not {type(counts).__name__}.")
    if pairs not in ("leader", "adjacent"):
        raise UsageError(f"pairs must be 'leader' or 'adjacent', not {pairs!r}.")
    if kind not in ("remove", "flip"):
        raise UsageError(f"kind must be 'remove' or 'flip', not {kind!r}.")
    exhaustive = check_int("exhaustive", exhaustive, low=0)
    max_listed = check_int("max_listed", max_listed, low=0)
    n_calls = counts.calls
    if counts.n_models < 2 or n_calls == 0:
        raise UsageError(
            "Fragility needs verdicts between at least two different models; this selection has "
            f"{fmt_count(counts.n_models, 'model')} and {fmt_count(n_calls, 'verdict')}."
        )
    check_models(
        counts.n_models,
        limit=MAX_MODELS,
        analysis="The fragility search refits the ranking hundreds of times",
        measured="on 300 it took up to half a minute",
        instead="The leaderboard's intervals and rank ranges say how sure the order is; a smaller "
        "selection (one category, or fewer models) can be searched.",
    )
    if max_drop is None:
        max_drop = min(n_calls, max(10, math.ceil(0.01 * n_calls)))
    max_drop = min(check_int("max_drop", max_drop, low=1), n_calls)

    out = Outcomes(counts, kind)
    graph = comparison_graph(out.wins, counts.models)
    prior = 0.0 if graph.mle_exists else 1.0
    theta, _ = fit_bradley_terry(out.wins, prior_games=prior)
    ratings = ELO_SCALE * theta
    order = _leaderboard_order(ratings, graph.pieces, counts.models)
    piece = graph.pieces
    if pairs == "leader":
        top = order[0]
        todo = [(top, k) for k in order[1:] if piece[k] == piece[top]]
    else:
        todo = [(x, y) for x, y in itertools.pairwise(order) if piece[x] == piece[y]]

    search = Search(out, theta, prior, max_drop, n_calls)
    # The first-order influence on the full data, for every pair with one factorisation.
    directions = np.zeros((counts.n_models, len(todo)))
    for k, (i, j) in enumerate(todo):
        directions[i, k], directions[j, k] = 1.0, -1.0
    delta0 = out.influence(out.wins, theta, prior, directions)
    best: list[np.ndarray | None] = [None] * len(todo)
    first: list[tuple[int | None, bool | None]] = [(None, None)] * len(todo)
    budgets = [max_drop] * len(todo)
    # In leader mode the challengers are searched in order of their first-order count, and once
    # one flips the lead with k calls the others are searched up to 2k + 10 calls only: the top
    # spot is decided by the smallest, and far rivals would cost the most refits.
    gaps = [theta[i] - theta[j] for i, j in todo]
    room = out.room(np.zeros(out.size, dtype=np.int64))  # nothing taken yet: the same for every pair
    needs = [take_calls(delta0[:, k], room, gaps[k], max_drop)[2] for k in range(len(todo))]
    order_key = [math.inf if n is None else float(n) for n in needs]
    visit = sorted(range(len(todo)), key=order_key.__getitem__)
    found_k: int | None = None
    for k in visit if pairs == "leader" else range(len(todo)):
        i, j = todo[k]
        if ratings[i] - ratings[j] <= TOLERANCE_ELO:
            best[k] = np.zeros(out.size, dtype=np.int64)
            first[k] = (0, None)
            continue
        if pairs == "leader" and found_k is not None:
            budgets[k] = min(max_drop, 2 * found_k + 10)
        r, need, flips = search.greedy(i, j, delta0[:, k], budgets[k])
        best[k] = r
        first[k] = (need, flips)
        if r is not None:
            found_k = int(r.sum()) if found_k is None else min(found_k, int(r.sum()))
    checked, refits = search.exhaustive(todo, best, exhaustive) if exhaustive else (0, 0)

    index = CellIndex(counts) if any(r is not None and r.any() for r in best) else None
    results = [
        _pair_result(counts, out, index, search, i, j, r, need, flips, checked, ratings, max_listed, budget)
        for (i, j), r, (need, flips), budget in zip(todo, best, first, budgets, strict=True)
    ]
    notes = list(graph.notes(counts.models)[:1]) if graph.n_pieces > 1 else []
    if prior:
        notes.append(
            "The plain maximum-likelihood ratings are not all finite on these verdicts, so they "
            "are held finite by a weak prior (one virtual tie per model), as on the leaderboard; "
            "refits after a removal (or flip) use the same rule."
        )
    results = [replace(r, kind=kind) for r in results]
    return RankingFragility(
        judge=counts.judge,
        mode=pairs,
        leader=counts.models[order[0]],
        n_calls=n_calls,
        max_drop=max_drop,
        pairs=tuple(results),
        notes=tuple(notes),
        exhaustive_refits=refits,
        kind=kind,
    )


def _leaderboard_order(ratings: np.ndarray, pieces: np.ndarray, models: tuple[str, ...]) -> list[int]:
    """Model indices in the leaderboard's order: by piece, rank within the piece, then name."""
    rank = np.empty(ratings.size, dtype=int)
    for p in np.unique(pieces):
        members = np.flatnonzero(pieces == p)
        rank[members] = ranks_descending(ratings[members])
    return sorted(range(ratings.size), key=lambda k: (pieces[k], rank[k], models[k]))


def _pair_result(counts, out, index, search, i, j, removed, need, flips, checked, ratings, listed, budget):
    n_calls = search.n_calls
    models = counts.models
    gap = float(ratings[i] - ratings[j])
    if removed is not None and not removed.any():  # already tied
        return PairFragility(models[i], models[j], gap, 0, 0.0, gap, (), (), 0, 0, None, budget, n_calls)
    if removed is None:
        lower = checked + 1
        return PairFragility(
            models[i], models[j], gap, None, None, None, (), (), lower, need, flips, budget, n_calls
        )
    k = int(removed.sum())
    th, _ = out.refit(removed, search.theta)
    outcomes = tuple(
        DroppedOutcome(
            models[out.cx[c]],
            models[out.cy[c]],
            "tie" if out.tie[c] else "win",
            int(removed[c]),
            int(out.avail[c]),
            models[out.new_winner(c)] if out.kind == "flip" else None,
        )
        for c in np.flatnonzero(removed)
    )
    return PairFragility(
        ahead=models[i],
        behind=models[j],
        gap=gap,
        n_drop=k,
        share=k / n_calls,
        gap_after=float(ELO_SCALE * (th[0, i] - th[0, j])),
        outcomes=outcomes,
        calls=index.name(out, removed, listed),
        lower_bound=min(k, checked + 1),
        first_order_drop=need,
        first_order_flips=flips,
        max_drop=budget,
        n_calls=n_calls,
    )
