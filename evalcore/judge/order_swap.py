"""The order-swap decomposition: a judge's slot bias b and each model's preference q.

With v_fwd the mean slot-A verdict when a model sits in slot A against an opponent and v_rev the
mean slot-A verdict when the two swap places, q = (v_fwd − v_rev)/2 is the preference for the
model net of position and b = (v_fwd + v_rev)/2 the slot-A bias, in verdict units (−2..+2).
Computed per model pair, pooled over instructions. The judge's b is the call-weighted mean of the
pairs' b over pairs seen in both orders (so a table that always puts the stronger model in one
slot does not fake a slot bias); per anchor, q and b are the call-weighted means over the anchor's
opponents seen in both orders (q > 0: the opponents are preferred to the anchor). A pair seen in
one order only identifies neither q nor b and is left out. 95% intervals: the delta method with
a cluster-robust (by instruction) standard error (:mod:`evalcore.judge._analytic`), or on request
2.5 and 97.5 percentiles of a bootstrap over instructions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from evalcore.counts import VerdictCounts
from evalcore.errors import check_int
from evalcore.judge import _analytic as analytic
from evalcore.judge._resample import METHOD, BalancedPairs, interval_from_draws, resampled
from evalcore.judge.both_orders import LEVEL_VALUES
from evalcore.progress import Progress
from evalcore.stats.bootstrap import MAX_ROUNDS
from evalcore.stats.intervals import Z95, Estimate


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
        return (
            f"OrderSwap(b={self.b!r}, pairs_both_orders={self.pairs_both_orders}, "
            f"anchors={len(self.by_anchor)})"
        )


def decompose(
    s: np.ndarray, n: np.ndarray, pairs: BalancedPairs
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """b of the judge (...,), q and b per anchor (..., M) from verdict sums ``s`` and calls ``n``
    (..., P, 2) of the pairs seen in both orders (``[..., p, 0]``: the pair's first model in slot
    A). A pair missing an order (in a bootstrap round) drops out."""
    lead = s.shape[:-2]
    rows = int(np.prod(lead))  # explicit: with no pair, -1 could not be inferred
    s = s.reshape((rows, pairs.size, 2))
    n = n.reshape((rows, pairs.size, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.where(n > 0, s / np.where(n > 0, n, 1.0), np.nan)
    both = np.isfinite(v).all(axis=-1)
    w = np.where(both, n.sum(axis=-1), 0.0)
    b_pair = np.where(both, 0.5 * (v[..., 0] + v[..., 1]), 0.0)
    q_pair = np.where(both, 0.5 * (v[..., 0] - v[..., 1]), 0.0)  # the first model over the second
    first, second = pairs.incidence()
    either = first + second

    def per_model(x: np.ndarray, incidence: sparse.csr_matrix) -> np.ndarray:
        return np.asarray(incidence.T @ x.T).T  # (R, M)

    with np.errstate(invalid="ignore", divide="ignore"):
        b_judge = (w * b_pair).sum(axis=-1) / w.sum(axis=-1)
        den = per_model(w, either)
        # anchor = the second model: its opponent (first) preferred by q; anchor = first: −q
        q_anchor = (per_model(w * q_pair, second) - per_model(w * q_pair, first)) / den
        b_anchor = per_model(w * b_pair, either) / den
    m = pairs.n_models
    return (b_judge.reshape(lead), q_anchor.reshape(lead + (m,)), b_anchor.reshape(lead + (m,)))


def order_swap(
    counts: VerdictCounts,
    *,
    rounds: int = 2000,
    seed: int = 0,
    progress: Progress | None = None,
    interval: str = analytic.DEFAULT_INTERVAL,
) -> OrderSwap:
    """q and b of the order-swap decomposition, with 95% intervals over instructions.

    Parameters
    ----------
    counts : VerdictCounts
        One judge's sparse counts.
    rounds : int, default 2000
        Bootstrap rounds (0: no intervals), with ``interval="bootstrap"`` only.
    seed : int, default 0
        Seed of the bootstrap (the same draws as :func:`~evalcore.judge.position_stats`).
    progress : callable, optional
        ``progress(fraction, text)``.
    interval : {"analytic", "bootstrap"}, default "analytic"
        Delta-method intervals cluster-robust over instructions (immediate), or percentiles of a
        bootstrap over instructions.

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
    pairs = BalancedPairs.of(counts)
    values = pair_values(rep)
    if analytic.check_interval(interval) == "analytic":
        point = pairs.totals(rep, mult, values)
        found = analytic_bounds(rep, mult, pairs, values, point)
        return order_swap_result(counts, point, pairs, None, rounds=0, seed=seed, analytic_result=found)
    draws = OrderSwapDraws(rounds, pairs)
    for start, stop, t, _ in resampled(
        rep, mult, pairs, values, np.zeros((rep.n_instructions, 0)), rounds=rounds, seed=seed
    ):
        draws.add(start, stop, t[:, 0], t[:, 1])
        if progress is not None:
            progress(stop / rounds, "order-swap decomposition")
    return order_swap_result(counts, pairs.totals(rep, mult, values), pairs, draws, rounds=rounds, seed=seed)


def pair_values(rep: VerdictCounts) -> np.ndarray:
    """Per cell: the sum of the verdicts (slot A's view) and the calls, (K, 2)."""
    cell = rep.n.astype(np.float64)
    return np.column_stack([cell @ LEVEL_VALUES.astype(np.float64), cell.sum(axis=1)])


class OrderSwapDraws:
    """Bootstrap draws of b (judge), q and b (per anchor), filled chunk by chunk."""

    def __init__(self, rounds: int, pairs: BalancedPairs) -> None:
        self.pairs = pairs
        self.b = np.full(rounds, np.nan)  # NaN until drawn
        self.q = np.full((rounds, pairs.n_models), np.nan)
        self.anchor_b = np.full((rounds, pairs.n_models), np.nan)

    def add(self, start: int, stop: int, s: np.ndarray, n: np.ndarray) -> None:
        """Draws ``start:stop`` from per-round sums and calls (r, P, 2)."""
        self.b[start:stop], self.q[start:stop], self.anchor_b[start:stop] = decompose(s, n, self.pairs)


def analytic_bounds(
    rep: VerdictCounts, mult: np.ndarray, pairs: BalancedPairs, values: np.ndarray, point: np.ndarray
) -> tuple[Estimate, tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The judge's b with its delta-method interval, and the 95% bounds of q and b per anchor,
    cluster-robust over instructions (:mod:`evalcore.judge._analytic`), from the per-cell values
    (verdict sum, calls) of the instruction patterns ``rep`` and the point totals (2, P, 2)."""
    size, m = pairs.size, pairs.n_models
    slot = pairs.slot(rep.a, rep.b)
    s, n = point[0], point[1]
    inst = rep.inst.astype(np.int64)
    judge_group, one = np.zeros(size, dtype=np.int64), np.ones(size)
    b0, dx, dn = analytic.pair_mean(n, s, reverse_sign=1.0, group=judge_group, sign=one, n_groups=1)
    u = analytic.pair_influence(
        inst, slot, values[:, 0], values[:, 1], dx, dn, judge_group,
        n_patterns=rep.n_instructions, n_groups=1, n_pairs=size,
    )  # fmt: skip
    b = analytic.wald(float(b0[0]), float(analytic.sparse_variance(u, mult)[0]))
    group = np.concatenate([pairs.first, pairs.second])
    out = []
    for reverse_sign, first_sign in ((-1.0, -1.0), (1.0, 1.0)):  # q, then b per anchor
        sign = np.concatenate([np.full(size, first_sign), one])
        mean, dx, dn = analytic.pair_mean(n, s, reverse_sign=reverse_sign, group=group, sign=sign, n_groups=m)
        u = analytic.pair_influence(
            inst, slot, values[:, 0], values[:, 1], dx, dn, group,
            n_patterns=rep.n_instructions, n_groups=m, n_pairs=size,
        )  # fmt: skip
        half = Z95 * np.sqrt(analytic.sparse_variance(u, mult))
        out.append((mean - half, mean + half))
    return b, out[0], out[1]


def order_swap_result(
    counts: VerdictCounts,
    point: np.ndarray,
    pairs: BalancedPairs,
    draws: OrderSwapDraws | None,
    *,
    rounds: int,
    seed: int,
    analytic_result: tuple | None = None,
) -> OrderSwap:
    """The :class:`OrderSwap` from the point totals (2, P, 2) — verdict sums and calls of the
    pairs seen in both orders — and the bootstrap draws, or the analytic intervals
    (:func:`analytic_bounds`)."""
    b0, q0, a0 = decompose(point[0], point[1], pairs)
    # per model from the cells (the pooled (M, M) tables would take gigabytes on an arena of
    # thousands of models); the sums are of integers, exact as the pooled tables' were
    m = counts.n_models
    a, b = counts.a.astype(np.int64), counts.b.astype(np.int64)
    calls = counts.n.sum(axis=1).astype(np.float64)
    verdicts = counts.n.astype(np.float64) @ LEVEL_VALUES.astype(np.float64)
    calls_fwd = np.bincount(b, calls, minlength=m)  # the opponent in slot A
    calls_rev = np.bincount(a, calls, minlength=m)  # the anchor in slot A
    self_met = np.bincount(a[(a == b) & (calls > 0)], minlength=m) > 0  # a model against itself
    opponents = np.bincount(pairs.first, minlength=m) + np.bincount(pairs.second, minlength=m) + self_met
    if analytic_result is not None:
        b_est, (ql, qh), (al, ah) = analytic_result
        b_est = Estimate(float(b0), b_est.low, b_est.high, method=b_est.method)
    else:
        assert draws is not None
        bl, bh = interval_from_draws(draws.b[:, None])
        ql, qh = interval_from_draws(draws.q)
        al, ah = interval_from_draws(draws.anchor_b)
        b_est = Estimate(float(b0), float(bl[0]), float(bh[0]), method=METHOD if rounds else "")
    with np.errstate(invalid="ignore", divide="ignore"):
        v_fwd = np.bincount(b, verdicts, minlength=m) / calls_fwd
        v_rev = np.bincount(a, verdicts, minlength=m) / calls_rev
    table = pd.DataFrame(
        {
            "anchor": list(counts.models),
            "opponents": opponents.astype(int),
            "calls_fwd": calls_fwd.astype(int),
            "calls_rev": calls_rev.astype(int),
            "v_fwd": v_fwd,
            "v_rev": v_rev,
            "q": q0,
            "q_low": ql,
            "q_high": qh,
            "b": a0,
            "b_low": al,
            "b_high": ah,
        }
    )
    table = table[table["opponents"] > 0].reset_index(drop=True)
    return OrderSwap(
        b=b_est,
        pairs_both_orders=pairs.size,
        by_anchor=table,
        rounds=rounds,
        seed=seed,
    )
