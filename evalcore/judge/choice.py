"""The default judge: the one a team would publish with, chosen by one rule for every face.

The app's pages, every command (``--judge`` left out) and the HTML report start on the same
judge, :func:`publishing_judge`'s: the judge whose two answer orders most often name the same
winner. A judge that leans on the first slot flips its winner when the answers swap places, and
a judge that answers "tie" whenever unsure gives few decisions at all; both score low, while the
alphabetically first judge (which the faces used to take) may be either.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evalcore import quantities as q
from evalcore.errors import UsageError
from evalcore.judge.both_orders import LEVEL_VALUES, paired_verdicts
from evalcore.store import VerdictStore

__all__ = ["JudgeChoice", "publishing_judge", "SAME_WINNER"]

_SIGN = np.sign(LEVEL_VALUES)
#: SAME_WINNER[k, l] = 1 when forward level k and reverse level l (read from the same model's
#: view) name the same winner; a tie in either order is no winner.
SAME_WINNER = ((_SIGN[:, None] * _SIGN[None, :]) > 0).astype(float)


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


def publishing_judge(store: VerdictStore, *, category: str | None = None) -> JudgeChoice:
    """Choose the judge a team would publish with: the most decisive across answer orders.

    The rule: the judge with the highest share of pairs judged in both orders whose two orders
    name the same winner (a flip or a tie in either order does not count); ties between judges go
    to the judge with more calls, then to the name. When no judge has a pair judged in both
    orders, the share cannot be computed, and the judge with the most calls is taken (said in
    :attr:`JudgeChoice.reason`). A single judge is simply that judge.

    Parameters
    ----------
    store : VerdictStore
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
        paired = paired_verdicts(counts)
        total = float(paired.pairings.sum())
        shares[judge] = float(paired.reduce(SAME_WINNER).sum() / total) if total > 0 else float("nan")
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
