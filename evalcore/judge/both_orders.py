"""The both-orders verdict: one verdict per pair judged with the answers in both slot orders.

For an instruction and an unordered pair judged in both orders, the both-orders verdict is the
verdict both orders agree on, else a tie (Zheng et al. 2023 call this the "conservative" swap
rule; it is the verdict pairwise comparison tools print when they judge both orders). On the
5-level scale "agree" means the two verdicts, read from the same model's point of view, name the
same winner (same sign, neither a tie); the combined verdict is then the *weaker* of the two
magnitudes (+2 and +1 → +1, +2 and +2 → +2). Any tie, or opposite winners, gives a tie. On a
3-level judge this is exactly the rule above. The combined verdict is placed once, with the lower
model index in slot A. Pairs judged in one order only carry no both-orders verdict and are dropped;
:func:`both_orders_summary` counts them.

**Repeated calls.** When one order holds several calls of the same pair (repeated sampling), which
forward call goes with which reverse call is unknown. A cell forms ``min(n_forward, n_reverse)``
pairings, and their joint distribution is the one expected when the calls are paired at random:
the product of the two orders' empirical level distributions. (Pairing the calls in sorted order
instead would make a pure-noise judge look consistent: 0.51 instead of 1/3 on three levels.)

Everything works on the sparse cells of :class:`~evalcore.counts.VerdictCounts`: a cell
(i, a, b) with a < b is matched with cell (i, b, a) by a binary search on the sorted cell keys.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalcore.counts import VerdictCounts
from evalcore.errors import check_int
from evalcore.schema import LEVELS

LEVEL_VALUES = np.asarray(LEVELS)
N_LEVELS = len(LEVELS)
TIE = LEVELS.index(0)


def _combined_level_index() -> np.ndarray:
    """(5, 5) → index of the both-orders verdict for (forward level, reverse level), both read
    from the lower-index model's point of view."""
    out = np.empty((N_LEVELS, N_LEVELS), dtype=int)
    for k, va in enumerate(LEVELS):
        for j, vb in enumerate(LEVELS):
            level = int(np.sign(va)) * min(abs(va), abs(vb)) if va * vb > 0 else 0
            out[k, j] = LEVELS.index(level)
    return out


COMBINED = _combined_level_index()
#: COMBINED_ONEHOT[k, l, c] = 1 when forward level k and reverse level l combine into level c.
COMBINED_ONEHOT = np.eye(N_LEVELS)[COMBINED]
#: The two orders name the same outcome (same winner, or both a tie).
SAME_OUTCOME = (np.sign(LEVEL_VALUES)[:, None] == np.sign(LEVEL_VALUES)[None, :]).astype(float)
#: The two orders give the same level on the full scale.
SAME_LEVEL = np.eye(N_LEVELS)
#: The two orders name opposite winners.
OPPOSITE = ((np.sign(LEVEL_VALUES)[:, None] * np.sign(LEVEL_VALUES)[None, :]) < 0).astype(float)


@dataclass(frozen=True, repr=False)
class PairedVerdicts:
    """Both-orders pairings of a count table, one row per (instruction, unordered pair) cell
    judged in both orders.

    Row ``r`` is instruction ``inst[r]`` and models ``first[r] < second[r]``. ``forward[r]`` is
    the distribution of the calls with ``first`` in slot A over the levels; ``reverse[r]`` the
    distribution of the calls with ``second`` in slot A, read from ``first``'s point of view;
    ``pairings[r] = min(n_forward, n_reverse)``. Under random pairing of the calls the expected
    joint of row r is ``pairings[r] · outer(forward[r], reverse[r])`` (:attr:`joint`).
    ``unpaired`` counts calls left without a partner in the other order.
    """

    inst: np.ndarray
    first: np.ndarray
    second: np.ndarray
    forward: np.ndarray
    reverse: np.ndarray
    pairings: np.ndarray
    unpaired: int

    def __repr__(self) -> str:
        return (
            f"PairedVerdicts({self.inst.size:,} cells, {self.pairings.sum():,.0f} pairings, "
            f"{self.unpaired:,} unpaired calls)"
        )

    @property
    def joint(self) -> np.ndarray:
        """(K, 5, 5) expected pairings per (forward level, reverse level); small tables only."""
        return self.pairings[:, None, None] * self.forward[:, :, None] * self.reverse[:, None, :]

    def reduce(self, matrix: np.ndarray) -> np.ndarray:
        """Per row, the expected pairings weighted by ``matrix[k, l]`` (5 × 5) → (K,)."""
        # two plain products, not an einsum over three operands (several times slower here)
        return self.pairings * ((self.forward @ matrix) * self.reverse).sum(axis=1)

    def combined(self) -> np.ndarray:
        """(K, 5) expected both-orders verdicts per level (lower model index's point of view)."""
        outer = (self.forward[:, :, None] * self.reverse[:, None, :]).reshape(-1, N_LEVELS * N_LEVELS)
        return self.pairings[:, None] * (outer @ COMBINED_ONEHOT.reshape(N_LEVELS * N_LEVELS, N_LEVELS))


def paired_verdicts(counts: VerdictCounts) -> PairedVerdicts:
    """Match every cell (i, a, b), a < b, with its reverse (i, b, a) and pair their calls.

    Parameters
    ----------
    counts : VerdictCounts
        Sparse calls per (instruction, slot-A model, slot-B model, level).

    Returns
    -------
    PairedVerdicts
        The cells judged in both orders with their level distributions (see the class).

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks (the swap of answer positions and the conservative rule).

    Examples
    --------
    >>> import numpy as np
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1",), judge="j",
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 0, 1], [0, 1, 0, 0, 0]])
    >>> p = paired_verdicts(c)
    >>> p.pairings.tolist(), p.unpaired
    ([1.0], 0)
    >>> p.combined().round(3).tolist()  # +2 forward, +1 from x's view in reverse → +1
    [[0.0, 0.0, 0.0, 1.0, 0.0]]
    """
    m = max(counts.n_models, 1)
    inst = counts.inst.astype(np.int64)
    a = counts.a.astype(np.int64)
    b = counts.b.astype(np.int64)
    key = (inst * m + a) * m + b  # sorted: cells are unique and sorted by (inst, a, b)
    fwd = np.flatnonzero(a < b)
    rkey = (inst[fwd] * m + b[fwd]) * m + a[fwd]
    pos = np.searchsorted(key, rkey)
    found = pos < key.size
    found[found] = key[pos[found]] == rkey[found]
    f_idx, r_idx = fwd[found], pos[found]
    nf = counts.n[f_idx].astype(np.float64)
    nr = counts.n[r_idx][:, ::-1].astype(np.float64)  # read from the first model's view
    size_f = nf.sum(axis=1)
    size_r = nr.sum(axis=1)
    pairings = np.minimum(size_f, size_r)
    return PairedVerdicts(
        inst=inst[f_idx],
        first=a[f_idx],
        second=b[f_idx],
        forward=nf / size_f[:, None],
        reverse=nr / size_r[:, None],
        pairings=pairings,
        unpaired=int(counts.calls - 2 * pairings.sum()),
    )


def both_orders_counts(counts: VerdictCounts, *, seed: int = 0) -> VerdictCounts:
    """One both-orders verdict per pairing of the two orders, lower model index in slot A.

    Parameters
    ----------
    counts : VerdictCounts
        Sparse calls per (instruction, slot-A model, slot-B model, level).
    seed : int, default 0
        Only used where one order holds several calls that disagree: the both-orders verdicts of
        such a cell are drawn (reproducibly) from their distribution under random pairing, so the
        table keeps whole calls. A cell with one call per order is exact.

    Returns
    -------
    VerdictCounts
        Sparse counts on the same models and instructions; pairs judged in one order only are
        dropped (:func:`both_orders_summary` says how many calls that is).

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1",), judge="j",
    ...     inst=[0, 0], a=[0, 1], b=[1, 0], n=[[0, 0, 0, 1, 0], [0, 0, 0, 1, 0]])
    >>> both_orders_counts(c).n.tolist()  # x wins in slot A, y wins in slot A → a tie
    [[0, 0, 1, 0, 0]]
    """
    seed = check_int("seed", seed, low=0)
    paired = paired_verdicts(counts)
    expected = paired.combined()
    whole = np.rint(expected)
    exact = np.all(np.abs(expected - whole) < 1e-9, axis=1)
    out = whole.astype(np.int64)
    if not exact.all():
        rows = np.flatnonzero(~exact)
        p = expected[rows] / paired.pairings[rows, None]
        p = np.clip(p, 0.0, None)
        p /= p.sum(axis=1, keepdims=True)
        rng = np.random.default_rng(seed)
        out[rows] = rng.multinomial(paired.pairings[rows].astype(np.int64), p)
    return counts.with_cells(paired.inst, paired.first, paired.second, out)


@dataclass(frozen=True)
class BothOrdersSummary:
    """How many calls the both-orders verdict could use."""

    calls: int
    pairings: int  # both-orders verdicts formed (each uses two calls)
    unpaired_calls: int  # calls dropped: judged in one order only (or surplus repeats)

    @property
    def paired_share(self) -> float:
        return 2 * self.pairings / self.calls if self.calls else float("nan")

    def as_dict(self) -> dict:
        return {
            "calls": self.calls,
            "pairings": self.pairings,
            "unpaired_calls": self.unpaired_calls,
            "paired_share": self.paired_share,
        }


def both_orders_summary(counts: VerdictCounts) -> BothOrdersSummary:
    """Calls, both-orders pairings and the single-order calls the both-orders verdict drops.

    Examples
    --------
    >>> from evalcore.counts import VerdictCounts
    >>> c = VerdictCounts.from_cells(models=("x", "y"), instructions=("q1", "q2"), judge="j",
    ...     inst=[0, 0, 1], a=[0, 1, 0], b=[1, 0, 1],
    ...     n=[[0, 0, 0, 1, 0], [0, 0, 0, 1, 0], [1, 0, 0, 0, 0]])
    >>> both_orders_summary(c)
    BothOrdersSummary(calls=3, pairings=1, unpaired_calls=1)
    """
    paired = paired_verdicts(counts)
    return BothOrdersSummary(
        calls=counts.calls, pairings=int(round(paired.pairings.sum())), unpaired_calls=paired.unpaired
    )
