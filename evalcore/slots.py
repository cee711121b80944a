"""How balanced the slot orders of a verdict table are: which model pairs are seen in both slot
orders, the order balance, and the models that only ever sit in one slot.

The one identification check shared by the judge's spec sheet (position bias is refused when no
pair is seen in both orders), the leaderboard (a model that only ever sits in one slot while most
do not is not comparable) and the printed release gate (a pair not seen in both orders in balance
cannot separate the judge's slot preference from strength). It imports neither pandas nor any
analysis package, so ``rank --json`` stays light. :mod:`evalcore.judge.position` re-exports it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalcore.counts import VerdictCounts

#: Below this order balance the raw slot win rates are called out as confounded.
UNBALANCED_BELOW = 0.8
#: Below this many models × models slots per cell the calls are summed per ordered pair of models
#: (a pass over the cells) rather than sorted by pair (:func:`slot_balance`).
PAIR_SLOTS_PER_CELL = 8


@dataclass(frozen=True)
class SlotBalance:
    """How balanced the slot orders of a table are (see the module docstring)."""

    calls: int
    pairs: int  # unordered model pairs with any call
    pairs_both_orders: int  # of which seen in both slot orders
    calls_both_orders: int  # calls of those pairs
    order_balance: float  # 1 − Σ|n_ab − n_ba| / Σ(n_ab + n_ba)
    one_slot_models: tuple[tuple[str, str, int], ...]  # (model, "A" or "B", calls)

    @property
    def balanced_share(self) -> float:
        return self.calls_both_orders / self.calls if self.calls else float("nan")

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "pairs": self.pairs,
            "pairs_both_orders": self.pairs_both_orders,
            "calls_both_orders": self.calls_both_orders,
            "balanced_share": self.balanced_share,
            "order_balance": self.order_balance,
            "one_slot_models": [{"model": m, "slot": s, "calls": n} for m, s, n in self.one_slot_models],
        }


def slot_balance(counts: VerdictCounts) -> SlotBalance:
    """How often each model pair is seen in each slot order, pooled over instructions.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("ref", "x", "y"), instructions=("q1", "q2"),
    ...     judge="j", inst=[0, 1], a=[1, 2], b=[0, 0], n=[[0, 0, 0, 1, 0], [1, 0, 0, 0, 0]])
    >>> s = slot_balance(c)
    >>> s.pairs_both_orders, s.order_balance, s.one_slot_models
    (0, 0.0, (('ref', 'B', 2), ('x', 'A', 1), ('y', 'A', 1)))
    """
    # Per ordered pair (a, b) of the cells, never an (M, M) matrix: a 10,000-model arena's
    # pooled (M, M, levels) array would take 4 GB.
    m = counts.n_models
    a, b = counts.a.astype(np.int64), counts.b.astype(np.int64)
    calls = counts.n.sum(axis=1).astype(np.float64)
    as_a = np.bincount(a, calls, minlength=m)
    as_b = np.bincount(b, calls, minlength=m)
    total = float(calls.sum())
    off = (a != b) & (calls > 0)
    if m * m <= PAIR_SLOTS_PER_CELL * max(a.size, 1):
        # few models for the cells (an arena): calls summed into a slot per ordered pair, the
        # pairs in the order of their keys, as the sort below numbers them
        per = np.bincount((a * m + b)[off], calls[off], minlength=m * m).reshape(m, m)
        met = np.bincount((a * m + b)[off], minlength=m * m).reshape(m, m)
        i, j = np.nonzero(np.triu(met + met.T, k=1))
        forward, backward = per[i, j], per[j, i]
    else:
        lo, hi = np.minimum(a, b)[off], np.maximum(a, b)[off]
        _, pair = np.unique(lo * m + hi, return_inverse=True)
        forward = np.bincount(pair, np.where(a[off] < b[off], calls[off], 0.0))
        backward = np.bincount(pair, np.where(a[off] > b[off], calls[off], 0.0))
    both = (forward > 0) & (backward > 0)
    diff = float(np.abs(forward - backward).sum())
    one = sorted(
        (
            (counts.models[x], "A" if as_a[x] else "B", int(as_a[x] + as_b[x]))
            for x in range(counts.n_models)
            if (as_a[x] + as_b[x]) > 0 and (as_a[x] == 0 or as_b[x] == 0)
        ),
        key=lambda t: -t[2],
    )  # most calls first: an anchor leads the list
    return SlotBalance(
        calls=int(total),
        pairs=int(forward.size),
        pairs_both_orders=int(both.sum()),
        calls_both_orders=int((forward + backward)[both].sum()),
        order_balance=1.0 - diff / total if total else float("nan"),
        one_slot_models=tuple(one),
    )
