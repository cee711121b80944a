"""Pilot screening: every candidate anchor's informativeness estimated on a few instructions.

Before judging a whole benchmark against one anchor, judge all pairs of a pool of models on k
instructions (the paper uses k = 10), estimate each candidate's informativeness on them, and keep
the most informative one (Don-Yehiya et al. 2026, §5.3, App. F: Pearson r > 0.86 with the full
data at k = 10). Here the pilot is replayed on the loaded all-pairs table, R times, from its sparse
per-anchor entries.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np
import pandas as pd

from evalcore.anchors.common import all_pairs_ratings, require_all_pairs
from evalcore.anchors.informativeness import informativeness_counts
from evalcore.counts import VerdictCounts
from evalcore.errors import DesignError, check_int
from evalcore.progress import Progress
from evalcore.ranking import ranks_descending
from evalcore.stats.against import disagreements, orders_per_pair, verdicts_against


@dataclass(frozen=True)
class PilotScreening:
    """Informativeness of every candidate anchor estimated on k sampled instructions.

    ``table``: anchor, position, full (informativeness on all data), pilot_mean, pilot_sd,
    pilot_low, pilot_high (2.5/97.5 percentiles over repetitions), bottom_three_rate (share of
    repetitions in which the anchor is among the three least informative), recommended_rate
    (share in which it is the most informative). ``pearson_r``: mean over repetitions of the
    Pearson r between the pilot and full informativeness across anchors (the paper's statistic);
    ``pearson_r_reps`` each repetition's r. ``extremes`` maps the strongest and the weakest model
    of the all-pairs ranking to their bottom-three rate. ``recommended``: the anchor with the
    highest mean pilot informativeness. ``pilot_calls``: judge calls of one pilot (all pairs of
    the pool on k instructions, as in this table's orders).
    """

    k: int
    n_models: int
    repetitions: int
    seed: int
    table: pd.DataFrame
    pearson_r: float
    pearson_r_reps: np.ndarray
    extremes: dict
    recommended: str
    pilot_calls: int

    def __repr__(self) -> str:
        return (
            f"PilotScreening(k={self.k}, repetitions={self.repetitions}, "
            f"pearson_r={self.pearson_r:.3f}, recommended={self.recommended!r})"
        )

    def as_dict(self) -> dict:
        return {
            "k": self.k,
            "n_models": self.n_models,
            "repetitions": self.repetitions,
            "seed": self.seed,
            "pearson_r": self.pearson_r,
            "pearson_r_reps": [float(x) for x in self.pearson_r_reps],
            "extremes": self.extremes,
            "recommended": self.recommended,
            "pilot_calls": self.pilot_calls,
            "anchors": self.table.to_dict(orient="records"),
        }


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of x (R, A) with y (A,), over entries finite in both."""
    keep = np.isfinite(x) & np.isfinite(y)[None, :]
    n = keep.sum(axis=1)
    xs = np.where(keep, x, 0.0)
    ys = np.where(keep, y[None, :], 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mx = xs.sum(1) / n
        my = ys.sum(1) / n
        dx = np.where(keep, x - mx[:, None], 0.0)
        dy = np.where(keep, y[None, :] - my[:, None], 0.0)
        r = (dx * dy).sum(1) / np.sqrt((dx**2).sum(1) * (dy**2).sum(1))
    return np.where(n >= 3, r, np.nan)


def pilot_screening(
    counts: VerdictCounts,
    *,
    k: int = 10,
    n_models: int | None = None,
    repetitions: int = 30,
    seed: int = 0,
    progress: Progress | None = None,
) -> PilotScreening:
    """Screen every candidate anchor on a small pilot.

    In each repetition draw k instructions without replacement (and, with ``n_models``, a random
    pool of that many models as competitors); estimate each anchor's informativeness on them and
    compare with the full data.

    Parameters
    ----------
    counts : VerdictCounts
        An all-pairs table of one judge.
    k : int
        Instructions per pilot, between 1 and the instructions available.
    n_models : int, optional
        Competitors per pilot (at least 3); every model by default.
    repetitions : int
        Pilots drawn (1 to 10,000).
    seed : int
        Seed of the draws.
    progress : callable, optional
        ``progress(fraction, text)``.

    Returns
    -------
    PilotScreening

    Raises
    ------
    NeedsAllPairs
        On a table where some pair of models was never judged.

    References
    ----------
    Don-Yehiya et al., "Mediocrity is the key for LLM as a Judge Anchor Selection", ACL 2026,
    §5.3 and App. F (Table 10).

    Examples
    --------
    >>> from evalcore.simulate.tables import SimulationSpec, simulate
    >>> from evalcore.store.store import VerdictStore
    >>> store = VerdictStore(); store.load(simulate(SimulationSpec(n_models=5, seed=1)).verdicts)
    >>> pilot_screening(store.counts(), k=100, repetitions=2).pearson_r  # every instruction
    1.0
    """
    wins = require_all_pairs(counts, "Pilot screening")
    models = counts.models
    m, n_inst = len(models), counts.n_instructions
    k = check_int("k", k, low=1, high=n_inst)
    pool = m if n_models is None else check_int("n_models", n_models, low=min(3, m), high=m)
    if pool < 3:
        raise ValueError(f"the pool of models must hold between 3 and {m} models")
    repetitions = check_int("repetitions", repetitions, low=1, high=10_000)
    seed = check_int("seed", seed, low=0)
    against = verdicts_against(counts)
    differ, pairs = informativeness_counts(against, np.arange(m))
    if not pairs.any():
        raise DesignError(
            "Pilot screening estimates informativeness, which needs several models judged "
            "against the same anchor on the same instruction; here every instruction has one "
            "battle (as in an arena table)."
        )
    full = differ / np.maximum(pairs, 1)
    rating = all_pairs_ratings(wins, models)
    position = ranks_descending(rating)
    rng = np.random.default_rng(seed)
    inst = np.argsort(rng.random((repetitions, n_inst)), axis=1)[:, :k]  # (R, k)
    chosen = np.argsort(rng.random((repetitions, m)), axis=1)[:, :pool]
    in_pool = np.zeros((repetitions, m), dtype=bool)
    np.put_along_axis(in_pool, chosen, True, axis=1)
    in_pilot = np.zeros((repetitions, n_inst), dtype=bool)
    np.put_along_axis(in_pilot, inst, True, axis=1)
    estimate = np.full((repetitions, m), np.nan)
    n_groups = repetitions * n_inst * 2
    for a in range(m):
        e = against.of(a).per_order()
        rr, ee = np.nonzero(in_pilot[:, e.inst] & in_pool[:, e.model])  # (R, E) for one anchor
        group = (rr * n_inst + e.inst[ee]) * 2 + e.order[ee]
        d, p = disagreements(group, e.total[ee], e.calls[ee], n_groups)
        d = d.reshape(repetitions, -1).sum(axis=1)
        p = p.reshape(repetitions, -1).sum(axis=1)
        estimate[:, a] = np.where(p > 0, d / np.maximum(p, 1), np.nan)
        if progress is not None:
            progress((a + 1) / m, f"anchor {a + 1} of {m}")
    r_reps = pearson_rows(estimate, full)
    filled = np.where(np.isfinite(estimate), estimate, np.inf)
    bottom = np.argsort(filled, axis=1, kind="stable")[:, :3]
    in_bottom = np.zeros((repetitions, m), dtype=bool)
    np.put_along_axis(in_bottom, bottom, True, axis=1)
    top = np.argmax(np.where(np.isfinite(estimate), estimate, -np.inf), axis=1)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an anchor never estimated stays NaN
        mean_est = np.nanmean(estimate, axis=0)
        sd = np.nanstd(estimate, axis=0, ddof=1) if repetitions > 1 else np.full(m, np.nan)
        low, high = np.nanpercentile(estimate, [2.5, 97.5], axis=0)
    table = (
        pd.DataFrame(
            {
                "anchor": list(models),
                "position": position,
                "full": full,
                "pilot_mean": mean_est,
                "pilot_sd": sd,
                "pilot_low": low,
                "pilot_high": high,
                "bottom_three_rate": in_bottom.mean(axis=0),
                "recommended_rate": np.bincount(top, minlength=m) / repetitions,
            }
        )
        .sort_values("position", kind="stable")
        .reset_index(drop=True)
    )
    best, worst = int(np.argmin(position)), int(np.argmax(position))
    orders = orders_per_pair(counts)
    return PilotScreening(
        k=k,
        n_models=pool,
        repetitions=repetitions,
        seed=seed,
        table=table,
        pearson_r=float(np.nanmean(r_reps)) if np.isfinite(r_reps).any() else float("nan"),
        pearson_r_reps=r_reps,
        extremes={
            models[best]: float(in_bottom[:, best].mean()),
            models[worst]: float(in_bottom[:, worst].mean()),
        },
        recommended=models[int(np.nanargmax(mean_est))],
        pilot_calls=k * comb(pool, 2) * orders,
    )
