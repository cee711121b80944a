"""How sure the recommended anchor is: resampling instructions.

The anchor sweep recommends the most informative anchor on the loaded instructions. With few
instructions, or anchors close in informativeness, another draw of instructions would recommend a
different one. This module resamples instructions with replacement (the bootstrap over the
benchmark's unit; Efron and Tibshirani, *An Introduction to the Bootstrap*, 1993) and reports, per
anchor, how often it is the most informative, with 95% percentile intervals for its
informativeness and for its Kendall's tau with the all-pairs ranking (Don-Yehiya et al.,
"Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026, §4.3, §5.3).

Resampling uses instruction patterns (:meth:`~evalcore.counts.VerdictCounts.pattern_counts`) and
chunked weights (:func:`evalcore.stats.bootstrap.bootstrap_weights`), so memory is bounded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.anchors.common import (
    RESAMPLE_PRIOR,
    all_pairs_ratings,
    check_tau,
    design,
    require_models,
    tau_label,
    win_rates,
)
from evalcore.anchors.informativeness import informativeness_counts
from evalcore.anchors.sweep import per_instruction_wins
from evalcore.counts import VerdictCounts
from evalcore.errors import check_int
from evalcore.progress import Progress
from evalcore.ranking import fit_bradley_terry
from evalcore.stats.against import disagreements_per_instruction, pooled_wins, verdicts_against
from evalcore.stats.bootstrap import bootstrap_weights, pattern_operand, percentile_interval, weighted_totals
from evalcore.stats.intervals import Estimate
from evalcore.stats.kendall import kendall_tau
from evalcore.text import fmt_count

#: Below this many instructions no anchor is recommended at all: the paper's pilot uses 10
#: instructions to *screen* anchors, and a recommendation asks for at least twice that. Above it the
#: recommendation is shown with its rate: in simulations with 22 mid-spread models the top anchor
#: was the most informative in only 23–56% of resamples at 10 to 200 instructions, because middle
#: anchors are close in informativeness (a note says so below 50%).
MIN_INSTRUCTIONS = 20
#: Above this many models the per-resample refits for tau intervals are skipped (said in notes):
#: each resample is a Bradley–Terry fit and M anchor rankings, O(M³) per resample.
MAX_TAU_MODELS = 60
METHOD = "bootstrap over instructions (2.5–97.5 percentiles)"


@dataclass(frozen=True)
class AnchorStability:
    """Per anchor: informativeness and tau with 95% intervals, and how often it is the most
    informative anchor across instruction resamples.

    ``table`` columns: anchor, informativeness, informativeness_low, informativeness_high,
    tau_all_pairs, tau_low, tau_high, most_informative_rate. ``recommended`` is the anchor most
    often the most informative (None below :data:`MIN_INSTRUCTIONS` instructions, said in
    ``notes``); ``recommended_rate`` its share of resamples.
    """

    rounds: int
    seed: int
    tau: str
    n_instructions: int
    table: pd.DataFrame
    recommended: str | None
    recommended_rate: float
    notes: tuple[str, ...]
    #: R² of the line of tau_all_pairs on informativeness across anchors, with its interval.
    fit_r2: Estimate = Estimate(float("nan"))

    def __repr__(self) -> str:
        return (
            f"AnchorStability(rounds={self.rounds}, recommended={self.recommended!r}, "
            f"recommended_rate={self.recommended_rate:.2f})"
        )

    def estimate(self, anchor: str, quantity: str = "informativeness") -> Estimate:
        """One anchor's ``"informativeness"`` or ``"tau_all_pairs"`` as an :class:`Estimate`."""
        row = self.table.set_index("anchor").loc[anchor]
        if quantity == "informativeness":
            return Estimate(
                float(row["informativeness"]),
                float(row["informativeness_low"]),
                float(row["informativeness_high"]),
                method=METHOD,
            )
        return Estimate(
            float(row["tau_all_pairs"]), float(row["tau_low"]), float(row["tau_high"]), method=METHOD
        )

    def as_dict(self) -> dict:
        return {
            "rounds": self.rounds,
            "seed": self.seed,
            "tau": tau_label(self.tau),
            "interval_method": METHOD,
            "n_instructions": self.n_instructions,
            "min_instructions": MIN_INSTRUCTIONS,
            "recommended": self.recommended,
            "recommended_rate": self.recommended_rate,
            "notes": list(self.notes),
            "fit_r2": self.fit_r2.as_dict(),
            "anchors": self.table.to_dict(orient="records"),
        }


def anchor_stability(
    counts: VerdictCounts,
    *,
    rounds: int = 200,
    seed: int = 0,
    tau: str = "b",
    with_tau: bool = True,
    progress: Progress | None = None,
) -> AnchorStability:
    """Resample instructions: how often each anchor is the most informative, with intervals.

    Parameters
    ----------
    counts : VerdictCounts
        The sparse counts of one judge (any design; tau needs a table with an all-pairs ranking).
    rounds : int
        Bootstrap resamples (1 to 100,000).
    seed : int
        Seed of the resamples.
    tau : {"b", "a"}
        Kendall's tau variant.
    with_tau : bool, default True
        False: informativeness and the recommendation rate only, without refitting the all-pairs
        ranking in every resample (the Overview's recommended anchor; tau columns are NaN).
    progress : callable, optional
        ``progress(fraction, text)``.

    Returns
    -------
    AnchorStability

    References
    ----------
    Don-Yehiya, Yehudai, Choshen and Abend, "Mediocrity is the key for LLM as a Judge Anchor
    Selection", ACL 2026, §4.3, §5.3. B. Efron and R. Tibshirani, *An Introduction to the
    Bootstrap*, 1993.

    Examples
    --------
    >>> from evalcore.simulate.tables import SimulationSpec, simulate
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore(); store.load(simulate(SimulationSpec(n_models=5, seed=1)).verdicts)
    >>> s = anchor_stability(store.counts(), rounds=50)
    >>> 0 < s.recommended_rate <= 1
    True
    """
    rounds = check_int("rounds", rounds, low=1, high=100_000)
    seed = check_int("seed", seed, low=0)
    check_tau(tau)
    require_models(counts)
    models = counts.models
    m = len(models)
    wins = pooled_wins(counts)
    kind, _ = design(wins, models)
    rates = win_rates(wins)
    cand = np.flatnonzero(np.isfinite(rates).sum(axis=1) >= 2)
    nothing = None
    if not cand.size:
        nothing = "No model met two or more others: no anchor can be assessed."
    elif not informativeness_counts(verdicts_against(counts), cand)[1].any():
        nothing = (
            "No instruction has two models judged against the same anchor (one battle "
            "per prompt, as in an arena table): informativeness, and so a recommended "
            "anchor, cannot be resampled."
        )
    if nothing is not None:
        return AnchorStability(
            rounds=rounds,
            seed=seed,
            tau=tau,
            n_instructions=counts.n_instructions,
            table=pd.DataFrame(
                columns=[
                    "anchor",
                    "informativeness",
                    "informativeness_low",
                    "informativeness_high",
                    "tau_all_pairs",
                    "tau_low",
                    "tau_high",
                    "most_informative_rate",
                ]
            ),
            recommended=None,
            recommended_rate=float("nan"),
            notes=(nothing,),
        )
    reps, mult = counts.pattern_counts()
    against = verdicts_against(reps)
    s = mult.size
    differ = np.zeros((s, cand.size))
    pairs = np.zeros((s, cand.size))
    for j, a in enumerate(cand):
        differ[:, j], pairs[:, j] = disagreements_per_instruction(against.of(int(a)))
    has_info = bool((pairs > 0).any())
    has_tau = bool(with_tau) and kind != "anchor-only" and m >= 3
    notes: list[str] = []
    if not has_info:
        notes.append(
            "No instruction has two models judged against the same anchor: "
            "informativeness, and so a recommended anchor, cannot be resampled."
        )
        has_tau = False  # nothing to recommend: no refits
    elif not has_tau and with_tau:
        notes.append("There is no all-pairs ranking here: tau intervals need an all-pairs table.")
    elif m > MAX_TAU_MODELS:
        has_tau = False
        notes.append(
            f"Tau intervals refit the all-pairs ranking in every resample; with {m} "
            f"models (more than {MAX_TAU_MODELS}) that is left out. Informativeness "
            "intervals and the recommendation rate are shown."
        )
    eye = np.eye(m, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        point_info = (mult @ differ) / (mult @ pairs)
    point_tau = np.full(cand.size, np.nan)
    if has_tau:
        rating = all_pairs_ratings(wins, models)
        point_tau = kendall_tau(np.where(eye, np.nan, rates)[cand], rating[None, :], variant=tau)
        # As in the per-anchor table: fewer than three ranked models say nothing.
        point_tau = np.where(np.isfinite(rates).sum(axis=1)[cand] >= 3, point_tau, np.nan)

    info_r = np.full((rounds, cand.size), np.nan)
    tau_r = np.full((rounds, cand.size), np.nan)
    per_wins = pattern_operand(per_instruction_wins(reps)) if has_tau else None
    row_bytes = (cand.size * m * m * 8 * 4) if has_tau else cand.size * 16
    for start, stop, w in bootstrap_weights(mult, rounds, seed, row_bytes=row_bytes):
        with np.errstate(invalid="ignore", divide="ignore"):
            info_r[start:stop] = (w @ differ) / (w @ pairs)
        if has_tau:
            pw = weighted_totals(w, per_wins).reshape(stop - start, m, m)
            theta, _ = fit_bradley_terry(pw, prior_games=RESAMPLE_PRIOR)
            r = np.where(eye, np.nan, win_rates(pw))[:, cand]  # (r, C, m)
            tau_r[start:stop] = kendall_tau(r, theta[:, None, :], variant=tau)
        if progress is not None:
            progress(stop / rounds, f"resample {stop:,} of {rounds:,}")
    info_low, info_high = percentile_interval(info_r)
    tau_low, tau_high = percentile_interval(tau_r)
    r2_low, r2_high = percentile_interval(_r2_rows(info_r, tau_r))
    fit_r2 = float(_r2_rows(point_info[None, :], point_tau[None, :])[0])
    top_rate = np.zeros(cand.size)
    if has_info:
        filled = np.where(np.isfinite(info_r), info_r, -np.inf)
        ok = np.isfinite(info_r).any(axis=1)
        top_rate = np.bincount(np.argmax(filled[ok], axis=1), minlength=cand.size) / rounds
    table = pd.DataFrame(
        {
            "anchor": [models[a] for a in cand],
            "informativeness": point_info,
            "informativeness_low": info_low,
            "informativeness_high": info_high,
            "tau_all_pairs": point_tau,
            "tau_low": tau_low,
            "tau_high": tau_high,
            "most_informative_rate": top_rate,
        }
    )
    recommended, rate = None, float("nan")
    if has_info and cand.size:
        best = int(np.argmax(top_rate))
        rate = float(top_rate[best])
        if counts.n_instructions < MIN_INSTRUCTIONS:
            notes.append(
                f"Only {fmt_count(counts.n_instructions, 'instruction')}: with fewer than "
                f"{MIN_INSTRUCTIONS} the most informative anchor changes from resample to "
                "resample, so no anchor is recommended. Judge more instructions first."
            )
        else:
            recommended = models[cand[best]]
            if rate < 0.5:
                notes.append(
                    f"{recommended} is the most informative anchor in only {rate:.0%} of "
                    "instruction resamples: the anchors near the top are not separated by these "
                    "data, and any of them is a reasonable choice."
                )
    return AnchorStability(
        rounds=rounds,
        seed=seed,
        tau=tau,
        n_instructions=counts.n_instructions,
        table=table,
        recommended=recommended,
        recommended_rate=rate,
        notes=tuple(notes),
        fit_r2=Estimate(fit_r2, float(r2_low), float(r2_high), method=METHOD),
    )


def _r2_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per row, R² of the least-squares line of y on x over the anchors finite in both (the
    squared Pearson r); NaN with fewer than three anchors or no spread."""
    keep = np.isfinite(x) & np.isfinite(y)
    n = keep.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = np.where(keep, x, 0.0).sum(axis=1) / n
        my = np.where(keep, y, 0.0).sum(axis=1) / n
        dx = np.where(keep, x - mx[:, None], 0.0)
        dy = np.where(keep, y - my[:, None], 0.0)
        r = (dx * dy).sum(axis=1) / np.sqrt((dx**2).sum(axis=1) * (dy**2).sum(axis=1))
    return np.where(n >= 3, r**2, np.nan)
