"""The default judge: the one a team would publish with, chosen by one rule for every face.

The app's pages, every command (``--judge`` left out) and the HTML report start on the same
judge, :func:`publishing_judge`'s: the judge whose two answer orders most often name the same
winner. A judge that leans on the first slot flips its winner when the answers swap places, and
a judge that answers "tie" whenever unsure gives few decisions at all; both score low, while the
alphabetically first judge (which the faces used to take) may be either.

It sits beside the packages rather than in :mod:`evalcore.judge`: every command calls it, and
importing that package loads the whole spec sheet (and pandas), which ``rank --json`` avoids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from evalcore import quantities as q
from evalcore.counts import VerdictCounts
from evalcore.errors import UsageError
from evalcore.schema import LEVELS

if TYPE_CHECKING:
    from evalcore.counts import CountSource

__all__ = ["JudgeChoice", "publishing_judge", "same_winner_share", "SAME_WINNER"]

_SIGN = np.sign(np.asarray(LEVELS))
#: SAME_WINNER[k, l] = 1 when forward level k and reverse level l (read from the same model's
#: view) name the same winner; a tie in either order is no winner.
SAME_WINNER = ((_SIGN[:, None] * _SIGN[None, :]) > 0).astype(float)


def same_winner_share(counts: VerdictCounts) -> float:
    """The share of pairs judged in both orders whose two orders name the same winner (NaN with
    no such pair): :func:`evalcore.judge.both_orders.paired_verdicts`' pairing (each cell with
    its reverse, ``min`` of their calls, the calls paired at random), computed here without
    the judge package, so that a command that only ranks (``rank --json``) starts without
    pandas."""
    m = max(counts.n_models, 1)
    inst, a, b = (np.asarray(x, dtype=np.int64) for x in (counts.inst, counts.a, counts.b))
    key = (inst * m + a) * m + b  # cells are unique and sorted by (inst, a, b)
    fwd = np.flatnonzero(a < b)
    rkey = (inst[fwd] * m + b[fwd]) * m + a[fwd]
    pos = np.minimum(np.searchsorted(key, rkey), max(key.size - 1, 0))
    found = key[pos] == rkey if key.size else np.zeros(0, bool)
    nf = counts.n[fwd[found]].astype(np.float64)
    nr = counts.n[pos[found]][:, ::-1].astype(np.float64)  # read from the first model's view
    size_f, size_r = nf.sum(axis=1), nr.sum(axis=1)
    pairings = np.minimum(size_f, size_r)
    total = float(pairings.sum())
    if total <= 0:
        return float("nan")
    agree = pairings * np.einsum("rk,kl,rl->r", nf / size_f[:, None], SAME_WINNER, nr / size_r[:, None])
    return float(agree.sum() / total)


@dataclass(frozen=True)
class JudgeChoice:
    """The default judge and why.

    Attributes
    ----------
    judge : str
        The judge every face starts on.
    same_winner : dict
        Per judge, the share of pairs judged in both orders whose two orders name the same winner
        (NaN for a judge with no pair in both orders).
    calls : dict
        Per judge, its calls (the tie-break, and the rule when no judge saw both orders).
    reason : str
        The choice in words, as the faces print it.
    """

    judge: str
    same_winner: dict[str, float]
    calls: dict[str, int]
    reason: str


def publishing_judge(store: CountSource, *, category: str | None = None) -> JudgeChoice:
    """Choose the judge a team would publish with: the most decisive across answer orders.

    The rule: the judge with the highest share of pairs judged in both orders whose two orders
    name the same winner (a flip or a tie in either order does not count); ties between judges go
    to the judge with more calls, then to the name. When no judge has a pair judged in both
    orders, the share cannot be computed, and the judge with the most calls is taken (said in
    :attr:`JudgeChoice.reason`). A single judge is simply that judge.

    Parameters
    ----------
    store : CountSource
        The loaded verdicts.
    category : str, optional
        Choose on one category's verdicts only.

    Returns
    -------
    JudgeChoice

    Raises
    ------
    UsageError
        No verdicts are loaded.

    References
    ----------
    Zheng, L. et al. (2023). Judging LLM-as-a-Judge with MT-Bench and Chatbot Arena. NeurIPS
    Datasets and Benchmarks (the swap of answer positions as a check of a judge's consistency).

    Examples
    --------
    >>> import pandas as pd
    >>> rows = pd.DataFrame({
    ...     "instruction_id": ["q1", "q1", "q1", "q1"],
    ...     "model_a": ["x", "y", "x", "y"], "model_b": ["y", "x", "y", "x"],
    ...     "judge": ["aa-first-slot", "aa-first-slot", "steady", "steady"],
    ...     "verdict": [2, 2, 2, -2]})
    >>> from evalcore.store.store import VerdictStore
    >>> publishing_judge(VerdictStore.from_frame(rows)).judge
    'steady'
    """
    judges = store.judges()
    if not judges:
        raise UsageError("No verdicts are loaded: load a verdict table first.")
    shares: dict[str, float] = {}
    calls: dict[str, int] = {}
    for judge in judges:
        counts = store.counts(judge=judge, category=category)
        calls[judge] = int(counts.calls)
        shares[judge] = same_winner_share(counts)
    if len(judges) == 1:
        return JudgeChoice(judges[0], shares, calls, f"{judges[0]} is the file's only judge.")
    measured = [j for j in judges if np.isfinite(shares[j])]
    if measured:
        best = min(measured, key=lambda j: (-shares[j], -calls[j], j))
        reason = (
            f"{best} is the judge whose two answer orders most often name the same winner "
            f"({q.format('same_winner_both_orders', shares[best])} of its pairs judged in both "
            f"orders; of {len(judges):,} judges)."
        )
    else:
        best = min(judges, key=lambda j: (-calls[j], j))
        reason = (
            f"{best} is the judge with the most calls ({calls[best]:,}): no judge has a pair "
            "judged in both orders, so which one flips its winner cannot be measured."
        )
    return JudgeChoice(best, shares, calls, reason)
