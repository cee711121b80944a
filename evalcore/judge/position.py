"""Position bias, slot balance, tie rates and swap consistency of one judge.

- **Position bias** (points): how much more often the judge names slot A than slot B as the
  winner, ×100, measured **only on slot-balanced comparisons**: for every model pair judged in both
  slot orders (pooled over instructions), the mean of P(A wins) − P(B wins) over its two orders,
  each order weighted equally, so the models' own strengths cancel; pairs are then weighted by
  their calls. A pair seen in one order only cannot separate the judge's slot preference from
  which model sat where (an anchor-only table that always shows the reference in slot B would
  otherwise report a large "second-slot preference" for a judge with none), so it is left out,
  and when no pair is seen in both orders position bias is refused (NaN, with the reason).
  On a table where every pair is judged equally often in both orders this equals the raw gap
  ``slot_gap_points`` = 100·(P(slot A wins) − P(slot B wins)) over all calls.
- **Slot balance**: the share of calls in pairs seen in both orders, and an order balance
  1 − Σ|n_ab − n_ba| / Σ(n_ab + n_ba) over unordered pairs (1: each pair equally often in each
  order; 0: each pair in one order only), and the models that only ever sit in one slot.
- **Swap consistency**: the share of both-orders pairings (same instruction, same pair, the two
  orders) whose two verdicts, read from one model's point of view, name the same outcome (same
  winner, or both a tie); the flip rate is its complement. ``swap_consistency_exact`` asks for the
  same level; ``reversal_rate`` is the share with opposite winners. Repeated calls per order are
  paired at random in expectation (see :mod:`evalcore.judge.both_orders`).

Intervals are cluster-robust over instructions and analytic by default (Wilson on the effective
sample size for the shares, the delta method for position bias: :mod:`evalcore.judge._analytic`);
on request, 2.5 and 97.5 percentiles of a bootstrap over instructions, drawn on instruction
patterns in bounded chunks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import check_int
from evalcore.judge import _analytic as analytic
from evalcore.judge._resample import (
    METHOD,
    BalancedPairs,
    interval_from_draws,
    ratios,
    resampled,
)
from evalcore.judge.both_orders import (
    LEVEL_VALUES,
    OPPOSITE,
    SAME_LEVEL,
    SAME_OUTCOME,
    TIE,
    paired_verdicts,
)
from evalcore.judge.order_swap import (
    OrderSwap,
    OrderSwapDraws,
    analytic_bounds,
    order_swap_result,
    pair_values,
)
from evalcore.progress import Progress
from evalcore.slots import UNBALANCED_BELOW, SlotBalance, slot_balance
from evalcore.stats.bootstrap import MAX_ROUNDS
from evalcore.stats.intervals import Estimate
from evalcore.text import fmt_count


# The slot-balance check lives in evalcore.slots (no pandas, no package imports), so the
# leaderboard and the calibration gate use the same check without importing the judge package.
def balance_warnings(balance: SlotBalance, *, most: int = 4) -> list[str]:
    """Plain sentences on what the slot design does not identify (empty when it is balanced)."""
    out: list[str] = []
    if balance.calls == 0:
        return out
    if balance.pairs_both_orders == 0:
        out.append(
            "No model pair was judged in both slot orders (for example, a reference model "
            "always shown in the same slot), so the judge's slot preference cannot be told "
            "apart from the models' strengths: position bias and the slot bias b are not "
            "reported."
        )
    elif balance.balanced_share < 0.999:
        out.append(
            f"Only {balance.balanced_share:.0%} of the calls belong to model pairs judged "
            "in both slot orders; position bias and the slot bias b are measured on those "
            "pairs only."
        )
    if balance.pairs_both_orders and balance.order_balance < UNBALANCED_BELOW:
        out.append(
            f"Slot orders are unbalanced (order balance {balance.order_balance:.2f}, where "
            "1 means every pair is shown equally often in each order): the raw slot A and "
            "slot B win rates mix position with which model sat where; position bias "
            "weighs each pair's two orders equally instead."
        )
    fixed = balance.one_slot_models
    if fixed and balance.pairs_both_orders < balance.pairs:
        names = ", ".join(f"{m} (slot {s}, {fmt_count(n, 'call')})" for m, s, n in fixed[:most])
        more = f" and {len(fixed) - most} more" if len(fixed) > most else ""
        out.append(
            f"Always in the same slot: {names}{more}. Their results cannot separate their "
            "strength from the judge's slot preference."
        )
    return out


@dataclass(frozen=True)
class PositionResult:
    """Position bias, slot balance, tie rates and swap consistency of one judge."""

    calls: int
    position_bias_points: Estimate  # slot-balanced pairs only; NaN when none
    slot_gap_points: float  # raw 100·(P(slot A wins) − P(slot B wins)) over all calls
    slot_a_win_rate: float
    slot_b_win_rate: float
    tie_rate: Estimate  # single-order verdicts
    pairings: int  # both-orders pairings
    unpaired_calls: int
    swap_consistency: Estimate
    swap_consistency_exact: Estimate
    reversal_rate: Estimate
    both_orders_tie_rate: Estimate
    balance: SlotBalance
    design_warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def flip_rate(self) -> Estimate:
        return self.swap_consistency.complement()

    def __repr__(self) -> str:
        return (
            f"PositionResult(position_bias_points={self.position_bias_points!r}, "
            f"swap_consistency={self.swap_consistency!r}, calls={self.calls:,})"
        )


def balanced_position_bias(n: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Position bias (a fraction) from calls ``n`` and slot-A-minus-slot-B wins ``d`` (..., P, 2)
    of the pairs seen in both orders: each pair contributes the mean of its two orders' d/n,
    weighted by its calls; a pair missing an order (in a bootstrap round) drops out; NaN when
    none is left."""
    both = (n > 0).all(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = d / np.where(n > 0, n, 1.0)
        pair = np.where(both, 0.5 * (rate[..., 0] + rate[..., 1]), 0.0)
        w = np.where(both, n.sum(axis=-1), 0.0)
        total = w.sum(axis=-1)
        return np.where(total > 0, (pair * w).sum(axis=-1) / np.where(total > 0, total, 1.0), np.nan)


def position_stats(
    counts: VerdictCounts, *, rounds: int = 2000, seed: int = 0, interval: str = analytic.DEFAULT_INTERVAL
) -> PositionResult:
    """Position bias (on slot-balanced pairs), tie rates and swap consistency with intervals.

    Parameters
    ----------
    counts : VerdictCounts
        One judge's sparse counts.
    rounds : int, default 2000
        Bootstrap rounds over instructions (0: no intervals), with ``interval="bootstrap"``.
    seed : int, default 0
        Seed of the bootstrap.
    interval : {"analytic", "bootstrap"}, default "analytic"
        Cluster-robust analytic intervals over instructions (Wilson on the effective sample size
        for the shares, the delta method for position bias; :mod:`evalcore.judge._analytic`),
        or percentiles of a bootstrap over instructions.

    Returns
    -------
    PositionResult

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks (position bias and the swap of answer positions).
    Wang, P. et al. (2024). Large Language Models are not Fair Evaluators. ACL.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1", "q2"), judge="j",
    ...     inst=[0, 0, 1, 1], a=[0, 1, 0, 1], b=[1, 0, 1, 0],
    ...     n=[[0, 0, 0, 1, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 0], [0, 1, 0, 0, 0]])
    >>> p = position_stats(c, rounds=0)
    >>> round(p.position_bias_points.value, 1), p.swap_consistency.value
    (50.0, 0.5)
    """
    return position_and_order_swap(counts, rounds=rounds, seed=seed, interval=interval)[0]


def position_and_order_swap(
    counts: VerdictCounts,
    *,
    rounds: int = 2000,
    seed: int = 0,
    progress: Progress | None = None,
    interval: str = analytic.DEFAULT_INTERVAL,
) -> tuple[PositionResult, OrderSwap]:
    """:func:`position_stats` and :func:`~evalcore.judge.order_swap.order_swap` from one pass
    of bootstrap weights (the same numbers as calling each, in about a third of the time on a
    large table, where drawing the weights dominates).

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> from evalcore.judge.order_swap import order_swap
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1", "q2"), judge="j",
    ...     inst=[0, 1], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 0, 1], [0, 0, 0, 1, 0]])
    >>> p, o = position_and_order_swap(c, rounds=50, interval="bootstrap")
    >>> o.b == order_swap(c, rounds=50, interval="bootstrap").b
    True
    """
    rounds = check_int("rounds", rounds, low=0, high=MAX_ROUNDS)
    seed = check_int("seed", seed, low=0)
    exact = analytic.check_interval(interval) == "analytic"
    rounds = 0 if exact else rounds
    rep, mult = counts.pattern_counts()
    s = rep.n_instructions
    levels = rep.per_instruction_levels().astype(np.float64)  # (S, 5)
    paired = paired_verdicts(rep)

    def per_pattern(values: np.ndarray) -> np.ndarray:
        return np.bincount(paired.inst, weights=values, minlength=s)

    table = (
        np.column_stack(
            [
                levels.sum(axis=1),
                levels[:, TIE],
                per_pattern(paired.pairings),
                per_pattern(paired.reduce(SAME_OUTCOME)),
                per_pattern(paired.reduce(SAME_LEVEL)),
                per_pattern(paired.reduce(OPPOSITE)),
                per_pattern(paired.combined()[:, TIE]),
            ]
        )
        if s
        else np.zeros((0, 7))
    )
    # per ordered pair: verdict sums and calls (order swap), slot-A minus slot-B wins (position)
    cell = rep.n.astype(np.float64)
    values = np.column_stack(
        [pair_values(rep), cell[:, LEVEL_VALUES > 0].sum(axis=1) - cell[:, LEVEL_VALUES < 0].sum(axis=1)]
    )
    pairs = BalancedPairs.of(counts)
    point = pairs.totals(rep, mult, values)  # (3, P, 2)
    bias = float(balanced_position_bias(point[1], point[2]))
    # NaN until drawn: an empty table yields no draws, and NaN draws give NaN bounds
    boot = np.full((rounds, table.shape[1]), np.nan) if rounds else None
    bias_draws = np.full(rounds, np.nan)
    order_draws = OrderSwapDraws(rounds, pairs)
    for start, stop, t, sums in resampled(rep, mult, pairs, values, table, rounds=rounds, seed=seed):
        assert boot is not None  # draws only come when rounds > 0
        boot[start:stop] = sums
        bias_draws[start:stop] = balanced_position_bias(t[:, 1], t[:, 2])
        order_draws.add(start, stop, t[:, 0], t[:, 1])
        if progress is not None:
            progress(stop / rounds, "position bias and the order-swap decomposition")
    total_table = mult @ table if s else np.zeros(table.shape[1])
    shares = [(1, 0), (3, 2), (4, 2), (5, 2), (6, 2)]
    if exact:
        ests = [analytic.share(table[:, i], table[:, j], mult) for i, j in shares]
        bias_est = _analytic_bias(rep, mult, pairs, values, point, bias)
    else:
        ests = ratios(total_table, boot, shares)
        low = high = float("nan")
        if rounds and np.isfinite(bias):
            low, high = (float(x) for x in interval_from_draws(bias_draws))
        bias_est = Estimate(100 * bias, 100 * low, 100 * high, method=METHOD if rounds else "")
    tie, swap, same_level, reversal, bo_tie = ests
    pooled = (mult @ levels) if s else np.zeros(len(LEVEL_VALUES))
    total = float(pooled.sum())
    win_a = float(pooled[LEVEL_VALUES > 0].sum())
    win_b = float(pooled[LEVEL_VALUES < 0].sum())
    balance = slot_balance(counts)
    warnings = balance_warnings(balance)
    pairings = int(round(float(total_table[2]))) if s else 0
    if pairings == 0 and total:
        warnings.append(
            "No pair was judged in both orders on the same instruction: swap "
            "consistency, the flip rate and the both-orders tie rate need both orders "
            "and are not available."
        )
    position = PositionResult(
        calls=int(total),
        position_bias_points=bias_est,
        slot_gap_points=100 * (win_a - win_b) / total if total else float("nan"),
        slot_a_win_rate=win_a / total if total else float("nan"),
        slot_b_win_rate=win_b / total if total else float("nan"),
        tie_rate=tie,
        pairings=pairings,
        unpaired_calls=counts.calls - 2 * pairings,
        swap_consistency=swap,
        swap_consistency_exact=same_level,
        reversal_rate=reversal,
        both_orders_tie_rate=bo_tie,
        balance=balance,
        design_warnings=tuple(warnings),
    )
    found = analytic_bounds(rep, mult, pairs, values, point[:2]) if exact else None
    order = order_swap_result(
        counts, point[:2], pairs, order_draws, rounds=rounds, seed=seed, analytic_result=found
    )
    return position, order


def _analytic_bias(
    rep: VerdictCounts,
    mult: np.ndarray,
    pairs: BalancedPairs,
    values: np.ndarray,
    point: np.ndarray,
    bias: float,
) -> Estimate:
    """Position bias (points) with its delta-method interval, cluster-robust over instructions:
    the call-weighted mean over pairs of the mean of the two orders' (slot A − slot B wins)/calls."""
    if not np.isfinite(bias):
        return Estimate(float("nan"))
    group, one = np.zeros(pairs.size, dtype=np.int64), np.ones(pairs.size)
    _, dx, dn = analytic.pair_mean(point[1], point[2], reverse_sign=1.0, group=group, sign=one, n_groups=1)
    u = analytic.pair_influence(
        rep.inst.astype(np.int64), pairs.slot(rep.a, rep.b), values[:, 2], values[:, 1], dx, dn, group,
        n_patterns=rep.n_instructions, n_groups=1, n_pairs=pairs.size,
    )  # fmt: skip
    return analytic.wald(bias, float(analytic.sparse_variance(u, mult)[0]), scale=100.0)
