"""The proof that peeking needs a confidence sequence: simulated error rates of a fixed-sample
test re-run at every look against the anytime-valid sequence of :mod:`evalcore.power.monitor`
(Howard, Ramdas, McAuliffe and Sekhon 2021), and the verdicts the sequence needs to decide."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from evalcore.power.monitor import DEFAULT_TUNED_FOR, mixture_radius, mixture_rho


@dataclass(frozen=True)
class PeekingSimulation:
    """Simulated error and stopping under repeated looks (:func:`simulate_peeking`).

    ``fixed_error`` and ``sequence_error``: share of null runs (equal models) in which a look
    declared a difference, with the fixed-sample z test re-run at every look and with the
    confidence sequence. ``median_to_decision``: median verdicts until the sequence decided under
    the alternative (runs not decided by ``max_verdicts`` count as ``max_verdicts``);
    ``fixed_sample_size``: verdicts a fixed-sample two-sided test needs for 80% power there;
    ``decided_share``: alternative runs decided by ``max_verdicts``.
    """

    runs: int
    looks: int
    batch: int
    alpha: float
    edge: float
    fixed_error: float
    sequence_error: float
    median_to_decision: float
    fixed_sample_size: int
    decided_share: float


def _scores(rng: np.random.Generator, shape: tuple[int, int], win: float, tie: float) -> np.ndarray:
    u = rng.random(shape)
    return np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0))


def simulate_peeking(
    *,
    runs: int = 2000,
    looks: int = 100,
    batch: int = 20,
    alpha: float = 0.05,
    tie_share: float = 0.2,
    edge: float = 0.05,
    max_verdicts: int = 20000,
    tuned_for: int = DEFAULT_TUNED_FOR,
    seed: int = 0,
) -> PeekingSimulation:
    """Look after every ``batch`` verdicts, ``looks`` times: how often equal models are declared
    different by the fixed-sample z test re-run at each look and by the confidence sequence; and,
    for a win rate of 0.5 + ``edge``, the median verdicts the sequence needs to decide against the
    fixed-sample test's size for 80% power (verdicts: win, tie (``tie_share``), loss)."""
    from scipy import stats

    rng = np.random.default_rng(seed)
    n = looks * batch
    at = np.arange(batch, n + 1, batch) - 1
    z = stats.norm.ppf(1 - alpha / 2)
    fixed_hits = seq_hits = 0
    half = (1 - tie_share) / 2
    for start in range(0, runs, 250):
        x = _scores(rng, (min(250, runs - start), n), half, tie_share)
        t = np.arange(1, n + 1)
        mean = np.cumsum(x, axis=1) / t
        var = np.maximum(np.cumsum(x * x, axis=1) / t - mean**2, 1e-12)
        zs = (mean[:, at] - 0.5) / np.sqrt(var[:, at] / t[at])
        fixed_hits += int((np.abs(zs) > z).any(axis=1).sum())
        r = mixture_radius(t[at], alpha=alpha, rho=mixture_rho(tuned_for, alpha=alpha))
        seq_hits += int((np.abs(mean[:, at] - 0.5) > r).any(axis=1).sum())
    win = half + edge
    stops = []
    t = np.arange(1, max_verdicts + 1)
    r = mixture_radius(t, alpha=alpha, rho=mixture_rho(tuned_for, alpha=alpha))
    alt_runs = max(runs // 4, 1)
    for start in range(0, alt_runs, 50):
        x = _scores(rng, (min(50, alt_runs - start), max_verdicts), win, tie_share)
        hit = (np.cumsum(x, axis=1) / t - 0.5) > r
        first = np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, max_verdicts)
        stops.extend(first.tolist())
    sd = math.sqrt(win + tie_share / 4 - (0.5 + edge) ** 2)
    fixed_n = math.ceil(((z + stats.norm.ppf(0.8)) * sd / edge) ** 2)
    return PeekingSimulation(
        runs=runs,
        looks=looks,
        batch=batch,
        alpha=alpha,
        edge=edge,
        fixed_error=fixed_hits / runs,
        sequence_error=seq_hits / runs,
        median_to_decision=float(np.median(stops)),
        fixed_sample_size=fixed_n,
        decided_share=float(np.mean(np.asarray(stops) < max_verdicts)),
    )
