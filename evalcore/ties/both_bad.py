"""Both bad, kept apart from tie: how many of a judge's ties say that both answers were bad.

Chatbot Arena's voters choose between four answers: the left is better, the right is better,
"tie" and "tie (bothbad)". For a ranking the last two are the same outcome, a tie: neither answer
beat the other, and every analysis counts it as one (half a win, dropped or modelled, as
:mod:`evalcore.ties.conventions` says). What it adds is a fact about the pair's answers, not
about their order: a table where many ties are both bad compares models that often fail the
prompt, and its tie rate says less about how close the models are than about how hard the prompts
were.

The mark is kept per call in the optional ``both_bad`` column (the importer sets it from the
arena's winner; a verdict table may carry the column or the ``tie (bothbad)`` / ``both_bad``
label; see the data contract). :func:`both_bad_share` counts it on the same calls the rankings
read (a verdict, two different models) and reports its share of the ties whose mark is known and
of all verdicts. A table without the mark has no share: it is not zero, it is not known.

References
----------
Chiang, W.-L., Zheng, L., Sheng, Y., Angelopoulos, A. N., Li, T., Li, D., Zhang, H., Zhu, B.,
Jordan, M., Gonzalez, J. E. & Stoica, I. (2024). Chatbot Arena: An open platform for evaluating
LLMs by human preference. *ICML 2024*.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalcore import quantities as q
from evalcore.counts import require_source


@dataclass(frozen=True)
class BothBadShare:
    """Both-bad ties counted on one selection (judge, category).

    ``verdicts``: calls with a verdict (self-comparisons left out); ``ties``: those that are ties;
    ``marked_ties``: ties whose both-bad mark is known; ``both_bad``: ties marked both bad.
    """

    judge: str | None
    category: str | None
    verdicts: int
    ties: int
    marked_ties: int
    both_bad: int

    @property
    def share_of_ties(self) -> float:
        """Both-bad ties over the ties whose mark is known (NaN without any)."""
        return self.both_bad / self.marked_ties if self.marked_ties else float("nan")

    @property
    def share_of_verdicts(self) -> float:
        """Both-bad ties over every verdict (NaN without any)."""
        return self.both_bad / self.verdicts if self.verdicts else float("nan")

    def sentence(self) -> str:
        """One plain sentence with both shares, in the catalogue's names and formats."""
        if not self.marked_ties:
            return "No tie in this selection carries a both-bad mark, so its share is not known."
        unknown = self.ties - self.marked_ties
        tail = f" ({unknown:,} ties without a mark left out)" if unknown else ""
        return (
            f"{q.format('both_bad_share_of_ties', self.share_of_ties)} of the ties "
            f"({self.both_bad:,} of {self.marked_ties:,}{tail}) say both answers were bad, "
            f"{q.format('both_bad_share_of_verdicts', self.share_of_verdicts)} of all "
            f"{self.verdicts:,} verdicts. They count as ties in every ranking here."
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "category": self.category,
            "verdicts": self.verdicts,
            "ties": self.ties,
            "marked_ties": self.marked_ties,
            "both_bad": self.both_bad,
            "both_bad_share_of_ties": self.share_of_ties,
            "both_bad_share_of_verdicts": self.share_of_verdicts,
        }


def both_bad_share(
    source: Any, *, judge: str | None = None, category: str | None = None
) -> BothBadShare | None:
    """How many of the selection's ties are marked both bad.

    Parameters
    ----------
    source
        A store of verdicts (:class:`evalcore.store.store.VerdictStore`).
    judge, category
        The selection (None: every judge, every category).

    Returns
    -------
    BothBadShare or None
        None when the table carries no both-bad mark (no ``both_bad`` column, no ``tie (bothbad)``
        verdict): then nothing is said, since a share of zero would claim what is not known.

    Examples
    --------
    >>> import pandas as pd
    >>> from evalcore.store.store import VerdictStore
    >>> frame = pd.DataFrame({"instruction_id": ["q1", "q2", "q3", "q4"], "model_a": ["a"] * 4,
    ...     "model_b": ["b"] * 4, "verdict": pd.array([1, 0, 0, -1], dtype="Int8"),
    ...     "both_bad": pd.array([False, True, False, False], dtype="boolean")})
    >>> share = both_bad_share(VerdictStore.from_frame(frame))
    >>> share.both_bad, share.marked_ties, share.share_of_ties, share.share_of_verdicts
    (1, 2, 0.5, 0.25)
    """
    require_source(source, needs=("query",), what="both_bad_share")
    got = source.query("both_bad_counts", judge=judge, category=category)
    if got is None:
        return None
    verdicts, ties, marked, both_bad = got
    return BothBadShare(judge, category, verdicts, ties, marked, both_bad)
