"""Several judges, one ranking: Bradley–Terry with a reliability and a slot lean per judge.

Judge ``j`` puts the model in slot A ahead of the model in slot B with probability

    P(A over B | judge j) = logistic(s_j · (θ_A − θ_B) + γ_j)

(ties count half, as in the one-judge leaderboard). θ are the models' strengths, shared by every
judge; ``s_j ≥ 0`` is the judge's reliability — how sharply its verdicts follow the strength gap
(a noisy judge's verdicts are nearly coin flips, s_j small; a sharp one's follow the gap, s_j
large) — and γ_j its lean towards slot A. This is the judge-aware Bradley–Terry model with a
discrimination per judge of Qian, Sun, Gales & Knill, "Who can we trust? LLM-as-a-jury for
comparative assessment" (2026, "BT-σ") and of Xu, Tan, Wu & Zhou, "A judge-aware ranking
framework for evaluating large language models without ground truth" (2026), plus the
order (home-advantage) term of Agresti, "Categorical Data Analysis" (2002) per
judge. The reliabilities are found from the judges' agreement with each other, without labels;
the scale is fixed by the judges' mean reliability being 1, so with identical judges (and no
lean) every weight is 1 and the ratings are the plain Bradley–Terry ratings.

The fit alternates a Newton step for θ — the information being a graph Laplacian weighted by
Σ_j s_j² p(1 − p), solved directly below
:data:`~evalcore.ranking.sparse_fit.SPARSE_FROM_MODELS` models
(:func:`evalcore.ranking.sparse_fit.solve_information_dense`) and over the compared pairs by
conjugate gradients from there (:func:`evalcore.ranking.sparse_fit.solve_information`) — with a
2 × 2 Newton step for each judge's (s_j, γ_j).
The 95% intervals are percentiles of a bootstrap over instructions (an instruction judged by
several judges is drawn with all its verdicts), each round refitted from the full fit.

A guard keeps one one-sided judge from taking over (in words, on screen and in ``notes``):

* a judge is left out when its reliability is not identified: fewer than ``min_verdicts``
  decisive verdicts, or at least 99% of them for one slot (its lean explains everything, and
  nothing is left to measure how well it ranks);
* the lean term absorbs a slot preference instead of reading it as a model difference;
* a reliability is never negative (a judge that runs against the others gets weight 0) and
  never above ``max_weight`` times the median of the other judges' (a judge whose verdicts the
  ratings separate perfectly — for instance one that always picks the same model where the
  others agree it is best — would otherwise get an unbounded weight).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from evalcore.errors import UsageError, check_int
from evalcore.progress import Progress
from evalcore.ranking.bradley_terry import (
    ELO_CENTRE,
    ELO_SCALE,
    Solver,
    comparison_graph,
    fit_bradley_terry,
    ranks_descending,
)
from evalcore.ranking.judges_fit import (
    decisive_calls,
    fit_judge_aware,
    pooled_from_sums,
    robust_start,
    sig,
    verdict_rows,
)
from evalcore.stats.bootstrap import (
    bootstrap_weights,
    entries_operand,
    percentile_interval,
    weighted_totals,
)
from evalcore.stats.kendall import kendall_tau
from evalcore.stats.threads import single_blas_thread

if TYPE_CHECKING:
    import pandas as pd

    from evalcore.counts import VerdictCounts

METHOD = (
    "judge-aware Bradley–Terry: a reliability and a slot lean per judge (Qian, Sun, Gales & Knill "
    "2026; Xu, Tan, Wu & Zhou 2026); 95% intervals: 2.5–97.5 percentiles of a bootstrap over "
    "instructions"
)
#: A judge with this share or more of its decisive verdicts for one slot is left out.
ONE_SLOT_SHARE = 0.99
#: Above this many calls the pooled ranking's bootstrap (one refit of the judge-aware model per
#: round) takes seconds, not a blink: a page shows the fit first and resamples on request
#: (:func:`intervals_by_default`). The bundled demo (342,000 calls) stays below.
BOOTSTRAP_CALLS_LIMIT = 500_000


def intervals_by_default(calls: int) -> bool:
    """Whether a page computes the pooled ranking's bootstrap intervals without being asked: on
    tables of at most :data:`BOOTSTRAP_CALLS_LIMIT` calls (the refits are quick there).

    >>> intervals_by_default(342_000), intervals_by_default(866_250)
    (True, False)
    """
    return int(calls) <= BOOTSTRAP_CALLS_LIMIT


@dataclass(frozen=True)
class JudgeWeight:
    """One judge in the pooled ranking.

    ``weight`` is its reliability s_j (mean over the used judges = 1; 0 when left out),
    ``weight_low``/``weight_high`` its 95% bootstrap interval; ``lean`` the chance it gives slot
    A between two equal models (0.5 = no lean); ``share`` its share of the pooled information
    (Σ s_j² p(1 − p) over its calls); ``tau`` Kendall's tau-b between its own one-judge ranking
    and the pooled one; ``status`` "used", "capped" (weight held at the bound) or "left out";
    ``reason`` says why in words.
    """

    judge: str
    verdicts: int
    weight: float
    weight_low: float
    weight_high: float
    lean: float
    share: float
    tau: float
    status: str
    reason: str = ""
    certified: bool | None = None
    certification: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "decisive_verdicts": self.verdicts,
            "weight": self.weight,
            "weight_low": self.weight_low,
            "weight_high": self.weight_high,
            "slot_lean": self.lean,
            "information_share": self.share,
            "tau_with_pooled": self.tau,
            "status": self.status,
            "reason": self.reason,
            "certified": self.certified,
            "certification": self.certification,
        }


@dataclass(frozen=True, repr=False)
class JudgePooling:
    """The pooled ranking of several judges, each judge's weight, and the comparisons.

    ``columns``: rank, model, rating, ci_low, ci_high (Elo scale, mean 1000), plain_rating and
    plain_rank (every judge's verdicts pooled with equal weight, judges left out too), rank_change (plain rank minus
    pooled rank: positive = the model moves up when judges are weighted). ``tau_plain`` is
    Kendall's tau-b between the pooled and the plainly pooled ratings; ``moves`` the models whose
    rank changes most between them, biggest first.
    """

    models: tuple[str, ...]
    columns: dict[str, np.ndarray]
    judges: tuple[JudgeWeight, ...]
    tau_plain: float
    moves: tuple[tuple[str, int, int], ...]
    rounds: int
    seed: int
    n_instructions: int
    lean: bool
    max_weight: float
    converged: bool
    notes: tuple[str, ...] = ()
    samples: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))

    def __repr__(self) -> str:
        used = sum(j.status != "left out" for j in self.judges)
        return f"JudgePooling({len(self.models)} models, {used} of {len(self.judges)} judges used)"

    @cached_property
    def table(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(self.columns)

    @property
    def judge_weights(self) -> dict[str, float]:
        return {j.judge: j.weight for j in self.judges}

    def sentence(self) -> str:
        """One line for the report: who leads, how the judges are weighted, how it differs."""
        top = str(self.columns["model"][0])
        weights = ", ".join(f"{j.judge} {j.weight:.2f}" for j in self.judges)
        left = [j.judge for j in self.judges if j.status == "left out"]
        out = (
            f"Pooling {len(self.judges)} judges by their estimated reliability ({weights}), "
            f"{top} ranks first; Kendall's tau with the plainly pooled ranking is {self.tau_plain:.2f}."
        )
        if left:
            out += f" Left out: {', '.join(left)}."
        return out

    def as_dict(self) -> dict[str, Any]:
        cols = self.columns
        return {
            "method": METHOD,
            "models": [
                {
                    "rank": int(cols["rank"][k]),
                    "model": str(cols["model"][k]),
                    "pooled_rating": float(cols["rating"][k]),
                    "ci_low": float(cols["ci_low"][k]),
                    "ci_high": float(cols["ci_high"][k]),
                    "plain_rating": float(cols["plain_rating"][k]),
                    "plain_rank": int(cols["plain_rank"][k]),
                    "rank_change": int(cols["rank_change"][k]),
                }
                for k in range(len(cols["model"]))
            ],
            # a list, not a mapping: judge names are data, never keys
            "judge_weights": [{"judge": j.judge, "weight": j.weight} for j in self.judges],
            "judges": [j.as_dict() for j in self.judges],
            "tau_plain_pooled": self.tau_plain,
            "moves": [{"model": m, "rank": r, "plain_rank": p} for m, r, p in self.moves],
            "rounds": self.rounds,
            "seed": self.seed,
            "instructions": self.n_instructions,
            "lean_fitted": self.lean,
            "max_weight": self.max_weight,
            "converged": self.converged,
            "notes": list(self.notes),
        }


@single_blas_thread()  # a thousand small fits: one thread (evalcore.stats.threads)
def judge_pooling(
    counts: Mapping[str, VerdictCounts],
    *,
    rounds: int = 200,
    seed: int = 0,
    lean: bool = True,
    max_weight: float = 4.0,
    min_verdicts: int = 20,
    solver: Solver = "auto",
    progress: Progress | None = None,
) -> JudgePooling:
    """Pool several judges into one ranking, weighting each by its estimated reliability.

    Parameters
    ----------
    counts
        Each judge's counts (``{judge: VerdictCounts}``), for example
        ``{j: store.counts(judge=j) for j in store.judges()}``.
    rounds, seed
        Bootstrap rounds over instructions (0: no intervals) and their seed.
    lean
        Fit a slot lean per judge (default). Without it a judge's slot preference is noise.
    max_weight
        No judge's reliability exceeds this many times the median of the other judges'.
    min_verdicts
        A judge with fewer decisive verdicts is left out (its reliability is not identified).
    solver
        How each fit solves its Newton steps for the ratings (as in
        :func:`~evalcore.ranking.judges_fit.fit_judge_aware`): the same fit either way.
    progress
        ``progress(fraction, label)`` while bootstrapping.

    Returns
    -------
    JudgePooling
        Ratings with 95% intervals, each judge's weight, lean and agreement, and the comparison
        with the plainly pooled ranking. Method: see the module docstring (judge-aware
        Bradley–Terry, Qian et al. 2026; Xu et al. 2026).
    """
    rounds = check_int("rounds", rounds, low=0)
    min_verdicts = check_int("min_verdicts", min_verdicts, low=1)
    if not max_weight > 1:
        raise UsageError(f"max_weight must be above 1 (got {max_weight}).")
    names = tuple(counts)
    if len(names) < 2:
        raise UsageError(
            "pooling judges needs at least two judges; this selection has "
            + (", ".join(names) or "none")
            + ". Rank one judge with the plain leaderboard."
        )
    parts = [counts[j] for j in names]
    models = tuple(sorted({x for c in parts for x in c.models}))
    instructions = tuple(sorted({x for c in parts for x in c.instructions}))
    if len(models) < 2:
        raise UsageError("pooling judges needs verdicts on at least two models.")
    pairs, rows, (k_judge, k_pair, k_sign) = verdict_rows(parts, models, instructions)
    n_j = len(names)

    # which judges can be weighted: enough decisive verdicts, not all for one slot
    a_win = np.bincount(rows.judge, weights=decisive_calls(parts, True), minlength=n_j)
    b_win = np.bincount(rows.judge, weights=decisive_calls(parts, False), minlength=n_j)
    decisive = a_win + b_win
    reasons = _not_identified(a_win, b_win, min_verdicts)
    used = np.array([j not in reasons for j in range(n_j)])
    if used.sum() < 2:
        raise UsageError(
            "fewer than two judges can be weighted: "
            + "; ".join(f"{names[j]} {r}" for j, r in reasons.items())
            + ". Rank a single judge with the plain leaderboard."
        )

    keep_rows = used[rows.judge]
    sums_w = np.bincount(rows.key[keep_rows], weights=rows.wins[keep_rows], minlength=rows.n_keys)
    sums_g = np.bincount(rows.key[keep_rows], weights=rows.games[keep_rows], minlength=rows.n_keys)
    plain_total = pooled_from_sums(pairs, k_pair, k_sign, sums_w, sums_g)
    graph = comparison_graph(plain_total, models)
    prior = 0.0 if graph.mle_exists else 1.0

    def fit(w: np.ndarray, g: np.ndarray, **more: Any):
        return fit_judge_aware(
            pairs,
            k_judge,
            k_pair,
            k_sign,
            w,
            g,
            n_j,
            lean=lean,
            max_weight=max_weight,
            prior_games=prior,
            solver=solver,
            **more,
        )

    every_w = np.bincount(rows.key, weights=rows.wins, minlength=rows.n_keys)
    every_g = np.bincount(rows.key, weights=rows.games, minlength=rows.n_keys)
    start, own = robust_start(pairs, k_judge, k_pair, k_sign, every_w, every_g, used)
    theta, s, gam, converged = fit(
        sums_w, sums_g, start=(start, used.astype(float), np.zeros(n_j)), max_iter=2000
    )
    notes = [f"{names[j]} left out: {r}." for j, r in reasons.items()]
    notes += list(graph.notes(models))
    if not converged:
        notes.append("the fit did not converge within 2,000 steps: read the ratings as approximate.")

    samples = np.empty((0, len(models)))
    s_samples = np.empty((0, n_j))
    if rounds:
        draws, s_draws, slow = [], [], 0
        # each round's sums are one product of its instruction weights with the per-instruction
        # sums (whole and half battles: exact in any order, so the same sums as row by row)
        shape = (len(instructions), rows.n_keys)
        kept = keep_rows.astype(np.float64)
        per_w = entries_operand(rows.inst, rows.key, rows.wins * kept, shape, exact_sums=True)
        per_g = entries_operand(rows.inst, rows.key, rows.games * kept, shape, exact_sums=True)
        row_bytes = 2 * rows.n_keys * 8
        for _, _, w in bootstrap_weights(len(instructions), rounds, seed, row_bytes=row_bytes):
            chunk_w, chunk_g = weighted_totals(w, per_w), weighted_totals(w, per_g)
            for bw, bg in zip(chunk_w, chunk_g, strict=True):
                # each round starts from the full fit: a few steps reach its own maximum
                th_b, s_b, _, ok = fit(bw, bg, start=(theta, s, gam), max_iter=200, tol=1e-7)
                slow += not ok
                draws.append(th_b)
                s_draws.append(s_b)
                if progress is not None:
                    progress(
                        len(draws) / rounds, f"Resampling the instructions: {len(draws):,} of {rounds:,}"
                    )
        samples = ELO_CENTRE + ELO_SCALE * np.array(draws)
        s_samples = np.array(s_draws)
        if slow:
            notes.append(
                f"{slow:,} of {rounds:,} bootstrap rounds had not converged after 200 steps: "
                "the intervals are approximate."
            )
    ratings = ELO_CENTRE + ELO_SCALE * theta
    low, high = percentile_interval(samples) if rounds > 1 else (np.full(ratings.size, np.nan),) * 2
    s_low, s_high = percentile_interval(s_samples) if rounds > 1 else (np.full(n_j, np.nan),) * 2

    # plain pooling: every judge's verdicts alike, the ones left out too (the naive baseline)
    plain_all = pooled_from_sums(pairs, k_pair, k_sign, every_w, every_g)
    plain_prior = 0.0 if comparison_graph(plain_all, models).mle_exists else 1.0
    plain_theta, _ = fit_bradley_terry(plain_all, prior_games=plain_prior)
    plain = ELO_CENTRE + ELO_SCALE * plain_theta
    rank = ranks_descending(ratings)
    plain_rank = ranks_descending(plain)
    # each judge's own ranking (plain Bradley–Terry on its verdicts) against the pooled one
    taus = np.full(n_j, np.nan)
    share = np.zeros(n_j)
    x = k_sign * (theta[pairs.i[k_pair]] - theta[pairs.j[k_pair]])
    p = sig(s[k_judge] * x + gam[k_judge])
    info = np.bincount(k_judge, weights=sums_g * s[k_judge] ** 2 * p * (1 - p), minlength=n_j)
    share = info / info.sum() if info.sum() > 0 else share
    for j in range(n_j):  # each judge's own ranking (plain Bradley–Terry) against the pooled one
        if np.isfinite(own[j]).sum() >= 2:
            taus[j] = float(kendall_tau(own[j], theta))
    bound_hit = np.zeros(n_j, dtype=bool)
    idx = np.flatnonzero(used)
    for k in idx:
        limit = max_weight * float(np.median(s[idx[idx != k]]))
        bound_hit[k] = s[k] > 0 and bool(np.isclose(s[k], limit, rtol=1e-6))
    judges = []
    for j, name in enumerate(names):
        status = "left out" if j in reasons else ("capped" if bound_hit[j] else "used")
        reason = reasons.get(j, "")
        if status == "capped":
            reason = f"weight held at {max_weight:g} times the median of the other judges' weights"
        elif status == "used" and s[j] == 0:
            reason = "its verdicts run against the other judges' ranking: weight 0"
        judges.append(
            JudgeWeight(
                judge=name,
                verdicts=int(decisive[j]),
                weight=float(s[j]),
                weight_low=float(s_low[j]),
                weight_high=float(s_high[j]),
                lean=float(sig(np.array(gam[j]))) if j not in reasons else float("nan"),
                share=float(share[j]),
                tau=float(taus[j]),
                status=status,
                reason=reason,
            )
        )
    order = np.lexsort((np.array(models), -ratings))
    moved = sorted(
        (
            (models[k], int(rank[k]), int(plain_rank[k]))
            for k in range(len(models))
            if rank[k] != plain_rank[k]
        ),
        key=lambda t: (-abs(t[1] - t[2]), t[1]),
    )
    columns = {
        "rank": rank[order],
        "model": np.array(models, dtype=object)[order],
        "rating": ratings[order],
        "ci_low": np.asarray(low)[order],
        "ci_high": np.asarray(high)[order],
        "plain_rating": plain[order],
        "plain_rank": plain_rank[order],
        "rank_change": (plain_rank - rank)[order],
    }
    return JudgePooling(
        models=models,
        columns=columns,
        judges=tuple(judges),
        tau_plain=float(kendall_tau(ratings, plain)),
        moves=tuple(moved[:5]),
        rounds=rounds,
        seed=seed,
        n_instructions=len(instructions),
        lean=lean,
        max_weight=float(max_weight),
        converged=converged,
        notes=tuple(notes),
        samples=samples,
    )


def _not_identified(a_win: np.ndarray, b_win: np.ndarray, min_verdicts: int) -> dict[int, str]:
    """The judges whose reliability the data cannot measure, and why in words."""
    reasons: dict[int, str] = {}
    for j, (a, b) in enumerate(zip(a_win, b_win, strict=True)):
        decisive = a + b
        if decisive < min_verdicts:
            reasons[j] = (
                f"{int(decisive):,} decisive verdicts, fewer than {min_verdicts}: its reliability "
                "cannot be measured"
            )
        elif max(a, b) >= ONE_SLOT_SHARE * decisive:
            reasons[j] = (
                f"picks slot {'A' if a >= b else 'B'} in {100 * max(a, b) / decisive:.1f}% of its decisive "
                "verdicts: its lean explains its verdicts and nothing is left to measure how well it ranks"
            )
    return reasons
