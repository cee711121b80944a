"""Known-truth simulations of the judge sheet's analytic intervals, shared by
``tests/judge/test_analytic.py`` and ``benchmarks/bench_judge_intervals.py``.

A judge compares five models in all pairs and both slot orders on every instruction. Calls of
one instruction are correlated, as real ones are: the instruction moves each model's strength
(one draw per model and instruction), the judge's slot preference and its tie band (one draw per
instruction). Verdicts follow an ordered logit on five levels. The true value of each figure is
its value on one very large table from the same design (:func:`truth`, 40,000 instructions); the
intervals are computed on :func:`table` draws of a few dozen instructions and :func:`coverage`
counts how often they contain the truth.

Agreement with humans is simulated the same way: a human label and a judge verdict per call,
both reading the same latent preference with noise, plus a shared error per instruction.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.judge import human_agreement, position_and_order_swap

THETA = np.array([1.6, 0.6, 0.0, -0.8, -1.4])
SLOT = 0.35  # the judge's slot preference (logit)
TIE = 0.6  # half-width of its tie band (logit)
STRONG = 1.6  # where a strong verdict starts beyond the tie band
FIGURES = (
    "position_bias_points",
    "tie_rate",
    "swap_consistency",
    "both_orders_tie_rate",
    "slot_bias_b",
    "anchor_q",
    "anchor_b",
    "agreement",
    "kappa",
)


def _levels(eta: np.ndarray, tie: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Level index 0..4 (−2..+2) of an ordered logit with cut points ±tie and ±(tie + STRONG)."""
    cuts = np.stack([-tie - STRONG, -tie, tie, tie + STRONG], axis=-1)
    cdf = 1.0 / (1.0 + np.exp(-(cuts - eta[..., None])))
    return (rng.random(eta.shape)[..., None] > cdf).sum(axis=-1)


def table(n_instructions: int, seed: int) -> VerdictCounts:
    """One judge's counts: every ordered pair of the five models on every instruction, once."""
    rng = np.random.default_rng(seed)
    m = THETA.size
    a, b = (x.ravel() for x in np.meshgrid(np.arange(m), np.arange(m), indexing="ij"))
    keep = a != b
    a, b = a[keep], b[keep]
    s = n_instructions
    strength = THETA[None, :] + rng.normal(0.0, 0.5, (s, m))
    slot = SLOT + rng.normal(0.0, 0.4, (s, 1))
    tie = TIE * np.exp(rng.normal(0.0, 0.4, (s, 1)))
    eta = strength[:, a] - strength[:, b] + slot
    level = _levels(eta, np.broadcast_to(tie, eta.shape), rng)
    n = np.zeros((s * a.size, 5), dtype=np.int64)
    n[np.arange(n.shape[0]), level.ravel()] = 1
    return VerdictCounts.from_cells(
        models=tuple(f"m{k}" for k in range(m)),
        instructions=tuple(f"q{i}" for i in range(s)),
        judge="j",
        inst=np.repeat(np.arange(s), a.size),
        a=np.tile(a, s),
        b=np.tile(b, s),
        n=n,
    )


def labelled(n_instructions: int, seed: int, pairs: int = 4) -> pd.DataFrame:
    """Labelled rows: ``pairs`` random model pairs per instruction, a human label and a judge
    verdict for each, with an error shared by the instruction's calls."""
    rng = np.random.default_rng(seed)
    s = n_instructions
    a = rng.integers(0, THETA.size, (s, pairs))
    b = (a + rng.integers(1, THETA.size, (s, pairs))) % THETA.size
    latent = THETA[a] - THETA[b] + rng.normal(0.0, 0.8, (s, 1))
    tie = np.full(latent.shape, TIE)
    human = _levels(latent + rng.normal(0.0, 0.5, latent.shape), tie, rng) - 2
    judge = _levels(latent + rng.normal(0.0, 0.7, latent.shape), tie, rng) - 2
    names = np.array([f"m{k}" for k in range(THETA.size)])
    return pd.DataFrame(
        {
            "instruction_id": np.repeat([f"q{i}" for i in range(s)], pairs),
            "model_a": names[a.ravel()],
            "model_b": names[b.ravel()],
            "verdict": pd.array(judge.ravel(), dtype="Int8"),
            "human": pd.array(human.ravel(), dtype="Int8"),
        }
    )


def figures(counts: VerdictCounts, rows: pd.DataFrame | None, *, interval: str = "analytic") -> dict:
    """Each figure of :data:`FIGURES` as (value, low, high); the anchor figures are model m0's."""
    position, order = position_and_order_swap(counts, rounds=200, interval=interval)
    anchor = order.by_anchor.set_index("anchor").loc["m0"]
    out = {
        key: (e.value, e.low, e.high)
        for key, e in (
            ("position_bias_points", position.position_bias_points),
            ("tie_rate", position.tie_rate),
            ("swap_consistency", position.swap_consistency),
            ("both_orders_tie_rate", position.both_orders_tie_rate),
            ("slot_bias_b", order.b),
        )
    }
    out["anchor_q"] = (anchor["q"], anchor["q_low"], anchor["q_high"])
    out["anchor_b"] = (anchor["b"], anchor["b_low"], anchor["b_high"])
    if rows is not None:
        ag = human_agreement(rows, rounds=200, interval=interval)
        out["agreement"] = (ag.agreement.value, ag.agreement.low, ag.agreement.high)
        out["kappa"] = (ag.kappa.value, ag.kappa.low, ag.kappa.high)
    return out


def truth(n_instructions: int = 40_000, seed: int = 123_456) -> dict[str, float]:
    """Every figure on one very large table of the same design (the population value)."""
    found = figures(table(n_instructions, seed), labelled(n_instructions, seed + 1))
    return {key: value for key, (value, _, _) in found.items()}


def coverage(
    replications: int, n_instructions: int, *, seed: int = 0, interval: str = "analytic"
) -> dict[str, float]:
    """The share of ``replications`` tables whose 95% interval contains the true value, per figure."""
    true = truth()
    hits = {key: 0 for key in FIGURES}
    for r in range(replications):
        found = figures(
            table(n_instructions, seed + 2 * r), labelled(n_instructions, seed + 2 * r + 1), interval=interval
        )
        for key, (_, low, high) in found.items():
            hits[key] += int(low <= true[key] <= high)
    return {key: hits[key] / replications for key in FIGURES}
