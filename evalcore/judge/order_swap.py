"""The order-swap decomposition: a judge's slot bias b and each model's preference q.

With v_fwd the mean slot-A verdict when a model sits in slot A against an opponent and v_rev the
mean slot-A verdict when the two swap places, q = (v_fwd − v_rev)/2 is the preference for the
model net of position and b = (v_fwd + v_rev)/2 the slot-A bias, in verdict units (−2..+2).
Computed per model pair, pooled over instructions. The judge's b is the call-weighted mean of the
pairs' b over pairs seen in both orders (so a table that always puts the stronger model in one
slot does not fake a slot bias); per anchor, q and b are the call-weighted means over the anchor's
opponents seen in both orders (q > 0: the opponents are preferred to the anchor). A pair seen in
one order only identifies neither q nor b and is left out. 95% intervals: 2.5 and 97.5
percentiles of a bootstrap over instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from evalcore.counts import VerdictCounts
from evalcore.errors import check_int
from evalcore.judge._resample import METHOD, interval_from_draws, pair_totals, resampled_pair_totals
from evalcore.judge.both_orders import LEVEL_VALUES
from evalcore.progress import Progress
from evalcore.stats.bootstrap import MAX_ROUNDS
from evalcore.stats.intervals import Estimate


@dataclass(frozen=True, repr=False)
class OrderSwap:
    """Slot bias b (judge-wide) and q, b per anchor, with bootstrap intervals.

    ``by_anchor`` columns: anchor, opponents (seen in both orders), calls_fwd (opponent in slot
    A), calls_rev, v_fwd, v_rev, q, q_low, q_high, b, b_low, b_high (verdict units; q > 0: the
    opponents are preferred to the anchor; b > 0: slot A is favoured).
    """

    b: Estimate
    pairs_both_orders: int  # model pairs seen in both slot orders
    by_anchor: pd.DataFrame
    rounds: int
    seed: int

    def __repr__(self) -> str:
        return (f"OrderSwap(b={self.b!r}, pairs_both_orders={self.pairs_both_orders}, "
                f"anchors={len(self.by_anchor)})")


def decompose(s: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """b of the judge (...,), q and b per anchor (..., M) from per-ordered-pair verdict sums
    ``s`` and calls ``n`` (..., M, M)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(n > 0, s / np.where(n > 0, n, 1.0), np.nan)
    vt = np.swapaxes(v, -1, -2)
    b_pair = 0.5 * (v + vt)
    q_pair = 0.5 * (v - vt)  # q_pair[..., a, b] = preference for a over b
    both = np.isfinite(b_pair)
    w = np.where(both, n + np.swapaxes(n, -1, -2), 0.0)
    m = n.shape[-1]
    wu = w * np.triu(np.ones((m, m)), k=1)
    b0 = np.where(both, b_pair, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        b_judge = (b0 * wu).sum(axis=(-2, -1)) / wu.sum(axis=(-2, -1))
        # per anchor x (last index): opponents (second-to-last index)
        q_anchor = (np.where(both, q_pair, 0.0) * w).sum(axis=-2) / w.sum(axis=-2)
        b_anchor = (b0 * w).sum(axis=-2) / w.sum(axis=-2)
    return b_judge, q_anchor, b_anchor


def order_swap(counts: VerdictCounts, *, rounds: int = 2000, seed: int = 0,
               progress: Progress | None = None) -> OrderSwap:
    """q and b of the order-swap decomposition, with bootstrap-over-instructions intervals.

    Parameters
    ----------
    counts : VerdictCounts
        One judge's sparse counts.
    rounds : int, default 2000
        Bootstrap rounds (0: no intervals).
    seed : int, default 0
        Seed of the bootstrap (the same draws as :func:`~evalcore.judge.position_stats`).
    progress : callable, optional
        ``progress(fraction, text)``.

    Returns
    -------
    OrderSwap

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks (position bias under swapped answer positions).
    Efron, B. & Tibshirani, R. (1993). An Introduction to the Bootstrap. Chapman & Hall.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1", "q2"), judge="j",
    ...     inst=[0, 1], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 0, 1], [0, 0, 0, 1, 0]])
    >>> o = order_swap(c, rounds=0)
    >>> o.b.value  # v(x, y) = +2, v(y, x) = +1: b = 1.5, q(x over y) = 0.5
    1.5
    """
    rounds = check_int("rounds", rounds, low=0, high=MAX_ROUNDS)
    seed = check_int("seed", seed, low=0)
    rep, mult = counts.pattern_counts()
    values = pair_values(rep)
    draws = OrderSwapDraws(rounds, counts.n_models)
    for start, stop, t in resampled_pair_totals(rep, mult, values, rounds=rounds, seed=seed):
        draws.add(start, stop, t[:, 0], t[:, 1])
        if progress is not None:
            progress(stop / rounds, "order-swap decomposition")
    return order_swap_result(counts.models, pair_totals(rep, mult, values), draws,
                             rounds=rounds, seed=seed)


def pair_values(rep: VerdictCounts) -> np.ndarray:
    """Per cell: the sum of the verdicts (slot A's view) and the calls, (K, 2)."""
    cell = rep.n.astype(np.float64)
    return np.column_stack([cell @ LEVEL_VALUES.astype(np.float64), cell.sum(axis=1)])


class OrderSwapDraws:
    """Bootstrap draws of b (judge), q and b (per anchor), filled chunk by chunk."""

    def __init__(self, rounds: int, n_models: int) -> None:
        self.b = np.full(rounds, np.nan)  # NaN until drawn
        self.q = np.full((rounds, n_models), np.nan)
        self.anchor_b = np.full((rounds, n_models), np.nan)

    def add(self, start: int, stop: int, s: np.ndarray, n: np.ndarray) -> None:
        self.b[start:stop], self.q[start:stop], self.anchor_b[start:stop] = decompose(s, n)


def order_swap_result(models: tuple[str, ...], point: np.ndarray, draws: OrderSwapDraws, *,
                      rounds: int, seed: int) -> OrderSwap:
    """The :class:`OrderSwap` from the point totals (2, M, M) — verdict sums and calls per
    ordered pair — and the bootstrap draws."""
    s_tot, n0 = point
    b0, q0, a0 = decompose(s_tot, n0)
    bl, bh = interval_from_draws(draws.b[:, None])
    ql, qh = interval_from_draws(draws.q)
    al, ah = interval_from_draws(draws.anchor_b)
    both = (n0 > 0) & (n0.T > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        v_fwd = s_tot.sum(axis=0) / n0.sum(axis=0)  # the opponent in slot A
        v_rev = s_tot.sum(axis=1) / n0.sum(axis=1)  # the anchor in slot A
    table = pd.DataFrame({
        "anchor": list(models),
        "opponents": both.sum(axis=0).astype(int),
        "calls_fwd": n0.sum(axis=0).astype(int),
        "calls_rev": n0.sum(axis=1).astype(int),
        "v_fwd": v_fwd, "v_rev": v_rev,
        "q": q0, "q_low": ql, "q_high": qh,
        "b": a0, "b_low": al, "b_high": ah,
    })
    table = table[table["opponents"] > 0].reset_index(drop=True)
    return OrderSwap(
        b=Estimate(float(b0), float(bl[0]), float(bh[0]), method=METHOD if rounds else ""),
        pairs_both_orders=int(np.triu(both, k=1).sum()),
        by_anchor=table, rounds=rounds, seed=seed)
